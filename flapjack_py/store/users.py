"""Web users and API tokens in Redis (keys.web_users, keys.web_tokens) and the web app's signing key.

Users and tokens live outside Flapjack 1.x's key space. Passwords are stored as
argon2 hashes and tokens as their SHA-256 (flapjack_py.credentials); neither is
ever stored or returned in clear.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from flapjack_py import keys
from flapjack_py.access import Role
from flapjack_py.credentials import new_secret_key
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class User:
    """A web user: name, role, argon2 password hash, creation time (unix seconds)."""

    name: str
    role: Role
    password_hash: str
    created: int


@dataclass(frozen=True)
class Token:
    """An API token's record: public id, the user it acts as, creation time. The token itself is not kept."""

    id: str
    user: str
    created: int


def credentials_exist(client: StrRedis) -> bool:
    """True once any user or token exists (the web app then requires one on every route)."""
    return bool(client.exists(keys.web_users(), keys.web_tokens()))


# --- users -------------------------------------------------------------------


def save_user(client: StrRedis, user: User) -> None:
    """Create or replace a user."""
    record = {"role": user.role.value, "password_hash": user.password_hash, "created": user.created}
    client.hset(keys.web_users(), user.name, json.dumps(record))


def load_user(client: StrRedis, name: str) -> User | None:
    """The user called `name`, or None."""
    raw = client.hget(keys.web_users(), name)
    return _user_from(name, raw) if raw else None


def list_users(client: StrRedis) -> list[User]:
    """Every user, by name."""
    found = client.hgetall(keys.web_users())
    users = [_user_from(name, raw) for name, raw in sorted(found.items())]
    return [u for u in users if u is not None]


def remove_user(client: StrRedis, name: str) -> bool:
    """Delete a user and every token acting as them; False when there was no such user."""
    digests = [d for d, t in _token_records(client).items() if t.user == name]
    with client.pipeline(transaction=True) as p:
        p.hdel(keys.web_users(), name)
        if digests:
            p.hdel(keys.web_tokens(), *digests)
        removed, *_ = p.execute()
    return bool(removed)


# --- tokens ------------------------------------------------------------------


def add_token(client: StrRedis, digest: str, token: Token) -> None:
    """Store a token's record under the SHA-256 `digest` of the token."""
    client.hset(keys.web_tokens(), digest, json.dumps({"id": token.id, "user": token.user, "created": token.created}))


def find_token(client: StrRedis, digest: str) -> Token | None:
    """The record of the token whose SHA-256 is `digest`, or None (unknown or revoked)."""
    raw = client.hget(keys.web_tokens(), digest)
    return _token_from(raw) if raw else None


def list_tokens(client: StrRedis) -> list[Token]:
    """Every token's record, by user then id."""
    return sorted(_token_records(client).values(), key=lambda t: (t.user, t.id))


def remove_token(client: StrRedis, token_id: str) -> bool:
    """Revoke the token with public id `token_id`; False when there is none."""
    digests = [d for d, t in _token_records(client).items() if t.id == token_id]
    return bool(digests) and bool(client.hdel(keys.web_tokens(), *digests))


# --- signing key ---------------------------------------------------------------


def secret_key(client: StrRedis) -> str:
    """The web app's signing key, made once and shared by every web process through Redis."""
    client.set(keys.web_secret_key(), new_secret_key(), nx=True)
    return str(client.get(keys.web_secret_key()))


# --- private helpers -------------------------------------------------------------


def _token_records(client: StrRedis) -> dict[str, Token]:
    found = client.hgetall(keys.web_tokens())
    records = {digest: _token_from(raw) for digest, raw in found.items()}
    return {d: t for d, t in records.items() if t is not None}


def _user_from(name: str, raw: str) -> User | None:
    try:
        record = json.loads(raw)
        return User(name, Role(record["role"]), str(record["password_hash"]), int(record.get("created", 0)))
    except (ValueError, KeyError, TypeError):
        log.warning("web user %r: unreadable record, ignored", name)
        return None


def _token_from(raw: str) -> Token | None:
    try:
        record = json.loads(raw)
        return Token(str(record["id"]), str(record["user"]), int(record.get("created", 0)))
    except (ValueError, KeyError, TypeError):
        log.warning("unreadable API token record, ignored")
        return None
