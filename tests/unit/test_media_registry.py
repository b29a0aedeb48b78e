"""The gateways' registry (flapjack_py.config.media): a gateway declared in one place, its module and an entry
point, is known to config validation, the notifier, the rules and the worker; nothing else lists media."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from datetime import UTC
from pathlib import Path

import pytest

from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.media import is_known_medium, known_media
from flapjack_py.config.settings import load_config
from flapjack_py.errors import ConfigError
from flapjack_py.model.rules import ALL_MEDIA, general_rule, select_media
from gateways import base
from tests.telegraph_gateway import TelegraphGateway, TelegraphSettings, installed_telegraph

MEDIA = ("email", "sms", "slack", "sms_twilio", "sms_nexmo", "jabber", "pagerduty", "sns", "apprise", "matrix", "mattermost",
         "voice_twilio")


def test_the_registry_lists_exactly_the_media_flapjacks_first_in_its_order() -> None:
    assert known_media() == MEDIA
    assert known_media()[:len(ALL_MEDIA)] == ALL_MEDIA
    assert all(is_known_medium(m) for m in MEDIA) and not is_known_medium("pigeon")


@pytest.mark.parametrize("medium", MEDIA)
def test_each_medium_is_declared_in_one_module(medium: str) -> None:
    declared = base.declaration(medium)
    assert declared.medium == medium and issubclass(declared.settings, GatewaySettings)
    if medium in ("jabber", "matrix"):  # its own long-lived process (a chat bot), no rq sender
        assert declared.sender is None and declared.run is not None
        assert declared.settings.__module__ == declared.run.__module__ == f"gateways.{medium}"
    else:
        assert declared.sender is not None and declared.run is None and declared.sender.medium == medium
        # its settings model beside its sender, or only the settings every gateway takes (apprise)
        assert declared.settings is GatewaySettings or declared.settings.__module__ == declared.sender.__module__


def test_config_refuses_an_unknown_gateway_naming_it_and_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"^gateways\.telegraph: no such gateway \(known: apprise, email, .*, sns, voice_twilio\)$"):
        load_config({"gateways": {"telegraph": {"enabled": True}}})


def test_the_worker_refuses_an_unknown_gateway_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"^gateways\.pigeon: no such gateway"):
        base.gateway_class("pigeon")
    with pytest.raises(ConfigError, match=r"^gateways\.jabber: delivered by its own process"):
        base.gateway_class("jabber")


def test_a_gateway_declared_in_one_place_is_known_everywhere(tmp_path: Path) -> None:
    with installed_telegraph(tmp_path):
        flapjacks = MEDIA[:9]  # Flapjack's media first, in its order; then the others by name
        assert known_media() == (*flapjacks, *sorted((*MEDIA[9:], "telegraph"))) and is_known_medium("telegraph")
        with pytest.raises(ConfigError, match=r"^gateways\.telegraph\.wire: required setting missing"):
            load_config({"gateways": {"telegraph": {"enabled": True}}})
        config = load_config({"gateways": {"telegraph": {"enabled": True, "wire": "morse"}}})
        assert config.gateway("telegraph") == {"enabled": True, "retries": 3, "workers": 1, "wire": "morse",
                                               "stop_word": "STOP"}
        assert base.gateway_class("telegraph") is TelegraphGateway  # the worker
        assert base.open_gateway("telegraph", config).settings["wire"] == "morse"
        rule = replace(general_rule("c1"), critical_media=["telegraph", "email"])
        assert select_media([rule], "web-01", (), "critical", 0, UTC).media == ("telegraph", "email")  # rules name it
        assert "telegraph" not in general_rule("c1").critical_media  # the automatic rule: Flapjack's (engine.md 5.2)
    assert not is_known_medium("telegraph")
    with pytest.raises(ConfigError, match=r"^gateways\.telegraph: no such gateway"):
        load_config({"gateways": {"telegraph": {}}})


def test_a_declaration_names_its_senders_medium() -> None:
    with pytest.raises(ValueError, match="sends 'telegraph', not 'fax'"):
        base.Declaration("fax", TelegraphSettings, sender=TelegraphGateway)


def test_the_media_are_listed_without_importing_a_gateway_and_only_configured_ones_are_loaded() -> None:
    code = ("import sys\n"
            "from flapjack_py.config.media import known_media\n"
            "from flapjack_py.config.settings import load_config\n"
            "assert 'apprise' in known_media()\n"
            "assert not [m for m in sys.modules if m.startswith('gateways')], 'listing imported a gateway'\n"
            "load_config({'gateways': {'slack': {}}})\n"
            "print(sorted(m for m in sys.modules if m.startswith('gateways.')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['gateways.base', 'gateways.slack', 'gateways.slack_app']"
