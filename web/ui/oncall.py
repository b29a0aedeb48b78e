"""The "On call" page: who is on call now on each schedule, until when, who is next; each escalation policy's
first-level people; the logged-in user's own shifts (and their iCalendar feed)."""

from __future__ import annotations

from flask import render_template

from flapjack_py.store import contacts as contact_store
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import read_models as queries
from flapjack_py.store import schedules as schedule_store
from flapjack_py.views import oncall as view

from .. import auth
from . import bp
from .context import db, now


@bp.get("/oncall")
def oncall() -> str:
    """Schedules now and next, policies' level 1, my shifts."""
    client, at = db(), now()
    schedules = schedule_store.load_schedules(client)
    known = schedule_store.known_contacts(client)
    rows = [view.schedule_now(s, at, known) for s in sorted(schedules, key=lambda s: (s.name or s.id).lower())]
    policies = [(p, escalation_store.resolve_level(client, p, 0, at))
                for p in sorted(escalation_store.load_policies(client), key=lambda p: p.id)]
    me = view.contact_of_user(auth.current_principal().name,
                              contact_store.load_contacts(client, contact_store.all_contact_ids(client)))
    mine = view.my_shifts(schedules, me.id, at, known) if me else []
    ids = {c for r in rows for c in (*r.now, *r.next)} | {c for _, people in policies for c in people}
    return render_template("ui/oncall.html", schedules=rows, policies=policies, me=me, mine=mine,
                           names=queries.contact_names(client, ids))
