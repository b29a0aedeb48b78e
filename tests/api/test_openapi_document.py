"""GET /api/openapi.json (api-v1.md 14): a valid OpenAPI 3.1 document that describes every API route
the app serves, and only those; every operation documents its responses and error bodies.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
from flask import Flask
from openapi_spec_validator import validate

from web import create_app

JSONAPI = "application/vnd.api+json; charset=UTF-8"
UNDOCUMENTED = {"/openapi.json"}  # the document itself; OPTIONS is the CORS catch-all


@pytest.fixture(scope="module")
def app() -> Flask:
    return create_app(redis=fakeredis.FakeRedis())


@pytest.fixture(scope="module")
def document(app: Flask) -> dict[str, Any]:
    response = app.test_client().get("/api/openapi.json")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == JSONAPI
    return response.get_json(force=True)


def routes(app: Flask) -> Iterator[tuple[str, str]]:
    """(method, OpenAPI path template) of every API route, `any(...)` converters expanded."""
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith("api.") or not rule.rule.startswith("/api"):
            continue
        parts = re.split(r"(<[^>]+>)", rule.rule[len("/api"):])
        choices = [_choices(part) for part in parts]
        for combination in itertools.product(*choices):
            template = "".join(combination).rstrip("/") or "/"
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                yield method.lower(), template


def _choices(part: str) -> list[str]:
    """A literal, the options of an `any(a,b)` converter, or `{name}` for another converter."""
    match = re.fullmatch(r"<(?:(\w+)(?:\(([^)]*)\))?:)?(\w+)>", part)
    if not match:
        return [part]
    converter, args, name = match.groups()
    if converter == "any":
        return [option.strip().strip("'\"") for option in args.split(",")]
    return ["{" + name + "}"]


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_every_route_is_documented(app: Flask, document: dict[str, Any]) -> None:
    served = {(m, p) for m, p in routes(app) if p not in UNDOCUMENTED}
    documented = {(m, p) for p, item in document["paths"].items() for m in item if m in
                  ("get", "post", "put", "patch", "delete")}
    assert served - documented == set(), "served but not documented"
    assert documented - served == set(), "documented but not served"


V1_INDEX = """
get /contacts, post /contacts, patch /contacts, delete /contacts, post /contacts/{contact_id}/media,
get /media, patch /media, delete /media, post /contacts/{contact_id}/pagerduty_credentials,
get /pagerduty_credentials, patch /pagerduty_credentials, delete /pagerduty_credentials,
post /contacts/{contact_id}/notification_rules, get /notification_rules, patch /notification_rules,
delete /notification_rules, get /entities, post /entities, patch /entities, get /checks, post /checks, patch /checks,
post /scheduled_maintenances/entities, delete /scheduled_maintenances/entities,
post /unscheduled_maintenances/entities, patch /unscheduled_maintenances/entities, post /test_notifications/entities,
post /scheduled_maintenances/checks, delete /scheduled_maintenances/checks, post /unscheduled_maintenances/checks,
patch /unscheduled_maintenances/checks, post /test_notifications/checks,
get /status_report/entities, get /status_report/checks, get /scheduled_maintenance_report/entities,
get /scheduled_maintenance_report/checks, get /unscheduled_maintenance_report/entities,
get /unscheduled_maintenance_report/checks, get /outage_report/entities, get /outage_report/checks,
get /downtime_report/entities, get /downtime_report/checks,
get /metrics, get /metrics/check_freshness, get /metrics/entities, get /metrics/checks, get /metrics/events"""
"""api-v1.md 3: the 47 resource endpoints, `[/{ids}]` folded into the collection path."""


def test_all_47_v1_endpoints_and_the_additions_are_documented(document: dict[str, Any]) -> None:
    expected = {tuple(item.split()) for item in V1_INDEX.replace("\n", " ").split(",")}
    assert len(expected) == 47
    documented = {(m, re.sub(r"/{ids}$", "", p)) for p, item in document["paths"].items() for m in item
                  if m in ("get", "post", "patch", "delete")}
    additions = {("get", "/alerts"), ("get", "/contacts/{contact_id}/alerts"), ("post", "/receivers/alertmanager")}
    additions |= {("post", "/receivers/grafana"), ("post", "/receivers/webhook/{name}")}
    additions |= {(m, "/maintenance_series") for m in ("get", "post", "patch", "delete")}
    additions |= {("get", "/maintenances.ics")}
    additions |= {(m, "/schedules") for m in ("get", "post", "patch", "delete")}
    additions |= {("get", f"/schedules/{{schedule_id}}{tail}") for tail in ("/oncall", "/shifts", ".ics")}
    additions |= {("get", "/contacts/{contact_id}/oncall.ics")}
    additions |= {("get", "/health")}
    additions |= {("get", "/checks/{check_id}/decisions"), ("get", "/stale_checks"),
                  ("get", "/flapping_checks")}
    additions |= {(m, "/escalation_policies") for m in ("get", "post", "patch", "delete")}
    additions |= {(m, "/dependencies") for m in ("get", "post", "delete")}
    additions |= {("get", "/incidents"), ("get", "/incidents/{incident_id}"), ("get", "/incidents/{incident_id}/timeline"),
                  ("get", "/incidents/{incident_id}/postmortem.md"), ("post", "/incidents/{incident_id}/acknowledge"),
                  ("post", "/incidents/{incident_id}/notes")}
    additions |= {("get", "/audit")}
    additions |= {(m, "/teams") for m in ("get", "post", "patch", "delete")}
    additions |= {("post", "/receivers/sms/twilio"), ("get", "/receivers/sms/kannel"),
                  ("post", "/receivers/voice/twilio"), ("post", "/receivers/voice/twilio/status")}
    additions |= {("get", f"/analytics/{name}") for name in ("summary", "checks", "people", "suggestions")}
    additions |= {("post", "/receivers/slack/interactions"), ("post", "/receivers/mattermost/actions")}
    assert documented == expected | additions


def test_every_operation_documents_success_and_errors(document: dict[str, Any]) -> None:
    responses = document["components"]["responses"]
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "post", "patch", "delete"):
                continue
            codes = set(operation["responses"])
            assert any(c.startswith("2") for c in codes), (method, path)
            assert "401" in codes, (method, path)  # the optional token
            for code, response in operation["responses"].items():
                if code.startswith(("4", "5")) and (path, code) != ("/health", "503"):  # 503 is a health answer
                    target = responses[response["$ref"].rsplit("/", 1)[1]] if "$ref" in response else response
                    schema = target["content"]["application/vnd.api+json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Errors"}, (method, path, code)


def test_bodies_are_described(document: dict[str, Any]) -> None:
    for path, item in document["paths"].items():
        for method in ("post", "patch"):
            operation = item.get(method)
            if operation is None:
                continue
            assert "requestBody" in operation, (method, path)
            content = operation["requestBody"]["content"]
            if method == "patch":
                assert list(content) == ["application/json-patch+json"], path


def test_the_bearer_scheme_is_declared(document: dict[str, Any]) -> None:
    assert document["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
