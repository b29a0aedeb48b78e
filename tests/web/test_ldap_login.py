"""LDAP login against a real directory: Debian's slapd, started on loopback with a small tree (scripts/test
installs it). The password is checked by binding as the user; groups give the role (highest wins) and teams;
a wrong password, an unknown user, an empty password and a user in no mapped group do not get in."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flapjack_py.access import Role
from flapjack_py.config.redaction import config_secrets
from flapjack_py.config.settings import load_config
from flapjack_py.store import audit
from flapjack_py.store import teams as team_store
from flapjack_py.store import users as user_store

from .conftest import People

pytestmark = pytest.mark.real
SLAPD = "/usr/sbin/slapd"
SUFFIX = "dc=example,dc=org"
ADMIN_PW = "directory-admin-pw"
SLAPD_CONF = f"""include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {{dir}}/slapd.pid
database mdb
maxsize 10485760
suffix "{SUFFIX}"
rootdn "cn=admin,{SUFFIX}"
rootpw {ADMIN_PW}
directory {{dir}}/db
"""
PEOPLE = {"alice": "admins", "bob": "ops", "carol": "canteen"}


def _tree() -> str:
    entries = [f"dn: {SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example",
               f"dn: ou=people,{SUFFIX}\nobjectClass: organizationalUnit\nou: people",
               f"dn: ou=groups,{SUFFIX}\nobjectClass: organizationalUnit\nou: groups"]
    for name in PEOPLE:
        entries.append(f"dn: uid={name},ou=people,{SUFFIX}\nobjectClass: inetOrgPerson\nuid: {name}\ncn: {name}\n"
                       f"sn: {name}\nuserPassword: {name}-pw")
    for name, group in PEOPLE.items():
        entries.append(f"dn: cn={group},ou=groups,{SUFFIX}\nobjectClass: groupOfNames\ncn: {group}\n"
                       f"member: uid={name},ou=people,{SUFFIX}")
    return "\n\n".join(entries) + "\n"


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """ldap://127.0.0.1:PORT of a slapd serving the tree (alice: admins, bob: ops, carol: canteen)."""
    assert Path(SLAPD).exists() and shutil.which("slapadd"), "slapd missing: scripts/test installs it"
    home = tmp_path_factory.mktemp("slapd")
    (home / "db").mkdir()
    conf = home / "slapd.conf"
    conf.write_text(SLAPD_CONF.format(dir=home))
    (home / "tree.ldif").write_text(_tree())
    subprocess.run(["slapadd", "-f", str(conf), "-l", str(home / "tree.ldif")], check=True, capture_output=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([SLAPD, "-h", f"ldap://127.0.0.1:{port}/", "-f", str(conf), "-d", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(port, server)
        yield f"ldap://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _wait_for(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        assert server.poll() is None, f"slapd exited: {server.stderr.read() if server.stderr else b''!r}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("slapd did not listen")


def _ldap(url: str) -> dict[str, Any]:
    return {"url": url, "start_tls": False, "bind_dn": f"cn=admin,{SUFFIX}", "bind_password": ADMIN_PW,
            "user_base": f"ou=people,{SUFFIX}", "group_base": f"ou=groups,{SUFFIX}",
            "role_map": {"admins": "admin", "ops": "responder"}, "team_map": {"ops": "ops"}}


def test_directory_users_log_in_with_the_role_and_teams_of_their_groups(make_app: Any, people: People,
                                                                        directory: str) -> None:
    app = make_app(ldap=_ldap(directory))
    alice, bob = app.test_client(), app.test_client()
    assert alice.post("/login", data={"username": "alice", "password": "alice-pw"}).status_code == 303
    assert bob.post("/login", data={"username": "bob", "password": "bob-pw"}).status_code == 303
    assert user_store.load_user(people.s, "alice").role is Role.ADMIN  # type: ignore[union-attr]
    assert user_store.load_user(people.s, "bob").role is Role.RESPONDER  # type: ignore[union-attr]
    assert [(t.id, t.members) for t in team_store.list_teams(people.s)] == [("ops", ("bob",))]
    assert alice.get("/audit").status_code == 200  # an admin's page
    assert bob.get("/audit").status_code == 403 and bob.get("/").status_code == 200
    now = int(time.time())
    logins = [(e.actor, e.detail, e.outcome) for e in audit.read(people.s, now - 60, now + 60) if e.action == "login"]
    assert logins == [("alice", "ldap", "ok"), ("bob", "ldap", "ok")]


@pytest.mark.parametrize(("name", "password"), [("alice", "wrong"), ("alice", ""), ("nobody", "x-pw"),
                                                ("carol", "carol-pw"), ("al*", "alice-pw")])
def test_the_directory_keeps_out_wrong_passwords_and_unmapped_users(make_app: Any, people: People, directory: str,
                                                                   name: str, password: str) -> None:
    client = make_app(ldap=_ldap(directory)).test_client()
    response = client.post("/login", data={"username": name, "password": password})
    assert response.status_code == 401
    assert client.get("/").status_code == 303  # still sent to the login form
    assert user_store.load_user(people.s, name) is None
    [entry] = [e for e in audit.read(people.s, 0, int(time.time()) + 60) if e.action == "login"]
    assert (entry.actor, entry.detail, entry.outcome.partition(":")[0]) == (name, "ldap", "refused")


def test_local_users_keep_their_passwords_and_the_bind_password_is_a_secret(make_app: Any, people: People,
                                                                            directory: str) -> None:
    client = make_app(ldap=_ldap(directory)).test_client()
    assert people.login(client, Role.VIEWER).status_code == 303  # a local user: the local password
    config = load_config({"web": {"ldap": _ldap(directory)}})
    assert ADMIN_PW in config_secrets(config)
    with pytest.raises(Exception, match="ldap://"):
        load_config({"web": {"ldap": {**_ldap(directory), "url": "http://x"}}})
