"""Email replies (issue 30) against a real IMAP server: Dovecot (Debian dovecot-imapd) on loopback, the alert sent
through aiosmtpd by the email gateway, replies appended to the mailbox, read by the poller (imap-tools).

A reply from the contact acknowledges its check exactly once, also after the poller restarts; a reply from
another address, or naming a recovered check's code, does nothing; the IMAP server going away is said once.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import pytest
import redis
from imap_tools import MailBoxUnencrypted
from notifier_world import World

from flapjack_py.config.settings import load_config
from flapjack_py.store import maintenance as maint
from gateways.email_replies import Poller
from gateways.worker import run_gateway
from tests.gateways.conftest import SmtpServer
from tests.mail.dovecot import Dovecot

pytestmark = pytest.mark.real

ADA = "ada@example.com"
INBOX_USER, INBOX_PASSWORD = "flapjack", "imap-pw-0123"


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    server = Dovecot({INBOX_USER: INBOX_PASSWORD}).start()
    yield server
    server.stop()


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer().start()
    yield server
    server.stop()


@pytest.fixture
def config(redis_server: Any, dovecot: Dovecot, smtp: SmtpServer) -> dict[str, Any]:
    return {"redis": {"url": redis_server.url}, "executive": {"new_check_scheduled_maintenance_duration": 0},
            "gateways": {"email": {
                "enabled": True, "retries": 1, "retry_intervals": [0], "burst_wait": 5, "reply_to": "alerts@example.com",
                "smtp_config": {"host": "127.0.0.1", "port": smtp.port, "from": "flapjack@example.com"},
                "replies": {"imap_url": dovecot.url(INBOX_USER), "poll_interval": 1}}}}


@pytest.fixture
def world(real_r: redis.Redis, clock: Any, config: dict[str, Any]) -> World:
    found = World(real_r, clock, **{k: v for k, v in config.items() if k != "redis"})
    found.contact("ada", {"email": ADA})
    return found


def _alert_email(world: World, config: dict[str, Any], smtp: SmtpServer) -> EmailMessage:
    world.fail()
    assert run_gateway("email", load_config(config), burst=True) == 0
    [message] = smtp.messages
    return message


def _code(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    found = re.search(r"Reply ACK (\w{5}) to acknowledge", body.get_content())
    assert found, "no ack code in the alert email"
    return found.group(1)


def _reply(dovecot: Dovecot, sender: str, subject: str, text: str, in_reply_to: str = "") -> None:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "alerts@example.com", subject
    if in_reply_to:
        message["In-Reply-To"] = message["References"] = in_reply_to
    message.set_content(text)
    with MailBoxUnencrypted("127.0.0.1", dovecot.port).login(INBOX_USER, INBOX_PASSWORD) as box:
        box.append(message.as_bytes(), "INBOX")


def _acks(real_r: redis.Redis) -> list[dict[str, Any]]:
    return [e for raw in real_r.lrange("events", 0, -1) if (e := json.loads(raw))["state"] == "acknowledgement"]


def _poll(world: World, config: dict[str, Any]) -> int:
    return Poller(world.s, load_config(config)).run(once=True)


def test_a_reply_to_the_alert_acknowledges_once_also_after_a_restart(
        world: World, config: dict[str, Any], smtp: SmtpServer, dovecot: Dovecot, real_r: redis.Redis) -> None:
    alert = _alert_email(world, config, smtp)
    assert alert["Reply-To"] == "alerts@example.com"
    quoted = "\n".join(f"> {line}" for line in alert.get_body(("plain",)).get_content().splitlines())  # type: ignore[union-attr]
    _reply(dovecot, f"Ada <{ADA.upper()}>", f"Re: {alert['Subject']}",
           f"ack 2h looking\n\nOn Tue, Flapjack wrote:\n{quoted}", in_reply_to=alert["Message-ID"])
    assert _poll(world, config) == 1
    [event] = _acks(real_r)
    assert (event["check"], event["actor"], event["channel"], event["duration"], event["summary"]) == (
        "PING", f"email:{ADA}", "email", 7200, "looking")
    assert _poll(world, config) == 0  # a restarted poller: nothing again
    with MailBoxUnencrypted("127.0.0.1", dovecot.port).login(INBOX_USER, INBOX_PASSWORD) as box:
        assert [m.flags for m in box.fetch(mark_seen=False)] == [("\\Seen",)]
        box.flag([m.uid for m in box.fetch(mark_seen=False) if m.uid], "\\Seen", False)  # as if flagging was lost
    assert _poll(world, config) == 0  # the UIDs in Redis still hold it back
    assert len(_acks(real_r)) == 1
    world.executive.drain()
    window = maint.in_force(world.s, "foo", "PING", maint.UNSCHEDULED)
    assert window is not None


def test_the_code_in_the_subject_acknowledges(world: World, config: dict[str, Any], smtp: SmtpServer,
                                             dovecot: Dovecot, real_r: redis.Redis) -> None:
    code = _code(_alert_email(world, config, smtp))
    _reply(dovecot, ADA, f"ACK {code.lower()}", "")
    assert _poll(world, config) == 1
    assert [e["actor"] for e in _acks(real_r)] == [f"email:{ADA}"]


def test_other_senders_and_recovered_checks_codes_do_nothing(world: World, config: dict[str, Any], smtp: SmtpServer,
                                                             dovecot: Dovecot, real_r: redis.Redis) -> None:
    alert = _alert_email(world, config, smtp)
    code = _code(alert)
    _reply(dovecot, "mallory@example.com", f"ACK {code}", "ack", in_reply_to=alert["Message-ID"])
    assert _poll(world, config) == 0
    world.advance(60)
    world.event("ok")
    _reply(dovecot, ADA, f"ACK {code}", "ack", in_reply_to=alert["Message-ID"])
    _reply(dovecot, ADA, "Re: lunch?", "sounds good")
    assert _poll(world, config) == 0
    assert _acks(real_r) == []


def test_the_imap_server_going_away_is_said_once(world: World, config: dict[str, Any], dovecot: Dovecot,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    poller = Poller(world.s, load_config(config))
    assert poller.poll() == 0
    dovecot.stop()
    with caplog.at_level(logging.ERROR, "gateways.email_replies"):
        for _ in range(3):
            with pytest.raises(OSError):
                poller.run(once=True)
    said = [r for r in caplog.records if "unreachable" in r.getMessage()]
    assert len(said) == 1
    assert INBOX_PASSWORD not in caplog.text


def test_the_server_runs_the_poller_when_replies_are_set(config: dict[str, Any]) -> None:
    from flapjack_py.runtime.supervisor import plan

    assert ("gateway email-replies", ["gateway", "email-replies"]) in plan(load_config(config))
    without = {**config, "gateways": {"email": {**config["gateways"]["email"], "replies": None}}}
    assert not [name for name, _ in plan(load_config(without)) if "replies" in name]
