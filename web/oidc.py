"""OpenID Connect single sign-on (web.oidc) with Authlib: the authorization code flow with PKCE.

`start` makes the provider's authorization URL and what the callback must find again (state, nonce, PKCE
verifier: kept in the signed session cookie); `finish` checks the state, exchanges the code, verifies the
ID token (signature against the provider's keys, issuer, audience, nonce, expiry) and maps the user's
groups to a role and teams (flapjack_py.model.sso). The provider's discovery document is read once an hour.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import threading
import time
from collections.abc import Mapping
from typing import Any

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt
from authlib.jose.errors import JoseError
from authlib.oidc.core import CodeIDToken

from flapjack_py.config.sso import OidcConfig
from flapjack_py.model.sso import Identity, Refused, identity

log = logging.getLogger(__name__)

DISCOVERY_TTL = 3600
_cache: dict[str, tuple[float, dict[str, Any]]] = {}
_lock = threading.Lock()


def start(config: OidcConfig, redirect_uri: str) -> tuple[str, dict[str, str]]:
    """The provider's authorization URL and what the callback needs (state, nonce, code verifier)."""
    pending = {"state": secrets.token_urlsafe(24), "nonce": secrets.token_urlsafe(24),
               "verifier": secrets.token_urlsafe(48)}
    url, _ = _session(config, redirect_uri).create_authorization_url(
        _discovery(config)["authorization_endpoint"], state=pending["state"], nonce=pending["nonce"],
        code_verifier=pending["verifier"])
    return url, pending


def finish(config: OidcConfig, redirect_uri: str, args: Mapping[str, str], pending: Mapping[str, str] | None
           ) -> Identity:
    """The Identity the provider vouches for on the callback `args`; raises Refused saying why not."""
    if args.get("error"):
        raise Refused(f"the provider answered {args.get('error', '')[:100]}")
    if not pending or not hmac.compare_digest(str(args.get("state", "")), pending.get("state", "")):
        raise Refused("the sign-in's state does not match: start again from the login page")
    document = _discovery(config)
    try:
        token = _session(config, redirect_uri).fetch_token(
            document["token_endpoint"], code=str(args.get("code", ""))[:2000], code_verifier=pending["verifier"],
            timeout=config.timeout)
        claims = _verified(config, document, token, pending["nonce"])
    except (JoseError, requests.RequestException, ValueError, KeyError) as exc:
        log.warning("OIDC sign-in refused: %s", type(exc).__name__)
        raise Refused(f"the provider's answer could not be verified ({type(exc).__name__})") from None
    name = claims.get(config.username_claim)
    if not isinstance(name, str) or not name:
        raise Refused(f"the ID token has no {config.username_claim}")
    groups = claims.get(config.groups_claim)
    if groups is None:
        groups = _userinfo(config, document, token).get(config.groups_claim)
    groups = [groups] if isinstance(groups, str) else groups if isinstance(groups, list) else []
    return identity(name[:64], [str(g) for g in groups], config.role_map, config.team_map, "oidc")


def _session(config: OidcConfig, redirect_uri: str) -> OAuth2Session:
    return OAuth2Session(config.client_id, config.client_secret, scope=config.scopes, redirect_uri=redirect_uri,
                         code_challenge_method="S256")


def _verified(config: OidcConfig, document: Mapping[str, Any], token: Mapping[str, Any], nonce: str
              ) -> Mapping[str, Any]:
    keys = requests.get(document["jwks_uri"], timeout=config.timeout).json()
    claims = jwt.decode(token["id_token"], JsonWebKey.import_key_set(keys), claims_cls=CodeIDToken,
                        claims_options={"iss": {"essential": True, "values": [config.issuer]}},
                        claims_params={"nonce": nonce, "client_id": config.client_id,
                                       "access_token": token.get("access_token")})
    claims.validate(leeway=60)
    return dict(claims)


def _userinfo(config: OidcConfig, document: Mapping[str, Any], token: Mapping[str, Any]) -> Mapping[str, Any]:
    endpoint = document.get("userinfo_endpoint")
    if not endpoint or not token.get("access_token"):
        return {}
    answer = requests.get(endpoint, headers={"Authorization": f"Bearer {token['access_token']}"},
                          timeout=config.timeout)
    found = answer.json() if answer.ok else {}
    return found if isinstance(found, dict) else {}


def _discovery(config: OidcConfig) -> dict[str, Any]:
    """The provider's discovery document (cached DISCOVERY_TTL seconds); raises Refused when unreachable."""
    with _lock:
        cached = _cache.get(config.issuer)
        if cached and time.monotonic() - cached[0] < DISCOVERY_TTL:
            return cached[1]
    try:
        answer = requests.get(f"{config.issuer}/.well-known/openid-configuration", timeout=config.timeout)
        answer.raise_for_status()
        document = answer.json()
        if document.get("issuer", "").rstrip("/") != config.issuer:
            raise ValueError("the discovery document names another issuer")
    except (requests.RequestException, ValueError) as exc:
        log.warning("OIDC discovery at %s failed: %s", config.issuer, exc)
        raise Refused("the sign-in provider cannot be reached") from None
    with _lock:
        _cache[config.issuer] = (time.monotonic(), document)
    return dict(document)
