"""The `flapjack bench` command line: options in, result lines on stdout, progress on stderr."""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

from flapjack_py.bench.context import DELIVERY_MEDIA, PLACEMENTS, SCENARIOS, TUNING, Options
from flapjack_py.config.settings import Config

log = logging.getLogger(__name__)


def _scenarios(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...]:
    if not value:
        return SCENARIOS
    names = tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown or not names:
        raise click.BadParameter(f"unknown scenario {unknown[0] if unknown else value!r} "
                                 f"(known: {','.join(SCENARIOS)})")
    return names


@click.command(epilog="""\b
References, measured in the same run:
  raw_rtt_per_s, raw_pipe_per_s    LMOVE one by one, and in pipelines of 100
  raw_jobs_per_s                   light alert-sized jobs (a ~1.5 kB hash + a push) in MULTIs of 50
  raw_alert_writes_per_s           per alert, the writes the contract requires (the rq job hash with
                                   rq's fields and a real alert's data, the queue push, alert:ID, its
                                   five indexes, the interval key; the check's notification history
                                   once per check), RESP-encoded in MULTIs of 50 alerts before timing
  raw_smtp_per_s, raw_http_per_s   plain smtplib over one connection, plain keep-alive http.client,
                                   sending the scenario's own messages to its local servers
\b
Delivery scenarios (a third of their size with --quick): bench starts a local SMTP server (aiosmtpd)
and an HTTP server answering 202 like PagerDuty's Events v2, and `flapjack server` with the gateways
pointed at them (workers and concurrency from gateways.email / gateways.pagerduty of the config given
with `flapjack -c FILE bench`, else the defaults):
  delivery_email     1,000 checks fail x 3 contacts, one email each: push -> last message accepted;
                     delivered_per_s, ratio_smtp, smtp_sessions
  delivery_http      the same with one pagerduty medium each; ratio_http, connections
  storm_delivered    storm with email and pagerduty: seconds to the last delivery, queue_seconds to the
                     last alert queued, ratio_to_queue
  delivery_latency   failing events at 100/s for 10 s (3 s quick): push -> accepted p50/p99/max ms
Each counts duplicates and undelivered (alerts recorded vs accepted by the servers): both must be 0.
\b
Targets (ratios, so they hold on any machine): ok_steady.ratio_rtt >= 0.45; failing_10pct >= 0.6 x
ok_steady; checks_10k.ratio_to_ok_steady >= 0.9; storm.ratio_alert_writes >= 0.3; delivery_email.ratio_smtp
>= 1.0; delivery_http.ratio_http >= 1.0; storm_delivered.ratio_to_queue <= 2.0; delivery_latency.p99_ms
<= 50; latency.alert_p99_ms <= 10; memory.ok_mix_bytes_per_event <= 16; after_purge_bytes <= 1.1 x before.""")
@click.option("--quick", is_flag=True, help="About a minute and a half: 5,000 events per scenario, one repetition, "
              "the delivery scenarios at a third of their size.")
@click.option("--scenarios", callback=_scenarios, metavar="LIST",
              help=f"Comma-separated scenarios to run [default: all: {','.join(SCENARIOS)}].")
@click.option("--events", type=click.IntRange(1, 10_000_000),
              help="Events per scenario [20,000; quick 5,000]; also caps the checks of the storm and delivery scenarios.")
@click.option("--repeat", type=click.IntRange(1, 100), default=3, show_default=True,
              help="Repetitions of each throughput scenario (the median is reported; those of ok_steady, "
                   "failing_10pct and checks_10k run in rotation).")
@click.option("--placement", type=click.Choice(PLACEMENTS),
              help="CPU pinning: same (Redis + executive on the last CPU; default with >= 2 CPUs), split, free. "
                   "flapjack server runs where the executive does, the local servers where the feeders do.")
@click.option("--rate", type=click.FloatRange(1, 100_000), default=1000.0, show_default=True,
              help="Offered events/s of the latency scenario.")
@click.option("--json", "json_path", metavar="PATH", help="Also write every result and repetition as JSON.")
@click.option("--redis-url", metavar="URL", help="Run against this Redis instead of a private one (must be empty).")
@click.option("--allow-existing", is_flag=True, help="With --redis-url: accept a non-empty database "
              "(the bench deletes only its own keys; contacts of ALL would be alerted).")
@click.pass_obj
def bench(config: Config | None, quick: bool, scenarios: tuple[str, ...], events: int | None, repeat: int,
          placement: str | None, rate: float, json_path: str | None, redis_url: str | None,
          allow_existing: bool) -> None:
    """Benchmark the real executive and gateways on a private Redis; one `bench.*` line per result.

    Exit 0 when every run was right, 1 when any lost events or alerts, or delivered an alert twice or never;
    2 on setup errors.
    """
    from flapjack_py.bench.runner import run_bench

    engine_log = logging.getLogger("flapjack_py")
    level = engine_log.level
    if engine_log.getEffectiveLevel() == logging.INFO:  # one line per contact created would drown the progress
        engine_log.setLevel(logging.WARNING)
    options = Options(quick=quick, scenarios=scenarios, events=events, repeat=repeat, placement=placement,
                      json_path=json_path, redis_url=redis_url, allow_existing=allow_existing, rate=rate,
                      tuning=gateway_tuning(config))
    try:
        code = run_bench(options, click.echo, lambda line: click.echo(line, err=True))
    finally:
        engine_log.setLevel(level)
    sys.exit(code)


def gateway_tuning(config: Config | None) -> dict[str, dict[str, Any]]:
    """The TUNING settings the user's configuration gives the delivery scenarios' gateways."""
    if config is None:
        return {}
    return {medium: {name: config.gateway(medium)[name] for name in TUNING if name in config.gateway(medium)}
            for medium in DELIVERY_MEDIA}
