"""Who acts in a web request: the Actor (flapjack_py.model.actors) the gate recognised, for the action path."""

from __future__ import annotations

from flask import current_app, request

from flapjack_py.model.actors import Actor
from flapjack_py.model.teams import Acting

from .auth import current_principal


def request_actor() -> Actor:
    """The current request's actor: the user's name (session or their token), `token:web.api_token` for the
    configured token, `anonymous` in the open mode; channel `ui` for the UI's pages, `api` for the JSON API."""
    principal = current_principal()
    name = "token:web.api_token" if principal.via == "config-token" else principal.name
    channel = "ui" if (request.blueprint or "").startswith("ui") else "api"
    return Actor(name, channel, request.remote_addr)


def request_acting() -> Acting:
    """Who acts in the current request as team ownership sees it (flapjack_py.actions refuses checks their
    teams do not own): the user, their role, and config web.unowned_checks."""
    principal = current_principal()
    return Acting(principal.name, principal.role, current_app.extensions["flapjack"].config.web.unowned_checks)
