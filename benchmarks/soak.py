"""Soak: the whole system under a steady load and faults for a configurable time (issue 28, item 3).

Usage: python benchmarks/soak.py [--minutes 30] [--rate 200] [--checks 1000] [--contacts 1] [--workers 2]
           [--kill-every 60] [--smtp-outage-every 600] [--smtp-outage 60] [--warmup S] [--keep S]

What runs: `flapjack server` (executive, watchdog, web app, `--workers` gateway workers each for email and
PagerDuty: flapjack_py/bench/system.py) on a private Redis (the bench's: AOF, fsync every second), its
gateways pointed at a local SMTP server (aiosmtpd) and a local HTTP server answering as PagerDuty's Events
v2 endpoint does (flapjack_py/bench/sinks.py, in a thread of this process). `--contacts` contacts, each with
an email and a PagerDuty medium, are told about every check.

The load: `--rate` events/s, round robin over `--checks` checks; one check in ten fails: it alternates
critical/ok, so each of its events is a state change that alerts every contact on both media (the bench's
failing mix). The faults: every `--kill-every` s the gateway worker that has run longest (a child of the
server, found in /proc) is sent SIGKILL, by pid; every `--smtp-outage-every` s the SMTP server stops as a
crash would (no listener, open sessions dropped) for `--smtp-outage` s, the first one halfway through the
warm-up: an outage's backlog (retries scheduled, alert records held until delivered) takes Redis's allocator,
and so its RSS, to a high-water mark, which the baseline should already include. No outage starts that would
outlast the load.

Retention, compressed: the system keeps alert records for `executive.alert_retention` (30 days, dropped
hourly), check history until `flapjack purge`, and finished rq jobs for an hour (their TTL). At a steady
alert rate Redis grows by design for their whole length, so a run of minutes could not tell that growth from
a leak. Every `--keep`/2 s the soak does early what those retentions do: it notes every alert record (for the
final comparison), then deletes the records older than `--keep` s that were delivered,
with their entries in the alert indexes (what the executive's hourly chore and the by-day index's TTL do;
records not delivered yet stay), their finished rq jobs (what their TTL does) and the failing checks' history
older than that (store.retention.purge_all, `flapjack purge check_history`).
What still grows after the warm-up grows without a bound. `--keep 0` turns this off.

At the end the load stops, the SMTP server is up again, and the soak waits until every job settled; then one
line per check, and exit status 1 when any fails (2 when the system could not be run):
  soak.delivered    every alert record's status is `delivered`
  soak.lost         every alert recorded was received by its server (email: by Message-ID = alert id;
                    PagerDuty: per routing key and dedup key, as many events as alerts), nothing unknown
  soak.duplicates   receptions beyond one per alert: at most one email per kill (a worker's SMTP sessions take
                    turns at the end of DATA); PagerDuty, which takes a repeated event as one incident by its
                    dedup_key, is sent to without turns: at most `concurrency` events per kill
  soak.registries   rq queued, started, scheduled and failed: 0 for both media (and no event left queued)
  soak.redis_memory used_memory at the end of the load within 10 % of the one after the warm-up
  soak.rss          the same for each process's RSS (by role: server, executive, gateway email, ...; Redis)
  soak.fds          no process has more open files at the end of the load than any had after the warm-up (+1)
  soak.result       the run, its faults and the verdict
Memory and RSS: the median of a tenth of the load's samples (every 1-10 s), the first ones after the warm-up
(the baseline) against the last ones (the end), counting only quiet samples: not while the SMTP server is down
or retries are scheduled, nor until the purge after that (an outage's backlog is kept, by design). File
descriptors: the most any process of a role had at the end against the most in the baseline (one more
allowed: a connection being made as the sample was taken). A role's processes are averaged (the
gateway workers killed come back as new processes). Progress lines, and each role's series, go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, cast

# run as a script, this file's directory comes first on sys.path and its name would shadow the gateways package
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

from rq.job import Job  # noqa: E402
from rq.registry import FailedJobRegistry, ScheduledJobRegistry, StartedJobRegistry  # noqa: E402
from rq.results import Result  # noqa: E402
from rq.serializers import JSONSerializer  # noqa: E402

from flapjack_py import keys  # noqa: E402
from flapjack_py.bench import workload  # noqa: E402
from flapjack_py.bench.context import Context, Options  # noqa: E402
from flapjack_py.bench.servers import Target, choose_placement  # noqa: E402
from flapjack_py.bench.sinks import EMAIL, PAGERDUTY, Sinks  # noqa: E402
from flapjack_py.bench.system import FlapjackServer, server_config, tuning_of  # noqa: E402
from flapjack_py.errors import BenchError  # noqa: E402
from flapjack_py.store import alerts as alert_store  # noqa: E402
from flapjack_py.store import bench as bench_store  # noqa: E402
from flapjack_py.store.alerts import AlertStatus  # noqa: E402
from flapjack_py.store.retention import purge_all  # noqa: E402

log = logging.getLogger("soak")

MEDIA = (EMAIL, PAGERDUTY)
LIMIT = 0.10  # Redis memory and RSS: growth allowed from the baseline to the end
FD_SLACK = 1  # open files a process may have at the end beyond the baseline's most (a connection being made)
TICK = 0.1  # seconds between looks at the schedule
FEED_TICK = 0.02  # seconds between the feeder's pushes
DRAIN_TIMEOUT = 600.0  # seconds the end waits for every job to settle (retries after an outage take minutes)
DRAIN_STALL = 180.0  # ... or until nothing moved for this long
PROBE = ("soak-probe.example.com", "probe")


def compressed(config: dict[str, Any], keep: float) -> dict[str, Any]:
    """`config` with the retentions the system keeps by TTL (ack codes, resolved incidents) shortened to `keep`
    seconds, as the soak shortens the alert records' (see the module docstring)."""
    if keep:
        config["executive"] = {**config.get("executive", {}), "ack_code_ttl": max(int(keep), 60)}  # its least
        config["incidents"] = {**config.get("incidents", {}), "retention": max(int(keep), 1)}
    return config


