"""Render an alert's subject and body from flapjack_py/templates/<medium>/ (engine.md section 6).

The notifier calls `render_alert` when it builds an alert, so the payload and
the `alert:ID` record carry the text; gateways send that text. Templates are
Jinja2; `gateways.<medium>.templates` overrides them, either as a directory
(files named like the package's) or as a mapping `{"alert.text": "/path"}`.
Media without a directory of their own use `templates/text/` (the SMS wording).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import secrets
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jinja2.meta
from jinja2 import nodes

from flapjack_py.config.settings import Config
from flapjack_py.config.template_files import environment, override_key, template
from flapjack_py.durations import MONTH, YEAR, words
from flapjack_py.model.alert import Alert, RollupEntry
from flapjack_py.model.events import DEFAULT_ACK_DURATION

log = logging.getLogger(__name__)

SUBJECT_MEDIA = ("email", "sns", "apprise")
"""Media whose alerts carry a subject (the email-style one)."""
SNS_SUBJECT_MAX = 100
ROLLUP_STATES = ("critical", "warning", "unknown")
_DUR_UNITS = (("mo", MONTH), ("day", 86400), ("hr", 3600), ("min", 60))
PER_CONTACT_FIELDS = {"id": (), "contact": (), "contact_id": (), "address": (), "contact_last_name": (),
                      "contact_first_name": ("first_name",), "status": (), "error": (), "escalation_policy": (),
                      "escalation_level": ()}
"""Alert fields that differ between the alerts of one notification besides the medium and the rollup
decision, with the template variables computed from them (alert_context)."""
ROLLUP_FIELDS = ("rollup", "rollup_alerts", "rollup_threshold")
"""Alert fields rollup's decision sets: alerts of one notification with other values are rendered apart."""


SharedTexts = dict[tuple[Any, ...], Any]
"""The texts (and template variables) rendered for the alerts of one notification so far (render_alert)."""


@dataclass(frozen=True)
class _Part:
    """One template an alert's text is rendered from, and what of the alert it reads."""

    medium: str  # the template's medium directory (the body's own, `email` for a subject)
    name: str
    fields: tuple[str, ...]  # the per-contact fields it reads, directly or through a variable
    read: frozenset[str] | None  # the variables it reads; None when unknown (it includes another template)
    truncate: bool  # an SNS subject
    slots: tuple[str, ...] = ()  # per-contact variables it only outputs as they are (_slots)
    keyed: tuple[str, ...] = ()  # of `fields`, those read otherwise than through a slot: its text's key


def render_alert(alert: Alert, config: Config, shared: SharedTexts | None = None) -> tuple[str, str]:
    """Return (subject, body) for `alert` on its medium (`alert["media"]`).

    The subject is the email-style subject for email, SNS (cut to 100 chars) and
    apprise, and empty for other media; the body is the medium's text.

    `shared`: the caller's dict of what was rendered for the alerts of one notification. A template whose
    medium, rollup decision and the per-contact fields it reads equal an earlier alert's gives its text
    without rendering (a storm: one sms text and one email subject per notification, not one per
    contact), and the template variables are computed once per notification and rollup decision, then
    the medium and the per-contact fields (PER_CONTACT_FIELDS) set for each alert.
    """
    medium = str(alert.get("media", ""))
    kind = "rollup" if alert.get("rollup") else "alert"
    by_name: Mapping[str, object] = alert  # fields read by name: ROLLUP_FIELDS, a template's (_Part)
    shared = {} if shared is None else shared
    found = shared.get((None, medium, kind))  # a text's key starts with its medium, never None
    if found is None:
        settings = config.gateway(medium)
        found = shared[(None, medium, kind)] = (settings, _parts(medium, kind, override_key(settings.get("templates"))))
    settings, parts = found
    rollup = json.dumps([by_name.get(f) for f in ROLLUP_FIELDS], sort_keys=True, default=str) if kind == "rollup" else ""
    texts = []
    for part in parts:
        values = _slot_values(alert, part.slots) if part.slots else None
        if values is None:
            key = (medium, part.name, rollup, *map(repr, map(by_name.get, part.fields)))
            text = shared.get(key)
            if text is None:
                text = shared[key] = _render_part(alert, part, (medium, rollup), settings, shared)
        else:  # rendered once with stand-ins for its slots, then each alert's values put in their place
            key = (medium, part.name, rollup, None, *map(repr, map(by_name.get, part.keyed)))
            raw = shared.get(key)
            if raw is None:
                raw = shared[key] = _render_part(alert, part, (medium, rollup), settings, shared, stand_ins=True)
            for slot, value in zip(part.slots, values, strict=True):
                raw = raw.replace(_STAND_INS[slot], value)
            text = _finished(part, raw)
        texts.append(text)
    return (texts[1] if len(texts) > 1 else ""), texts[0]


