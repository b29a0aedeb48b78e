"""Who may do what: roles, their order, and what each role may see of contacts (pure).

Roles are cumulative: a responder may do what a viewer may, an admin what a
responder may. The web app's policy table (web/policy.py) names the role every
route needs; this module says what a role shows of addresses and credentials.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

MASK = "••••••"
"""What a hidden address or credential is shown as."""

SECRET_MEDIA = frozenset({"pagerduty"})
"""Media whose "address" is a credential (a PagerDuty routing key): shown to admins only."""


class Role(StrEnum):
    """What a user (or token) may do."""

    VIEWER = "viewer"
    """Read everything; contact addresses and credentials are masked."""
    RESPONDER = "responder"
    """Also acknowledge, schedule maintenance, test notifications, enable/disable checks."""
    ADMIN = "admin"
    """Also change contacts, media, notification rules, entities and users."""


_RANK = {Role.VIEWER: 1, Role.RESPONDER: 2, Role.ADMIN: 3}


@dataclass(frozen=True)
class Principal:
    """Who makes a request: a user name (or token id), its role, and how it was recognised."""

    name: str
    role: Role
    via: str
    """"session", "token", "config-token" or "open" (no user and no token exist)."""


def parse_role(text: str) -> Role:
    """The Role named `text`; raises ValueError naming the known roles."""
    try:
        return Role(text.strip().lower())
    except ValueError:
        raise ValueError(f"unknown role {text!r} (known: {', '.join(r.value for r in Role)})") from None


def allows(have: Role, need: Role) -> bool:
    """True when a `have` principal may do what needs `need`."""
    return _RANK[have] >= _RANK[need]


def sees_addresses(role: Role) -> bool:
    """Contact addresses (email, phone, JIDs, URLs) are shown to responders and admins."""
    return allows(role, Role.RESPONDER)


def sees_credentials(role: Role) -> bool:
    """Credentials (PagerDuty keys, tokens, passwords) are shown to admins only."""
    return allows(role, Role.ADMIN)


def shown_address(role: Role, medium: str, address: str) -> str:
    """`address` of a `medium` as `role` may see it: itself, or MASK (empty stays empty)."""
    if not address:
        return address
    visible = sees_credentials(role) if medium in SECRET_MEDIA else sees_addresses(role)
    return address if visible else MASK


def shown_credential(role: Role, value: str) -> str:
    """A credential as `role` may see it: itself for admins, MASK otherwise (empty stays empty)."""
    return value if not value or sees_credentials(role) else MASK


def shown_credential_url(role: Role, url: str) -> str:
    """A URL that may carry a credential (a private calendar feed: a token in its userinfo, path or query) as
    `role` may see it: itself for admins; otherwise only where it points, `scheme://host[:port]/` + MASK."""
    if not url or sees_credentials(role):
        return url
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return MASK
    if not parts.scheme or not host:
        return MASK
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}{f':{port}' if port else ''}/{MASK}"


FIRST_ADMIN_HINT = "flapjack user add NAME --role admin --password-stdin"
"""The command that creates the first admin (printed wherever the open mode is mentioned)."""


def exposure_problem(host: str, credentials_exist: bool, allow_anonymous: bool) -> str | None:
    """Why serving the web app on `host` is refused, or None: open to all (no user, no token) beyond loopback."""
    if credentials_exist or allow_anonymous or is_loopback(host):
        return None
    return (f"web.bind {host}: no web user or API token exists, so anyone reaching {host} could change "
            f"monitoring; create one ({FIRST_ADMIN_HINT}), bind 127.0.0.1, or set web.allow_anonymous: true")


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1); every other name or address is not."""
    host = host.strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
