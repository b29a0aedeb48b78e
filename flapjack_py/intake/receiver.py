"""`flapjack receiver ...`: turn other systems' output into Flapjack events (engine.md 8).

Receivers run in the foreground (stop them with Ctrl-C or SIGTERM; under systemd see deploy/);
there is no --daemonize, and stop/status of the Nagios and NSCA receivers report that nothing runs in
the background.
"""

from __future__ import annotations

import json
import logging
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

import click

from flapjack_py.config.receivers import ReceiversConfig
from flapjack_py.config.settings import Config
from flapjack_py.intake import buffer as intake
from flapjack_py.intake import fifo, httpbroker, json_feed, mirror, nagios
from flapjack_py.runtime.connection import clients_from_url
from flapjack_py.runtime.session import intake_client, redis_client, redis_clients
from flapjack_py.store.archive import archive_names
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import Clients, StrRedis

log = logging.getLogger(__name__)

T = TypeVar("T")

NAGIOS_HELP = """Nagios receiver: reads the Nagios perfdata named pipe (see README.md, "Nagios").

\b
nagios.cfg needs:
  process_performance_data=1
  host_perfdata_file=/var/cache/nagios3/event_stream.fifo
  service_perfdata_file=/var/cache/nagios3/event_stream.fifo
  host_perfdata_file_template=[HOSTPERFDATA]\\t$TIMET$\\t$HOSTNAME$\\tHOST\\t$HOSTSTATE$\\t$HOSTEXECUTIONTIME$\\t$HOSTLATENCY$\\t$HOSTOUTPUT$\\t$HOSTPERFDATA$
  service_perfdata_file_template=[SERVICEPERFDATA]\\t$TIMET$\\t$HOSTNAME$\\t$SERVICEDESC$\\t$SERVICESTATE$\\t$SERVICEEXECUTIONTIME$\\t$SERVICELATENCY$\\t$SERVICEOUTPUT$\\t$SERVICEPERFDATA$
  host_perfdata_file_mode=p
  service_perfdata_file_mode=p
Start the receiver before Nagios: it creates the pipe (--fifo-mode) and keeps it open, so a
restarting Nagios never meets a closed or full pipe. A 10th field ($LONGSERVICEOUTPUT$) becomes the details.
"""


@click.group()
def receiver() -> None:
    """Receive events from external systems and send them to Flapjack."""


class StartupError(click.ClickException):
    """A receiver cannot start as told (e.g. its pipe's path is a plain file): one line, exit 2."""

    exit_code = 2


