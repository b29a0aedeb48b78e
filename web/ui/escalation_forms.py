"""Escalation policies in the UI: the list, one policy's page and (admin) its editor: name, repeat, and per
level the delay after the previous level and the schedules and contacts it pages.

The form is turned into the API's item (`{name, repeat, levels: [{delay, targets}]}`) and validated by
flapjack_py.model.escalation.policy_from_json (the API's rules and messages); delays are durations as people type
them (flapjack_py.timeparse: `15m`, `1h30m`, `900`; `0` or empty: at once). Targets must name schedules and
contacts that exist. Writes go through store/escalation.py, as the API's do.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from flask import abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from flapjack_py import keys, timeparse
from flapjack_py.model.escalation import MAX_LEVELS, REPEAT_DELAY, InvalidPolicy, Policy, policy_from_json
from flapjack_py.oncall.schedules import Schedule, oncall_now
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as store
from flapjack_py.store import schedules as schedule_store

from . import bp
from .context import db, now
from .form_state import ID_LIMIT, NAME_LIMIT, FormState, posted
from .format import duration_text

BLANK_ROWS = 1
"""Empty level rows offered below the policy's levels (to add one)."""
NEW = "new"
"""The path segment of the new-policy editor: not usable as a policy id in the UI."""
NOTICES = {"policy-created": "Escalation policy created.", "policy-saved": "Escalation policy saved.",
           "policy-deleted": "Escalation policy deleted, with its links to entities."}


@dataclass
class LevelRow:
    """One level row of the editor: as posted, or as stored."""

    delay: str
    schedules: str
    contacts: str
    stored: bool  # offered with a "remove" box


@bp.get("/escalation_policies")
def escalation_policies() -> str:
    """Every escalation policy with its levels and the entities linked to it."""
    client = db()
    policies = sorted(store.load_policies(client), key=lambda p: (p.name.lower() or p.id.lower(), p.id))
    names = entity_store.all_entity_names(client)
    linked = {p.id: sorted(_entity_name(names, e) for e in store.entities_linked_to(client, p.id)) for p in policies}
    return render_template("ui/escalation_policies.html", policies=policies, linked=linked,
                           notice=NOTICES.get(request.args.get("notice", "")))


@bp.get(f"/escalation_policies/{NEW}")
def new_escalation_policy() -> str:
    """The editor of a new policy (one empty level)."""
    return _render(None, FormState("policy"))


@bp.post("/escalation_policies")
def create_escalation_policy() -> Response | tuple[str, int]:
    """Create a policy from the editor (API POST /escalation_policies)."""
    form = posted("policy", request.form)
    policy_id = form.text("id", ID_LIMIT) or str(uuid.uuid4())
    if policy_id == NEW or set(policy_id) & set(",/"):
        form.errors.setdefault("id", f"An id without ',' or '/', and not '{NEW}'")
    elif store.load_policies(db(), [policy_id]):
        form.errors.setdefault("id", f"An escalation policy with the id '{policy_id}' already exists")
    policy = _policy(form, policy_id)
    if policy is None:
        return _render(None, form), 422
    store.save_policy(db(), policy)
    return _back(policy.id, "policy-created")


@bp.get("/escalation_policies/<policy_id>")
def escalation_policy(policy_id: str) -> str:
    """One policy: its levels (with who is on call now in each schedule), its entities, and the editor."""
    return _render(_require(policy_id), FormState("policy"))


@bp.post("/escalation_policies/<policy_id>")
def update_escalation_policy(policy_id: str) -> Response | tuple[str, int]:
    """Replace the policy's name, repeat and levels with the editor's (API PATCH /escalation_policies/ID)."""
    found = _require(policy_id)
    form = posted("policy", request.form)
    policy = _policy(form, found.id)
    if policy is None:
        return _render(found, form), 422
    store.save_policy(db(), policy)
    return _back(policy.id, "policy-saved")


@bp.post("/escalation_policies/<policy_id>/delete")
def delete_escalation_policy(policy_id: str) -> Response:
    """Delete the policy and its links (API DELETE /escalation_policies/ID); running escalations end."""
    store.delete_policy(db(), _require(policy_id).id)
    return redirect(url_for("ui.escalation_policies", notice="policy-deleted"), code=303)


# --- the form ------------------------------------------------------------------


