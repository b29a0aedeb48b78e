"""Grafana unified alerting webhook payloads (version 1) -> Flapjack events. Pure.

Grafana's webhook contact point sends an Alertmanager-shaped payload (`alerts`, each with
`status`, `labels`, `annotations`, `startsAt`, `endsAt`) plus `orgId`, `state`, `title` and
`message`, and per alert `values`, `dashboardURL`, `panelURL` and `silenceURL`. One event per
alert, mapped as an Alertmanager alert is (flapjack_py/intake/alertmanager.py, with the label
names of config `receivers.grafana`): entity from `entity` or `instance` without its port, check
from `alertname` (`JOB/` first when there is a `job` label), state `ok` when resolved, else the
`severity` label's. Then:

* Grafana's own alert for a rule that got no data or whose query failed (`alertname`
  `DatasourceNoData` or `DatasourceError`, the rule's title in `rulename`) is the rule's check in
  state `unknown` (summary, when the rule has none: `DatasourceNoData for rule RULE`);
* details gain the alert's `values` (`B=44.2394, C=1`) and its dashboard and panel links.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flapjack_py.intake.alertmanager import DEFAULT_MAPPING, LabelMapping, alert_list
from flapjack_py.intake.alertmanager import event_from_alert as alertmanager_event

NO_RESULT = ("DatasourceNoData", "DatasourceError")
"""The alert names Grafana gives a rule's no-data and query-error alerts."""
MAX_VALUES = 20
"""Most of an alert's `values` listed in its details."""
LINKS = (("dashboardURL", "dashboard"), ("panelURL", "panel"))


def events_from_payload(payload: Any, mapping: LabelMapping = DEFAULT_MAPPING, now: int = 0) -> list[dict[str, Any]]:
    """Every alert of a Grafana webhook payload as an event; InvalidEvent when the payload is not one."""
    return [event_from_alert(alert, mapping, now) for alert in alert_list(payload, "Grafana", "1")]


def event_from_alert(alert: Any, mapping: LabelMapping = DEFAULT_MAPPING, now: int = 0) -> dict[str, Any]:
    """One Grafana alert as a Flapjack service event."""
    event = alertmanager_event(_as_rule_alert(alert, mapping), mapping, now)
    extra = _extra_details(alert)
    if extra:
        event["details"] = "\n".join([event["details"], *extra] if "details" in event else extra)
    return event


def _as_rule_alert(alert: Any, mapping: LabelMapping) -> Any:
    """A no-data or query-error alert as its rule's alert in state unknown; any other alert as it is."""
    if not isinstance(alert, Mapping) or not isinstance(alert.get("labels"), Mapping):
        return alert
    labels = alert["labels"]
    name, rule = labels.get(mapping.check_label), labels.get("rulename")
    if name not in NO_RESULT or not rule:
        return alert
    relabelled = {**{k: v for k, v in labels.items() if k != "rulename"},
                  mapping.check_label: rule, mapping.severity_label: "unknown"}
    annotations = alert.get("annotations")
    annotations = dict(annotations) if isinstance(annotations, Mapping) else {}
    if not annotations.get("summary") and not annotations.get("description"):
        annotations["summary"] = f"{name} for rule {rule}"
    return {**alert, "labels": relabelled, "annotations": annotations}


def _extra_details(alert: Any) -> list[str]:
    """Lines for the alert's values and its dashboard and panel links."""
    if not isinstance(alert, Mapping):
        return []
    lines = []
    values = alert.get("values")
    if isinstance(values, Mapping) and values:
        shown = [f"{key}={_number(value)}" for key, value in list(values.items())[:MAX_VALUES]]
        more = ", ..." if len(values) > MAX_VALUES else ""
        lines.append(f"values: {', '.join(shown)}{more}")
    for field, name in LINKS:
        link = alert.get(field)
        if isinstance(link, str) and link:
            lines.append(f"{name}: {link}")
    return lines


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
