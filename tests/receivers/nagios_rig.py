"""A real Nagios 4 (Debian nagios4-core) in a tmp dir: its own config, objects and perfdata pipe.

Services run check_dummy every INTERVAL seconds (interval_length=1). Each run of Nagios gets a
tag (a $USER2$ macro) that every result's output carries, and its own debug log in which Nagios
records every check result it handles: the ground truth to count received results against.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

NAGIOS = shutil.which("nagios4") or "/usr/sbin/nagios4"
PLUGINS = "/usr/lib/nagios/plugins"
HANDLED = re.compile(r"\*\* Handling \w+ async check result for service '([^']*)' on host '([^']*)'")

PERFDATA_TEMPLATES = {
    "host_perfdata_file_template": r"[HOSTPERFDATA]\t$TIMET$\t$HOSTNAME$\tHOST\t$HOSTSTATE$\t$HOSTEXECUTIONTIME$"
                                   r"\t$HOSTLATENCY$\t$HOSTOUTPUT$\t$HOSTPERFDATA$",
    "service_perfdata_file_template": r"[SERVICEPERFDATA]\t$TIMET$\t$HOSTNAME$\t$SERVICEDESC$\t$SERVICESTATE$"
                                      r"\t$SERVICEEXECUTIONTIME$\t$SERVICELATENCY$\t$SERVICEOUTPUT$\t$SERVICEPERFDATA$",
}


class NagiosRig:
    """One Nagios configuration in `root`, started and stopped by pid."""

    def __init__(self, root: Path, fifo: Path, hosts: int = 10, services: int = 30, interval: int = 2) -> None:
        self.root, self.fifo = root, fifo
        self.hosts, self.services, self.interval = hosts, services, interval
        self.process: subprocess.Popen[bytes] | None = None
        self.tag = ""
        self.critical: set[str] = set()  # "host;service" whose check returns 2
        (root / "spool").mkdir(parents=True, exist_ok=True)

    # --- configuration -----------------------------------------------------

    def write_config(self, tag: str) -> None:
        """nagios.cfg, objects.cfg and resource.cfg for a run tagged `tag`."""
        self.tag = tag
        user = _user()
        settings = {
            "log_file": self.root / "nagios.log", "cfg_file": self.root / "objects.cfg",
            "resource_file": self.root / "resource.cfg", "status_file": self.root / "status.dat",
            "object_cache_file": self.root / "objects.cache", "precached_object_file": self.root / "objects.precache",
            "temp_file": self.root / "nagios.tmp", "temp_path": self.root, "lock_file": self.root / "nagios.pid",
            "check_result_path": self.root / "spool", "state_retention_file": self.root / "retention.dat",
            "debug_file": self.debug_log(tag), "debug_level": 16, "debug_verbosity": 0,
            "max_debug_file_size": 1_000_000_000, "nagios_user": user, "nagios_group": user,
            "interval_length": 1, "check_external_commands": 0, "enable_notifications": 0,
            "enable_event_handlers": 0, "retain_state_information": 0, "use_syslog": 0, "log_initial_states": 0,
            "max_service_check_spread": 1, "max_host_check_spread": 1, "check_for_updates": 0,
            "enable_flap_detection": 0, "process_performance_data": 1,
            "host_perfdata_file": self.fifo, "service_perfdata_file": self.fifo,
            "host_perfdata_file_mode": "p", "service_perfdata_file_mode": "p",
            "illegal_macro_output_chars": "`~$&|'\"<>", "status_update_interval": 60,
            **PERFDATA_TEMPLATES,
        }
        (self.root / "nagios.cfg").write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
        (self.root / "resource.cfg").write_text(f"$USER1$={PLUGINS}\n$USER2$={tag}\n")
        (self.root / "objects.cfg").write_text(self._objects())

    def _objects(self) -> str:
        parts = [
            "define command {\n command_name ok\n command_line $USER1$/check_dummy 0 '$USER2$ $HOSTNAME$'\n}\n",
            "define command {\n command_name dummy\n command_line $USER1$/check_dummy $ARG1$ '$USER2$ n=$ARG2$ | time=0.01s'\n}\n",
            "define timeperiod {\n timeperiod_name always\n alias always\n"
            + "".join(f" {d} 00:00-24:00\n" for d in ("sunday", "monday", "tuesday", "wednesday", "thursday",
                                                     "friday", "saturday")) + "}\n",
            "define contact {\n contact_name nobody\n host_notifications_enabled 0\n service_notifications_enabled 0\n"
            " host_notification_period always\n service_notification_period always\n host_notification_options n\n"
            " service_notification_options n\n host_notification_commands ok\n service_notification_commands ok\n}\n",
        ]
        common = (f" check_interval {self.interval}\n retry_interval {self.interval}\n max_check_attempts 1\n"
                  " check_period always\n notification_period always\n contacts nobody\n"
                  " notifications_enabled 0\n process_perf_data 1\n active_checks_enabled 1\n")
        for h in range(self.hosts):
            host = f"host-{h:02d}"
            parts.append(f"define host {{\n host_name {host}\n address 127.0.0.1\n check_command ok\n"
                         f"{common}}}\n")
            for s in range(self.services):
                name = f"svc-{s:03d}"
                code = 2 if f"{host};{name}" in self.critical else 0
                parts.append(f"define service {{\n host_name {host}\n service_description {name}\n"
                             f" check_command dummy!{code}!{s}\n{common}}}\n")
        return "".join(parts)

    def debug_log(self, tag: str) -> Path:
        """The debug log of the run tagged `tag`."""
        return self.root / f"debug-{tag}.log"

    # --- process -----------------------------------------------------------

    def start(self, tag: str) -> None:
        """Write the config for `tag` and start Nagios in the foreground (a child of this process)."""
        self.write_config(tag)
        self.process = subprocess.Popen([NAGIOS, str(self.root / "nagios.cfg")], stdin=subprocess.DEVNULL,
                                        stdout=open(self.root / "stdout.log", "ab"), stderr=subprocess.STDOUT)

    def reload(self) -> None:
        """Rewrite the config (same tag) and send SIGHUP."""
        assert self.process is not None
        self.write_config(self.tag)
        self.process.send_signal(signal.SIGHUP)

    def stop(self, timeout: float = 20) -> None:
        """SIGTERM Nagios (our child, by pid) and wait for it and its workers to exit."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        _wait_gone(self.root / "nagios.pid", timeout)

    def handled(self, tag: str, services_only: bool = True) -> int:
        """How many service check results Nagios handled in the run tagged `tag` (from its debug log)."""
        path = self.debug_log(tag)
        if not path.exists():
            return 0
        return sum(1 for _ in HANDLED.finditer(path.read_text(errors="replace")))


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_name


def _wait_gone(lock_file: Path, timeout: float) -> None:
    """Wait until the pid in Nagios's lock file is no longer running (its workers exit with it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid = int(lock_file.read_text().strip() or 0)
        except (OSError, ValueError):
            return
        if not pid or not Path(f"/proc/{pid}").exists():
            return
        time.sleep(0.05)