@dataclass(frozen=True)
class Plan:
    """The run, from the command line (seconds throughout)."""

    seconds: float
    rate: float
    checks: int
    contacts: int
    workers: int
    kill_every: float
    outage_every: float
    outage: float
    warmup: float
    keep: float

    @property
    def sample_every(self) -> float:
        return min(max(self.seconds / 180, 1.0), 10.0)

    @property
    def window(self) -> float:
        """Length of the baseline's and the end's windows."""
        return max(self.seconds / 10, 3 * self.sample_every)

    @property
    def progress_every(self) -> float:
        return min(max(self.seconds / 30, 5.0), 60.0)


def plan_from(argv: list[str] | None) -> Plan:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0, help="length of the load (default 30)")
    parser.add_argument("--rate", type=float, default=200.0, help="events per second (default 200)")
    parser.add_argument("--checks", type=int, default=1000, help="checks, one in ten failing (default 1000)")
    parser.add_argument("--contacts", type=int, default=1, help="contacts with email and PagerDuty (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="gateway worker processes per medium (default 2)")
    parser.add_argument("--kill-every", type=float, default=60.0, help="seconds between SIGKILLs (0: none)")
    parser.add_argument("--smtp-outage-every", type=float, default=600.0, help="seconds between SMTP outages (0: none)")
    parser.add_argument("--smtp-outage", type=float, default=60.0, help="seconds each SMTP outage lasts")
    parser.add_argument("--warmup", type=float, default=None, help="seconds before the baseline (default: a sixth)")
    parser.add_argument("--keep", type=float, default=None,
                        help="seconds of alert records and history kept (default: half the warm-up; 0: no purge)")
    args = parser.parse_args(argv)
    seconds = args.minutes * 60
    warmup = seconds / 6 if args.warmup is None else args.warmup
    keep = max(warmup / 2, 10.0) if args.keep is None else args.keep
    if seconds <= 0 or args.rate <= 0 or args.checks < 10 or args.contacts < 1 or args.workers < 1:
        parser.error("--minutes and --rate must be positive, --checks at least 10, --contacts and --workers 1+")
    if warmup + 2 * max(seconds / 10, 3) > seconds:
        parser.error("the warm-up leaves no room for the baseline and the end's windows")
    return Plan(seconds, args.rate, args.checks, args.contacts, args.workers, args.kill_every,
                args.smtp_outage_every, args.smtp_outage, warmup, keep)


def say(message: str) -> None:
    print(f"soak: {message}", file=sys.stderr, flush=True)


# --- processes ------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    role: str
    started: int  # clock ticks after boot


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def processes() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, start time in ticks) of every process."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = _read(f"/proc/{name}/stat").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        found[int(name)] = (int(fields[1]), int(fields[19]))
    return found


