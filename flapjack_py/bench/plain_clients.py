"""The same-run references of the delivery scenarios, run in the probe process: the simplest senders of the
scenario's own messages to the scenario's own servers (bench/sinks.py), one after another.

`raw_smtp_per_s`: plain `smtplib` over one connection; `raw_http_per_s`: a plain keep-alive `http.client`
connection. The messages and events are those the gateways delivered in the scenario (the sink's samples,
sent again in turn), so they are the size of the scenario's alerts.
"""

from __future__ import annotations

import base64
import http.client
import itertools
import logging
import smtplib
import time
from collections.abc import Sequence
from typing import Any

log = logging.getLogger(__name__)

TIMEOUT = 30.0  # seconds a reply may take


def smtp_rate(host: str, port: int, samples: Sequence[dict[str, Any]], count: int) -> float:
    """Messages per second of `count` messages (the samples in turn) sent over one SMTP session."""
    messages = [(s["from"], s["to"], base64.b64decode(s["data"])) for s in samples]
    started = time.perf_counter()
    with smtplib.SMTP(host, port, timeout=TIMEOUT) as smtp:
        for sender, recipients, data in itertools.islice(itertools.cycle(messages), count):
            smtp.sendmail(sender, recipients, data)
    return count / max(time.perf_counter() - started, 1e-9)


def http_rate(host: str, port: int, samples: Sequence[dict[str, Any]], count: int) -> float:
    """Posts per second of `count` JSON bodies (the samples in turn), one after another on one keep-alive
    connection; each answer read before the next post. RuntimeError when one is not accepted (2xx)."""
    posts = [(s["path"], s["body"].encode()) for s in samples]
    headers = {"Content-Type": "application/json"}
    connection = http.client.HTTPConnection(host, port, timeout=TIMEOUT)
    started = time.perf_counter()
    try:
        for path, body in itertools.islice(itertools.cycle(posts), count):
            connection.request("POST", path, body, headers)
            answer = connection.getresponse()
            answer.read()
            if not 200 <= answer.status < 300:
                raise RuntimeError(f"the bench's HTTP server answered {answer.status}")
    finally:
        connection.close()
    return count / max(time.perf_counter() - started, 1e-9)
