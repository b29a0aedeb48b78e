"""The analytics page (issue 32): a period's on-call figures with pictures drawn by web/static/analytics.js with the
vendored uPlot (pages per day stacked by medium, MTTA/MTTR per day, pages by hour of the week), the noisiest checks
and the people paged most; `?suggest=1` adds the suggestions, each replayed by the backtest engine (seconds).
Figures from flapjack_py/tools/report.py, the same as GET /api/analytics/*.
"""

from __future__ import annotations

from flask import render_template, request

from flapjack_py.analysis import analytics as figures
from flapjack_py.analysis.period import MAX_TEXT, BadPeriod, period
from flapjack_py.store.plumbing.client import Clients
from flapjack_py.tools.report import UnknownTeam, read_period

from . import bp
from .context import config, db, now, raw_redis

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
FILTERS = ("entity", "tag", "team", "contact")


@bp.get("/analytics")
def analytics() -> tuple[str, int]:
    """The figures of `since`..`until` (default the last 7 days), narrowed by entity, tag, team or contact; a bad
    period or an unknown team is named above the form (400)."""
    asked = {n: request.args.get(n, "")[:MAX_TEXT] for n in ("since", "until", *FILTERS)}
    try:
        since, until = period(asked["since"] or None, asked["until"] or None, now())
        found = read_period(db(), config(), since, until, asked["tag"] or None, asked["team"] or None,
                            entity=asked["entity"] or None, contact=asked["contact"] or None)
    except (BadPeriod, UnknownTeam) as exc:
        return render_template("ui/analytics.html", problem=str(exc), asked=asked), 400
    shown = found.figures()
    if request.args.get("suggest"):
        from flapjack_py.tools.suggestions import suggestions  # starts scratch Redis servers: loaded when asked

        shown["suggestions"] = suggestions(Clients(db(), raw_redis()), config(), found.facts, found.settings,
                                           found.incidents)
    timeline = figures.timeline(found.facts, found.settings, found.incidents)
    return render_template("ui/analytics.html", f=shown, timeline=timeline, days=DAYS, asked=asked,
                           link_args={k: v for k, v in asked.items() if v},
                           suggested=bool(request.args.get("suggest")), problem=None), 200
