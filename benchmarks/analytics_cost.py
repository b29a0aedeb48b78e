"""Cost of on-call analytics (issue 32 point 4): the 7-day summary over 10,000 checks and 100,000 alerts.

Usage: python benchmarks/analytics_cost.py [--checks 10000] [--alerts 100000] [--contacts 50] [--runs 3]

A private embedded Redis is filled as the executive and notifier leave it: `--alerts` alert records (problems,
recoveries and a tenth acknowledgements, by email, sms and pagerduty, to `--contacts` contacts in a few time
zones) with their indexes over the last 7 days, each paged check's state changes (a failure and its recovery per
problem) and an acknowledgement (unscheduled maintenance window and its actor) for half the failures. Then the
summary, the per-check and per-person tables are computed `--runs` times as GET /api/analytics/* does
(tools/report.py: store/analytics.py read_facts, then analysis/analytics.py), and the CPU seconds of this process
(time.process_time: the reads' parsing and the figures; Redis's own CPU is reported apart, from INFO) and the
wall time of the best run are printed. Exit status 1 when this process's CPU exceeds 1 s.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from typing import Any

from flapjack_py import keys
from flapjack_py.config.settings import Config
from flapjack_py.runtime.connection import embedded_clients
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.tools.report import read_period

WEEK = 7 * 86400
ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney")
MEDIA = ("email", "sms", "pagerduty")


def fill(client: StrRedis, checks: int, alerts: int, contacts: int, now: int) -> None:
    """Alert records, indexes, state changes and acknowledgements as the engine writes them."""
    rnd = random.Random(32)
    pipe = client.pipeline(transaction=False)
    for c in range(contacts):
        pipe.set(keys.contact_tz(f"contact-{c}"), ZONES[c % len(ZONES)])
    failures = alerts // 2  # each failure: a problem and a recovery page, a twentieth of them acknowledged too
    n = 0
    for f in range(failures + failures // 10):
        if n >= alerts:
            break
        entity, check = f"host-{f % checks}", "HTTP"
        start = now - WEEK + rnd.randrange(WEEK - 7200)
        end = start + rnd.choice((60, 120, 240, 900, 3600))
        contact = f"contact-{rnd.randrange(contacts)}"
        pages = [("problem", start + 30), ("recovery", end)]
        if f % 2 == 0:
            ack = start + 30 + rnd.randrange(600)
            pipe.zadd(keys.maintenances(entity, check, "unscheduled"), {str(ack): 3600})
            pipe.zadd(keys.sorted_maintenance_timestamps(entity, check, "unscheduled"), {str(ack): ack})
            pipe.hset(keys.maintenance_actor(entity, check, "unscheduled", ack), mapping={"actor": contact,
                                                                                         "channel": "ui"})
            if f % 10 == 0:
                pages.append(("acknowledgement", ack))
        for ts, state in ((start, "critical"), (end, "ok")):
            pipe.zadd(keys.sorted_state_timestamps(entity, check), {str(ts): ts})
            pipe.set(keys.check_state_at(entity, check, ts), state)
        for kind, ts in pages:
            if n >= alerts:
                break
            alert_id, medium = f"a{n}", MEDIA[n % len(MEDIA)]
            pipe.hset(keys.alert(alert_id), mapping={
                "id": alert_id, "timestamp": ts, "contact": contact, "media": medium, "address": "x",
                "check": f"{entity}:{check}", "type": kind, "rollup": "", "state": "critical", "subject": "s",
                "body": "b" * 200, "status": "delivered"})
            pipe.zadd(keys.alerts(), {alert_id: ts})
            n += 1
        if f % 2000 == 0:
            pipe.execute()
    pipe.execute()


def profile(client: StrRedis, now: int) -> None:
    import cProfile
    import pstats

    cProfile.runctx("measure(client, now)", globals(), {"client": client, "now": now, "measure": measure},
                    "/tmp/analytics.prof")
    pstats.Stats("/tmp/analytics.prof").sort_stats("tottime").print_stats(14)


def measure(client: StrRedis, now: int) -> tuple[float, float, dict[str, Any]]:
    """(CPU s of this process, wall s, summary) of one computation of the summary, checks and people tables, as
    GET /api/analytics/* and `flapjack report` make it (tools/report.py)."""
    cpu, wall = time.process_time(), time.perf_counter()
    figures = read_period(client, Config(), now - WEEK, now).figures()
    return time.process_time() - cpu, time.perf_counter() - wall, figures["summary"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=10_000)
    parser.add_argument("--alerts", type=int, default=100_000)
    parser.add_argument("--contacts", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print where the CPU goes (cProfile)")
    args = parser.parse_args()
    now = int(time.time())
    with tempfile.TemporaryDirectory(prefix="flapjack-analytics-") as tmp, EmbeddedRedis(tmp, persistent=False) as server:
        client = embedded_clients(server).text
        fill(client, args.checks, args.alerts, args.contacts, now)
        print(f"filled: {client.zcard(keys.alerts())} alerts, {args.checks} checks, {client.dbsize()} keys")
        if args.profile:
            profile(client, now)
        results = []
        for _ in range(args.runs):
            before = float(client.info("cpu")["used_cpu_user"]) + float(client.info("cpu")["used_cpu_sys"])
            cpu, wall, summary = measure(client, now)
            after = float(client.info("cpu")["used_cpu_user"]) + float(client.info("cpu")["used_cpu_sys"])
            results.append((cpu, wall, after - before))
        cpu, wall, redis_cpu = min(results)
        print(f"pages {summary['pages']}, incidents MTTA {summary['mtta_seconds']}")
        print(f"analytics.cpu_seconds {cpu:.3f} (this process; Redis {redis_cpu:.3f}), wall {wall:.3f} s, "
              f"best of {args.runs}")
    return 0 if cpu < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
