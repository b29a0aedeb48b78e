"""WSGI entry point for any WSGI server, with several worker processes if wanted:

    gunicorn --workers 4 --bind 0.0.0.0:3080 'web.wsgi:app'
    waitress-serve --threads 16 --listen 0.0.0.0:3080 web.wsgi:app

The config comes from FLAPJACK_CONFIG (and FLAPJACK_REDIS_URL). A shared Redis
(`redis.url` or `redis.sentinels`) is required: several workers must not each
start an embedded server. As `flapjack web` on a public address, it refuses to
serve while no web user or API token exists (unless `web.allow_anonymous`).
Every worker process imports this module once.
"""

from __future__ import annotations

import logging

from flapjack_py.config.settings import read_config_file
from flapjack_py.errors import ConfigError
from flapjack_py.runtime.connection import make_clients
from flapjack_py.runtime.logs import setup_logging

from . import create_app
from .serve import refuse_open_exposure

log = logging.getLogger(__name__)

_config = read_config_file(None)
if not (_config.redis.url or _config.redis.sentinels):
    raise ConfigError("redis.url: web.wsgi needs a shared Redis (set redis.url or redis.sentinels)")
setup_logging(_config.logging)
_clients = make_clients(_config.redis)
refuse_open_exposure(_config, _clients.text, "0.0.0.0")  # the server's address is unknown here: assume it is reachable
app = create_app(redis=_clients, config=_config)
"""The Flask app (JSON API under /api, UI at /)."""
