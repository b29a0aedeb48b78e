"""A contact, its media and what the notifier knows about one contact: the domain's types (pure); stored by
store/contacts.py and store/media.py."""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_INTERVAL = 900
"""Seconds between repeat alerts on a medium when none (or <= 0) is stored."""
MAX_INTERVAL = 366 * 86400
"""Longest repeat interval: longer ones are cut to this (Redis refuses huge expiries)."""


@dataclass(frozen=True)
class Medium:
    """One medium of a contact. `interval`/`rollup_threshold` are the stored values (None = unset)."""

    contact_id: str
    type: str
    address: str
    interval: int | None = None
    rollup_threshold: int | None = None

    @property
    def id(self) -> str:
        """API id `CONTACTID_TYPE`."""
        return f"{self.contact_id}_{self.type}"

    @property
    def effective_interval(self) -> int:
        """Seconds between repeat alerts: the stored interval (at most a year), or 900 when missing or <= 0."""
        if not self.interval or self.interval <= 0:
            return DEFAULT_INTERVAL
        return min(self.interval, MAX_INTERVAL)

    @property
    def effective_rollup_threshold(self) -> int | None:
        """The rollup threshold, None when missing, <= 0 or for pagerduty."""
        if self.type == "pagerduty" or not self.rollup_threshold or self.rollup_threshold <= 0:
            return None
        return self.rollup_threshold


@dataclass(frozen=True)
class Contact:
    """A contact's own fields; None when a field is unset."""

    id: str
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None
    timezone: str | None = None


@dataclass(frozen=True)
class ContactDetails:
    """Everything the notifier needs about one contact, loaded in one round trip."""

    contact: Contact
    media: dict[str, Medium] = field(default_factory=dict)  # hash order of contact_media:ID
    rule_ids: tuple[str, ...] = ()


