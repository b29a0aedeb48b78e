"""Put an alert on its gateway's queue exactly as the notifier does (render, record, enqueue in one MULTI)."""

from __future__ import annotations

from typing import Any

import redis

from flapjack_py.config.settings import Config
from flapjack_py.notify.enqueue import enqueue_alert
from flapjack_py.notify.render import render_alert


def enqueue_like_notifier(client: redis.Redis, config: Config, alert: dict[str, Any]) -> dict[str, Any]:
    """Render `alert`'s subject and body, record it and enqueue its delivery; return it."""
    alert["subject"], alert["body"] = render_alert(alert, config)
    with client.pipeline() as pipe:
        pipe.multi()
        enqueue_alert(client, pipe, alert, config)
        pipe.execute()
    return alert
