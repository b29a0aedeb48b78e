"""Users vouched for by a directory or identity provider (LDAP now): made or updated locally at each login.

The local record keeps the role of that login and a password hash no password matches (`external-METHOD`;
no colon: the session id is NAME:HASH-END), so such users log in only through their source; their teams
follow team_map (flapjack_py.store.teams).
"""

from __future__ import annotations

import time

from flapjack_py.config.settings import WebConfig
from flapjack_py.model.sso import Identity, Refused
from flapjack_py.store import teams as team_store
from flapjack_py.store import users as user_store
from flapjack_py.store.plumbing.client import StrRedis

EXTERNAL = "external-"
"""Prefix of the password hash of users vouched for by an external source."""


def is_external(user: user_store.User | None) -> bool:
    """Whether `user` logs in through an external source (or does not exist yet)."""
    return user is None or user.password_hash.startswith(EXTERNAL)


def password_login(client: StrRedis, web: WebConfig, name: str, password: str) -> user_store.User:
    """The local user made or updated from the directory when it accepts `name` and `password` (web.ldap);
    raises Refused saying why not (no directory configured, wrong password, no mapped group)."""
    if web.ldap is None:
        raise Refused("unknown user or wrong password")
    from .ldap_auth import authenticate  # ldap3 is loaded only where a directory is configured

    return remember(client, authenticate(web.ldap, name, password), set(web.ldap.team_map.values()))


def remember(client: StrRedis, who: Identity, mapped_teams: set[str]) -> user_store.User:
    """Save `who` as a local user (role of this login) and set their membership of the mapped teams."""
    found = user_store.load_user(client, who.name)
    user = user_store.User(who.name, who.role, EXTERNAL + who.method, found.created if found else int(time.time()))
    user_store.save_user(client, user)
    team_store.set_membership(client, who.name, set(who.teams), mapped_teams)
    return user
