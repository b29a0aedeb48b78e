"""Template overrides (`gateways.<medium>.templates`) are checked when the config is loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from flapjack_py.config.settings import load_config
from flapjack_py.errors import ConfigError


def email_templates(templates: object) -> None:
    load_config({"gateways": {"email": {"templates": templates}}})


def test_a_missing_template_file_is_a_startup_error_naming_the_key() -> None:
    with pytest.raises(ConfigError, match=r"^gateways\.email\.templates: alert\.text: cannot read /nonexistent"):
        email_templates({"alert.text": "/nonexistent/alert.text"})


def test_an_unknown_template_name_is_refused(tmp_path: Path) -> None:
    (tmp_path / "alrt.text").write_text("Hi")
    with pytest.raises(ConfigError, match=r"gateways\.email\.templates: alrt\.text: unknown template file"):
        email_templates({"alrt.text": str(tmp_path / "alrt.text")})
    with pytest.raises(ConfigError, match=r"gateways\.email\.templates: alrt\.text: unknown template file"):
        email_templates(str(tmp_path))


def test_a_template_syntax_error_is_refused_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "alert.text").write_text("Hi {{ first_name }}\n{% if summary %}unclosed\n")
    with pytest.raises(ConfigError, match=r"gateways\.sms\.templates: alert\.text: template syntax error at line 2"):
        load_config({"gateways": {"sms": {"templates": str(tmp_path)}}})


def test_a_missing_directory_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"gateways\.jabber\.templates: /nonexistent/dir: not a directory"):
        load_config({"gateways": {"jabber": {"templates": "/nonexistent/dir"}}})


def test_valid_overrides_load(tmp_path: Path) -> None:
    (tmp_path / "alert.text").write_text("Hi {{ first_name }}")
    (tmp_path / "notes.md").write_text("not a template: ignored")
    config = load_config({"gateways": {"email": {"templates": {"alert.text": str(tmp_path / "alert.text")}},
                                       "sms": {"templates": str(tmp_path)}}})
    assert config.gateway("email")["templates"] == {"alert.text": str(tmp_path / "alert.text")}
