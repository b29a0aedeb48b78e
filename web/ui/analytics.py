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
from flapjack_py.tools.report import read_period

from . import bp
from .context import config, db, now, raw_redis

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@bp.get("/analytics")
def analytics() -> tuple[str, int]:
    """The figures of `since`..`until` (default the last 7 days); a bad period is named above the form (400)."""
    since_text, until_text = (request.args.get(n, "")[:MAX_TEXT] for n in ("since", "until"))
    try:
        since, until = period(since_text or None, until_text or None, now())
    except BadPeriod as exc:
        return render_template("ui/analytics.html", problem=str(exc), since=since_text, until=until_text), 400
    found = read_period(db(), config(), since, until)
    shown = found.figures()
    if request.args.get("suggest"):
        from flapjack_py.tools.suggestions import suggestions  # starts scratch Redis servers: loaded when asked

        shown["suggestions"] = suggestions(Clients(db(), raw_redis()), config(), found.facts, found.settings,
                                           found.incidents)
    timeline = figures.timeline(found.facts, found.settings, found.incidents)
    return render_template("ui/analytics.html", f=shown, timeline=timeline, days=DAYS, since=since_text,
                           until=until_text, suggested=bool(request.args.get("suggest")), problem=None), 200
