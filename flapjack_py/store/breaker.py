"""The circuit breakers of the gateways in Redis (`gateway_breaker:MEDIUM`), shared by a medium's workers.

The hash exists while the breaker is open (flapjack_py.model.delivery.BreakerState) and expires when no worker
renews it (the workers are gone: health then says so itself). Each change is one Lua call, so of the workers
that trip it at once one opens it, and of those that find a probe due one sends it.
"""

from __future__ import annotations

from collections.abc import Iterable

from rq import Queue
from rq.registry import ScheduledJobRegistry

from flapjack_py import keys
from flapjack_py.model.delivery import BreakerState, parse_breaker
from flapjack_py.store.plumbing import scripts
from flapjack_py.store.plumbing.client import StrRedis

TTL = 300
"""Seconds an open breaker lives without a worker finding the server refusing (a trip, a refused probe): with
nothing to probe with, or no worker left, it closes by itself."""


def load_breaker(client: StrRedis, medium: str) -> BreakerState | None:
    """The open breaker of `medium`; None when closed."""
    return parse_breaker(client.hgetall(keys.gateway_breaker(medium)))


def load_breakers(client: StrRedis, media: Iterable[str]) -> dict[str, BreakerState]:
    """The open breakers among `media` (one round trip)."""
    names = list(media)
    pipe = client.pipeline(transaction=False)
    for medium in names:
        pipe.hgetall(keys.gateway_breaker(medium))
    found = {}
    for medium, fields in zip(names, pipe.execute(), strict=True):
        state = parse_breaker(fields)
        if state is not None:
            found[medium] = state
    return found


def trip(client: StrRedis, medium: str, state: BreakerState) -> bool:
    """Open the breaker as `state` says, unless open already (then only its error is updated); True when opened."""
    script = client.register_script(scripts.BREAKER_TRIP)
    return bool(script(keys=[keys.gateway_breaker(medium)],
                       args=[state.since, state.step, state.next_probe, state.server, state.error, TTL]))


def claim_probe(client: StrRedis, medium: str, now: float, hold_until: float) -> int:
    """Claim the due probe (no other worker probes until `hold_until`): 1 claimed, 0 none due yet, -1 closed."""
    script = client.register_script(scripts.BREAKER_CLAIM_PROBE)
    return int(script(keys=[keys.gateway_breaker(medium)], args=[now, hold_until]))


def probe_failed(client: StrRedis, medium: str, step: float, next_probe: float, error: str) -> bool:
    """A probe was refused: the next one after the new `step`, at `next_probe`; False when closed meanwhile."""
    return _update(client, medium, TTL, step=step, next_probe=next_probe, error=error)


def release_probe(client: StrRedis, medium: str, at: float) -> bool:
    """A claimed probe found nothing to send: the next one is due at `at` (for whichever worker has a job)."""
    return _update(client, medium, 0, next_probe=at)


def close(client: StrRedis, medium: str) -> bool:
    """Close the breaker (the server answered); True when it was open."""
    return bool(client.delete(keys.gateway_breaker(medium)))


def waiting_alerts(client: StrRedis, medium: str) -> int:
    """Jobs of `medium` waiting to be sent: on its rq queue and scheduled for a retry."""
    pipe = client.pipeline(transaction=False)
    pipe.llen(Queue(medium, connection=client).key)
    pipe.zcard(ScheduledJobRegistry(medium, connection=client).key)  # type: ignore[no-untyped-call]
    return sum(int(n) for n in pipe.execute())


def _update(client: StrRedis, medium: str, ttl: int, **fields: float | str) -> bool:
    """Set `fields` of an open breaker (its TTL renewed to `ttl`, 0: left); False when it is closed."""
    script = client.register_script(scripts.BREAKER_UPDATE)
    pairs = [part for name, value in fields.items() for part in (name, value)]
    return bool(script(keys=[keys.gateway_breaker(medium)], args=[ttl, *pairs]))
