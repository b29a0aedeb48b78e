"""PagerDuty gateway: Events API v2 (or v1 generic) delivery and ack sync over REST v2 (engine.md 6.4).

Settings `gateways.pagerduty`: `events_api` [v2] (`v1` = generic endpoint),
`events_url` [https://events.pagerduty.com], `api_url` [https://api.pagerduty.com],
`ack_poll_interval` [10] seconds (0 = no ack sync), `timeout` [10].
The address of the medium is the service (routing) key.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from flapjack_py import actions, keys
from flapjack_py.config.gateways import Concurrency, GatewaySettings
from flapjack_py.config.types import Text, Wait
from flapjack_py.model.actors import MAX_ACTOR_LENGTH, Actor
from flapjack_py.model.alert import Alert
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance as maint
from flapjack_py.store import media as media_store
from flapjack_py.store.plumbing import locks
from flapjack_py.store.plumbing.client import StrRedis

from .base import Declaration, Gateway, GatewayError

log = logging.getLogger(__name__)

EVENTS_URL = "https://events.pagerduty.com"
API_URL = "https://api.pagerduty.com"
V1_PATH = "/generic/2010-04-15/create_event.json"
V2_PATH = "/v2/enqueue"
EVENTS_QUEUE = "events"
"""Where ack sync queues its acknowledgements (as Flapjack's pagerduty gateway did)."""
ACTIONS = {"problem": "trigger", "test": "trigger", "acknowledgement": "acknowledge", "recovery": "resolve"}
SEVERITIES = {"critical": "critical", "warning": "warning", "unknown": "error"}
ACK_DURATION = 14400
SEMAPHORE_TTL = 3600
LOOKBACK, LOOKAHEAD = 7 * 86400, 86400


class PagerDutySettings(GatewaySettings):
    """`gateways.pagerduty`."""

    events_api: Literal["v1", "v2"] = "v2"
    events_url: Text = EVENTS_URL
    api_url: Text = API_URL
    ack_poll_interval: Wait = 10.0
    concurrency: Concurrency = 4
    """Keep-alive connections each worker posts over at once (GatewaySettings.concurrency): PagerDuty takes an
    event sent twice as one (one dedup_key per check)."""


class PagerDutyGateway(Gateway):
    """Triggers, acknowledges and resolves incidents keyed `ENTITY:CHECK`; polls acks back."""

    medium = "pagerduty"
    server = "PagerDuty"
    idempotent = True  # an event's dedup_key is its check: sent twice, it is one incident

    @property
    def poll_interval(self) -> float:
        """Seconds between ack polls (0 = off)."""
        return float(self.settings.get("ack_poll_interval", 10))

    def send(self, alert: Alert) -> None:
        """POST the alert as a v2 (default) or v1 event."""
        base = str(self.settings.get("events_url", EVENTS_URL)).rstrip("/")
        if str(self.settings.get("events_api", "v2")) == "v1":
            self.post(base + V1_PATH, json=v1_event(alert), ok=range(200, 201))
        else:
            self.post(base + V2_PATH, json=v2_event(alert), ok=range(200, 203))

    def poll(self, client: StrRedis) -> int:
        """One round of ack sync (engine.md 6.4, REST v2); return how many ack events were queued."""
        return sync_acks(self, client, int(time.time()))

    def acknowledger(self, check_id: str, credentials: Mapping[str, str], now: int) -> str | None:
        """'' or the acknowledger's name when PagerDuty has the check's incident acknowledged, else None."""
        params = {"incident_key": check_id, "statuses[]": "acknowledged",
                  "since": _iso(now - LOOKBACK), "until": _iso(now + LOOKAHEAD)}
        headers = {"Accept": "application/vnd.pagerduty+json;version=2"}
        auth = None
        if credentials.get("token"):
            headers["Authorization"] = f"Token token={credentials['token']}"
        else:
            auth = (credentials.get("username", ""), credentials.get("password", ""))
        url = str(self.settings.get("api_url", API_URL)).rstrip("/") + "/incidents"
        incidents = self.get(url, params=params, headers=headers, auth=auth).json().get("incidents") or []
        if not incidents:
            return None
        return _acknowledger_name(incidents[0])


def v2_event(alert: Alert) -> dict[str, Any]:
    """The Events API v2 body of an alert."""
    entity, _, check = alert["check"].partition(":")
    state = alert["state"] or ""
    return {
        "routing_key": alert["address"], "dedup_key": alert["check"],
        "event_action": ACTIONS.get(alert["type"], "trigger"), "client": "Flapjack",
        "payload": {"summary": (alert.get("body") or "")[:1024], "source": entity, "component": check,
                    "severity": SEVERITIES.get(state, "info"),
                    "custom_details": {"HOSTNAME": entity, "SERVICE": check, "state": state,
                                       "summary": alert.get("summary") or "", "details": alert.get("details") or ""}},
    }


def v1_event(alert: Alert) -> dict[str, Any]:
    """The v1 generic-endpoint body of an alert."""
    entity, _, check = alert["check"].partition(":")
    return {"service_key": alert["address"], "incident_key": alert["check"],
            "event_type": ACTIONS.get(alert["type"], "trigger"),
            "description": alert.get("body") or "", "details": {"HOSTNAME": entity, "SERVICE": check}}


def sync_acks(gateway: PagerDutyGateway, client: StrRedis, now: int) -> int:
    """Queue an ack event for every failing check acknowledged on PagerDuty; one poll at a time (a Redis lock)."""
    with locks.held(client, keys.pagerduty_acks_running(), SEMAPHORE_TTL) as mine:
        if not mine:
            log.info("pagerduty: ack poll already running, round skipped")
            return 0
        return sum(_sync_check(gateway, client, check_id, now) for check_id in check_store.failed_check_ids(client))


def _sync_check(gateway: PagerDutyGateway, client: StrRedis, check_id: str, now: int) -> int:
    entity, check = keys.split_check_id(check_id)
    if maint.in_force(client, entity, check, maint.UNSCHEDULED) is not None:
        return 0
    credentials = _credentials(client, entity, check)
    if credentials is None:
        return 0
    try:
        name = gateway.acknowledger(check_id, credentials, now)
    except GatewayError as exc:
        log.warning("pagerduty: ack poll for %s failed: %s", check_id, exc)
        return 0
    if name is None or maint.in_force(client, entity, check, maint.UNSCHEDULED) is not None:
        return 0
    summary = "Acknowledged on PagerDuty" + (f" by {name}" if name else "")
    actor = Actor(f"pagerduty:{name}"[:MAX_ACTOR_LENGTH] if name else "pagerduty", "pagerduty")
    actions.acknowledge(client, EVENTS_QUEUE, [(entity, check)], duration=ACK_DURATION, message=summary,
                        actor=actor, now=now)
    log.info("pagerduty: %s acknowledged on PagerDuty; ack event queued", check_id)
    return 1


def _credentials(client: StrRedis, entity: str, check: str) -> dict[str, str] | None:
    """The first contact's (engine.md 5.1 order) usable PagerDuty credentials, or None."""
    for contact_id in entity_store.contact_ids_for_check(client, entity, check):
        creds = media_store.load_pagerduty_credentials(client, contact_id)
        if creds and creds.get("subdomain") and (creds.get("token") or creds.get("username")):
            return creds
    return None


def _acknowledger_name(incident: Mapping[str, Any]) -> str:
    by = incident.get("last_status_change_by") or {}
    name = by.get("summary") or by.get("name")
    if not name:
        acks = incident.get("acknowledgements") or []
        name = ((acks[-1].get("acknowledger") or {}).get("summary")) if acks else None
    return str(name or "")


def _iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


GATEWAY = Declaration.of(PagerDutyGateway, PagerDutySettings)
"""The pagerduty medium (registered in pyproject.toml's `flapjack_py.gateways` entry points)."""
