"""A contact's media in Redis: per medium its address, repeat interval and rollup threshold
(contact_media:ID, contact_media_intervals:ID, contact_media_rollup_thresholds:ID), and the PagerDuty
medium's credentials (contact_pagerduty:ID) (seed 004 "Contacts"); the contact itself: store/contacts.py.

Every function takes a client (bytes or str replies; reads are decoded here) and writes take an optional
pipeline: with one, writes are queued on it for the caller to execute; without, they run at once in their
own MULTI.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import redis

from flapjack_py import keys
from flapjack_py.errors import ValidationError
from flapjack_py.model.contacts import Medium
from flapjack_py.store.plumbing.client import StrRedis, to_int, writing

PAGERDUTY_FIELDS = ("subdomain", "token", "username", "password")
"""Fields of contact_pagerduty:ID (the service key is the `pagerduty` medium's address)."""

_UNSET: Any = object()




# --- media ---------------------------------------------------------------


def load_media(client: StrRedis, contact_id: str, *, include_pagerduty: bool = True) -> dict[str, Medium]:
    """The contact's media keyed by type, in contact_media hash order."""
    p = client.pipeline(transaction=False)
    p.hgetall(keys.contact_media(contact_id))
    p.hgetall(keys.contact_media_intervals(contact_id))
    p.hgetall(keys.contact_media_rollup_thresholds(contact_id))
    media = media_from(contact_id, *p.execute())
    if not include_pagerduty:
        media.pop("pagerduty", None)
    return media


def load_medium(client: StrRedis, contact_id: str, medium: str) -> Medium | None:
    """One medium of a contact, or None when it has no address for it."""
    return load_media(client, contact_id).get(medium)


def set_medium(client: StrRedis, contact_id: str, medium: str, address: str, interval: int | None = None,
               rollup_threshold: int | None = None, *, pipe: redis.client.Pipeline | None = None) -> None:
    """Upsert a medium: set its address; set interval/rollup_threshold, or remove them when None."""
    with writing(client, pipe) as p:
        p.hset(keys.contact_media(contact_id), medium, str(address))
        _set_or_remove(p, keys.contact_media_intervals(contact_id), medium, interval)
        _set_or_remove(p, keys.contact_media_rollup_thresholds(contact_id), medium, rollup_threshold)


def update_medium(client: StrRedis, contact_id: str, medium: str, *, address: Any = _UNSET,
                  interval: Any = _UNSET, rollup_threshold: Any = _UNSET,
                  pipe: redis.client.Pipeline | None = None) -> None:
    """Change only the given fields of a medium (None for interval/rollup_threshold removes the setting)."""
    with writing(client, pipe) as p:
        if address is not _UNSET:
            p.hset(keys.contact_media(contact_id), medium, str(address))
        if interval is not _UNSET:
            _set_or_remove(p, keys.contact_media_intervals(contact_id), medium, interval)
        if rollup_threshold is not _UNSET:
            _set_or_remove(p, keys.contact_media_rollup_thresholds(contact_id), medium, rollup_threshold)


def delete_medium(client: StrRedis, contact_id: str, medium: str, *,
                  pipe: redis.client.Pipeline | None = None) -> None:
    """Remove a medium's address, interval and rollup threshold."""
    with writing(client, pipe) as p:
        p.hdel(keys.contact_media(contact_id), medium)
        p.hdel(keys.contact_media_intervals(contact_id), medium)
        p.hdel(keys.contact_media_rollup_thresholds(contact_id), medium)


def replace_media(client: StrRedis, contact_id: str, media: Mapping[str, Any], *,
                  pipe: redis.client.Pipeline | None = None) -> None:
    """Replace all media and PagerDuty credentials from the legacy `media` object of a contact.

    `{"email": {"address", "interval", "rollup_threshold"}, "pagerduty": {"service_key",
    "subdomain", "token", "username", "password"}}`; a bare string value is the address.
    """
    if not isinstance(media, Mapping):
        raise ValidationError("media must be an object")
    with writing(client, pipe) as p:
        p.delete(keys.contact_media(contact_id), keys.contact_media_intervals(contact_id),
                 keys.contact_media_rollup_thresholds(contact_id), keys.contact_pagerduty(contact_id))
        for medium, details in media.items():
            details = {"address": details} if isinstance(details, str) else dict(details or {})
            if medium == "pagerduty":
                set_pagerduty_credentials(client, contact_id, details, pipe=p)
            elif details.get("address") is not None:
                set_medium(client, contact_id, medium, details["address"], to_int(details.get("interval")),
                           to_int(details.get("rollup_threshold")), pipe=p)


def set_media(client: StrRedis, contact_id: str, media: Iterable[Medium | None]) -> None:
    """Upsert several media of a contact (as set_medium) in one MULTI; None entries are skipped."""
    with writing(client, None) as p:
        for medium in media:
            if medium is not None:
                set_medium(client, contact_id, medium.type, medium.address, medium.interval,
                           medium.rollup_threshold, pipe=p)


# --- PagerDuty credentials -----------------------------------------------


def load_pagerduty_credentials(client: StrRedis, contact_id: str) -> dict[str, str] | None:
    """`{service_key, subdomain, token, username, password}` ('' when unset), or None without a service key."""
    p = client.pipeline(transaction=False)
    p.hget(keys.contact_media(contact_id), "pagerduty")
    p.hgetall(keys.contact_pagerduty(contact_id))
    service_key, details = p.execute()
    if service_key is None:
        return None
    return {"service_key": service_key, **{name: details.get(name, "") for name in PAGERDUTY_FIELDS}}


def set_pagerduty_credentials(client: StrRedis, contact_id: str, credentials: Mapping[str, Any], *,
                              pipe: redis.client.Pipeline | None = None) -> None:
    """Create or overwrite a contact's credentials (missing fields stored as '')."""
    with writing(client, pipe) as p:
        p.hset(keys.contact_media(contact_id), "pagerduty", str(credentials.get("service_key") or ""))
        p.delete(keys.contact_pagerduty(contact_id))
        p.hset(keys.contact_pagerduty(contact_id),
               mapping={name: str(credentials.get(name) or "") for name in PAGERDUTY_FIELDS})


def update_pagerduty_credentials(client: StrRedis, contact_id: str, *,
                                 pipe: redis.client.Pipeline | None = None, **fields: Any) -> None:
    """Replace some of service_key/subdomain/token/username/password (creating empty credentials first)."""
    current = load_pagerduty_credentials(client, contact_id) or {}
    unknown = set(fields) - {"service_key", *PAGERDUTY_FIELDS}
    if unknown:
        raise ValidationError(f"unknown pagerduty credential fields: {', '.join(sorted(unknown))}")
    set_pagerduty_credentials(client, contact_id, {**current, **fields}, pipe=pipe)


def delete_pagerduty_credentials(client: StrRedis, contact_id: str, *,
                                 pipe: redis.client.Pipeline | None = None) -> None:
    """Remove the service key (pagerduty medium) and contact_pagerduty:ID."""
    with writing(client, pipe) as p:
        p.hdel(keys.contact_media(contact_id), "pagerduty")
        p.hdel(keys.contact_media_intervals(contact_id), "pagerduty")
        p.delete(keys.contact_pagerduty(contact_id))


# --- helpers -------------------------------------------------------------


def media_from(contact_id: str, media: Mapping[str, str], intervals: Mapping[str, str],
               thresholds: Mapping[str, str]) -> dict[str, Medium]:
    """Media keyed by type from the three hashes of a contact (address, interval, rollup threshold)."""
    return {name: Medium(contact_id=contact_id, type=name, address=address,
                         interval=to_int(intervals.get(name)), rollup_threshold=to_int(thresholds.get(name)))
            for name, address in media.items()}


def _set_or_remove(p: Any, key: str, name: str, value: Any) -> None:
    if value is None:
        p.hdel(key, name)
    else:
        number = to_int(value)
        if number is None:
            raise ValidationError(f"{name}: {value!r} is not an integer")
        p.hset(key, name, str(number))
