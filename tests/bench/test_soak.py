"""benchmarks/soak.py: the whole system (`flapjack server`, email and PagerDuty to local servers) under load,
gateway workers killed and the SMTP server stopped, for 3 minutes with the fault intervals scaled down; its
verdicts asserted. And the local SMTP server's outage (bench/sinks.py pause/resume) it relies on."""

from __future__ import annotations

import smtplib
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest

from flapjack_py.bench.sinks import Sinks

SOAK = Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"
CHECKS = ("delivered", "lost", "duplicates", "registries", "redis_memory", "rss", "fds")


def fields(line: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in line.split()[1:] if "=" in pair)


@pytest.mark.real
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_three_minutes_under_kills_and_smtp_outages_lose_nothing_and_grow_nothing() -> None:
    """Every 15 s a gateway worker SIGKILLed, the SMTP server down 10 s at 15 s and 95 s: every alert delivered,
    none lost, duplicate emails at most one per kill, rq registries empty, memory, RSS and fds flat."""
    done = subprocess.run([sys.executable, str(SOAK), "--minutes", "3", "--kill-every", "15",
                           "--smtp-outage-every", "80", "--smtp-outage", "10"],
                          capture_output=True, text=True, timeout=1100, check=False)
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [f"soak.{name}" for name in (*CHECKS, "result")], \
        done.stdout + done.stderr[-3000:]
    assert all(" status=ok " in line for line in lines), done.stdout + done.stderr[-3000:]
    assert done.returncode == 0
    result = fields(lines[-1])
    assert int(result["kills"]) >= 10 and result["smtp_outages"] == "2"  # the faults happened
    assert int(result["events"]) >= 3 * 60 * 200 * 0.95
    delivered, duplicates = fields(lines[0]), fields(lines[2])
    assert int(delivered["alerts"]) > 0 and delivered["delivered"] == delivered["alerts"]
    assert int(duplicates["email"]) <= int(duplicates["kills"]) == int(result["kills"])
    assert fields(lines[3]) == {"status": "ok", "queued": "0", "started": "0", "scheduled": "0", "failed": "0",
                                "events_left": "0"}


def message(alert_id: str) -> EmailMessage:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "flapjack@example.com", "ada@example.com", "Problem"
    mail["Message-ID"] = f"<{alert_id}@soak.example.com>"
    mail.set_content("down")
    return mail


def test_a_paused_smtp_server_drops_its_sessions_refuses_new_ones_and_comes_back_on_its_port(sinks: Sinks) -> None:
    port = sinks.ports["email"]
    session = smtplib.SMTP("127.0.0.1", port, timeout=5)
    session.send_message(message("a1"))
    sinks.pause("email")
    with pytest.raises((smtplib.SMTPException, OSError)):
        session.send_message(message("a2"))  # the open session was dropped
    with pytest.raises(OSError):
        smtplib.SMTP("127.0.0.1", port, timeout=5)  # nobody listens
    sinks.pause("email")  # already paused: nothing happens
    sinks.resume("email")
    sinks.resume("email")  # already listening: nothing happens
    assert sinks.ports["email"] == port
    with smtplib.SMTP("127.0.0.1", port, timeout=5) as again:
        again.send_message(message("a3"))
    assert [key for key, _ in sinks.deliveries.take()["received"]["email"]] == ["a1", "a3"]
    session.close()
