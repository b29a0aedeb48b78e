"""Email gateway against a local aiosmtpd server: wording, STARTTLS + auth, outages, permanent failures."""

from __future__ import annotations

import ssl
import subprocess
import threading
from pathlib import Path

import pytest
from aiosmtpd.smtp import AuthResult

from flapjack_py.notify.render import local_time

from .conftest import START, SmtpServer, gateway_config, status_of


@pytest.fixture
def config(redis_server, smtp_server):
    return gateway_config(redis_server.url, "email",
                          smtp_config={"host": "127.0.0.1", "port": smtp_server.port,
                                       "from": "Flapjack <fj@example.net>"})


def parts(msg):
    text = msg.get_body(("plain",)).get_content().replace("\r\n", "\n")
    html = msg.get_body(("html",)).get_content().replace("\r\n", "\n")
    return text, html


def alert_text(state, summary="100% packet loss", extra=""):
    return ("Hi Ada\n\nMonitoring has detected the following:\n\n"
            "Entity:           foo\nCheck:            ping\n"
            f"State:            {state}\nSummary:          {summary}\n"
            f"Time:             {local_time(START)}\n{extra}"
            "Previous State:   OK\nPrevious Summary: all fine\n\nCheers,\nFlapjack\n")


CASES = {
    "problem": ({}, "Problem: 'ping' on foo is Critical",
                alert_text("Critical", extra="Duration:         1 hr 5 mins 0 secs\n")),
    "recovery": ({"type": "recovery", "notification_type": "recovery", "state": "ok", "summary": "fine",
                  "state_duration": 30}, "Recovery: 'ping' on foo is OK", alert_text("OK", "fine")),
    "acknowledgement": ({"type": "acknowledgement", "notification_type": "acknowledgement",
                         "state": "acknowledgement", "summary": "AL looking", "duration": 3600,
                         "state_duration": None},
                        "Acknowledgement: 'ping' on foo", alert_text("Acknowledgement", "AL looking")),
    "test": ({"type": "test", "notification_type": "test", "state": "test_notifications",
              "summary": "Testing notifications", "state_duration": 0},
             "Test: 'ping' on foo", alert_text("Test Notifications", "Testing notifications")),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_alert_subject_and_both_parts(kind, config, enqueue, burst, smtp_server, real_r, real_s):
    over, subject, text = CASES[kind]
    alert = enqueue(config, **over)
    assert burst("email", config) == 0
    [msg] = smtp_server.messages
    assert msg["Subject"] == subject
    assert msg["To"] == "ada@example.com"
    assert msg["Message-ID"].startswith(f"<{alert['id']}@")
    assert smtp_server.mailbox.envelopes[0].mail_from == "fj@example.net"
    got_text, html = parts(msg)
    assert got_text == text
    assert "<td><strong>Entity</strong></td><td>foo</td>" in html
    assert f"<td>{over.get('summary', '100% packet loss')}</td>" in html
    record = status_of(real_s, alert["id"])
    assert record["status"] == "delivered"
    assert int(record["delivered_at"]) > 0


@pytest.mark.parametrize("rollup", ["problem", "recovery"])
def test_rollup_subject_and_both_parts(rollup, config, enqueue, burst, smtp_server):
    rollup_alerts = {"foo:ping": {"duration": 3900, "state": "critical", "summary": "down"},
                     "bar:disk": {"duration": 60, "state": "warning", "summary": "90%"},
                     "baz:http": {"duration": 5, "state": "critical", "summary": "500"}}
    enqueue(config, rollup=rollup, rollup_alerts=rollup_alerts, rollup_threshold=3)
    burst("email", config)
    [msg] = smtp_server.messages
    title = "Problem summary" if rollup == "problem" else "Problem summaries finishing"
    assert msg["Subject"] == f"{title}: Critical: 2, Warning: 1"
    text, html = parts(msg)
    closing = ("Your email alerts are being summarised as your email summary threshold is set to 3. "
               "You'll receive summary emails like this one until your number of alerting checks falls below 3."
               if rollup == "problem" else
               "As your email summary threshold is 3, we're taking your email alerts out of summary mode now. "
               "You'll now be emailed individually for each alerting check.")
    assert text == ("Hi Ada\n\nYou have 3 alerting checks as follows:\n\n"
                    "  * http on baz is Critical (5 secs)\n"
                    "  * disk on bar is Warning (1 min 0 secs)\n"
                    "  * ping on foo is Critical (1 hr 5 mins 0 secs)\n\n"
                    f"{closing}\n\nCheers,\nFlapjack\n")
    assert "<th>Check</th><th>Entity</th><th>State</th><th>Duration</th><th>Summary</th>" in html
    assert "<tr><td>disk</td><td>bar</td><td>Warning</td><td>1 min 0 secs</td><td>90%</td></tr>" in html


def test_permanent_5xx_fails_with_reason(config, enqueue, burst, smtp_server, real_r, real_s):
    smtp_server.mailbox.reply = "554 5.7.1 Message rejected"
    alert = enqueue(config)
    burst("email", config)
    record = status_of(real_s, alert["id"])
    assert record["status"] == "failed"
    assert "554" in record["error"] and "Message rejected" in record["error"]


def test_server_down_then_back_delivers_each_alert_once(redis_server, enqueue, burst, real_r, real_s):
    server = SmtpServer()
    config = gateway_config(redis_server.url, "email", retries=5, retry_intervals=[1],
                            smtp_config={"host": "127.0.0.1", "port": server.port})
    alerts = [enqueue(config, check=f"foo:c{i}", event_id=f"foo:c{i}") for i in range(5)]
    starter = threading.Timer(1.5, server.start)
    starter.start()
    try:
        assert burst("email", config) == 0
    finally:
        starter.join()
        server.stop()
    assert [status_of(real_s, a["id"])["status"] for a in alerts] == ["delivered"] * 5
    ids = sorted(m["Message-ID"] for m in server.messages)
    assert len(ids) == 5 and len(set(ids)) == 5


def test_failed_after_last_try_records_reason_without_password(redis_server, enqueue, burst, real_r, real_s):
    # tried until retry_max_age, not for a count of tries (tests/gateways/test_breaker.py)
    config = gateway_config(redis_server.url, "email", retries=1, retry_intervals=[0], retry_max_age=1,
                            smtp_config={"host": "127.0.0.1", "port": 1, "auth": {"username": "u",
                                                                                 "password": "s3cr3t-pw"}})
    alert = enqueue(config)
    burst("email", config)
    record = status_of(real_s, alert["id"])
    assert record["status"] == "failed"
    assert "ConnectionRefusedError" in record["error"] and "s3cr3t-pw" not in record["error"]


@pytest.fixture
def tls_files(tmp_path: Path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key),
                    "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def test_starttls_and_auth(redis_server, enqueue, burst, real_r, tls_files, real_s):
    cert, key = tls_files
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    logins = []

    def authenticator(server, session, envelope, mechanism, auth_data):
        logins.append((auth_data.login, auth_data.password))
        ok = auth_data.login == b"fj" and auth_data.password == b"pw-123"
        return AuthResult(success=ok, handled=False)

    server = SmtpServer(tls_context=context, require_starttls=True, authenticator=authenticator,
                        auth_require_tls=True).start()
    try:
        config = gateway_config(redis_server.url, "email", smtp_config={
            "host": "127.0.0.1", "port": server.port, "starttls": True, "ca_file": str(cert),
            "auth": {"username": "fj", "password": "pw-123"}})
        alert = enqueue(config)
        burst("email", config)
        bad = gateway_config(redis_server.url, "email", retries=0, smtp_config={
            "host": "127.0.0.1", "port": server.port, "starttls": True, "ca_file": str(cert), "timeout": 3,
            "auth": {"username": "fj", "password": "wrong-pw"}})
        refused = enqueue(bad)
        burst("email", bad)
    finally:
        server.stop()
    assert status_of(real_s, alert["id"])["status"] == "delivered"
    assert len(server.messages) == 1 and logins[0] == (b"fj", b"pw-123")
    record = status_of(real_s, refused["id"])
    assert record["status"] == "failed" and "535" in record["error"] and "wrong-pw" not in record["error"]


def test_messages_written_directly_parse_as_mime_and_resist_header_injection():
    """build_message writes the MIME bytes itself: the email package must read them back as sent, a non-ASCII or
    long subject is RFC 2047-encoded and folded, and a line break in a value cannot add a header or recipient."""
    from email import message_from_bytes, policy

    from gateways.base import PermanentError
    from gateways.email import EmailGateway, envelope_recipient

    gateway = EmailGateway({"smtp_config": {"from": "Flapjack <fj@example.net>"}})
    subject = "Problem: 'HTTP' on wéb-01 is Critical " + "x" * 120
    alert = {"id": "a1", "timestamp": START, "contact": "c1", "media": "email", "type": "problem",
             "address": "ada@example.com\r\nBcc: mallory@example.net", "check": "wéb-01:HTTP", "rollup": "",
             "state": "critical", "summary": "down", "contact_first_name": "Ada", "time": START, "state_duration": 0,
             "subject": subject, "body": "Hi Ada\n\nwéb-01 is down\n.leading dot\n", "event_id": "wéb-01:HTTP",
             "notification_type": "problem"}
    data = gateway.build_message(alert)
    assert max(len(line) for line in data.split(b"\r\n")) <= 78 and b"\n" not in data.replace(b"\r\n", b"")
    message = message_from_bytes(data, policy=policy.default)
    assert message["Subject"] == subject and message["From"] == "Flapjack <fj@example.net>"
    assert message["Message-ID"].startswith("<a1@") and "Bcc" not in message and len(message.get_all("To")) == 1
    assert b"\r\nBcc:" not in data and b"To: ada@example.com Bcc: mallory@example.net\r\n" in data  # one line
    text, html = parts(message)
    assert text == "Hi Ada\n\nwéb-01 is down\n.leading dot\n" and "wéb-01" in html
    with pytest.raises(PermanentError, match="not one email address"):  # such an alert fails, sent to nobody
        envelope_recipient(alert["address"])
    assert envelope_recipient("Ada <ada@example.com>") == envelope_recipient("ada@example.com") == "ada@example.com"