def role_of(pid: int) -> str:
    """`flapjack` arguments of a process started as `python -c "...main()" ARGS` (server, executive,
    gateway email ...), else its command name."""
    try:
        argv = [a.decode(errors="replace") for a in _read(f"/proc/{pid}/cmdline").split(b"\0") if a]
    except OSError:
        return "?"
    if len(argv) >= 3 and argv[1] == "-c" and "main()" in argv[2]:
        args = argv[3:]
        if "--config" in args:  # the server: --config FILE server
            i = args.index("--config")
            args = args[:i] + args[i + 2:]
        return " ".join(args) or "flapjack"
    try:
        return _read(f"/proc/{pid}/comm").decode().strip()
    except OSError:
        return "?"


def tree(root: int) -> list[Proc]:
    """`root` and every process below it."""
    table = processes()
    if root not in table:
        return []
    children: dict[int, list[int]] = defaultdict(list)
    for pid, (ppid, _) in table.items():
        children[ppid].append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(Proc(pid, table[pid][0], role_of(pid), table[pid][1]))
        todo += children.get(pid, [])
    return found


def rss_and_fds(pid: int) -> tuple[int, int] | None:
    """(RSS bytes, open file descriptors) of a process; None when it is gone."""
    try:
        pages = int(_read(f"/proc/{pid}/statm").split()[1])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE"), fds


# --- the run --------------------------------------------------------------------


@dataclass
class Sample:
    at: float  # seconds into the load
    used_memory: int
    procs: dict[str, list[tuple[int, int]]]  # role -> (rss, fds) of each live process of it
    disturbed: bool = False  # the SMTP server down or retries scheduled: alert records held back


@dataclass
class Ledger:
    """Every alert record seen: id -> (medium, address, check, status)."""

    alerts: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)

    def note(self, records: list[bench_store.RecordedAlert]) -> None:
        for a in records:
            self.alerts[a.id] = (a.media, a.address, a.check, a.status)

    def status(self, alert_id: str) -> str:
        return self.alerts[alert_id][3] if alert_id in self.alerts else ""


