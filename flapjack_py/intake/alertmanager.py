"""Prometheus Alertmanager webhook payloads (version 4) -> Flapjack events. Pure.

One event per alert in the payload:

* entity: the first of `entity_labels` present (default `entity`, then `instance`
  with its `:port` and IPv6 brackets stripped), else `prometheus`; then every ':'
  and control character becomes '-' (flapjack_py.model.names.fitted_entity_name), as an
  entity name cannot hold them: `[2001:db8::7]:9100` -> `2001-db8--7`, `web:01` -> `web-01`;
* check: the `check_label` (default `alertname`), prefixed by `JOB/` when the
  `job` label is set (`node/HighLoad`); control characters become '-';
* state: `resolved` -> `ok`; `firing` -> the `severity_label` (default
  `severity`) when it is `critical`, `warning` or `unknown`, else `critical`;
* summary: annotation `summary`, else `description`, else the check name;
  details: annotation `description` (when the summary came from `summary`) and
  `runbook_url`;
* time: `startsAt` (firing) or `endsAt` (resolved), as epoch seconds;
* tags: every other label as `name:value`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flapjack_py.errors import InvalidEvent
from flapjack_py.model.names import fitted_check_name, fitted_entity_name

SEVERITIES = ("critical", "warning", "unknown")
_PORT = re.compile(r"^(?P<host>\[[^\]]+\]|[^:]+):\d+$")


@dataclass(frozen=True)
class LabelMapping:
    """Which labels give the entity, check and state."""

    entity_labels: tuple[str, ...] = ("entity", "instance")
    check_label: str = "alertname"
    job_label: str = "job"
    severity_label: str = "severity"
    default_entity: str = "prometheus"


DEFAULT_MAPPING = LabelMapping()


def events_from_payload(payload: Any, mapping: LabelMapping = DEFAULT_MAPPING, now: int = 0) -> list[dict[str, Any]]:
    """Every alert of a webhook payload as an event; InvalidEvent when the payload is not one."""
    return [event_from_alert(alert, mapping, now) for alert in alert_list(payload, "Alertmanager", "4")]


def alert_list(payload: Any, sender: str, version: str) -> list[Any]:
    """The `alerts` of an Alertmanager-shaped payload of `version` (the version a payload without one
    is taken to be); InvalidEvent naming `sender` when the payload is not one."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("alerts"), list):
        raise InvalidEvent([f"not a webhook payload of {sender}: no `alerts` list"])
    found = str(payload.get("version", version))
    if found != version:
        raise InvalidEvent([f"unsupported {sender} webhook version {found!r} ({version} is understood)"])
    return list(payload["alerts"])


def event_from_alert(alert: Any, mapping: LabelMapping = DEFAULT_MAPPING, now: int = 0) -> dict[str, Any]:
    """One Alertmanager alert as a Flapjack service event."""
    if not isinstance(alert, Mapping) or not isinstance(alert.get("labels", {}), Mapping):
        raise InvalidEvent(["an alert is not an object with `labels`"])
    labels = {str(k): str(v) for k, v in alert.get("labels", {}).items()}
    annotations = {str(k): str(v) for k, v in (alert.get("annotations") or {}).items()}
    check = labels.get(mapping.check_label)
    if not check:
        raise InvalidEvent([f"an alert has no `{mapping.check_label}` label"])
    if labels.get(mapping.job_label):
        check = f"{labels[mapping.job_label]}/{check}"
    resolved = alert.get("status") == "resolved"
    summary = annotations.get("summary") or annotations.get("description") or check
    details = [annotations["description"]] if annotations.get("summary") and annotations.get("description") else []
    if annotations.get("runbook_url"):
        details.append(f"runbook: {annotations['runbook_url']}")
    used = {*mapping.entity_labels, mapping.check_label, mapping.job_label, mapping.severity_label}
    event: dict[str, Any] = {
        "type": "service", "entity": fitted_entity_name(_entity(labels, mapping)), "check": fitted_check_name(check),
        "state": "ok" if resolved else _state(labels.get(mapping.severity_label, "")),
        "summary": summary, "time": _epoch(alert.get("endsAt" if resolved else "startsAt"), now),
        "tags": sorted(f"{k}:{v}" for k, v in labels.items() if k not in used),
    }
    if details:
        event["details"] = "\n".join(details)
    return event


def _entity(labels: Mapping[str, str], mapping: LabelMapping) -> str:
    """The entity label's value as it stands (an `instance` without its port and brackets)."""
    for name in mapping.entity_labels:
        value = labels.get(name)
        if value:
            return _host(value) if name == "instance" else value
    return mapping.default_entity


def _host(instance: str) -> str:
    """`host:port` -> `host`; `[::1]:9100` and `[::1]` -> `::1`."""
    match = _PORT.match(instance)
    host = match.group("host") if match else instance
    return host[1:-1] if len(host) > 2 and host.startswith("[") and host.endswith("]") else host


def _state(severity: str) -> str:
    severity = severity.lower()
    return severity if severity in SEVERITIES else "critical"


def _epoch(stamp: Any, now: int) -> int:
    """RFC 3339 time (Alertmanager sends nanoseconds and `0001-01-01T00:00:00Z` for "unset") -> epoch s."""
    if not isinstance(stamp, str) or stamp.startswith("0001-"):
        return now
    text = re.sub(r"(\.\d{6})\d+", r"\1", stamp.replace("Z", "+00:00"))
    try:
        return int(datetime.fromisoformat(text).timestamp())
    except ValueError:
        return now
