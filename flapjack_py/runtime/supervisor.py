"""`flapjack server`: run the executive, the watchdog, a worker per enabled gateway, the enabled receivers and
the web app as supervised children.

With no `redis.url` the embedded Redis is started here and its URL handed to
the children in FLAPJACK_REDIS_URL. A child that exits is logged and restarted
after a back-off (1 s doubling to 30 s; reset once it has run for a minute).
SIGTERM or SIGINT stops every child (SIGTERM, then SIGKILL after a grace period).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from types import FrameType

from flapjack_py.access import FIRST_ADMIN_HINT, exposure_problem
from flapjack_py.config.settings import Config
from flapjack_py.errors import ConfigError
from flapjack_py.runtime.connection import make_clients
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import users as user_store

log = logging.getLogger(__name__)

BACKOFF_START = 1.0
"""Seconds before the first restart of a child that died."""
BACKOFF_MAX = 30.0
"""Longest wait between restarts, seconds."""
STABLE_AFTER = 60.0
"""A child that ran this long (seconds) is restarted after BACKOFF_START again."""
STOP_GRACE = 10.0
"""Seconds children get to exit after SIGTERM before they are killed."""

EXIT_CONFIG = 78
"""Exit code of a part that cannot work as configured (e.g. a login refused); sysexits' EX_CONFIG."""
NO_RESTART_CODES = (2, EXIT_CONFIG)
TICK = 0.2
"""Seconds between checks of the children."""


@dataclass
class Child:
    """One supervised process: `flapjack <args>`."""

    name: str
    args: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    backoff: float = BACKOFF_START
    restart_at: float = 0.0
    restarts: int = 0
    env: dict[str, str] = field(default_factory=dict)

    def start(self) -> None:
        """Start (or restart) the child process."""
        argv = [sys.executable, "-c", "from flapjack_py.cli import main; main()", *self.args]
        self.process = subprocess.Popen(argv, env=self.env, stdin=subprocess.DEVNULL)
        self.started_at = time.monotonic()
        log.info("server: started %s (pid %s)", self.name, self.process.pid)


def run_server(config: Config, config_path: str | None = None) -> int:
    """Run and supervise every part until SIGTERM/SIGINT; return the exit code."""
    embedded = None
    env = dict(os.environ)
    path = config_path or _config_path()
    if path:
        env["FLAPJACK_CONFIG"] = os.path.abspath(path)
    if not (config.redis.url or config.redis.sentinels):
        embedded = EmbeddedRedis(config.redis.data_dir, persistent=True, binary=config.redis.embedded_binary).start()
        env["FLAPJACK_REDIS_URL"] = embedded.url
        log.info("server: embedded Redis at %s", embedded.url)
    children = [Child(name, args, env=env) for name, args in plan(config)]
    try:
        if any(child.name == "web" for child in children):
            _check_web_exposure(config, env.get("FLAPJACK_REDIS_URL") or config.redis.url or "")
    except BaseException:
        if embedded:
            embedded.stop()
        raise
    stopping: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        for child in children:
            child.start()
        while not stopping:
            _tend(children)
            time.sleep(TICK)
        log.info("server: signal %s, stopping %d children", stopping[0], len(children))
    finally:
        _stop_all(children)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if embedded:
            embedded.stop()
    return 0


def plan(config: Config) -> list[tuple[str, list[str]]]:
    """(name, flapjack arguments) of every child: executive, watchdog, enabled gateways, enabled receivers, web."""
    parts = [("executive", ["executive"]), ("watchdog", ["watchdog"])]
    for medium in sorted(config.gateways):
        if not config.gateway_enabled(medium):
            continue
        count = int(config.gateway(medium).get("workers", 1))
        parts += [(f"gateway {medium}" + (f" #{n}" if count > 1 else ""), ["gateway", medium])
                  for n in range(1, count + 1)]
    if config.gateway_enabled("email") and config.gateway("email").get("replies"):
        parts.append(("gateway email-replies", ["gateway", "email-replies"]))
    parts += [(f"receiver {name}", args) for name, args in config.receivers.commands()]
    if importlib.util.find_spec("web.serve") is not None:
        parts.append(("web", ["web"]))
    else:
        log.warning("server: web app not available (web.serve missing); running without it")
    return parts


def _check_web_exposure(config: Config, url: str) -> None:
    """Refuse (ConfigError) to serve the web app open to all beyond loopback; say how to add the first admin."""
    clients = make_clients(config.redis.model_copy(update={"url": url}) if url else config.redis)
    try:
        exists = bool(config.web.api_token) or user_store.credentials_exist(clients.text)
    finally:
        clients.close()
    problem = exposure_problem(config.web.bind, exists, config.web.allow_anonymous)
    if problem:
        raise ConfigError(problem)
    if not exists:
        log.warning("server: no web user or API token exists yet, so the web UI and API are open to anyone "
                    "who reaches %s:%s; create the first admin with: %s", config.web.bind, config.web.port,
                    FIRST_ADMIN_HINT)


def _tend(children: list[Child]) -> None:
    """Notice children that exited and restart them when their back-off has passed.

    A child that exits for a configuration reason (EXIT_CONFIG, or 2: a bad setting
    named on stderr) is not restarted: restarting cannot fix it.
    """
    now = time.monotonic()
    for child in children:
        if child.process is not None and child.process.poll() is not None:
            code = child.process.returncode
            ran = now - child.started_at
            if code in NO_RESTART_CODES:
                log.error("server: %s stopped for a configuration problem (exit %s, see its log); "
                          "not restarting it", child.name, code)
                child.process, child.restart_at = None, float("inf")
                continue
            child.backoff = BACKOFF_START if ran >= STABLE_AFTER else min(child.backoff * 2, BACKOFF_MAX)
            wait = BACKOFF_START if ran >= STABLE_AFTER else child.backoff / 2
            child.restart_at = now + wait
            child.process = None
            log.warning("server: %s exited with code %s after %.1fs; restarting in %.1fs", child.name, code, ran, wait)
        elif child.process is None and now >= child.restart_at:
            child.restarts += 1
            child.start()


def _stop_all(children: list[Child]) -> None:
    running = [c for c in children if c.process is not None and c.process.poll() is None]
    for child in running:
        child.process.terminate()  # type: ignore[union-attr]
    deadline = time.monotonic() + STOP_GRACE
    for child in running:
        assert child.process is not None
        try:
            child.process.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            log.warning("server: %s did not stop in %ss; killing it", child.name, STOP_GRACE)
            child.process.kill()
            child.process.wait()
    log.info("server: all children stopped")


def _config_path() -> str | None:
    """The --config given to this `flapjack` command, else FLAPJACK_CONFIG."""
    try:
        import click

        ctx = click.get_current_context(silent=True)
        root = ctx.find_root() if ctx else None
        if root is not None and root.params.get("config_path"):
            return str(root.params["config_path"])
    except ImportError:
        pass
    return os.environ.get("FLAPJACK_CONFIG")
