"""The audit trail of web writes: one entry per non-GET request, written by the gate (web/auth.py) after the view.

Actions through the one action path (acknowledge, maintenance, test, enable; flapjack_py.actions) write their
own entries, one per check; for those requests the gate writes nothing more (it compares the entries this
request wrote, flapjack_py.store.audit.written). Every other write (contacts, media, rules, schedules,
policies, dependencies, teams, entities, checks, receivers, refused writes) gets one entry here: the actor of
web/actors.py, the endpoint's name as the action, the kind and target from the route, the outcome (`ok`, or
401/403 for a refusal; invalid writes, which change nothing, are not recorded). Logins and logouts are recorded by the login views; the use of an API token once an hour.
"""

from __future__ import annotations

import logging
import time
from urllib.parse import unquote

from flask import Flask, current_app, g, request
from werkzeug.wrappers import Response

from flapjack_py.model.actors import Actor
from flapjack_py.store import audit

from .actors import request_actor
from .auth import SAFE_METHODS, current_principal

log = logging.getLogger(__name__)

KINDS = {"contacts": "contact", "contact": "contact", "media": "medium", "medium": "medium",
         "notification_rules": "rule", "rule": "rule", "pagerduty_credentials": "pagerduty",
         "pagerduty": "pagerduty", "entities": "entity", "entity": "entity", "checks": "check", "check": "check",
         "schedules": "schedule", "policies": "policy", "escalation_policy": "policy", "dependencies": "dependency",
         "dependency": "dependency", "series": "series", "entity_series": "series", "teams": "team",
         "team": "team", "scheduled": "check", "unscheduled": "check", "test_notifications": "check",
         "enabled": "check", "bulk": "check", "webhook": "receiver"}
"""Noun of an endpoint (its name without the verb) -> the kind of thing it writes."""
VERBS = ("post_", "patch_", "delete_", "create_", "update_", "save_", "new_", "set_", "end_")
TARGET_ARGS = ("ids", "contact_id", "rule_id", "policy_id", "series_id", "dependency_id", "schedule_id", "kind",
               "name", "entity", "check", "team_id")
"""Route arguments naming what was written, most specific first among those a route has."""


RECORDED_STATUS = frozenset({401, 403})
"""Failed writes recorded: the refusals (who tried what they may not). A write refused as invalid (400, 404,
409, 413, 415, 422) changed nothing and refused nobody anything: not recorded."""


def init_app(app: Flask) -> None:
    """Mark each request's start and record its outcome after the view (the gate's before_request runs first)."""
    app.before_request(_mark)
    app.after_request(_record)


def kind_of(endpoint: str) -> str:
    """`api.patch_contacts` -> `contact`; `ui.delete_rule` -> `rule`; an unknown noun stays as it is."""
    name = endpoint.rpartition(".")[2]
    for verb in VERBS:
        if name.startswith(verb):
            name = name[len(verb):]
            break
    return KINDS.get(name, name)


def target_of(view_args: dict[str, object] | None) -> str:
    """What the route names: `E:C` for a check's routes, else its most specific id argument ("" for none)."""
    args = {k: str(v) for k, v in (view_args or {}).items()}
    if "entity" in args and "check" in args:
        return f"{args['entity']}:{args['check']}"
    if "contact_id" in args and "rule_id" in args:
        return args["rule_id"]
    return next((args[name] for name in TARGET_ARGS if args.get(name)), "")[:500]


def _mark() -> None:
    g.audit_mark = audit.written()


def _record(response: Response) -> Response:
    """Write the entry of a write request the action path did not record (and that someone made)."""
    if request.method in SAFE_METHODS or request.url_rule is None or request.endpoint in _SELF_RECORDED or \
            response.status_code not in RECORDED_STATUS and response.status_code >= 400:
        return response
    if "principal" not in g or audit.written() != g.get("audit_mark", audit.written()):
        return response
    principal = current_principal()
    outcome = "ok" if response.status_code < 400 else str(response.status_code)
    endpoint = request.endpoint or ""
    target = target_of(request.view_args) or _created(response)
    item = audit.entry(request_actor(), endpoint.rpartition(".")[2], kind_of(endpoint), target,
                       int(time.time()), outcome=outcome, detail=f"{request.method} {request.path} ({principal.via})")
    try:
        audit.record_all(current_app.extensions["flapjack"].client, [item])
    except Exception:  # noqa: BLE001  (the write is done: its audit entry must not turn it into a 500)
        log.exception("audit entry of %s %s not written", request.method, request.path)
    return response


def _created(response: Response) -> str:
    """The id a create answered with (the last segment of its Location), "" for none."""
    location = response.headers.get("Location", "") if response.status_code in (201, 303) else ""
    return unquote(location.partition("?")[0].rstrip("/").rpartition("/")[2])[:500]


_SELF_RECORDED = frozenset({"ui.login", "ui.logout", "static", "ui.static", "api.options"})
"""Open endpoints that record themselves (logins) or are not writes."""



def record_login(name: str, method: str, outcome: str, action: str = "login") -> None:
    """A login (or logout) of user `name` through `method` (password, ldap, oidc): outcome `ok` or why not."""
    channel = "ui" if (request.blueprint or "").startswith("ui") else "api"
    item = audit.entry(Actor(name[:200] or "?", channel, request.remote_addr), action, "user", name[:200],
                       int(time.time()), outcome=outcome, detail=method)
    audit.record_all(current_app.extensions["flapjack"].client, [item])
