"""The web app: Flapjack 1.x JSON API under /api and the web UI at /.

`create_app(redis=..., config=...)` is the entry point (contract section 2).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import redis as redis_lib
from flask import Flask

from flapjack_py.config.settings import Config, load_config
from flapjack_py.runtime.connection import clients_for, localhost_clients, make_clients
from flapjack_py.store import audit as audit_store
from flapjack_py.store.plumbing.client import BytesRedis, Clients, StrRedis

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FlapjackContext:
    """What views need: the bytes client (rq, the rate limiter), the str client (store/), and the configuration."""

    clients: Clients
    config: Config

    @property
    def raw(self) -> BytesRedis:
        return self.clients.raw

    @property
    def client(self) -> StrRedis:
        return self.clients.text


def create_app(redis: Clients | redis_lib.Redis | None = None, config: Config | dict[str, Any] | None = None) -> Flask:
    """Build the Flask app; `redis` defaults to the configured URL or Sentinel service (else localhost).

    `redis` is the process's Clients pair (`flapjack web`), or any one redis.Redis client an embedder
    hands over (contract section 2): its other kind is made once, here (flapjack_py.runtime.connection.clients_for).
    """
    cfg = load_config(config)
    if redis is None:
        clients = make_clients(cfg.redis) if cfg.redis.url or cfg.redis.sentinels else localhost_clients()
    else:
        clients = clients_for(redis)
    app = Flask(__name__)
    app.url_map.strict_slashes = False
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.compact = True  # type: ignore[attr-defined]
    app.extensions["flapjack"] = FlapjackContext(clients=clients, config=cfg)
    audit_store.set_retention(cfg.web.audit_retention)
    from . import audit, auth, headers
    from .api import bp as api_bp
    from .errors import register_error_handlers
    from .metrics import bp as metrics_bp
    from .middleware import MethodOverride

    auth.init_app(app)  # first: the gate runs before every other before_request hook
    audit.init_app(app)  # the gate's audit entry of every write the action path does not record
    headers.init_app(app)
    app.register_blueprint(api_bp)
    app.register_blueprint(metrics_bp)
    _register_ui(app)
    register_error_handlers(app)
    app.wsgi_app = MethodOverride(app.wsgi_app)  # type: ignore[method-assign]
    return app


def _register_ui(app: Flask) -> None:
    try:
        from .ui import bp as ui_bp
    except ImportError as exc:
        log.warning("web UI not available: %s", exc)
        return
    from .ui.login import limit_failed_logins

    app.register_blueprint(ui_bp)
    limit_failed_logins(app)
