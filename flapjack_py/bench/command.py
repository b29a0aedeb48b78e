"""The `flapjack bench` command line: options in, result lines on stdout, progress on stderr."""

from __future__ import annotations

import logging
import sys

import click

from flapjack_py.bench.context import PLACEMENTS, SCENARIOS, Options

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


@click.command()
@click.option("--quick", is_flag=True, help="About a minute: 5,000 events per scenario, one repetition.")
@click.option("--scenarios", callback=_scenarios, metavar="LIST",
              help=f"Comma-separated scenarios to run [default: all: {','.join(SCENARIOS)}].")
@click.option("--events", type=click.IntRange(1, 10_000_000), help="Events per scenario [20,000; quick 5,000].")
@click.option("--repeat", type=click.IntRange(1, 100), default=3, show_default=True,
              help="Repetitions of each throughput scenario (the median is reported; those of ok_steady, "
                   "failing_10pct and checks_10k run in rotation).")
@click.option("--placement", type=click.Choice(PLACEMENTS),
              help="CPU pinning: same (Redis + executive on the last CPU; default with >= 2 CPUs), split, free.")
@click.option("--rate", type=click.FloatRange(1, 100_000), default=1000.0, show_default=True,
              help="Offered events/s of the latency scenario.")
@click.option("--json", "json_path", metavar="PATH", help="Also write every result and repetition as JSON.")
@click.option("--redis-url", metavar="URL", help="Run against this Redis instead of a private one (must be empty).")
@click.option("--allow-existing", is_flag=True, help="With --redis-url: accept a non-empty database "
              "(the bench deletes only its own keys; contacts of ALL would be alerted).")
def bench(quick: bool, scenarios: tuple[str, ...], events: int | None, repeat: int, placement: str | None,
          rate: float, json_path: str | None, redis_url: str | None, allow_existing: bool) -> None:
    """Benchmark the real executive on a private Redis; one `bench.*` line per result.

    Exit 0 when every run was right, 1 when any lost events or alerts, 2 on setup errors.
    """
    from flapjack_py.bench.runner import run_bench

    engine_log = logging.getLogger("flapjack_py")
    level = engine_log.level
    if engine_log.getEffectiveLevel() == logging.INFO:  # one line per contact created would drown the progress
        engine_log.setLevel(logging.WARNING)
    options = Options(quick=quick, scenarios=scenarios, events=events, repeat=repeat, placement=placement,
                      json_path=json_path, redis_url=redis_url, allow_existing=allow_existing, rate=rate)
    try:
        code = run_bench(options, click.echo, lambda line: click.echo(line, err=True))
    finally:
        engine_log.setLevel(level)
    sys.exit(code)
