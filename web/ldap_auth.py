"""Checking a password against an LDAP directory (web.ldap, flapjack_py.config.sso), with ldap3.

The service account (bind_dn, or anonymous) finds the user's DN with user_filter under user_base; the
password is checked by binding as that DN; the user's groups (group_filter under group_base) give their role
and teams (flapjack_py.model.sso). An empty password is refused before anything is sent (an LDAP bind with
an empty password is an anonymous bind, which many servers accept).
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import ldap3
from ldap3.core.exceptions import LDAPException
from ldap3.utils.conv import escape_filter_chars

from flapjack_py.config.sso import LdapConfig
from flapjack_py.model.sso import Identity, Refused, identity

log = logging.getLogger(__name__)


def authenticate(config: LdapConfig, name: str, password: str) -> Identity:
    """The Identity of `name` when the directory accepts `password`; raises Refused saying why not."""
    if not name or not password:
        raise Refused("a user name and a password are needed")
    try:
        service = _connection(config, config.bind_dn, config.bind_password)
        try:
            dn = _user_dn(service, config, name)
            _connection(config, dn, password).unbind()  # the password check: a bind as the user
            groups = _groups(service, config, dn, name)
        finally:
            service.unbind()
    except LDAPException as exc:
        log.warning("LDAP login of %r failed: %s", name, type(exc).__name__)
        raise Refused(f"the directory refused {name}") from None
    return identity(name, groups, config.role_map, config.team_map, "ldap")


def _server(config: LdapConfig) -> ldap3.Server:
    parts = urlsplit(config.url)
    secure = parts.scheme == "ldaps"
    return ldap3.Server(parts.hostname or "localhost", port=parts.port or (636 if secure else 389), use_ssl=secure,
                        connect_timeout=config.timeout, get_info=ldap3.NONE)


def _connection(config: LdapConfig, user: str | None, password: str | None) -> ldap3.Connection:
    """A bound connection (raises LDAPException when the bind fails)."""
    connection = ldap3.Connection(_server(config), user=user, password=password, receive_timeout=config.timeout,
                                  raise_exceptions=True, auto_bind=ldap3.AUTO_BIND_NONE)
    try:
        connection.open()
        if config.start_tls and config.url.startswith("ldap://"):
            connection.start_tls()
        connection.bind()
    except LDAPException:
        connection.unbind()
        raise
    return connection


def _user_dn(service: ldap3.Connection, config: LdapConfig, name: str) -> str:
    query = config.user_filter.replace("{username}", escape_filter_chars(name))
    service.search(config.user_base, query, attributes=[], size_limit=2)
    found = [entry["dn"] for entry in service.response or [] if entry.get("type") == "searchResEntry"]
    if len(found) != 1:
        raise Refused(f"{name}: {'no' if not found else 'more than one'} directory entry")
    return str(found[0])


def _groups(service: ldap3.Connection, config: LdapConfig, dn: str, name: str) -> list[str]:
    """The cn and the DN of every group of the user."""
    if not config.group_base:
        return []
    query = config.group_filter.replace("{dn}", escape_filter_chars(dn)).replace(
        "{username}", escape_filter_chars(name))
    service.search(config.group_base, query, attributes=["cn"], size_limit=1000)
    names: list[str] = []
    for entry in service.response or []:
        if entry.get("type") != "searchResEntry":
            continue
        names.append(str(entry["dn"]))
        names += [str(cn) for cn in entry.get("attributes", {}).get("cn", [])]
    return names
