"""`logging.format: json` gives one JSON object per line with extra fields; text stays the default."""

from __future__ import annotations

import io
import json
import logging

import pytest

from flapjack_py.config.settings import load_config
from flapjack_py.runtime.logs import setup_logging


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def capture(fmt: str, monkeypatch) -> io.StringIO:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    setup_logging(load_config({"logging": {"format": fmt}}).logging)
    return stream


def test_json_lines_carry_ids_as_fields(monkeypatch, restore_logging):
    stream = capture("json", monkeypatch)
    logging.getLogger("flapjack_py.executive.loop").warning("rejected %s", "x", extra={"check": "web-1:http"})
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("flapjack_py.notify.notifier").exception("alert %s failed", "a1", extra={"alert_id": "a1"})
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == "rejected x" and first["level"] == "WARNING"
    assert first["logger"] == "flapjack_py.executive.loop" and first["check"] == "web-1:http"
    assert second["alert_id"] == "a1" and "ValueError: boom" in second["exc_info"]


def test_text_is_the_default(monkeypatch, restore_logging):
    stream = capture(load_config({}).logging.format, monkeypatch)
    logging.getLogger("x").warning("plain %d", 1)
    line = stream.getvalue().strip()
    assert line.endswith("WARNING x: plain 1")
    with pytest.raises(json.JSONDecodeError):
        json.loads(line)
