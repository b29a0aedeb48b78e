"""`flapjack web`: serve the app with waitress (a production WSGI server)."""

from __future__ import annotations

import logging

from waitress import serve as waitress_serve

from flapjack_py.config import Config
from flapjack_py.connection import open_redis

from . import create_app

log = logging.getLogger(__name__)


def serve(config: Config, bind: str | None = None, port: int | None = None) -> None:
    """Serve /api and / until interrupted; starts the embedded Redis when no redis.url is set."""
    client, embedded = open_redis(config)
    app = create_app(redis=client, config=config)
    host, port = bind or config.web.bind, port or config.web.port
    log.info("web app listening on http://%s:%s (API under /api)", host, port)
    try:
        waitress_serve(app, host=host, port=port, threads=config.web.threads,
                       ident="flapjack-py")
    finally:
        if embedded:
            embedded.stop()
