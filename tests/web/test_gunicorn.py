"""`web.wsgi:app` under a real gunicorn with several worker processes.

A UI session begun in one worker (login form, CSRF token, session cookie) is honoured
by the others, because the signing key lives in Redis; the access log (with each
request's worker pid) shows that more than one worker served the logged-in pages.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis
import requests
import yaml

from flapjack_py import credentials
from flapjack_py.access import Role
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import users as user_store
from flapjack_py.store.plumbing.client import StrRedis
from tests.integration.sentinel_cluster import free_port
from tests.polling import wait_for

pytestmark = [pytest.mark.real, pytest.mark.slow]

WORKERS = 3
PASSWORD = "correct horse battery"
_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=5).status_code in (200, 503)
    except requests.RequestException:  # not listening yet, or a worker still importing the app
        return False


def served_by(log: Path, path: str) -> dict[int, int]:
    """Worker pid -> number of 200 answers to GET `path` in the access log (`pid method path status`)."""
    found: dict[int, int] = {}
    for line in log.read_text().splitlines():
        pid, method, url, status = line.split()
        if method == "GET" and url == path and status == "200":
            found[int(pid.strip("<>"))] = found.get(int(pid.strip("<>")), 0) + 1
    return found


def test_several_gunicorn_workers_share_one_login_session(tmp_path: Path, redis_server: EmbeddedRedis,
                                                          real_r: redis.Redis, real_s: StrRedis) -> None:
    user_store.save_user(real_s, user_store.User("admin", Role.ADMIN, credentials.hash_password(PASSWORD), 0))
    config = tmp_path / "flapjack.yml"
    config.write_text(yaml.safe_dump({"redis": {"url": redis_server.url}}))
    access_log, port = tmp_path / "access.log", free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ, FLAPJACK_CONFIG=str(config))
    env.pop("FLAPJACK_REDIS_URL", None)
    gunicorn = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", str(WORKERS), "--bind", f"127.0.0.1:{port}",
         "--access-logfile", str(access_log), "--access-logformat", "%(p)s %(m)s %(U)s %(s)s", "web.wsgi:app"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: answers(base + "/api/health"), 60, "gunicorn answers")
        session = requests.Session()
        form = session.get(base + "/login", timeout=10)
        token = _TOKEN.search(form.text)
        assert token, form.text
        login = session.post(base + "/login", data={"username": "admin", "password": PASSWORD,
                                                    "csrf_token": token.group(1)}, allow_redirects=False, timeout=10)
        assert login.status_code == 303 and login.headers["Location"] == "/", login.text

        def overview(_: int) -> tuple[int, str]:
            page = requests.get(base + "/", cookies=session.cookies, allow_redirects=False, timeout=20)
            return page.status_code, page.text

        # Concurrent requests: a busy sync worker cannot take them all. A worker still importing
        # the app (a loaded CI machine) accepts nothing yet, so rounds go on until two or more
        # workers have answered, or the deadline: every page of every round must be logged in.
        pages: list[tuple[int, str]] = []
        with ThreadPoolExecutor(WORKERS * 2) as pool:
            for _ in range(20):
                pages += pool.map(overview, range(WORKERS * 10))
                if len(served_by(access_log, "/")) >= 2:
                    break
        assert all(status == 200 and "Log out" in text for status, text in pages), pages[0]
        # gunicorn logs a request just after answering it
        wait_for(lambda: sum(served_by(access_log, "/").values()) >= len(pages), 10, "every page in the access log")
        workers = served_by(access_log, "/")
        assert len(workers) >= 2 and sum(workers.values()) == len(pages), workers
        assert requests.get(base + "/", allow_redirects=False, timeout=10).status_code == 303  # no cookie: login
    finally:
        gunicorn.send_signal(signal.SIGTERM)
        _, stderr = gunicorn.communicate(timeout=30)
    assert gunicorn.returncode == 0, stderr.decode()
    assert stderr.decode().count("Booting worker") == WORKERS
