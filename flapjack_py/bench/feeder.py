"""The latency scenario's open-loop feeder, run in its own process (`python -m flapjack_py.bench.worker feed`):
it pushes events on a fixed schedule, each carrying its push time in the summary (PUSHED_AT)."""

from __future__ import annotations

import time
from typing import Any

from flapjack_py.bench.workload import Population, make_event
from flapjack_py.store import bench as bench_store
from flapjack_py.store.plumbing.client import StrRedis

SAMPLE_EVERY = 0.01  # seconds between LLEN samples of the queue
PUSHED_AT = "pushed_at="


def feed_open_loop(client: StrRedis, entities: int, flap_every: int, rate: float, seconds: float,
                   state: str | None = None) -> dict[str, Any]:
    """Push round-robin events at `rate`/s for `seconds` on a fixed schedule (open loop: a slow executive
    does not slow the feeder); sample LLEN every 10 ms. Runs in the feeder process.

    With `state`, every event has that state (the n-th for check n) and the reply has each push's time
    (`stamps`)."""
    pop = Population(entities, flap_every)
    queue_max = bench_store.queue_length(client)  # connects now: the first push's latency is not a TCP handshake
    total, started = int(rate * seconds), time.perf_counter()
    next_sample, late_max = started, 0.0
    stamps: list[float] = []
    for n in range(total):
        due = started + n / rate
        while (now := time.perf_counter()) < due:
            if now >= next_sample:
                queue_max = max(queue_max, bench_store.queue_length(client))
                next_sample += SAMPLE_EVERY
            time.sleep(max(0.0, min(due, next_sample) - time.perf_counter()))
        late_max = max(late_max, now - due)
        entity, check = pop.check(n % pop.size)
        stamp = time.time()
        bench_store.push_one(client, make_event(entity, check, state or pop.state(n), int(stamp),
                                                f"{PUSHED_AT}{stamp:.6f} {check} on {entity}"))
        if state is not None:
            stamps.append(stamp)
    reply = {"pushed": total, "queue_len_max": queue_max, "late_max_ms": late_max * 1000,
             "feed_seconds": time.perf_counter() - started}
    return {**reply, "stamps": stamps} if state is not None else reply
