"""The one action path: acknowledge, test, maintain, enable/disable, on behalf of an actor.

Every channel (UI, JSON API, CLI, Jabber, PagerDuty, chat buttons, replies, calls) calls these
functions with the Actor who acted (flapjack_py.model.actors). Acknowledgements and test notifications
go through the event queue like any feeder's, with the actor on the action event (the executive stores
it with the unscheduled maintenance it makes and writes it on the acknowledgement's alerts);
maintenance changes are written directly. Each action is written once to the audit trail.
"""

from __future__ import annotations

import getpass
import logging
import os
import uuid
from collections.abc import Sequence
from typing import Any

from flapjack_py import keys
from flapjack_py.access import Role
from flapjack_py.model.actors import Actor
from flapjack_py.model.checks import ack_hash
from flapjack_py.model.events import DEFAULT_ACK_DURATION, action_event
from flapjack_py.model.teams import Acting, NotOwned, may_act
from flapjack_py.oncall import recurrence
from flapjack_py.oncall.recurrence import Series
from flapjack_py.store import audit, history
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import maintenance as maint
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store import teams as team_store
from flapjack_py.store.events import push_events
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.timeparse import parse_duration

log = logging.getLogger(__name__)

Checks = Sequence[tuple[str, str]]


def cli_actor() -> Actor:
    """The actor of a command typed on this machine: the operating-system user running `flapjack`."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = f"uid:{os.getuid()}"
    return Actor(name, "cli")


def address_acting(client: StrRedis, media: str | Sequence[str], address: str, actor: Actor, unowned: str) -> Acting:
    """Who acts through a bot, a button, a reply or a call, as team ownership sees them: a responder of the
    teams listing the contact whose address on one of `media` is `address` (none: only checks no team owns
    may be acted on, per web.unowned_checks)."""
    names = (media,) if isinstance(media, str) else tuple(media)
    contact = next(filter(None, (team_store.contact_for_address(client, m, address) for m in names)), None)
    return Acting(actor.name, Role.RESPONDER, unowned, contact)


def ack_seconds(typed: str) -> int:
    """An acknowledgement's duration typed as people type it (`10m`, `4h`, `1 day`); blank or 0 is the default.

    Raises TimeParseError for an unreadable duration.
    """
    return (parse_duration(typed) if typed.strip() else DEFAULT_ACK_DURATION) or DEFAULT_ACK_DURATION


def acknowledge(client: StrRedis, queue: str, checks: Checks, *, duration: int, message: str, actor: Actor,
                now: int, acting: Acting | None = None) -> int:
    """Queue one acknowledgement action event per check (one push), carrying `actor`; return the duration.

    With `acting` (who acts, for team ownership) raises NotOwned, acting on none, when any check is refused.
    """
    authorise(client, "acknowledge", checks, actor, acting, now)
    seconds = duration if duration > 0 else DEFAULT_ACK_DURATION
    push_events(client, [action_event("acknowledgement", entity, check, summary=message or None, duration=seconds,
                                      time=now, ack_id=ack_hash(keys.check_id(entity, check)), actor=actor)
                         for entity, check in checks], queue)
    _audit(client, actor, "acknowledge", checks, now, detail=f"{seconds}s {message}".strip())
    return seconds


def escalate(client: StrRedis, entity: str, check: str, *, actor: Actor, now: int) -> bool:
    """Page the next level of the check's running escalation now (at the executive's next look); False when
    none runs or it paged its last level."""
    done = escalation_store.escalate_now(client, entity, check, now)
    _audit(client, actor, "escalate", [(entity, check)], now, outcome="ok" if done else "nothing to escalate")
    return done


def test_notifications(client: StrRedis, queue: str, checks: Checks, *, actor: Actor, now: int,
                       summary: str | None = None, acting: Acting | None = None) -> None:
    """Queue one test_notifications action event per check, in one push (worded as Flapjack's UI did unless
    a summary is given)."""
    authorise(client, "test_notifications", checks, actor, acting, now)
    push_events(client, [action_event("test_notifications", entity, check, time=now, actor=actor,
                                      summary=summary or f"Testing notifications to all contacts interested in "
                                                         f"entity: {entity}, check: {check}")
                         for entity, check in checks], queue)
    _audit(client, actor, "test_notifications", checks, now)


def create_scheduled(client: StrRedis, entity: str, check: str, start: int, duration: int, summary: str, *,
                     actor: Actor, now: int, acting: Acting | None = None) -> None:
    """Add a scheduled maintenance window made by `actor`."""
    authorise(client, "create_scheduled_maintenance", [(entity, check)], actor, acting, now)
    maint.create_scheduled(client, entity, check, start, duration, summary, now, actor)
    _audit(client, actor, "create_scheduled_maintenance", [(entity, check)], now,
           detail=f"from {start} for {duration}s {summary}".strip())


def create_unscheduled(client: StrRedis, entity: str, check: str, start: int, duration: int, summary: str, *,
                       actor: Actor, now: int, acting: Acting | None = None) -> None:
    """Write an unscheduled maintenance window directly (the command line's `maintenance create`; channels
    that acknowledge queue an event with `acknowledge` instead, so the executive applies it in order)."""
    authorise(client, "create_unscheduled_maintenance", [(entity, check)], actor, acting, now)
    maint.create_unscheduled(client, entity, check, start, duration, summary, now, actor)
    _audit(client, actor, "create_unscheduled_maintenance", [(entity, check)], now,
           detail=f"from {start} for {duration}s {summary}".strip())


def end_unscheduled(client: StrRedis, entity: str, check: str, *, actor: Actor, now: int,
                    end_time: int | None = None, acting: Acting | None = None) -> bool:
    """End the acknowledgement (unscheduled maintenance) in force at `end_time` (default now); False when
    there is none."""
    authorise(client, "end_acknowledgement", [(entity, check)], actor, acting, now)
    ended = maint.end_unscheduled(client, entity, check, now if end_time is None else end_time)
    _audit(client, actor, "end_acknowledgement", [(entity, check)], now, outcome="ok" if ended else "none in force")
    return ended


def end_scheduled(client: StrRedis, entity: str, check: str, start: int, *, actor: Actor, now: int,
                  acting: Acting | None = None) -> bool:
    """End (or delete, if it has not begun) the scheduled window starting at `start`."""
    authorise(client, "end_scheduled_maintenance", [(entity, check)], actor, acting, now)
    ended = maint.end_scheduled(client, entity, check, start, now)
    _audit(client, actor, "end_scheduled_maintenance", [(entity, check)], now,
           outcome="ok" if ended else "unknown or over", detail=str(start))
    return ended


def end_maintenance(client: StrRedis, entity: str, check: str, *, actor: Actor, now: int,
                    acting: Acting | None = None) -> list[str]:
    """End the acknowledgement and the scheduled window in force; return what ended ("acknowledgement",
    "scheduled maintenance"), [] when nothing was in force."""
    authorise(client, "end_maintenance", [(entity, check)], actor, acting, now)
    ended = ["acknowledgement"] if end_unscheduled(client, entity, check, actor=actor, now=now) else []
    start = maint.in_force(client, entity, check, maint.SCHEDULED)
    if start is not None and end_scheduled(client, entity, check, start, actor=actor, now=now):
        ended.append("scheduled maintenance")
    return ended


def create_series(client: StrRedis, fields: dict[str, Any], *, actor: Actor, now: int,
                  acting: Acting | None = None) -> Series:
    """Store and materialise a recurring maintenance series (recurrence.new_series fields).

    Raises InvalidSeries saying what is wrong; with `acting`, NotOwned when it covers checks their teams do
    not own (nothing stored).
    """
    made = recurrence.new_series(str(uuid.uuid4()), fields, now)
    series_store.check_plan(client, made, now)
    authorise_series(client, "create_maintenance_series", made, actor, acting, now)
    series_store.save_series(client, made)
    series_store.materialise(client, made, now)
    audit.record_all(client, [audit.entry(actor, "create_maintenance_series", "series", made.id, now)])
    return made


def delete_series(client: StrRedis, series_id: str, *, actor: Actor, now: int, acting: Acting | None = None) -> bool:
    """Delete a series and its future windows; False for an unknown id. With `acting`, NotOwned when it covers
    checks their teams do not own."""
    series = series_store.load_series(client, series_id)
    if series is None:
        return False
    authorise_series(client, "delete_maintenance_series", series, actor, acting, now)
    series_store.delete_series(client, series_id, now)
    audit.record_all(client, [audit.entry(actor, "delete_maintenance_series", "series", series_id, now)])
    return True


def authorise_series(client: StrRedis, action: str, series: Series, actor: Actor, acting: Acting | None,
                     now: int) -> None:
    """authorise() over the checks a maintenance series covers now."""
    if acting is not None:
        authorise(client, action, series_store.target_checks(client, series), actor, acting, now)


def set_enabled(client: StrRedis, entity: str, check: str, enabled: bool, *, actor: Actor, now: int,
                acting: Acting | None = None) -> None:
    """Enable or disable a check: disabling drops it from current_checks:E (and the entity from
    current_entities when none is left); its next event enables it."""
    authorise(client, "enable" if enabled else "disable", [(entity, check)], actor, acting, now)
    if enabled:
        history.enable_check(client, entity, check, now)
    else:
        history.disable_check(client, entity, check)
    _audit(client, actor, "enable" if enabled else "disable", [(entity, check)], now)


def refused(client: StrRedis, checks: Checks, acting: Acting | None) -> list[tuple[str, str]]:
    """The checks `acting` may not act on because of team ownership (flapjack_py.model.teams); [] for None
    (the command line, the engine, PagerDuty's sync: no user to hold to a team)."""
    if acting is None or acting.role is Role.ADMIN or not checks:
        return []
    teams = team_store.list_teams(client)
    facts = team_store.ownership(client, list(checks), [tag for team in teams for tag in team.tags])
    return [(item.entity, item.check) for item in facts if not may_act(teams, item, acting)]


def authorise(client: StrRedis, action: str, checks: Checks, actor: Actor, acting: Acting | None, now: int) -> None:
    """Raise NotOwned (after writing a `refused` audit entry per refused check) unless `acting` may act on all."""
    refused_checks = refused(client, checks, acting)
    if refused_checks and acting is not None:
        record_refused(client, action, refused_checks, actor, now)
        raise NotOwned(acting.user, [keys.check_id(entity, check) for entity, check in refused_checks])


def record_refused(client: StrRedis, action: str, checks: Checks, actor: Actor, now: int) -> None:
    """Write the audit entries of `action` refused on `checks` (not owned by the actor's teams)."""
    _audit(client, actor, action, checks, now, outcome="refused", detail="not owned by the user's teams")


def _audit(client: StrRedis, actor: Actor, action: str, checks: Checks, now: int, *, outcome: str = "ok",
           detail: str = "") -> None:
    audit.record_all(client, [audit.entry(actor, action, "check", keys.check_id(entity, check), now,
                                          outcome=outcome, detail=detail) for entity, check in checks])
