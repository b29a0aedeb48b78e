"""`flapjack report [--since 7d] [--until TIME] [--json]`: the on-call analytics of a period (issue 32).

The same figures as GET /api/analytics/summary, /checks and /people (`--json` prints them as
{"summary", "checks", "people"}); `--suggest` adds the suggestions, each proved by a backtest replay
(flapjack_py/tools/suggestions.py); `--email` sends the digest to analytics.digest_contacts instead
(flapjack_py/tools/digest.py).
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import click

from flapjack_py import keys
from flapjack_py.analysis import analytics
from flapjack_py.analysis.incidents import Facts, Incident, incidents
from flapjack_py.analysis.period import BadPeriod, period
from flapjack_py.analysis.wording import describe
from flapjack_py.config.settings import Config
from flapjack_py.errors import FlapjackError
from flapjack_py.model.teams import owners
from flapjack_py.runtime.session import redis_clients
from flapjack_py.store import teams as team_store
from flapjack_py.store.analytics import read_facts, tagged
from flapjack_py.store.plumbing.client import StrRedis


@dataclass(frozen=True)
class Period:
    """A period's facts, the settings they are read with, and their incidents."""

    facts: Facts
    settings: analytics.Settings
    incidents: list[Incident]

    def figures(self) -> dict[str, Any]:
        """{"summary", "checks", "people"} as the API gives them."""
        with gc_paused():
            return self._figures()

    def _figures(self) -> dict[str, Any]:
        people = analytics.people(self.facts, self.settings)
        return {"summary": analytics.summary(self.facts, self.settings, self.incidents, people),
                "checks": analytics.checks(self.facts, self.settings, self.incidents), "people": people}


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a week's 100,000 records become tuples: none of them is in a cycle, and
    the collector's passes over them cost more than making them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class UnknownTeam(FlapjackError):
    """The `team` filter names no team."""


def read_period(client: StrRedis, config: Config, since: int, until: int, tag: str | None = None,
                team: str | None = None, **filters: str | None) -> Period:
    """The facts of [since, until] (narrowed by check, entity, contact, policy, tag and team when given) and their
    incidents."""
    with gc_paused():
        facts = read_facts(client, since, until)
        paged = sorted({p.check for p in facts.pages if p.check})
        checks = None if tag is None else tagged(client, paged, tag)
        if team is not None:
            owned = _owned(client, paged, team)
            checks = owned if checks is None else checks & owned
        facts = analytics.narrowed(facts, checks=checks, **filters)
        settings = analytics.settings_of(config.analytics, config.executive.default_contact_timezone)
        return Period(facts, settings, incidents(facts))


def _owned(client: StrRedis, checks: list[str], team_id: str) -> set[str]:
    """Those of `checks` team `team_id` owns (by entity or tag); UnknownTeam when there is no such team."""
    team = team_store.load_team(client, team_id)
    if team is None:
        raise UnknownTeam(f"could not find team '{team_id[:100]}'")
    pairs = [keys.split_check_id(check) for check in checks]
    return {keys.check_id(o.entity, o.check) for o in team_store.ownership(client, pairs, team.tags)
            if owners([team], o)}


@click.command("report")
@click.option("--since", default="7d", show_default=True,
              help="Start of the period: a duration back from --until (7d, 36 hours) or a time (ISO 8601, 'monday').")
@click.option("--until", default=None, help="End of the period (a time) [default: now].")
@click.option("--check", "check", default=None, metavar="ENTITY:CHECK", help="Only the pages about this check.")
@click.option("--entity", default=None, help="Only the pages about this entity's checks.")
@click.option("--tag", default=None, help="Only the pages about checks with this tag.")
@click.option("--team", default=None, help="Only the pages about checks this team owns (by entity or tag).")
@click.option("--contact", default=None, help="Only the pages to this contact.")
@click.option("--policy", default=None, help="Only the pages sent by this escalation policy.")
@click.option("--json", "as_json", is_flag=True, help='Print {"summary", "checks", "people"} as the API gives them.')
@click.option("--suggest", is_flag=True,
              help="Add suggestions for the noisiest checks, each replayed by the backtest engine (archived events).")
@click.option("--email", "send_email", is_flag=True,
              help="Send the digest (HTML + text) to analytics.digest_contacts through the email gateway.")
@click.pass_obj
def report(config: Config, since: str, until: str | None, check: str | None, entity: str | None, tag: str | None,
           team: str | None, contact: str | None, policy: str | None, as_json: bool, suggest: bool,
           send_email: bool) -> None:
    """On-call analytics of a period: pages by medium, MTTA/MTTR, never acknowledged, self-resolved, off-hours
    and sleep-hours pages, the noisiest checks and the people paged most."""
    try:
        start, end = period(since, until, int(time.time()))
    except BadPeriod as exc:
        raise click.BadParameter(str(exc), param_hint="'--since'/'--until'") from None
    with redis_clients(config) as clients:
        try:
            found = read_period(clients.text, config, start, end, tag, team, check=check, entity=entity,
                                contact=contact, policy=policy)
        except UnknownTeam as exc:
            raise click.BadParameter(str(exc), param_hint="'--team'") from None
        figures = found.figures()
        if suggest or send_email:
            from flapjack_py.tools.suggestions import suggestions

            figures["suggestions"] = suggestions(clients, config, found.facts, found.settings, found.incidents)
        if send_email:
            from flapjack_py.tools.digest import send_digest

            sent = send_digest(clients, config, figures)
            click.echo(f"digest sent to {sent} address(es)")
            return
    click.echo(json.dumps(figures, indent=2) if as_json else "\n".join(describe(figures)))
