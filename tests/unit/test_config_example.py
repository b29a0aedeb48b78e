"""config.example.yml lists every setting with its default, and loads cleanly."""

from __future__ import annotations

from pathlib import Path

import yaml

from flapjack_py.config.settings import Config, load_config

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.yml"


def test_example_loads_and_every_core_setting_is_its_default() -> None:
    raw = yaml.safe_load(EXAMPLE.read_text())
    loaded = load_config(raw)
    defaults = Config()
    for section in ("redis", "executive", "web", "logging", "watchdog", "schedules", "analytics"):
        names = set(type(getattr(defaults, section)).model_fields)
        assert set(raw[section]) == names, f"{section}: example and defaults list different settings"
        assert getattr(loaded, section) == getattr(defaults, section), section


def test_example_lists_every_gateway_with_enabled_and_retries() -> None:
    raw = yaml.safe_load(EXAMPLE.read_text())
    for medium, settings in raw["gateways"].items():
        assert settings["enabled"] is False, medium
        assert "retries" in settings, medium


def test_example_lists_every_receiver_setting_with_its_default() -> None:
    raw = yaml.safe_load(EXAMPLE.read_text())["receivers"]
    defaults = Config().receivers
    assert load_config({"receivers": raw}).receivers == defaults
    for name, field in type(defaults).model_fields.items():
        key = field.alias or name
        if isinstance(getattr(defaults, name), dict):  # webhooks: none by default, examples commented out
            assert raw[key] == {}, key
            continue
        assert set(raw[key]) == set(type(getattr(defaults, name)).model_fields), key
