"""Who acknowledged each acknowledged check of a list, and when: the actor stored with the acknowledgement in force
(store/maintenance.py keeps it per window). Two round trips for a page of rows."""

from __future__ import annotations

from collections.abc import Sequence

from flapjack_py import keys
from flapjack_py.model.actors import from_fields
from flapjack_py.store import maintenance as maint
from flapjack_py.store.plumbing.client import StrRedis, to_int
from flapjack_py.views.rows import CheckRow


def name_acknowledgers(client: StrRedis, rows: Sequence[CheckRow]) -> None:
    """Set `ack_by` (the actor's name; "" when none was recorded) and `ack_at` on the acknowledged rows."""
    acked = [r for r in rows if r.acknowledged]
    if not acked:
        return
    starts = [to_int(s) for s in client.mget([keys.maintenance(r.entity, r.check, maint.UNSCHEDULED) for r in acked])]
    known = [(r, s) for r, s in zip(acked, starts, strict=True) if s is not None]
    with client.pipeline(transaction=False) as pipe:
        for row, start in known:
            pipe.hgetall(keys.maintenance_actor(row.entity, row.check, maint.UNSCHEDULED, start))
        fields = pipe.execute() if known else []
    for (row, start), found in zip(known, fields, strict=True):
        actor = from_fields(found.get("actor"), found.get("channel"))
        row.ack_by, row.ack_at = (actor.name if actor else ""), start