def _policy(form: FormState, policy_id: str) -> Policy | None:
    """The policy the editor describes, or None with form.errors saying why (by field)."""
    name = form.text("name", NAME_LIMIT)
    repeat = form.text("repeat", 3) or "0"
    if not repeat.isdigit():
        form.errors.setdefault("repeat", "A whole number of times (0: no repeat)")
    levels = [level for i, row in enumerate(_posted_rows(form)) if (level := _level(form, i, row)) is not None]
    if not levels:
        form.errors.setdefault("levels", "At least one level with a schedule or a contact")
    if form.errors:
        return None
    try:
        return policy_from_json({"name": name, "repeat": int(repeat), "levels": levels}, policy_id)
    except InvalidPolicy as exc:
        form.errors["form"] = str(exc)
        return None


def _level(form: FormState, i: int, row: LevelRow) -> dict[str, Any] | None:
    """The API level of row `i` (None: an empty or removed row); refused fields go into form.errors."""
    if request.form.get(f"level-{i}-remove") or not (row.schedules.strip() or row.contacts.strip()):
        return None
    schedules = form.lines(f"level-{i}-schedules", ID_LIMIT)
    contacts = form.lines(f"level-{i}-contacts", ID_LIMIT)
    _unknown(form, f"level-{i}-schedules", "schedule", schedules,
             {s.id for s in schedule_store.load_schedules(db(), schedules)} if schedules else set())
    _unknown(form, f"level-{i}-contacts", "contact", contacts,
             {c for c in contacts if contact_store.contact_exists(db(), c)})
    try:
        delay = 0 if row.delay.strip() in ("", "0") else timeparse.parse_duration(row.delay[:timeparse.MAX_INPUT])
    except timeparse.TimeParseError as exc:
        form.errors.setdefault(f"level-{i}-delay", str(exc))
        delay = 0
    return {"delay": delay, "targets": [*({"schedule": s} for s in schedules), *({"contact": c} for c in contacts)]}


def _unknown(form: FormState, field: str, kind: str, wanted: list[str], known: set[str]) -> None:
    missing = [w for w in wanted if w not in known]
    if missing:
        form.errors.setdefault(field, f"No {kind} with the id {', '.join(repr(m) for m in missing)}")


def _posted_rows(form: FormState) -> list[LevelRow]:
    count = min(_int(form.values.get("rows")), MAX_LEVELS + BLANK_ROWS)
    return [LevelRow(str(form.values.get(f"level-{i}-delay", "")), str(form.values.get(f"level-{i}-schedules", "")),
                     str(form.values.get(f"level-{i}-contacts", "")), bool(form.values.get(f"level-{i}-stored")))
            for i in range(count)]


def _rows(form: FormState, found: Policy | None) -> list[LevelRow]:
    """The editor's rows: as posted when the form was refused, else the policy's levels plus a blank row."""
    if form.values:
        return _posted_rows(form)
    rows = [LevelRow(duration_text(level.delay),
                     ", ".join(t.id for t in level.targets if t.kind == "schedule"),
                     ", ".join(t.id for t in level.targets if t.kind == "contact"), True)
            for level in (found.levels if found else ())]
    return rows + [LevelRow("0" if not rows else "15m", "", "", False) for _ in range(BLANK_ROWS)]


def _render(found: Policy | None, form: FormState) -> str:
    client = db()
    names = entity_store.all_entity_names(client)
    entities = sorted(_entity_name(names, e) for e in store.entities_linked_to(client, found.id)) if found else []
    schedules = {s.id: s for s in schedule_store.load_schedules(client)}
    return render_template("ui/escalation_policy.html", policy=found, f=form, rows=_rows(form, found),
                           entities=entities, repeat_delay=REPEAT_DELAY, schedules=sorted(schedules),
                           oncall=_oncall(found, schedules), notice=NOTICES.get(request.args.get("notice", "")))


def _oncall(found: Policy | None, schedules: dict[str, Schedule]) -> dict[str, tuple[str, ...]]:
    """Who is on call now in each schedule the policy pages."""
    wanted = {t.id for level in (found.levels if found else ()) for t in level.targets if t.kind == "schedule"}
    if not wanted & set(schedules):
        return {}
    known = schedule_store.known_contacts(db())
    return {sid: oncall_now(schedules[sid], now(), known) for sid in sorted(wanted & set(schedules))}


def _entity_name(names: dict[str, str], entity_id: str) -> str:
    return "ALL (every entity)" if entity_id == keys.ALL_ENTITIES_ID else names.get(entity_id, entity_id)


def _require(policy_id: str) -> Policy:
    found = store.load_policies(db(), [policy_id])
    if not found:
        abort(404, description=f"No escalation policy '{policy_id}': nothing was done.")
    return found[0]


def _back(policy_id: str, notice: str) -> Response:
    return redirect(url_for("ui.escalation_policy", policy_id=policy_id, notice=notice), code=303)


def _int(value: Any) -> int:
    text = str(value or "")
    return int(text) if text.isdigit() and len(text) < 4 else 0
