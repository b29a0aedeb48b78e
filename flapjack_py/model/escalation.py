"""Escalation policies: who is paged for a problem, and who next if nobody acknowledges. Pure: no Redis,
no clock; flapjack_py.notify.escalator drives it with `now` (state in store/escalation.py).

A policy has levels `{delay, targets: [{schedule}|{contact}]}` and `repeat`. Step 0 is level 1, paged
when the problem is alerted; step k > 0 pages level (k mod levels) + 1 `delay` seconds after step k-1
(a repeated first level, whose delay is usually 0, waits REPEAT_DELAY). There are
levels x (repeat + 1) steps. Schedules are resolved to who is on call at the moment of the step.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from flapjack_py.model.notification import NotificationType
from flapjack_py.oncall.schedules import Schedule, oncall_now

log = logging.getLogger(__name__)

REPEAT_DELAY = 900
"""Seconds before a repeated level whose own delay is 0."""
MAX_LEVELS = 20
MAX_TARGETS = 50
MAX_DELAY = 7 * 86400
MAX_REPEAT = 10


class InvalidPolicy(ValueError):
    """Raised when an escalation policy is unusable."""


@dataclass(frozen=True)
class Target:
    """One target of a level: a schedule (whoever is on call) or a contact."""

    kind: str  # "schedule" or "contact"
    id: str


@dataclass(frozen=True)
class Level:
    """Targets paged `delay` seconds after the previous level."""

    delay: int
    targets: tuple[Target, ...]


@dataclass(frozen=True)
class Policy:
    """An escalation policy."""

    id: str
    name: str
    levels: tuple[Level, ...]
    repeat: int = 0

    @property
    def steps(self) -> int:
        """How many steps (levels paged, repeats included) the policy has."""
        return len(self.levels) * (self.repeat + 1)

    def level_of(self, step: int) -> Level:
        return self.levels[step % len(self.levels)]

    def delay_before(self, step: int) -> int:
        """Seconds between step-1 and `step` (step > 0)."""
        return self.level_of(step).delay or REPEAT_DELAY


@dataclass(frozen=True)
class Page:
    """One step paged: when, which level (1-based), whom."""

    at: int
    level: int
    contacts: tuple[str, ...]


@dataclass(frozen=True)
class Paged:
    """Why a contact is alerted: by which policy, at which level (1-based)."""

    policy: str
    level: int


@dataclass(frozen=True)
class State:
    """The escalation of one check under one policy: running, or ended (`ended` = when, `ended_by` = why)."""

    policy: str
    step: int  # the last step paged
    next_at: int | None  # when the next step is due; None after the last one (or once ended)
    pages: tuple[Page, ...] = field(default_factory=tuple)
    ended: int | None = None
    ended_by: str = ""
    alerted: tuple[tuple[str, str], ...] = ()  # (contact, medium) pairs alerted because the escalation paged them

    @property
    def running(self) -> bool:
        return self.ended is None

    @property
    def paged(self) -> tuple[str, ...]:
        """Everyone paged so far, in order."""
        return tuple(dict.fromkeys(c for page in self.pages for c in page.contacts))

    def paged_by(self) -> dict[str, Paged]:
        """Everyone paged so far, with the policy and the first level that paged them."""
        found: dict[str, Paged] = {}
        for page in self.pages:
            for contact in page.contacts:
                found.setdefault(contact, Paged(self.policy, page.level))
        return found


def resolve(level: Level, schedules: Mapping[str, Schedule], now: int, known: Mapping[str, str]) -> tuple[str, ...]:
    """The contact ids a level pages at `now`: its contacts, and who is on call in its schedules."""
    found: list[str] = []
    for target in level.targets:
        if target.kind == "contact":
            found.append(target.id)
        elif target.id in schedules:
            found += oncall_now(schedules[target.id], now, known)
        else:
            log.warning("escalation target schedule %s is unknown", target.id)
    return tuple(dict.fromkeys(found))


def start(policy: Policy, now: int, contacts: Sequence[str]) -> State:
    """The state after paging level 1 at `now`."""
    return State(policy.id, 0, _next_at(policy, 0, now), (Page(now, 1, tuple(contacts)),))


def advance(state: State, policy: Policy, now: int, contacts: Sequence[str]) -> State:
    """The state after paging the next step at `now`."""
    step = state.step + 1
    page = Page(now, step % len(policy.levels) + 1, tuple(contacts))
    return replace(state, step=step, next_at=_next_at(policy, step, now), pages=(*state.pages, page))


def with_alerted(state: State, pairs: Sequence[tuple[str, str]]) -> State:
    """The state with more (contact, medium) pairs alerted under it."""
    return replace(state, alerted=tuple(dict.fromkeys([*state.alerted, *pairs])))


def end(state: State, now: int, why: str) -> State:
    """The state once an acknowledgement or a recovery (`why`) ended the escalation."""
    return replace(state, next_at=None, ended=now, ended_by=why)


def on_notification(kind: NotificationType, state: State | None, policy: Policy | None, first: Sequence[str],
                    now: int) -> tuple[dict[str, Paged], State | None]:
    """Whom an escalation adds to a notification of its check, and the state to record (None: unchanged).

    A problem starts an escalation under `policy` by paging level 1 (`first`: its contacts at `now`), or,
    while one runs, goes to everyone it paged; an acknowledgement or a recovery ends a running one and
    goes to everyone it paged, whatever the schedules say now.
    """
    running = state if state is not None and state.running else None
    if kind is NotificationType.PROBLEM:
        if running is not None:
            return running.paged_by(), None
        if policy is None:
            return {}, None
        started = start(policy, now, first)
        return started.paged_by(), started
    if kind in (NotificationType.RECOVERY, NotificationType.ACKNOWLEDGEMENT) and running is not None:
        return running.paged_by(), end(running, now, kind.value)
    return {}, None


def step_due(state: State | None, policy: Policy | None, now: int, *, failing: bool, acknowledged: bool,
             in_maintenance: bool) -> str:
    """What a due escalation step does: `page` the next level, `wait` (scheduled maintenance), `end` (the check
    recovered, was acknowledged, or the policy is gone), or `none` (not due, or already over)."""
    if state is None or not state.running or state.next_at is None:
        return "none"
    if state.next_at > now:
        return "none"
    if policy is None or not failing or acknowledged:
        return "end"
    return "wait" if in_maintenance else "page"


def _next_at(policy: Policy, step: int, now: int) -> int | None:
    return now + policy.delay_before(step + 1) if step + 1 < policy.steps else None


# --- JSON -------------------------------------------------------------------------


def policy_from_json(data: Any, policy_id: str) -> Policy:
    """A validated Policy from an API item; raises InvalidPolicy."""
    if not isinstance(data, Mapping):
        raise InvalidPolicy("an escalation policy must be an object")
    levels = data.get("levels")
    if not isinstance(levels, list) or not 0 < len(levels) <= MAX_LEVELS:
        raise InvalidPolicy(f"levels must be a list of 1 to {MAX_LEVELS} levels")
    repeat = data.get("repeat", 0)
    if not isinstance(repeat, int) or isinstance(repeat, bool) or not 0 <= repeat <= MAX_REPEAT:
        raise InvalidPolicy(f"repeat must be 0 to {MAX_REPEAT}")
    name = data.get("name") or ""
    if not isinstance(name, str) or len(name) > 200:
        raise InvalidPolicy("name must be a string of at most 200 characters")
    return Policy(policy_id, name, tuple(_level(item) for item in levels), repeat)


def policy_to_json(policy: Policy) -> dict[str, Any]:
    """The API form of a policy."""
    return {"id": policy.id, "name": policy.name, "repeat": policy.repeat,
            "levels": [{"delay": level.delay, "targets": [{t.kind: t.id} for t in level.targets]}
                       for level in policy.levels]}


def state_to_json(state: State) -> dict[str, Any]:
    return {"policy": state.policy, "step": state.step, "next_at": state.next_at,
            "pages": [[p.at, p.level, list(p.contacts)] for p in state.pages],
            "ended": state.ended, "ended_by": state.ended_by, "alerted": [list(pair) for pair in state.alerted]}


def state_from_json(data: Mapping[str, Any]) -> State:
    ended = data.get("ended")
    return State(str(data["policy"]), int(data["step"]), data.get("next_at"),
                 tuple(Page(int(at), int(level), tuple(contacts)) for at, level, contacts in data.get("pages", [])),
                 None if ended is None else int(ended), str(data.get("ended_by") or ""),
                 tuple((str(c), str(m)) for c, m in data.get("alerted", [])))


def _level(item: Any) -> Level:
    if not isinstance(item, Mapping):
        raise InvalidPolicy("each level must be an object {delay, targets}")
    delay = item.get("delay", 0)
    if not isinstance(delay, int) or isinstance(delay, bool) or not 0 <= delay <= MAX_DELAY:
        raise InvalidPolicy(f"delay must be 0 to {MAX_DELAY} seconds")
    targets = item.get("targets")
    if not isinstance(targets, list) or not 0 < len(targets) <= MAX_TARGETS:
        raise InvalidPolicy(f"targets must be a list of 1 to {MAX_TARGETS} targets")
    return Level(delay, tuple(_target(t) for t in targets))


def _target(item: Any) -> Target:
    if isinstance(item, Mapping) and len(item) == 1:
        kind, value = next(iter(item.items()))
        if kind in ("schedule", "contact") and isinstance(value, str) and value and len(value) <= 200:
            return Target(kind, value)
    raise InvalidPolicy(f"a target is {{\"schedule\": ID}} or {{\"contact\": ID}}, not {item!r}")
