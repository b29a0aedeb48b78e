"""A throw-away Synapse homeserver on loopback for the matrix tests.

Synapse is not one of the project's dependencies: scripts/test installs a pinned `matrix-synapse` into its own
venv (SYNAPSE_VENV, default ~/.cache/flapjack-py/synapse-venv); the fixture skips, saying so, when it is missing.
Own config, SQLite database, signing key and log in a tmp dir; users made with the registration shared secret;
start, stop and start again on the same port (the restart test). The client-server API is called with requests.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import requests

SYNAPSE_VENV = Path(os.environ.get("SYNAPSE_VENV") or Path.home() / ".cache/flapjack-py/synapse-venv")
SERVER_NAME = "localhost"
START_TIMEOUT = 60.0
SECRET = "registration-shared-secret-for-tests"
CONFIG = """
server_name: "{name}"
pid_file: "{dir}/homeserver.pid"
listeners:
  - port: {port}
    bind_addresses: ["127.0.0.1"]
    type: http
    tls: false
    x_forwarded: false
    resources:
      - names: [client]
        compress: false
database:
  name: sqlite3
  args:
    database: "{dir}/homeserver.db"
media_store_path: "{dir}/media"
signing_key_path: "{dir}/signing.key"
registration_shared_secret: "{secret}"
report_stats: false
trusted_key_servers: []
suppress_key_server_warning: true
enable_metrics: false
presence:
  enabled: false
rc_message: {{per_second: 1000, burst_count: 1000}}
rc_login:
  address: {{per_second: 1000, burst_count: 1000}}
  account: {{per_second: 1000, burst_count: 1000}}
  failed_attempts: {{per_second: 1000, burst_count: 1000}}
rc_joins:
  local: {{per_second: 1000, burst_count: 1000}}
rc_invites:
  per_room: {{per_second: 1000, burst_count: 1000}}
  per_user: {{per_second: 1000, burst_count: 1000}}
"""


def available() -> str | None:
    """Why Synapse cannot be run here, or None."""
    if not (SYNAPSE_VENV / "bin" / "synapse_homeserver").exists():
        return f"no Synapse venv at {SYNAPSE_VENV} (scripts/test installs matrix-synapse there)"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Synapse:
    """One Synapse process in `directory`, on `port`."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.config = directory / "homeserver.yaml"
        self.config.write_text(CONFIG.format(name=SERVER_NAME, dir=directory, port=self.port, secret=SECRET))
        (directory / "media").mkdir(exist_ok=True)
        python = str(SYNAPSE_VENV / "bin" / "python")
        subprocess.run([python, "-m", "synapse.app.homeserver", "-c", str(self.config), "--generate-keys"],
                       check=True, capture_output=True, timeout=60)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Synapse:
        log = (self.dir / "synapse.out").open("ab")
        self.process = subprocess.Popen([str(SYNAPSE_VENV / "bin" / "python"), "-m", "synapse.app.homeserver",
                                         "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT,
                                        cwd=self.dir)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"synapse exited: {(self.dir / 'synapse.out').read_text()[-2000:]}")
            try:
                if requests.get(f"{self.url}/_matrix/client/versions", timeout=1).ok:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise RuntimeError("synapse did not answer in time")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def register(self, user: str, password: str) -> str:
        """Make a user with the registration shared secret; their access token."""
        nonce = requests.get(f"{self.url}/_synapse/admin/v1/register", timeout=10).json()["nonce"]
        mac = hmac.new(SECRET.encode(), b"\x00".join([nonce.encode(), user.encode(), password.encode(),
                                                       b"notadmin"]), hashlib.sha1).hexdigest()
        answer = requests.post(f"{self.url}/_synapse/admin/v1/register", timeout=10, json={
            "nonce": nonce, "username": user, "password": password, "admin": False, "mac": mac})
        answer.raise_for_status()
        return str(answer.json()["access_token"])


class Person:
    """A Matrix user driven through the client-server API."""

    def __init__(self, server: Synapse, user: str, token: str) -> None:
        self.server, self.user_id, self.token = server, f"@{user}:{SERVER_NAME}", token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = requests.request(method, f"{self.server.url}/_matrix/client/v3{path}", json=body, timeout=10,
                                  headers={"Authorization": f"Bearer {self.token}"})
        answer.raise_for_status()
        return dict(answer.json())

    def create_room(self, invite: list[str]) -> str:
        return str(self.call("POST", "/createRoom", {"preset": "private_chat", "invite": invite})["room_id"])

    def join(self, room: str) -> None:
        self.call("POST", f"/join/{quote(room)}", {})

    def send(self, room: str, content: dict[str, Any], kind: str = "m.room.message") -> str:
        return str(self.call("PUT", f"/rooms/{quote(room)}/send/{kind}/{uuid.uuid4().hex}", content)["event_id"])

    def in_thread(self, room: str, root: str, text: str) -> str:
        return self.send(room, {"msgtype": "m.text", "body": text, "m.relates_to": {
            "rel_type": "m.thread", "event_id": root, "is_falling_back": True, "m.in_reply_to": {"event_id": root}}})

    def react(self, room: str, target: str, key: str) -> str:
        return self.send(room, {"m.relates_to": {"rel_type": "m.annotation", "event_id": target, "key": key}},
                         "m.reaction")

    def messages(self, room: str) -> list[dict[str, Any]]:
        """The room's m.room.message events, oldest first."""
        chunk = self.call("GET", f"/rooms/{quote(room)}/messages?dir=b&limit=100")["chunk"]
        return [e for e in reversed(chunk) if e.get("type") == "m.room.message"]
