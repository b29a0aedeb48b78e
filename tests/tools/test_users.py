"""`flapjack user` and `flapjack token`: users with roles and hashed passwords, tokens that work and can be revoked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import redis
from click.testing import Result

import web
from flapjack_py import keys

pytestmark = pytest.mark.real


def api_status(r: redis.Redis, token: str, method: str = "GET", path: str = "/api/contacts") -> int:
    client = web.create_app(redis=r).test_client()
    return client.open(path, method=method, headers={"Authorization": f"Bearer {token}"}).status_code


def test_add_list_passwd_delete(flapjack: Callable[..., Result], real_r: redis.Redis) -> None:
    added = flapjack("user", "add", "ann", "--role", "responder", "--password-stdin", input="s3cret pass\n")
    assert added.exit_code == 0, added.output
    stored = real_r.hget(keys.web_users(), "ann")
    assert stored and b"s3cret" not in stored and b"$argon2id$" in stored
    assert flapjack("user", "add", "bob", "--role", "viewer", "--password-stdin", input="another pass\n").exit_code == 0
    assert flapjack("user", "list").output.splitlines() == ["ann\tresponder", "bob\tviewer"]
    assert flapjack("user", "passwd", "ann", "--password-stdin", input="changed pass\n").exit_code == 0
    assert real_r.hget(keys.web_users(), "ann") != stored
    assert flapjack("user", "delete", "bob").exit_code == 0
    assert flapjack("user", "list").output.splitlines() == ["ann\tresponder"]
    assert flapjack("user", "delete", "bob").exit_code == 1


@pytest.mark.parametrize(("args", "stdin"), [(("--role", "root"), "long enough\n"), (("--role", "admin"), "short\n")])
def test_bad_roles_and_short_passwords_are_refused(flapjack: Callable[..., Result], real_r: redis.Redis,
                                                   args: tuple[str, ...], stdin: str) -> None:
    result = flapjack("user", "add", "ann", *args, "--password-stdin", input=stdin)
    assert result.exit_code == 2
    assert not real_r.exists(keys.web_users())


def test_a_token_acts_with_its_users_role_until_revoked(flapjack: Callable[..., Result], real_r: redis.Redis) -> None:
    assert flapjack("user", "add", "vic", "--role", "viewer", "--password-stdin", input="viewer pass\n").exit_code == 0
    created = flapjack("token", "create", "vic")
    assert created.exit_code == 0, created.output
    token = created.output.splitlines()[-1]
    assert token.startswith("fjp_") and token.encode() not in b"".join(real_r.hgetall(keys.web_tokens()).values())
    assert token.encode() not in b"".join(real_r.hkeys(keys.web_tokens()))
    assert api_status(real_r, token) == 200
    assert api_status(real_r, token, "DELETE", "/api/contacts/1") == 403  # a viewer's token cannot write
    [line] = flapjack("token", "list").output.splitlines()
    token_id, user, _ = line.split("\t")
    assert user == "vic" and token_id not in token
    assert flapjack("token", "revoke", token_id).exit_code == 0
    assert api_status(real_r, token) == 401  # at once
    assert flapjack("token", "revoke", token_id).exit_code == 1


def test_deleting_a_user_revokes_their_tokens(flapjack: Callable[..., Result], real_r: redis.Redis) -> None:
    flapjack("user", "add", "ann", "--role", "admin", "--password-stdin", input="admin pass!\n")
    flapjack("user", "add", "bob", "--role", "admin", "--password-stdin", input="admin pass!\n")
    token = flapjack("token", "create", "ann").output.splitlines()[-1]
    assert api_status(real_r, token) == 200
    flapjack("user", "delete", "ann")
    assert api_status(real_r, token) == 401  # bob still exists, so the app is not in the open mode
    assert not real_r.exists(keys.web_tokens())


def test_a_token_needs_an_existing_user(flapjack: Callable[..., Result]) -> None:
    assert flapjack("token", "create", "nobody").exit_code == 1


@pytest.mark.parametrize("command", ["web", "server"])
def test_web_and_server_refuse_an_open_app_beyond_loopback(flapjack: Callable[..., Result], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    config = tmp_path / "open.yml"
    config.write_text("logging:\n  level: ERROR\nweb:\n  bind: 0.0.0.0\n  port: 1\n")
    monkeypatch.setenv("FLAPJACK_CONFIG", str(config))
    result = flapjack(command)
    assert result.exit_code == 2
    assert "web.bind 0.0.0.0" in result.output and "flapjack user add NAME --role admin" in result.output
    assert "web.allow_anonymous: true" in result.output
