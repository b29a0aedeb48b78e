"""delivery.prepare: what the first alert of each enabled medium would pay is done at the executive's boot."""

from __future__ import annotations

import logging
from pathlib import Path

import fakeredis
import pytest

from flapjack_py.config.settings import load_config
from flapjack_py.notify import enqueue as delivery
from flapjack_py.store import queues


def test_enabled_media_get_their_job_template_and_disabled_ones_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queues, "_templates", {})
    config = load_config({"gateways": {"email": {"enabled": True}, "jabber": {"enabled": False}}})
    delivery.prepare(fakeredis.FakeRedis(), config)
    assert {medium for medium, _retry in queues._templates} == {"email"}


def test_a_template_that_does_not_render_is_left_for_its_alerts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    broken = tmp_path / "alert.text"
    broken.write_text("{{ (summary | length) // 0 }}", encoding="utf-8")  # parses, fails to render
    monkeypatch.setattr(queues, "_templates", {})
    config = load_config({"gateways": {"email": {"enabled": True, "templates": {"alert.text": str(broken)}}}})
    with caplog.at_level(logging.DEBUG, logger="flapjack_py.notify.enqueue"):
        delivery.prepare(fakeredis.FakeRedis(), config)
    assert "email templates not prepared" in caplog.text
    assert {medium for medium, _retry in queues._templates} == {"email"}
