"""rediss:// with redis.ssl_ca_certs and an ACL user/password, against a real TLS redis-server."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.runtime.connection import make_client
from flapjack_py.store.events import push_event
from tests.integration.sentinel_cluster import free_port
from tests.polling import wait_for

pytestmark = [pytest.mark.real,
              pytest.mark.skipif(shutil.which("openssl") is None or shutil.which("redis-server") is None,
                                 reason="needs openssl and redis-server")]

PASSWORD = "s3cret-for-tests"


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certificates(d: Path) -> None:
    """A CA and a server certificate for 127.0.0.1 signed by it."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
            "-subj", "/CN=flapjack test CA", cwd=d)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=127.0.0.1", cwd=d)
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "1", "-extfile", "san.ext", cwd=d)


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[int]:
    """A redis-server speaking only TLS, where only the ACL user `flapjack` may log in; yields its port."""
    make_certificates(tmp_path)
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1",
         "--tls-cert-file", "server.crt", "--tls-key-file", "server.key", "--tls-ca-cert-file", "ca.crt",
         "--tls-auth-clients", "no", "--save", "", "--appendonly", "no", "--dir", str(tmp_path),
         "--user", "default", "off", "--user", "flapjack", "on", f">{PASSWORD}", "~*", "&*", "+@all"],
        cwd=tmp_path, stdout=subprocess.DEVNULL)
    try:
        wait_for(lambda: _listening(port), 10, "TLS redis-server up")
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def settings(port: int, tmp_path: Path, **over: str) -> dict[str, str]:
    return {"url": f"rediss://127.0.0.1:{port}/0", "username": "flapjack", "password": PASSWORD,
            "ssl_ca_certs": str(tmp_path / "ca.crt"), **over}


def test_tls_with_the_configured_ca_and_an_acl_user(tls_server: int, tmp_path: Path) -> None:
    config = load_config({"redis": settings(tls_server, tmp_path),
                          "executive": {"new_check_scheduled_maintenance_duration": 0}})
    client = make_client(config.redis)
    assert client.acl_whoami() in ("flapjack", b"flapjack")
    push_event(client, {"type": "service", "entity": "web", "check": "HTTP", "state": "critical"})
    assert Executive(client, config).drain() == 1  # the decoding client keeps TLS and the user
    assert client.hget("check:web:HTTP", "state") == b"critical"


def test_the_server_certificate_is_verified_against_ssl_ca_certs(tls_server: int, tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "k", "-out", "other.crt", "-days", "1",
            "-subj", "/CN=another CA", cwd=tmp_path / "other")
    wrong_ca = load_config({"redis": settings(tls_server, tmp_path, ssl_ca_certs=str(tmp_path / "other/other.crt"))})
    with pytest.raises(redis.ConnectionError, match="certificate verify failed"):
        make_client(wrong_ca.redis).ping()


def test_a_wrong_password_is_refused(tls_server: int, tmp_path: Path) -> None:
    config = load_config({"redis": settings(tls_server, tmp_path, password="not-it")})
    with pytest.raises(redis.AuthenticationError):
        make_client(config.redis).ping()
