"""A throwaway Dovecot IMAP server on loopback (Debian `dovecot-imapd`): passwd-file users, maildirs in a temp dir.

Started by a fixture and stopped by its pid; nothing of the system's Dovecot (its config, its service) is used.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"

CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
info_log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 0
first_valid_gid = 0
mail_location = maildir:{root}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
"""


def available() -> bool:
    return os.path.exists(DOVECOT)


class Dovecot:
    """One Dovecot with the given users (name -> password)."""

    def __init__(self, users: dict[str, str]) -> None:
        # its own dir under /tmp, traversable: Dovecot's auth and mail processes run as its own users when root
        self.root = Path(tempfile.mkdtemp(prefix="flapjack-dovecot-"))
        self.root.chmod(0o755)
        self.users = users
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Dovecot:
        uid, gid = os.getuid(), os.getgid()
        if uid == 0:  # Dovecot never delivers mail as root: the mail belongs to its own user
            owner = pwd.getpwnam("dovecot")
            uid, gid = owner.pw_uid, owner.pw_gid
        for sub in ("run", "state", "mail", "home"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        for sub in ("mail", "home"):
            os.chown(self.root / sub, uid, gid)
        (self.root / "passwd").write_text("".join(f"{u}:{{PLAIN}}{p}::::::\n" for u, p in self.users.items()))
        (self.root / "passwd").chmod(0o644)
        conf = self.root / "dovecot.conf"
        conf.write_text(CONFIG.format(root=self.root, port=self.port, uid=uid, gid=gid))
        self.proc = subprocess.Popen([DOVECOT, "-F", "-c", str(conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                    if conn.recv(100).startswith(b"* OK"):
                        return self
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        log = self.root / "dovecot.log"
        raise RuntimeError(f"dovecot did not start: {log.read_text() if log.exists() else 'no log'}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, user: str) -> str:
        return f"imap://{user}:{self.users[user]}@127.0.0.1:{self.port}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
