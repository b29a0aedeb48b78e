"""The delivery scenarios' local servers (bench/sinks.py) and plain clients (bench/plain_clients.py), on loopback:
what they record is what the duplicates and undelivered counts and the session counts are made of."""

from __future__ import annotations

import base64
import http.client
import json
import smtplib
from email.message import EmailMessage

import requests

from flapjack_py.bench.plain_clients import http_rate, smtp_rate
from flapjack_py.bench.sinks import SAMPLES, Sinks


def message(alert_id: str) -> EmailMessage:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "flapjack@example.com", "ada@example.com", "Problem"
    mail["Message-ID"] = f"<{alert_id}@bench.example.com>"
    mail.set_content("Hi Ada\n" * 20)
    return mail


def event(routing_key: str, check: str) -> str:
    return json.dumps({"routing_key": routing_key, "dedup_key": check, "event_action": "trigger",
                       "payload": {"summary": "x" * 200, "source": "web", "severity": "critical"}})


def test_each_email_is_recorded_under_its_alert_id_and_each_smtp_session_counted(sinks: Sinks) -> None:
    with smtplib.SMTP("127.0.0.1", sinks.ports["email"]) as smtp:
        for alert_id in ("a1", "a2", "a1"):
            smtp.send_message(message(alert_id))
    with smtplib.SMTP("127.0.0.1", sinks.ports["email"]) as smtp:
        smtp.send_message(message("a3"))
    taken = sinks.deliveries.take()
    assert [key for key, _ in taken["received"]["email"]] == ["a1", "a2", "a1", "a3"]
    assert taken["sessions"] == {"email": 2, "pagerduty": 0}
    sample = taken["samples"]["email"][0]
    assert sample["to"] == ["ada@example.com"] and b"Message-ID: <a1@" in base64.b64decode(sample["data"])
    assert sinks.deliveries.take()["received"]["email"] == []  # taken means forgotten


def test_events_are_accepted_with_202_on_one_keep_alive_connection_and_counted_by_connection(sinks: Sinks) -> None:
    port = sinks.ports["pagerduty"]
    connection = http.client.HTTPConnection("127.0.0.1", port)
    for check in ("web:ping", "web:disk"):
        connection.request("POST", "/v2/enqueue", event("key1", check), {"Content-Type": "application/json"})
        answer = connection.getresponse()
        assert answer.status == 202 and json.loads(answer.read())["dedup_key"] == check
    connection.close()
    with requests.Session() as session:  # what the PagerDuty gateway sends with
        for _ in range(3):
            assert session.post(f"http://127.0.0.1:{port}/v2/enqueue", data=event("key2", "db:ping"),
                                headers={"Content-Type": "application/json"}).status_code == 202
    closing = requests.post(f"http://127.0.0.1:{port}/v2/enqueue", data=event("key3", "db:ping"),
                            headers={"Connection": "close"})
    assert closing.status_code == 202 and closing.headers["Connection"] == "close"
    taken = sinks.deliveries.take()
    assert [key for key, _ in taken["received"]["pagerduty"]] == [
        "key1/web:ping", "key1/web:disk", "key2/db:ping", "key2/db:ping", "key2/db:ping", "key3/db:ping"]
    assert taken["sessions"]["pagerduty"] == 3
    assert taken["samples"]["pagerduty"][0] == {"path": "/v2/enqueue", "body": event("key1", "web:ping")}


def test_a_request_split_across_packets_is_read_whole(sinks: Sinks) -> None:
    import socket

    body = event("key1", "web:ping").encode()
    request = b"POST /v2/enqueue HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    with socket.create_connection(("127.0.0.1", sinks.ports["pagerduty"])) as sock:
        for start in range(0, len(request), 7):
            sock.sendall(request[start:start + 7])
        assert sock.recv(4096).startswith(b"HTTP/1.1 202 Accepted\r\n")
    assert [key for key, _ in sinks.deliveries.take()["received"]["pagerduty"]] == ["key1/web:ping"]


def test_the_plain_clients_send_the_samples_in_turn_over_one_connection(sinks: Sinks) -> None:
    with smtplib.SMTP("127.0.0.1", sinks.ports["email"]) as smtp:
        for alert_id in ("a1", "a2"):
            smtp.send_message(message(alert_id))
    requests.post(f"http://127.0.0.1:{sinks.ports['pagerduty']}/v2/enqueue", data=event("key1", "web:ping"))
    samples = sinks.deliveries.take()["samples"]
    assert smtp_rate("127.0.0.1", sinks.ports["email"], samples["email"], 5) > 0
    assert http_rate("127.0.0.1", sinks.ports["pagerduty"], samples["pagerduty"], 4) > 0
    taken = sinks.deliveries.take()
    assert [key for key, _ in taken["received"]["email"]] == ["a1", "a2", "a1", "a2", "a1"]
    assert [key for key, _ in taken["received"]["pagerduty"]] == ["key1/web:ping"] * 4
    assert taken["sessions"] == {"email": 1, "pagerduty": 1}


def test_only_the_first_few_are_kept_whole(sinks: Sinks) -> None:
    with smtplib.SMTP("127.0.0.1", sinks.ports["email"]) as smtp:
        for n in range(SAMPLES + 5):
            smtp.send_message(message(f"a{n}"))
    taken = sinks.deliveries.take()
    assert len(taken["received"]["email"]) == SAMPLES + 5 and len(taken["samples"]["email"]) == SAMPLES
