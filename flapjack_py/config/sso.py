"""Settings of the logins that are not local passwords: web.ldap (and the maps shared by single sign-on).

A directory user gets in when LDAP accepts their password (a bind as them) and they are in a group that
`role_map` maps; `team_map` makes them a member of teams (flapjack_py.model.sso, web/ldap_auth.py).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from flapjack_py.config.types import Bool, Section, Text

RoleName = Literal["viewer", "responder", "admin"]
GroupMap = Annotated[dict[Annotated[str, Field(min_length=1, max_length=500)], RoleName], Field(max_length=1000)]
TeamMap = Annotated[dict[Annotated[str, Field(min_length=1, max_length=500)],
                         Annotated[str, Field(min_length=1, max_length=100)]], Field(max_length=1000)]


def _ldap_url(url: str) -> str:
    if not url.startswith(("ldap://", "ldaps://")):
        raise ValueError("must start with ldap:// (StartTLS unless start_tls is false) or ldaps://")
    return url


def _placeholder(name: str) -> object:
    def check(value: str) -> str:
        if "{" + name + "}" not in value:
            raise ValueError(f"must contain {{{name}}}")
        return value
    return AfterValidator(check)


class LdapConfig(Section):
    """web.ldap: log users in against an LDAP directory."""

    url: Annotated[Text, AfterValidator(_ldap_url)]
    """ldap://HOST[:PORT] (upgraded with StartTLS) or ldaps://HOST[:PORT]."""
    start_tls: Bool = True
    """Upgrade ldap:// connections with StartTLS (false only for a directory on loopback)."""
    bind_dn: Text | None = None
    """The account that searches for users and groups (none: anonymous searches)."""
    bind_password: Text | None = None
    user_base: Text
    user_filter: Annotated[Text, _placeholder("username")] = "(uid={username})"
    group_base: Text | None = None
    """Where groups are searched (none: the user's groups are not read, so no role: nobody gets in)."""
    group_filter: Annotated[Text, _placeholder("dn")] = "(|(member={dn})(uniqueMember={dn}))"
    """{dn}: the user's DN; {username}: the name typed (for memberUid groups)."""
    role_map: GroupMap = Field(default_factory=dict)
    """Group (its cn or DN) -> viewer, responder or admin; the highest wins; no mapped group: refused."""
    team_map: TeamMap = Field(default_factory=dict)
    """Group (its cn or DN) -> team id: the user is made a member of the teams of their groups (and removed
    from the mapped teams of groups they left) at each login."""
    timeout: Annotated[int, Field(ge=1, le=60, strict=True)] = 5
    """Seconds to connect and for each answer."""


def _http_url(url: str) -> str:
    if not url.startswith(("https://", "http://")):
        raise ValueError("must be an https:// (http:// only for a provider on loopback) URL")
    return url.rstrip("/")


class OidcConfig(Section):
    """web.oidc: single sign-on with an OpenID Connect provider (authorization code flow with PKCE)."""

    issuer: Annotated[Text, AfterValidator(_http_url)]
    """The provider's issuer URL (its /.well-known/openid-configuration is read)."""
    client_id: Text
    client_secret: Text
    scopes: Text = "openid profile email"
    username_claim: Annotated[str, Field(min_length=1, max_length=100)] = "preferred_username"
    groups_claim: Annotated[str, Field(min_length=1, max_length=100)] = "groups"
    role_map: GroupMap = Field(default_factory=dict)
    """Group -> viewer, responder or admin; the highest wins; no mapped group: refused."""
    team_map: TeamMap = Field(default_factory=dict)
    """Group -> team id (membership set at each login)."""
    timeout: Annotated[int, Field(ge=1, le=60, strict=True)] = 10
    """Seconds for each request to the provider."""