class Soak:
    def __init__(self, plan: Plan, stack: ExitStack) -> None:
        self.plan = plan
        self.tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="fj-soak-"))
        self.sinks = Sinks()
        self.ports = self.sinks.start()
        stack.callback(self.sinks.stop)
        self.target = Target(None, False, choose_placement("free"))
        stack.callback(self.target.close)
        assert self.target.server is not None and self.target.server.process is not None
        self.redis_pid = self.target.server.process.pid
        self.client, self.raw = self.target.client, self.target.raw
        tuning = {medium: {"workers": plan.workers} for medium in MEDIA}
        self.ctx = Context(Options(tuning=tuning), self.target, choose_placement("free"),
                           cast(Any, None), cast(Any, None), self.tmp)  # no probe, no feeder process
        self.pop = workload.Population(-(-plan.checks // workload.CHECKS_PER_ENTITY), workload.FLAP_EVERY)
        workload.add_contacts(self.client, count=plan.contacts, media=MEDIA)
        self.server = FlapjackServer(self.ctx, compressed(server_config(self.ctx, MEDIA, self.ports), plan.keep),
                                     "soak")
        stack.callback(self.server.stop)
        self.server.wait_ready(MEDIA, PROBE)
        self.ledger = Ledger()
        self.samples: list[Sample] = []
        self.kills: list[tuple[float, int, str]] = []
        self.outages = 0
        self.smtp_down = False
        self.pushed = 0
        self.purged = 0
        self.t0 = 0.0

    # feeding

    def feed(self, stop: threading.Event) -> None:
        """`rate` events/s, round robin over the population, until `stop`."""
        n = 0
        while not stop.is_set():
            due = int((time.monotonic() - self.t0) * self.plan.rate)
            if due > n:
                now = int(time.time())
                raws = [workload.make_event(*self.pop.check(i % self.pop.size), self.pop.state(i), now)
                        for i in range(n, due)]
                bench_store.fill_queue(self.client, raws)
                n = due
                self.pushed = n
            time.sleep(FEED_TICK)

    # faults

    def kill_one(self, at: float) -> None:
        """SIGKILL the gateway worker (a child of the server) that has run longest."""
        workers = [p for p in tree(self.server.process.pid)
                   if p.ppid == self.server.process.pid and p.role.startswith("gateway ")]
        if not workers:
            say(f"{at:.0f}s: no gateway worker running to kill")
            return
        victim = min(workers, key=lambda p: p.started)
        if processes().get(victim.pid, (0, 0))[0] != self.server.process.pid:  # gone (and its pid reused?)
            return
        os.kill(victim.pid, signal.SIGKILL)
        self.kills.append((at, victim.pid, victim.role))
        say(f"{at:.0f}s: SIGKILL {victim.role} (pid {victim.pid}), kill {len(self.kills)}")

    def smtp(self, up: bool, at: float) -> None:
        if up:
            self.sinks.resume(EMAIL)
        else:
            self.sinks.pause(EMAIL)
            self.outages += 1
        self.smtp_down = not up
        say(f"{at:.0f}s: SMTP server {'back' if up else 'stopped'}")

    # observation

    def sample(self, at: float) -> None:
        procs: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for p in [*tree(self.server.process.pid), Proc(self.redis_pid, 0, "redis", 0)]:
            found = rss_and_fds(p.pid)
            if found is not None:
                procs[p.role].append(found)
        memory = bench_store.server_stats(self.client).used_memory
        disturbed = self.smtp_down or self.registries()["scheduled"] > 0
        self.samples.append(Sample(at, memory, dict(procs), disturbed))

    def collect(self) -> list[bench_store.RecordedAlert]:
        records = bench_store.recorded_alerts(self.client)
        self.ledger.note(records)
        return records

    def purge(self) -> None:
        """Note every record, then delete the delivered ones older than `keep` (those not delivered stay) from
        the records and every index, with their finished jobs, and the failing checks' history older than that."""
        self.collect()
        cutoff = int(time.time() - self.plan.keep)
        old = alert_store.alert_ids(self.client, keys.alerts(), "-inf", cutoff, limit=1_000_000)
        done = [i for i in old if self.ledger.status(i) == AlertStatus.DELIVERED]
        if done:
            indexes = [keys.alerts(), keys.alerts_by_time_pattern(), keys.alerts_by_contact("*"),
                       keys.alerts_by_check("*", "*")]
            names = [keys.alerts(), *(n for pattern in indexes[1:] for n in self.client.scan_iter(match=pattern))]
            for start in range(0, len(done), 1000):
                part = done[start:start + 1000]
                pipe = self.client.pipeline(transaction=False)
                pipe.delete(*(keys.alert(i) for i in part))
                for name in names:
                    pipe.zrem(name, *part)
                pipe.execute()
            self.purged += len(done)
            self._drop_finished_jobs(done)
        failing = [keys.check_id(*self.pop.check(i)) for i in range(self.pop.size) if self.pop.flaps(i)]
        purge_all(self.client, failing, cutoff)

    def _drop_finished_jobs(self, ids: list[str]) -> None:
        """Delete the finished rq jobs (and results) of these alerts, as their TTL would later."""
        for start in range(0, len(ids), 500):
            jobs = Job.fetch_many(ids[start:start + 500], connection=self.raw, serializer=JSONSerializer)
            pipe = self.raw.pipeline(transaction=False)
            for job in jobs:
                if job is not None and job.get_status(refresh=False) == "finished":
                    job.delete(pipeline=pipe, remove_from_queue=False)
                    pipe.delete(Result.get_key(job.id))  # type: ignore[no-untyped-call]
            pipe.execute()

    def registries(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for medium in MEDIA:
            queue = bench_store.rq_queue(self.raw, medium)
            counts["queued"] += queue.count
            counts["started"] += StartedJobRegistry(medium, connection=self.raw).get_job_count(cleanup=False)
            scheduled = ScheduledJobRegistry(medium, connection=self.raw)  # type: ignore[no-untyped-call]
            counts["scheduled"] += scheduled.get_job_count(cleanup=False)
            counts["failed"] += FailedJobRegistry(medium, connection=self.raw).get_job_count(cleanup=False)
        return dict(counts)

    def progress(self, at: float) -> None:
        regs = self.registries()
        got = self.sinks.deliveries.count()
        say(f"{at:.0f}s: pushed {self.pushed}, alerts recorded {len(self.ledger.alerts)}, received {got}, "
            f"jobs queued {regs['queued']} started {regs['started']} scheduled {regs['scheduled']} "
            f"failed {regs['failed']}, events queued {bench_store.queue_length(self.client)}, "
            f"redis {self.samples[-1].used_memory / 2**20:.1f} MiB, kills {len(self.kills)}"
            + (", SMTP down" if self.smtp_down else ""))

    # the schedule

    def run(self) -> None:
        plan = self.plan
        say(f"{plan.seconds:.0f}s of {plan.rate:.0f} events/s over {self.pop.size} checks, {plan.contacts} contact(s), "
            f"{plan.workers} worker(s) per medium; kill every {plan.kill_every:.0f}s, SMTP down {plan.outage:.0f}s "
            f"every {plan.outage_every:.0f}s; warm-up {plan.warmup:.0f}s, keep {plan.keep:.0f}s; log {self.server.log_path}")
        stop = threading.Event()
        self.t0 = time.monotonic()
        feeder = threading.Thread(target=self.feed, args=(stop,), name="soak-feeder", daemon=True)
        feeder.start()
        inf = float("inf")
        next_kill = plan.kill_every or inf
        next_outage = plan.warmup / 2 if plan.outage_every else inf  # the first in the warm-up: see the docstring
        outage_ends = inf
        next_sample = next_progress = 0.0
        next_purge = plan.keep / 2 if plan.keep else inf
        try:
            while (at := time.monotonic() - self.t0) < plan.seconds:
                self.server.check_running()
                if not feeder.is_alive():
                    raise BenchError("the feeder stopped")
                if at >= next_kill:
                    self.kill_one(at)
                    next_kill += plan.kill_every
                if at >= outage_ends:
                    self.smtp(True, at)
                    outage_ends = inf
                if at >= next_outage:
                    if at + plan.outage < plan.seconds:  # an outage that would outlast the load is not started
                        self.smtp(False, at)
                        outage_ends = at + plan.outage
                    next_outage += plan.outage_every
                if at >= next_sample:
                    self.sample(at)
                    next_sample += plan.sample_every
                if at >= next_purge:
                    self.purge()
                    next_purge += plan.keep / 2
                if at >= next_progress:
                    self.collect()
                    self.progress(at)
                    next_progress += plan.progress_every
                time.sleep(TICK)
        finally:
            stop.set()
            feeder.join(10)
            if self.smtp_down:
                self.smtp(True, time.monotonic() - self.t0)
        self.sample(time.monotonic() - self.t0)
        self.drain()

    def drain(self) -> None:
        """Wait until no event is queued and every job has settled (or nothing moved for DRAIN_STALL s)."""
        began = moved = time.monotonic()
        seen: tuple[Any, ...] = ()
        while time.monotonic() - began < DRAIN_TIMEOUT and time.monotonic() - moved < DRAIN_STALL:
            self.server.check_running()
            regs = self.registries()
            events = bench_store.queue_length(self.client) + bench_store.in_flight_total(self.client)
            now = (events, regs["queued"], regs["started"], regs["scheduled"], self.sinks.deliveries.count())
            if not any(now[:4]):
                break
            if now != seen:
                seen, moved = now, time.monotonic()
            time.sleep(0.5)
        time.sleep(2)  # a last status write after the last acceptance
        self.collect()
        say(f"drained in {time.monotonic() - began:.0f}s")

    # the verdicts

    def verdicts(self) -> list[tuple[str, bool, str]]:
        taken = self.sinks.deliveries.take()
        received: dict[str, Counter[str]] = {m: Counter(key for key, _ in taken["received"][m]) for m in MEDIA}
        expected: dict[str, Counter[str]] = {m: Counter() for m in MEDIA}
        for alert_id, (medium, address, check, _) in self.ledger.alerts.items():
            if medium in expected:
                expected[medium][alert_id if medium == EMAIL else f"{address}/{check}"] += 1
        lost = {m: sum(max(n - received[m][k], 0) for k, n in expected[m].items()) for m in MEDIA}
        dups = {m: sum(max(n - expected[m][k], 0) for k, n in received[m].items() if k in expected[m]) for m in MEDIA}
        unknown = {m: sum(n for k, n in received[m].items() if k not in expected[m]) for m in MEDIA}
        statuses = Counter(status for *_, status in self.ledger.alerts.values())
        alerts = len(self.ledger.alerts)
        regs = self.registries()
        events_left = bench_store.queue_length(self.client) + bench_store.in_flight_total(self.client)
        kills = len(self.kills)
        lines = [
            ("delivered", alerts > 0 and statuses[AlertStatus.DELIVERED] == alerts,
             f"alerts={alerts} " + " ".join(f"{s or 'none'}={n}" for s, n in sorted(statuses.items()))),
            ("lost", not any(lost.values()) and not any(unknown.values()),
             " ".join(f"{m}_alerts={expected[m].total()} {m}_received={received[m].total()} {m}_lost={lost[m]} "
                      f"{m}_unknown={unknown[m]}" for m in MEDIA)),
            ("duplicates", dups[EMAIL] <= kills and dups[PAGERDUTY] <= kills * tuning_of(self.server.config, PAGERDUTY)[1],
             f"duplicates={sum(dups.values())} " + " ".join(f"{m}={dups[m]}" for m in MEDIA) + f" kills={kills}"),
            ("registries", not any(regs.values()) and not events_left,
             " ".join(f"{k}={v}" for k, v in regs.items()) + f" events_left={events_left}"),
        ]
        lines += self._flat()
        return lines

    def _windows(self) -> tuple[list[Sample], list[Sample]]:
        """The baseline's and the end's samples: the first and the last `window` s worth of quiet samples after
        the warm-up. Quiet: not while the SMTP server is down or retries are scheduled, nor until the purge
        after that has run (alert records not delivered yet are kept, so Redis holds an outage's backlog)."""
        settle = self.plan.keep / 2 + 2 * self.plan.sample_every
        disturbed = [s.at for s in self.samples if s.disturbed]
        quiet = [s for s in self.samples if self.plan.warmup <= s.at <= self.plan.seconds
                 and not any(d <= s.at <= d + settle for d in disturbed)]
        n = max(round(self.plan.window / self.plan.sample_every), 3)
        if len(quiet) < 2 * n:
            return [], []
        return quiet[:n], quiet[-n:]

    def _flat(self) -> list[tuple[str, bool, str]]:
        base, end = self._windows()
        if not base or not end:
            return [(name, False, "too_few_quiet_samples") for name in ("redis_memory", "rss", "fds")]
        windows = f"baseline_s={base[0].at:.0f}-{base[-1].at:.0f} end_s={end[0].at:.0f}-{end[-1].at:.0f}"
        say("redis used_memory MiB " + " ".join(f"{s.used_memory / 2**20:.1f}{'*' if s.disturbed else ''}"
                                                 for s in self.samples if s.at >= self.plan.warmup))
        mem0 = statistics.median(s.used_memory for s in base)
        mem1 = statistics.median(s.used_memory for s in end)
        grow = mem1 / mem0 - 1
        lines = [("redis_memory", grow <= LIMIT,
                  f"baseline_mib={mem0 / 2**20:.1f} end_mib={mem1 / 2**20:.1f} growth={grow:+.1%} limit=+{LIMIT:.0%} "
                  + windows)]
        load = [s for s in self.samples if s.at >= self.plan.warmup]
        seen = Counter(r for s in load for r in s.procs)
        roles = sorted(r for r, n in seen.items() if n >= len(load) / 2)  # a process being started: its own role
        transient = sorted(set(seen) - set(roles))
        for role in roles:
            say(f"{role}: fds " + " ".join(f"{per_process([s], role, 1, max) or 0:g}" for s in load)
                + "; RSS MiB " + " ".join(f"{(per_process([s], role, 0, max) or 0) / 2**20:.0f}" for s in load))
        rss_ok, fds_ok, rss_parts, fd_parts = True, True, [], []
        for role in roles:
            name = role.replace(" ", "_")
            rss0, rss1 = per_process(base, role, 0, statistics.median), per_process(end, role, 0, statistics.median)
            fd0, fd1 = most_fds(base, role), most_fds(end, role)
            if rss0 is None or rss1 is None or fd0 is None or fd1 is None:
                rss_ok = fds_ok = False
                rss_parts.append(f"{name}=missing")
                continue
            growth = rss1 / rss0 - 1
            rss_ok &= growth <= LIMIT
            rss_parts.append(f"{name}={rss0 / 2**20:.0f}->{rss1 / 2**20:.0f}MiB({growth:+.1%})")
            fds_ok &= fd1 <= fd0 + FD_SLACK
            fd_parts.append(f"{name}={fd0:g}->{fd1:g}")
        if transient:
            rss_parts.append(f"transient={','.join(r.replace(' ', '_') for r in transient)}")
        lines.append(("rss", rss_ok, " ".join(rss_parts) + f" limit=+{LIMIT:.0%}"))
        lines.append(("fds", fds_ok, " ".join(fd_parts) + f" slack={FD_SLACK}"))
        return lines


def most_fds(samples: list[Sample], role: str) -> int | None:
    """The most open files any one process of the role had in the samples."""
    return max((p[1] for s in samples for p in s.procs.get(role, [])), default=None)


def per_process(samples: list[Sample], role: str, index: int, combine: Any) -> float | None:
    """`combine` (median, max) over the samples of the mean RSS (index 0) or fds (1) of the role's processes."""
    values = [statistics.mean(p[index] for p in s.procs[role]) for s in samples if s.procs.get(role)]
    return float(combine(values)) if values else None


def run(plan: Plan) -> int:
    started = time.monotonic()
    with ExitStack() as stack:
        soak = Soak(plan, stack)
        soak.run()
        lines = soak.verdicts()
        events = soak.pushed
        kills, outages, purged = len(soak.kills), soak.outages, soak.purged
    ok = all(passed for _, passed, _ in lines)
    for name, passed, detail in lines:
        print(f"soak.{name} status={'ok' if passed else 'fail'} {detail}")
    failed = [name for name, passed, _ in lines if not passed]
    print(f"soak.result status={'ok' if ok else 'fail'} minutes={plan.seconds / 60:g} events={events} kills={kills} "
          f"smtp_outages={outages} purged_alerts={purged} runtime_s={time.monotonic() - started:.0f}"
          + (f" failed={','.join(failed)}" if failed else ""), flush=True)
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    plan = plan_from(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return run(plan)
    except BenchError as exc:
        print(f"soak.result status=error reason={exc}", flush=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
