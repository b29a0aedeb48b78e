"""The `flapjack` command: one short function per subcommand; the work lives in the modules they call."""

from __future__ import annotations

import logging
import sys
from typing import Any, NoReturn

import click
import redis

from flapjack_py import __version__
from flapjack_py.config.redaction import config_secrets
from flapjack_py.config.settings import Config, read_config_file
from flapjack_py.errors import FlapjackError
from flapjack_py.runtime.logs import setup_logging
from flapjack_py.store import audit

log = logging.getLogger(__name__)

_VERBOSE = "flapjack.verbose"


class _Group(click.Group):
    """Turns FlapjackError (bad config, unreachable Redis...) and a lost Redis into a one-line error and exit 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except FlapjackError as exc:
            _fail(str(exc))
        except (redis.ConnectionError, redis.TimeoutError) as exc:  # Redis went away during the command
            from flapjack_py.runtime.connection import unreachable

            config = ctx.find_root().obj
            _fail(str(unreachable(config.redis.url if isinstance(config, Config) else None, exc)))


def _fail(message: str) -> NoReturn:
    click.echo(f"flapjack: error: {message}", err=True)
    sys.exit(2)


def _use_config(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    """`-c/--config FILE` after the subcommand: load it in place of the config read before it."""
    if value is None:
        return
    config = read_config_file(value)
    setup_logging(config.logging, ctx.meta.get(_VERBOSE, False), config_secrets(config))
    audit.set_retention(config.web.audit_retention)
    root = ctx.find_root()
    root.params["config_path"] = value  # `flapjack server` hands it to its children
    ctx.obj = root.obj = config


def _add_config_option(command: click.Command) -> None:
    """Let -c/--config follow the subcommand too (`flapjack executive -c FILE`); a command's own `-c` wins."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _add_config_option(sub)
        return
    taken = {opt for param in command.params for opt in param.opts}
    decls = [d for d in ("-c", "--config") if d not in taken]
    if "--config" in decls:
        command.params.append(click.Option(decls, metavar="FILE", expose_value=False, is_eager=True,
                                           callback=_use_config, help="YAML config file (as before the command)."))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-c", "--config", "config_path", metavar="FILE", envvar="FLAPJACK_CONFIG",
              help="YAML config file [env FLAPJACK_CONFIG; default: built-in defaults].")
@click.option("-v", "--verbose", is_flag=True, help="Log at DEBUG level.")
@click.version_option(__version__, prog_name="flapjack-py")
@click.pass_context
def main(ctx: click.Context, config_path: str | None, verbose: bool) -> None:
    """flapjack-py: monitoring event processor and notifier (Flapjack 1.x compatible).

    Feeders push JSON events onto the Redis list `events`; the executive turns
    them into check state, notifications and alerts; gateways deliver alerts;
    the web app serves the JSON API (/api) and the UI (/).
    """
    config = read_config_file(config_path)
    setup_logging(config.logging, verbose, config_secrets(config))
    audit.set_retention(config.web.audit_retention)
    ctx.meta[_VERBOSE] = verbose
    ctx.obj = config


@main.command()
@click.pass_obj
def server(config: Config) -> None:
    """Run everything: executive, watchdog, enabled gateways and the web app, supervised."""
    from flapjack_py.runtime.connection import open_clients
    from flapjack_py.runtime.supervisor import run_server

    if config.redis.url:  # fail in one line now, not in every child
        open_clients(config)[0].close()
    sys.exit(run_server(config))


_METRICS_PORT = click.option("--metrics-port", type=click.IntRange(1, 65535), metavar="PORT",
                             help="Also serve Prometheus /metrics on 127.0.0.1:PORT.")


@main.command()
@click.option("--burst", is_flag=True, help="Process what is queued, then exit.")
@_METRICS_PORT
@click.pass_obj
def executive(config: Config, burst: bool, metrics_port: int | None) -> None:
    """Run the executive: take events, update check state, notify."""
    from flapjack_py.executive import Executive
    from flapjack_py.runtime.connection import open_clients

    clients, embedded = open_clients(config)
    try:
        if metrics_port:
            from flapjack_py.runtime.metrics import serve as serve_metrics

            serve_metrics(metrics_port, clients, config)
        ex = Executive(clients, config)  # with the project's notifier (flapjack_py.executive, the composition root)
        if burst:
            click.echo(f"processed {ex.drain()} events")
        else:
            ex.run()
    finally:
        if embedded:
            embedded.stop()


@main.command()
@click.argument("name")
@click.option("--burst", is_flag=True, help="Deliver what is queued, then exit.")
@_METRICS_PORT
@click.pass_obj
def gateway(config: Config, name: str, burst: bool, metrics_port: int | None) -> None:
    """Run the delivery worker of gateway NAME (email, jabber, pagerduty, sms, slack, ...), or with NAME
    `email-replies` the poller acknowledging replies to alert emails (gateways.email.replies)."""
    from gateways.worker import run_gateway

    if name == "email-replies":
        from gateways.email_replies import run_poller

        sys.exit(run_poller(config, once=burst))

    if metrics_port:
        from flapjack_py.runtime.connection import open_clients
        from flapjack_py.runtime.metrics import serve as serve_metrics

        serve_metrics(metrics_port, open_clients(config)[0], config)

    sys.exit(run_gateway(name, config, burst=burst))


@main.command()
@click.pass_obj
def watchdog(config: Config) -> None:
    """Check health every watchdog.interval s; page watchdog.contacts when monitoring is down, and when back."""
    from gateways.watchdog import run_watchdog

    sys.exit(run_watchdog(config))


@main.command()
@click.option("--bind", help="Address to listen on [config web.bind].")
@click.option("--port", type=int, help="Port to listen on [config web.port].")
@click.pass_obj
def web(config: Config, bind: str | None, port: int | None) -> None:
    """Serve the JSON API (/api) and web UI (/) with a production WSGI server."""
    from web.serve import serve

    serve(config, bind=bind, port=port)


def _register_tools() -> None:
    """Add the receivers and tools (simulate, maintenance, purge, ...) from flapjack_py.tools."""
    try:
        from flapjack_py.tools import COMMANDS
    except ImportError:  # tools not built yet
        return
    for command in COMMANDS:
        main.add_command(command)


_register_tools()


def _register_bench() -> None:
    """Add `flapjack bench` (flapjack_py.bench)."""
    from flapjack_py.bench.command import bench

    main.add_command(bench)


_register_bench()
_add_config_option(main)