def _octal(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        mode = int(value, 8)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an octal mode such as 0666") from None
    if not 0 <= mode <= 0o777:
        raise click.BadParameter(f"{value!r} is not a permission mode (0000-0777)")
    return mode


# --- json, oneoff ------------------------------------------------------------


@receiver.command("json")
@click.option("-f", "--from", "source", type=click.File("r", encoding="utf-8"),
              help="File of JSON events [default: standard input, which must not be a terminal].")
@click.option("--fifo", "fifo_path", metavar="PATH",
              help="Read a named pipe (created when missing) forever instead, one JSON event per line.")
@click.option("--fifo-mode", callback=_octal, help="Permissions (octal) of the named pipe when the receiver "
              "creates it [default: receivers.json.fifo_mode, 0666].")
@click.option("--buffer", type=click.IntRange(min=1), help="Events held while Redis is unreachable, with --fifo "
              "[default: receivers.json.buffer, 100000].")
@click.pass_obj
def json_command(config: Config, source: Any, fifo_path: str | None, fifo_mode: int | None,
                 buffer: int | None) -> None:
    """Queue a stream of concatenated JSON events, validating each (--fifo: one event per line, forever)."""
    if fifo_path:
        settings = config.receivers.json_pipe
        _run_pipe(config, "json", fifo_path, _or(fifo_mode, settings.mode()), _or(buffer, settings.buffer),
                  json_feed.parse_line)
        return
    stream = source or sys.stdin
    if source is None and stream.isatty():
        click.echo("No file provided, and STDIN is from terminal! Exiting...", err=True)
        sys.exit(1)
    with redis_client(config) as client:
        json_feed.feed(client, json_feed.split_stream(json_feed.read_chunks(stream)), click.echo)
    click.echo("Done.")


@receiver.command()
@click.argument("entity")
@click.argument("check")
@click.argument("state")
@click.argument("summary")
@click.option("--server", metavar="HOST:PORT", help="Redis to queue on [default: the configured Redis].")
@click.option("--database", type=int, default=0, show_default=True, help="Redis database number (with --server).")
@click.option("--debug", is_flag=True, help="Print the event queued.")
@click.pass_obj
def oneoff(config: Config, entity: str, check: str, state: str, summary: str, server: str | None, database: int,
           debug: bool) -> None:
    """Queue one service event ENTITY CHECK STATE SUMMARY."""
    event, errors = json_feed.validate(json.dumps(json_feed.oneoff_event(entity, check, state, summary, time.time())),
                                       time.time())
    if event is None:
        raise click.UsageError(f"not a valid event: {', '.join(errors)}")
    _with_client(config, server, database, lambda c: push_event(c.text, event))
    if debug:
        click.echo(f"Enqueued event data, {json.dumps(event)}")


# --- nagios, nsca --------------------------------------------------------------


def _fifo_group(name: str, parse: nagios.Parser, help_text: str) -> click.Group:
    """The start|stop|restart|status group of a FIFO-reading receiver (run in the foreground).

    Options not given take their value from `receivers.<name>` in the config.
    """
    group = click.Group(name, help=help_text)
    defaults = getattr(ReceiversConfig(), name)
    fifo_option = click.option("-f", "--fifo", help="PATH of the named pipe, created when missing "
                               f"[default: receivers.{name}.fifo, {defaults.fifo}].")
    mode_option = click.option("--fifo-mode", callback=_octal, help="Permissions (octal) of the named pipe when the "
                               f"receiver creates it [default: receivers.{name}.fifo_mode, {defaults.fifo_mode}].")
    buffer_option = click.option("--buffer", type=click.IntRange(min=1), help="Events held while Redis is "
                                 "unreachable; when full the receiver stops reading the pipe "
                                 f"[default: receivers.{name}.buffer, {defaults.buffer}].")
    name_option = click.option("--name", "counter_name", default=name, show_default=True,
                               help="Name its counters are kept under (receiver_counters:NAME).")

    def reading(command: str, help_text: str) -> None:
        """Add `command` (start, restart: there is nothing to stop first), which reads the pipe in the foreground."""
        @group.command(command, help=help_text)
        @fifo_option
        @mode_option
        @buffer_option
        @name_option
        @click.option("-p", "--pidfile", help="Accepted for compatibility (no pidfile is written).")
        @click.option("-l", "--logfile", help="Accepted for compatibility (logs go where `logging` says).")
        @click.pass_obj
        def read(config: Config, /, fifo: str | None, fifo_mode: int | None, buffer: int | None, counter_name: str,
                 **_: Any) -> None:
            settings = getattr(config.receivers, name)
            _run_pipe(config, counter_name, _or(fifo, settings.fifo), _or(fifo_mode, settings.mode()),
                      _or(buffer, settings.buffer), parse)

    reading("start", "Read the named pipe and queue its records, in the foreground.")
    reading("restart", "Same as start: there is no background receiver to stop.")

    @group.command("stop")
    @click.option("-p", "--pidfile", help="Accepted for compatibility.")
    def stop(**_: Any) -> None:
        """Report that no background receiver runs (stop a foreground one with Ctrl-C)."""
        click.echo(f"{name}-receiver is not running.")
        sys.exit(1)

    @group.command("status")
    @click.option("-p", "--pidfile", help="Accepted for compatibility.")
    def status(**_: Any) -> None:
        """Report that no background receiver runs (exit 3)."""
        click.echo(f"{name}-receiver is not running")
        sys.exit(3)

    return group


def _run_pipe(config: Config, name: str, path: str, mode: int, buffer: int,
              parse: Callable[[str], Mapping[str, Any]]) -> None:
    """Read the named pipe `path` into the queue until SIGTERM/Ctrl-C, sending what is buffered before exiting;
    `parse` turns a line into an event or raises intake.RejectedLine."""
    try:
        fd = fifo.prepare_fifo(path, mode)  # open at once: writers find a reader from now on
    except fifo.FifoError as exc:
        raise StartupError(str(exc)) from None
    click.echo(f"{name}-receiver reading {path} (Ctrl-C to stop)")
    with _stop_on_sigterm(), intake_client(config) as client:
        feed = intake.Intake(client, name, config.executive.queue, buffer).start()
        try:
            fifo.read_pipe(fd, lambda line: intake.feed_line(feed, line, parse))
        except KeyboardInterrupt:
            pass
        finally:
            feed.close()
    click.echo(f"{name}-receiver stopped")


receiver.add_command(_fifo_group("nagios", nagios.parse_nagios_line, NAGIOS_HELP))
receiver.add_command(_fifo_group(
    "nsca", nagios.parse_nsca_line,
    "NSCA receiver: reads `[TS] PROCESS_SERVICE_CHECK_RESULT;host;service;code;output` lines from a named pipe "
    "(nsca.cfg's command_file)."))


# --- httpbroker ------------------------------------------------------------------


@receiver.command("httpbroker")
@click.option("--port", type=click.IntRange(1, 65535), envvar="PORT",
              help="Port to listen on [env PORT; default: receivers.httpbroker.port, 3090].")
@click.option("--bind", help="Address to listen on [default: receivers.httpbroker.bind, all].")
@click.option("--server", metavar="HOST:PORT", help="Redis to queue on [default: the configured Redis].")
@click.option("--database", type=int, default=0, show_default=True, help="Redis database number (with --server).")
@click.option("--interval", type=float, help="Seconds between sends of the cache [default: receivers.httpbroker.interval, 10].")
@click.option("--debug", is_flag=True, help="Log every request.")
@click.pass_obj
def httpbroker_command(config: Config, port: int | None, bind: str | None, server: str | None, database: int,
                       interval: float | None, debug: bool) -> None:
    """HTTP cache of check states: POST/GET /state; every interval each state is sent as an event."""
    settings = config.receivers.httpbroker
    port, bind, interval = _or(port, settings.port), _or(bind, settings.bind), _or(interval, settings.interval)
    if interval <= 0:
        raise click.BadParameter("must be greater than 0", param_hint="'--interval'")
    if debug:
        logging.getLogger(httpbroker.__name__).setLevel(logging.DEBUG)
    _with_client(config, server, database, lambda c: _serve_broker(c.text, bind, port, interval, config.executive.queue))



def _serve_broker(client: StrRedis, bind: str, port: int, interval: float, queue: str) -> None:
    cache, stop = httpbroker.StateCache(), threading.Event()
    feed = intake.Intake(client, "httpbroker", queue).start()
    http = httpbroker.make_server(cache, bind, port, feed)
    sender = threading.Thread(target=httpbroker.run_sender, args=(feed, cache, interval, stop), daemon=True)
    sender.start()
    click.echo(f"httpbroker listening on {bind or '*'}:{http.server_address[1]}, sending every {interval}s")
    try:
        with _stop_on_sigterm():
            http.serve_forever()
    except KeyboardInterrupt:
        click.echo("httpbroker stopped")
    finally:
        stop.set()
        http.server_close()
        feed.close()


# --- mirror ------------------------------------------------------------------------


@receiver.command("mirror")
@click.option("-s", "--source", required=True, metavar="URL", help="Redis URL of the Flapjack to mirror.")
@click.option("-d", "--dest", metavar="URL", help="Redis URL to queue on [default: the configured Redis].")
@click.option("-i", "--include", metavar="REGEX", help="Only events whose ENTITY:CHECK matches this regex.")
@click.option("-a", "--all", "from_oldest", is_flag=True, help="Replay from the oldest archive.")
@click.option("-f", "--follow", is_flag=True, help="Keep following new archived events.")
@click.option("-l", "--last", help="Unimplemented.")
@click.option("-t", "--time", "at_time", help="Unimplemented.")
@click.pass_obj
def mirror_command(config: Config, source: str, dest: str | None, include: str | None, from_oldest: bool,
                   follow: bool, last: str | None, at_time: str | None) -> None:
    """Replay events archived by another Flapjack (needs --all and/or --follow)."""
    if last or at_time:
        raise click.UsageError("--last and --time are unimplemented")
    if not (from_oldest or follow):
        raise click.UsageError("one or both of --follow or --all is required")
    pattern = _regex(include)
    src = clients_from_url(source).raw  # archived events are copied byte for byte
    archives = archive_names(src)
    if not archives:
        raise click.ClickException("found no archives!")
    click.echo(f"found archives: {', '.join(archives)}")
    pos = mirror.start_position(src, archives, from_oldest)
    run = lambda c: mirror.mirror(src, c.raw, pos, pattern, follow, _sleep, click.echo)  # noqa: E731
    read = _with_client(config, dest, None, run)
    click.echo(f"{read} events mirrored")


# --- helpers -------------------------------------------------------------------------


def _with_client(config: Config, server: str | None, database: int | None, work: Callable[[Clients], Any]) -> Any:
    """Run `work` with the clients of --server (HOST:PORT or URL) if given, else of the configured Redis."""
    if server is None:
        with redis_clients(config) as clients:
            return work(clients)
    url = server if "://" in server else f"redis://{server}/{database or 0}"
    clients = clients_from_url(url)
    try:
        return work(clients)
    finally:
        clients.close()


def _or(given: T | None, configured: T) -> T:
    """The option given on the command line, else the configured value."""
    return configured if given is None else given


def _sleep(seconds: float) -> None:
    """Wait between archive polls (tests replace this)."""
    time.sleep(seconds)


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """SIGTERM (how `flapjack server` stops its children) ends the receiver like Ctrl-C: buffered events are sent."""
    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _regex(text: str | None) -> re.Pattern[str] | None:
    if text is None:
        return None
    try:
        return re.compile(text)
    except re.error as exc:
        raise click.BadParameter(str(exc), param_hint="'-i' / '--include'") from None


