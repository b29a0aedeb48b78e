"""Flap detection in Redis: a check's result history and flapping flag (in its check hash, read with the
snapshot) and the flapping_checks set the UI and API list (flapjack_py/model/flapping.py decides)."""

from __future__ import annotations

from typing import cast

from flapjack_py import keys
from flapjack_py.model import flapping
from flapjack_py.model.flapping import FlapState
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import Writes


def record(pipe: Writes, entity: str, check: str, state: FlapState) -> None:
    """Store the history and flag after a result; add to / remove from flapping_checks when it changed."""
    pipe.hset(keys.check(entity, check), mapping={"flap_history": state.history,
                                                  "flapping": "" if state.since is None else state.since})
    if state.change == "started":
        pipe.zadd(keys.flapping_checks(), {keys.check_id(entity, check): state.since})
    elif state.change == "stopped":
        pipe.zrem(keys.flapping_checks(), keys.check_id(entity, check))


def flapping_checks(client: StrRedis) -> dict[str, tuple[int, float]]:
    """Flapping checks: E:C -> (flapping since, percent state change now)."""
    found = cast(list[tuple[str, float]], client.zrange(keys.flapping_checks(), 0, -1, withscores=True))
    p = client.pipeline(transaction=False)
    for check_id, _ in found:
        p.hget(keys.check(*keys.split_check_id(check_id)), "flap_history")
    histories = p.execute()
    return {check_id: (int(since), flapping.percent_state_change(history or ""))
            for (check_id, since), history in zip(found, histories, strict=True)}
