"""`flapjack user ...` and `flapjack token ...`: web users (with roles) and API tokens.

Once any user or token exists, the web app asks for one on every route
(web/auth.py). Passwords come from stdin (`--password-stdin`) or a prompt, never
from the command line, where other users could read them.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable

import click

from flapjack_py import credentials
from flapjack_py.access import Role, parse_role
from flapjack_py.actions import cli_actor
from flapjack_py.config.settings import Config
from flapjack_py.runtime.session import redis_client
from flapjack_py.store import audit
from flapjack_py.store import users as store
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

ROLES = [r.value for r in Role]


@click.group()
def user() -> None:
    """Web users: add, list, change a password, delete."""


@user.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), required=True, help="viewer, responder or admin.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input (first line).")
@click.pass_obj
def add_user(config: Config, name: str, role: str, password_stdin: bool) -> None:
    """Add user NAME with a role (replaces an existing NAME's role and password)."""
    name = _valid(credentials.check_name, name)
    password = _valid(credentials.check_password, read_password(password_stdin))
    with redis_client(config) as client:
        store.save_user(client, store.User(name, parse_role(role), credentials.hash_password(password),
                                           int(time.time())))
        _audit(client, "add_user", "user", name, role)
    log.info("web user %s saved with role %s", name, role)
    click.echo(f"user {name} ({role}) saved")


@user.command("list")
@click.pass_obj
def list_users(config: Config) -> None:
    """Every user and their role."""
    with redis_client(config) as client:
        for found in store.list_users(client):
            click.echo(f"{found.name}\t{found.role.value}")


@user.command("passwd")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input (first line).")
@click.pass_obj
def passwd(config: Config, name: str, password_stdin: bool) -> None:
    """Change NAME's password (their open UI sessions end)."""
    password = _valid(credentials.check_password, read_password(password_stdin))
    with redis_client(config) as client:
        found = store.load_user(client, name)
        if found is None:
            raise click.ClickException(f"no user {name!r}")
        store.save_user(client, store.User(found.name, found.role, credentials.hash_password(password),
                                           found.created))
        _audit(client, "change_password", "user", name)
    log.info("web user %s: password changed", name)
    click.echo(f"password of {name} changed")


@user.command("delete")
@click.argument("name")
@click.pass_obj
def delete_user(config: Config, name: str) -> None:
    """Delete NAME and every API token acting as them."""
    with redis_client(config) as client:
        if not store.remove_user(client, name):
            raise click.ClickException(f"no user {name!r}")
        _audit(client, "delete_user", "user", name)
    log.info("web user %s deleted", name)
    click.echo(f"user {name} deleted")


@click.group()
def token() -> None:
    """API tokens: create (acting as a user, with their role), list, revoke."""


@token.command("create")
@click.argument("name")
@click.pass_obj
def create_token(config: Config, name: str) -> None:
    """Print a new API token acting as user NAME (shown once: it is stored only hashed)."""
    with redis_client(config) as client:
        if store.load_user(client, name) is None:
            raise click.ClickException(f"no user {name!r} (add one with `flapjack user add`)")
        secret = credentials.new_token()
        digest = credentials.token_digest(secret)
        found = store.Token(credentials.token_id(digest), name, int(time.time()))
        store.add_token(client, digest, found)
        _audit(client, "create_token", "token", found.id, f"for {name}")
    log.info("API token %s created for %s", found.id, name)
    click.echo(f"token {found.id} for {name} (send it as 'Authorization: Bearer TOKEN'; it is shown only now):")
    click.echo(secret)


@token.command("list")
@click.pass_obj
def list_tokens(config: Config) -> None:
    """Every token's id, user and creation time (never the token)."""
    with redis_client(config) as client:
        for found in store.list_tokens(client):
            created = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(found.created))
            click.echo(f"{found.id}\t{found.user}\t{created} UTC")


@token.command("revoke")
@click.argument("token_id")
@click.pass_obj
def revoke_token(config: Config, token_id: str) -> None:
    """Revoke the token with id TOKEN_ID (see `token list`); it stops working at once."""
    with redis_client(config) as client:
        if not store.remove_token(client, token_id):
            raise click.ClickException(f"no token {token_id!r}")
        _audit(client, "revoke_token", "token", token_id)
    log.info("API token %s revoked", token_id)
    click.echo(f"token {token_id} revoked")


def read_password(from_stdin: bool) -> str:
    """The password: the first line of stdin, or a hidden, confirmed prompt on a terminal."""
    if from_stdin or not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    return str(click.prompt("Password", hide_input=True, confirmation_prompt=True))


def _audit(client: StrRedis, action: str, kind: str, name: str, detail: str = "") -> None:
    audit.record_all(client, [audit.entry(cli_actor(), action, kind, name, int(time.time()), detail=detail)])


def _valid(check: Callable[[str], str], value: str) -> str:
    try:
        return check(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
