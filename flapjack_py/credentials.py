"""Passwords and API tokens: argon2 password hashes, random tokens kept only as their SHA-256.

A token has 256 random bits, so a fast hash is enough to keep it unreadable at
rest and lets a request's token be looked up directly; passwords are short and
guessable, so they get argon2 (argon2-cffi's defaults).
"""

from __future__ import annotations

import functools
import hashlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

TOKEN_PREFIX = "fjp_"
"""Start of every token `flapjack token create` makes (easy to spot in a leaked file)."""
MAX_PASSWORD = 1024
"""Longest password accepted, in characters (argon2 cost does not grow with it, but input has a size)."""
MIN_PASSWORD = 8
"""Shortest password `flapjack user add` / `user passwd` accept."""
MAX_NAME = 64
"""Longest user name, in characters."""

_HASHER = PasswordHasher()


def hash_password(password: str) -> str:
    """The argon2id hash (with its own salt and parameters) to store for `password`."""
    return _HASHER.hash(password)


def verify_password(stored_hash: str | None, password: str) -> bool:
    """True when `password` matches `stored_hash`; an unknown user (None) costs the same time and fails."""
    if len(password) > MAX_PASSWORD:
        return False
    try:
        return _HASHER.verify(stored_hash or _dummy_hash(), password) and stored_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def check_name(name: str) -> str:
    """`name` stripped; raises ValueError unless it is 1..MAX_NAME printable characters without spaces."""
    name = name.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable() or any(c.isspace() for c in name):
        raise ValueError(f"a user name is 1 to {MAX_NAME} printable characters without spaces")
    return name


def check_password(password: str) -> str:
    """`password` unchanged; raises ValueError unless it has MIN_PASSWORD..MAX_PASSWORD characters."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ValueError(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


@functools.cache
def _dummy_hash() -> str:
    """A hash to verify against for unknown users, made on first use (not at import: every CLI start imports us)."""
    return _HASHER.hash("flapjack-py: no such user")


def new_token() -> str:
    """A fresh API token: TOKEN_PREFIX and 43 URL-safe characters (256 random bits)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """SHA-256 hex of a token: what is stored and looked up."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def token_id(digest: str) -> str:
    """The short public id of a token (`token list`, `token revoke`): the start of its digest."""
    return digest[:12]


def new_secret_key() -> str:
    """A random key for signing session cookies and CSRF tokens."""
    return secrets.token_hex(32)