def _slot_values(alert: Alert, slots: tuple[str, ...]) -> list[str] | None:
    """The alert's values of the variables `slots`, or None when one is not a str (rendered for the alert)."""
    derived = _per_contact_variables(alert)
    by_name: Mapping[str, object] = alert
    values = []
    for slot in slots:
        value = derived[slot] if slot in derived else by_name.get(slot, "")  # absent: Undefined, ''
        if type(value) is not str:
            return None
        values.append(value)
    return values


@functools.lru_cache(maxsize=256)
def _parts(medium: str, kind: str, override: tuple[str, ...] | str | None) -> tuple[_Part, ...]:
    """The templates of an alert's body, then of its subject when its medium has one."""
    names = [(medium, f"{kind}.text")] + ([("email", f"{kind}_subject.text")] if medium in SUBJECT_MEDIA else [])
    parts = []
    for m, name in names:
        read, slots = _variables(m, name, override), _slots(m, name, override)
        fields = _fields_read(m, name, override)
        keyed = fields if read is None else tuple(f for f in fields if not {f, *PER_CONTACT_FIELDS[f]} & read <= set(slots))
        parts.append(_Part(m, name, fields, read, medium == "sns" and name != f"{kind}.text", slots, keyed))
    return tuple(parts)


def _render_part(alert: Alert, part: _Part, key: tuple[str, str], settings: Mapping[str, Any],
                 shared: SharedTexts, stand_ins: bool = False) -> str:
    """Render one of an alert's templates with the variables it reads (all when not known); with `stand_ins`,
    its slots' stand-ins in place of their values, and the text not finished (_finished)."""
    if part.read is None:
        context = _shared_context(alert, key, settings, shared)
    else:  # the variables it reads only: nothing for _render to pick
        context = _read_context(alert, part, key, settings, shared)
    if not stand_ins:
        return _finished(part, _render(part.medium, part.name, context, settings, picked=part.read is not None))
    context = {**context, **{slot: _STAND_INS[slot] for slot in part.slots}}
    return _render(part.medium, part.name, context, settings, picked=part.read is not None, finish=False)


def _finished(part: _Part, text: str) -> str:
    """A part's rendered text as the alert carries it: one-line templates on one line, an SNS subject cut."""
    if part.medium != "email" or "subject" in part.name:
        text = " ".join(text.split("\n")).strip()
    return truncate(text, SNS_SUBJECT_MAX) if part.truncate else text


_PER_CONTACT_VARIABLES = frozenset({*PER_CONTACT_FIELDS, *(v for vs in PER_CONTACT_FIELDS.values() for v in vs)})
_STAND_INS = {name: f"\x00{name}\x00{secrets.token_hex(12)}\x00" for name in _PER_CONTACT_VARIABLES}
"""What a template renders in place of a slot's value, to be replaced by it (never in an alert's text)."""
_NOT_AS_WRITTEN = (nodes.FilterBlock, nodes.AssignBlock, nodes.CallBlock, nodes.Macro, nodes.Block,
                   nodes.EvalContextModifier, nodes.Extends, nodes.Include, nodes.Import, nodes.FromImport)
"""Template nodes that may change, keep or repeat elsewhere what their body outputs (and an alert's text with it)."""


