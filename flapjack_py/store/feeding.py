"""The feeder's side of the queue with Sentinel: an LPUSH confirmed by replicas (WAIT).

Redis replicates asynchronously: an event the primary acknowledged can be lost
when the primary dies before a replica has it and the replica is promoted.
`push_confirmed` waits until `replicas` replicas have the event (or `timeout_ms`
passes) and says how many did; a feeder that re-sends unconfirmed events loses
none to a failover (it may send one twice: the executive applies it twice).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from flapjack_py import keys
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)


def push_confirmed(client: StrRedis, event: Mapping[str, Any], queue: str = "events", replicas: int = 1,
                   timeout_ms: int = 1000) -> bool:
    """LPUSH one event, then WAIT for `replicas` replicas; True when that many have it."""
    with client.pipeline(transaction=False) as pipe:
        pipe.lpush(keys.events(queue), json.dumps(dict(event)))
        pipe.execute_command("WAIT", replicas, timeout_ms)
        _, acked = pipe.execute()
    return int(acked) >= replicas
