"""A throw-away prosody XMPP server on loopback for the jabber tests.

Own config file, data directory, pidfile and log in a tmp dir; never the system
config. Plain-text auth without TLS on loopback (or STARTTLS with a self-signed
certificate when `tls=True`), a MUC component at `conference.localhost`.
Start, stop and start again on the same port (the reconnect test).
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

log = logging.getLogger(__name__)

PROSODY = shutil.which("prosody") or "/usr/bin/prosody"
PROSODYCTL = shutil.which("prosodyctl") or "/usr/bin/prosodyctl"
DOMAIN = "localhost"
MUC = "conference.localhost"
START_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0

CONFIG = """
run_as_root = true
prosody_user = "{user}"
pidfile = "{dir}/prosody.pid"
data_path = "{dir}/data"
log = {{ {{ levels = {{ min = "info" }}, to = "file", filename = "{dir}/prosody.log" }} }}
interfaces = {{ "127.0.0.1" }}
c2s_ports = {{ {port} }}
s2s_ports = {{ }}
component_ports = {{ }}
http_ports = {{ }}
https_ports = {{ }}
admin_socket = "{dir}/admin.sock"
modules_enabled = {{ "roster", "saslauth", {tls_module}"disco", "ping", "posix", "presence", "message", "iq", "offline" }}
modules_disabled = {{ "s2s", "admin_shell" }}
authentication = "internal_hashed"
allow_unencrypted_plain_auth = true
c2s_require_encryption = {require_tls}
s2s_require_encryption = false
{ssl}
limits = {{ c2s = {{ rate = "10mb/s" }} }}
VirtualHost "{domain}"
Component "{muc}" "muc"
    muc_room_locking = false
    restrict_room_creation = false
"""


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Prosody:
    """One prosody process with its own config in `directory`."""

    def __init__(self, directory: Path, tls: bool = True) -> None:
        self.dir = directory
        self.port = free_port()
        self.tls = tls
        self.process: subprocess.Popen[bytes] | None = None
        (self.dir / "data").mkdir(parents=True, exist_ok=True)
        self.config = self.dir / "prosody.cfg.lua"
        self.config.write_text(self._config_text())

    def _config_text(self) -> str:
        ssl = ""
        if self.tls:
            self._make_certificate()
            ssl = f'ssl = {{ certificate = "{self.dir}/cert.pem", key = "{self.dir}/key.pem" }}'
        user = os.environ.get("USER") or "root"
        return CONFIG.format(dir=self.dir, port=self.port, domain=DOMAIN, muc=MUC, ssl=ssl, user=user,
                             require_tls="true" if self.tls else "false",
                             tls_module='"tls", ' if self.tls else "")

    def _make_certificate(self) -> None:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", f"/CN={DOMAIN}", "-addext", f"subjectAltName=DNS:{DOMAIN},DNS:{MUC}", "-keyout", str(self.dir / "key.pem"),
                        "-out", str(self.dir / "cert.pem")], check=True, capture_output=True, timeout=60)

    @property
    def ca_file(self) -> str:
        """The self-signed certificate (a client's CA file)."""
        return str(self.dir / "cert.pem")

    def register(self, user: str, password: str) -> str:
        """Create an account; return its bare JID."""
        subprocess.run([PROSODYCTL, "--config", str(self.config), "register", user, DOMAIN, password],
                       check=True, capture_output=True, timeout=30)
        return f"{user}@{DOMAIN}"

    def start(self) -> None:
        """Start prosody in the foreground (as a child) and wait until it accepts connections."""
        self.process = subprocess.Popen([PROSODY, "--config", str(self.config), "-F"], cwd=self.dir,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"prosody exited ({self.process.returncode}): {self.log_tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"prosody did not start: {self.log_tail()}")

    def stop(self) -> None:
        """Stop prosody (SIGTERM, then SIGKILL after a bound)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)

    def log_tail(self, lines: int = 20) -> str:
        """The end of prosody's log (for error messages)."""
        path = self.dir / "prosody.log"
        if not path.exists():
            return "(no log)"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
