"""The web app: Flapjack 1.x JSON API under /api and the web UI at /.

`create_app(redis=..., config=...)` is the entry point (contract section 2).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import redis as redis_lib
from flask import Flask

from flapjack_py.config import Config, load_config
from flapjack_py.connection import make_client
from flapjack_py.store import decoded

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FlapjackContext:
    """What views need: the raw (bytes) client, a str client, and the configuration."""

    raw: redis_lib.Redis
    client: redis_lib.Redis
    config: Config


def create_app(redis: redis_lib.Redis | None = None, config: Config | dict[str, Any] | None = None) -> Flask:
    """Build the Flask app; `redis` defaults to the configured URL or Sentinel service (else localhost)."""
    cfg = load_config(config)
    if redis is None:
        redis = make_client(cfg.redis) if cfg.redis.url or cfg.redis.sentinels else redis_lib.Redis()
    app = Flask(__name__)
    app.url_map.strict_slashes = False
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.compact = True  # type: ignore[attr-defined]
    app.extensions["flapjack"] = FlapjackContext(raw=redis, client=decoded(redis), config=cfg)
    from . import auth, headers
    from .api import bp as api_bp
    from .errors import register_error_handlers
    from .metrics import bp as metrics_bp
    from .middleware import MethodOverride

    auth.init_app(app)  # first: the gate runs before every other before_request hook
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