@functools.lru_cache(maxsize=256)
def _slots(medium: str, name: str, override: tuple[str, ...] | str | None) -> tuple[str, ...]:
    """The per-contact variables template `name` reads only to output them as they are (`{{ first_name }}`, no
    filter, test or expression on them, not autoescaped, nothing that works on a block's output): its text for
    any value is the text rendered with a stand-in there, each stand-in replaced by the value (a str)."""
    env = environment(medium, override)
    assert env.loader is not None
    autoescape = env.autoescape(name) if callable(env.autoescape) else env.autoescape
    tree = env.parse(env.loader.get_source(env, name)[0])
    if autoescape or env.finalize is not None or any(True for _ in tree.find_all(_NOT_AS_WRITTEN)):
        return ()
    every = Counter(node.name for node in tree.find_all(nodes.Name))
    bare = Counter(node.name for output in tree.find_all(nodes.Output) for node in output.nodes
                   if type(node) is nodes.Name and node.ctx == "load")
    return tuple(sorted(v for v in _PER_CONTACT_VARIABLES if bare[v] and bare[v] == every[v]))


def _read_context(alert: Alert, part: _Part, key: tuple[str, str], settings: Mapping[str, Any],
                  shared: SharedTexts) -> dict[str, Any]:
    """The variables `part` reads of alert_context(alert, settings): those an earlier alert of the notification
    (same medium and rollup decision) had, with this alert's per-contact fields."""
    assert part.read is not None
    base: dict[str, Any] | None = shared.get((None, *key, part.name))
    if base is None:
        full = shared.get((None, key[1]))
        if full is None:  # the notification's first alert (of this rollup decision): its own variables
            full = _shared_context(alert, key, settings, shared)
            base = {k: full[k] for k in part.read if k in full}
        else:  # an earlier alert's, with this alert's medium, alias and per-contact fields (as _shared_context)
            base = {k: full[k] for k in part.read if k in full}
            if "alias" in part.read:
                base["alias"] = settings.get("alias") or "flapjack"
            _set_per_contact(base, alert, part.read)
        shared[(None, *key, part.name)] = base
        return base
    if not part.fields:
        return base
    context = dict(base)
    _set_per_contact(context, alert, part.read)
    return context


def _shared_context(alert: Alert, key: tuple[str, str], settings: Mapping[str, Any],
                    shared: SharedTexts) -> dict[str, Any]:
    """alert_context(alert, settings), from the one of an earlier alert of the notification (same rollup
    decision) with this alert's medium, its gateway's alias and its per-contact fields."""
    base = shared.get((None, key[1]))
    if base is None:
        context = shared[(None, key[1])] = alert_context(alert, settings)
        return context
    context = dict(base)
    context["alias"] = settings.get("alias") or "flapjack"
    _set_per_contact(context, alert)
    return context


def _set_per_contact(context: dict[str, Any], alert: Alert, read: frozenset[str] | None = None) -> None:
    """Set in `context` the alert's medium and per-contact fields, and the variables computed from them
    (only those in `read`, unless None)."""
    by_name: Mapping[str, object] = alert
    for name in _copied_fields(read):
        if name in by_name:
            context[name] = by_name[name]
        else:
            context.pop(name, None)
    for name, value in _per_contact_variables(alert).items():
        if read is None or name in read:
            context[name] = value


@functools.lru_cache(maxsize=256)
def _copied_fields(read: frozenset[str] | None) -> tuple[str, ...]:
    """The medium and per-contact fields a template reading `read` (None: any) sees as they are."""
    return tuple(name for name in ("media", *PER_CONTACT_FIELDS) if read is None or name in read)


@functools.lru_cache(maxsize=256)
def _fields_read(medium: str, name: str, override: tuple[str, ...] | str | None) -> tuple[str, ...]:
    """The per-contact fields template `name` of `medium` reads (all when unknown)."""
    read = _variables(medium, name, override)
    return tuple(f for f, derived in PER_CONTACT_FIELDS.items()
                 if read is None or f in read or read & set(derived))


@functools.lru_cache(maxsize=256)
def _variables(medium: str, name: str, override: tuple[str, ...] | str | None) -> frozenset[str] | None:
    """The variables a template reads; None when it includes, imports or extends another (not known here)."""
    env = environment(medium, override)
    assert env.loader is not None
    tree = env.parse(env.loader.get_source(env, name)[0])
    if list(jinja2.meta.find_referenced_templates(tree)):
        return None
    return frozenset(jinja2.meta.find_undeclared_variables(tree))


def render_template(medium: str, name: str, alert: Alert, config: Config,
                    override_medium: str | None = None) -> str:
    """Render one named template of a medium (e.g. `alert.html` of email) for an alert.

    One-line templates (names ending `subject.text`, and every non-email text) are stripped.
    """
    settings = config.gateway(override_medium or medium)
    return _render(medium, name, alert_context(alert, settings), settings)


def _render(medium: str, name: str, context: Mapping[str, Any], settings: Mapping[str, Any],
            picked: bool = False, finish: bool = True) -> str:
    """Render with the context's variables the template reads (`picked`: the context holds only those).
    One-line templates are put on one line (unless not `finish`)."""
    override = override_key(settings.get("templates"))
    read = None if picked else _variables(medium, name, override)
    text = template(medium, override, name).render(context if read is None else
                                                   {k: context[k] for k in read if k in context})
    if finish and (medium != "email" or "subject" in name):
        return " ".join(text.split("\n")).strip()
    return text


def alert_context(alert: Alert, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The variables templates see: the payload's fields plus the engine.md 6.1 wording."""
    settings = settings or {}
    entity, _, check = str(alert.get("event_id") or alert.get("check") or "").partition(":")
    type_ = str(alert.get("notification_type") or alert.get("type") or "")
    state = str(alert.get("state") or "")
    when = _int(alert.get("time")) or _int(alert.get("timestamp")) or 0
    rollup_alerts = alert.get("rollup_alerts") or {}
    rollup = [_rollup_row(cid, info) for cid, info in rollup_alerts.items()]
    state_duration = _int(alert.get("state_duration"))
    stamp = _int(alert.get("time"))
    last_state = alert.get("last_state")
    ctx: dict[str, Any] = dict(alert)
    ctx.update(
        entity=entity, check_name=check, type_title=type_title(type_, str(alert.get("rollup") or "")),
        state_title=state_title(state), state_clause=state_clause(type_, state),
        ack_clause=ack_clause(type_, _int(alert.get("duration")), str(alert.get("actor") or "")),
        actor=alert.get("actor") or "",
        summary=alert.get("summary") or "", details=alert.get("details") or "",
        time_local=local_time(stamp) if stamp else "",
        time_short=short_time(when),
        duration_text=dur(state_duration) if state_duration and state_duration > 40 else "",
        last_state_title=state_title(str(last_state)) if last_state else "",
        last_summary=alert.get("last_summary") or "",
        rollup_rows=sorted(rollup, key=lambda row: row["duration"]),
        rollup_summary=rollup_summary(rollup_alerts) if rollup_alerts else "",  # as of none: a storm's alerts
        rollup_detail_3=rollup_detail(rollup_alerts, 3) if rollup_alerts else "",
        rollup_detail_10=rollup_detail(rollup_alerts, 10) if rollup_alerts else "",
        rollup_threshold=alert.get("rollup_threshold") or "",
        alias=settings.get("alias") or "flapjack",
        ack_hash=alert.get("event_hash") or ack_hash(f"{entity}:{check}"),
        show_ackid=state != "ok" and type_ not in ("test", "acknowledgement"),
    )
    ctx.update(_per_contact_variables(alert))
    return ctx


def _per_contact_variables(alert: Alert) -> dict[str, Any]:
    """The template variables derived from per-contact fields (PER_CONTACT_FIELDS)."""
    return {"first_name": alert.get("contact_first_name") or ""}


# --- engine.md 6.1 wording ---------------------------------------------------


def type_title(type_: str, rollup: str = "") -> str:
    """`Problem`, `Recovery`, ...; `Problem summary` / `Problem summaries finishing` for rollups."""
    if rollup == "problem":
        return "Problem summary"
    if rollup == "recovery":
        return "Problem summaries finishing"
    return type_.replace("_", " ").title()


def state_title(state: str) -> str:
    """`OK` for ok, else the words capitalised: `Critical`, `Test Notifications`."""
    if state == "ok":
        return "OK"
    return " ".join(word.capitalize() for word in state.split("_"))


def state_clause(type_: str, state: str) -> str:
    """` is <StateTitle>`, empty for acknowledgements and tests."""
    return "" if type_ in ("acknowledgement", "test", "flapping", "flapping_stopped") else f" is {state_title(state)}"


def ack_clause(type_: str, duration: int | None, actor: str = "") -> str:
    """For acknowledgements: ` has been acknowledged[ by ACTOR], unscheduled maintenance created for
    <words(duration)>` (jabber, pagerduty)."""
    if type_ != "acknowledgement":
        return ""
    by = f" by {actor}" if actor else ""
    return f" has been acknowledged{by}, unscheduled maintenance created for {words(duration or DEFAULT_ACK_DURATION)}"


def local_time(ts: int) -> str:
    """`YYYY-MM-DD HH:MM:SS +ZZZZ` in the host's local zone."""
    return _local_time(ts, time.tzname)


@functools.lru_cache(maxsize=256)
def _local_time(ts: int, _zone: tuple[str, str]) -> str:  # a storm renders the same second thousands of times
    return time.strftime("%Y-%m-%d %H:%M:%S %z", time.localtime(ts))


def short_time(ts: int) -> str:
    """`D Mon HH:MM` in the host's local zone, day not padded: `1 Feb 08:01`."""
    return _short_time(ts, time.tzname)


@functools.lru_cache(maxsize=256)
def _short_time(ts: int, _zone: tuple[str, str]) -> str:
    tm = time.localtime(ts)
    return f"{tm.tm_mday} {time.strftime('%b %H:%M', tm)}"


def dur(seconds: int | None) -> str:
    """Elapsed time as `1 hr 5 mins 0 secs` (years only when they divide better than months)."""
    rest = max(int(seconds or 0), 0)
    parts = []
    if rest % YEAR < rest % MONTH:
        years, rest = divmod(rest, YEAR)
        parts.append(_unit(years, "yr"))
    for name, size in _DUR_UNITS:
        n, rest = divmod(rest, size)
        if n:
            parts.append(_unit(n, name))
    parts.append(_unit(rest, "sec"))
    return " ".join(parts)


def rollup_summary(rollup_alerts: Mapping[str, RollupEntry]) -> str:
    """`Critical: 2, Warning: 1` over the rollup alerts' states."""
    groups = _by_state(rollup_alerts)
    return ", ".join(f"{state_title(s)}: {len(groups[s])}" for s in ROLLUP_STATES if groups[s])


def rollup_detail(rollup_alerts: Mapping[str, RollupEntry], limit: int) -> str:
    """`Critical: a:x, b:y, ...; Warning: c:z` listing at most `limit` check ids per state."""
    groups = _by_state(rollup_alerts)
    out = []
    for state in ROLLUP_STATES:
        ids = groups[state]
        if ids:
            shown = ids[:limit] + (["..."] if len(ids) > limit else [])
            out.append(f"{state_title(state)}: {', '.join(shown)}")
    return "; ".join(out)


def truncate(text: str, limit: int) -> str:
    """`text`, or its first limit-3 characters + `...` when longer than `limit`."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def ack_hash(check_id: str) -> str:
    """First 8 hex chars of SHA-1 of `E:C`."""
    return hashlib.sha1(check_id.encode("utf-8")).hexdigest()[:8]


# --- private helpers ---------------------------------------------------------


def _unit(n: int, name: str) -> str:
    return f"{n} {name}{'' if n == 1 else 's'}"


def _int(value: Any) -> int | None:
    try:
        return int(float(value)) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _by_state(rollup_alerts: Mapping[str, RollupEntry]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {s: [] for s in ROLLUP_STATES}
    for check_id, info in rollup_alerts.items():
        groups.setdefault(str(info.get("state")), []).append(check_id)
    return groups


def _rollup_row(check_id: str, info: RollupEntry) -> dict[str, Any]:
    entity, _, check = check_id.partition(":")
    duration = _int(info.get("duration")) or 0
    return {"entity": entity, "check": check, "state_title": state_title(str(info.get("state") or "")),
            "duration": duration, "dur": dur(duration), "summary": info.get("summary") or ""}
