"""End to end (issue 33.1): dependencies made through the API, an outage through the real executive, and the emails
a real SMTP server (aiosmtpd) receives. A switch fails and the 10 web checks behind it fail: nobody is mailed about
them, their traces say `inhibited`; the switch recovers while 2 still fail: those 2 are mailed at once; a web check
mailed before the outage recovers during it: both people mailed hear of it. A cycle is refused with 422."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
import redis

from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.store import decisions as decision_store
from flapjack_py.store.events import push_event
from web import create_app

from .conftest import SmtpServer

pytestmark = pytest.mark.real
SWITCH, WEB = "switch-3", "web"
CHILDREN = [f"APP{i}" for i in range(10)]
PEOPLE = ("ann", "bob")


def post(api: Any, path: str, body: Any) -> Any:
    return api.post(path, data=json.dumps(body), content_type="application/vnd.api+json")


def mail(smtp_server: SmtpServer, since: int) -> Counter[tuple[str, str]]:
    """(recipient, subject) of each message received after the first `since`, counted."""
    return Counter((str(m["To"]).split("@")[0], str(m["Subject"])) for m in smtp_server.messages[since:])


def test_an_outage_behind_a_switch_mails_only_about_the_switch(redis_server: Any, real_r: redis.Redis,
                                                               smtp_server: SmtpServer, burst: Any, clock: Any) -> None:
    config = load_config({"redis": {"url": redis_server.url},
                          "executive": {"new_check_scheduled_maintenance_duration": 0, "initial_failure_delay": 0},
                          "incidents": {"group_by": "none"},  # dependencies alone: incidents would fold the released
                          "gateways": {"email": {"enabled": True, "retries": 0, "burst_wait": 5, "smtp_config": {
                              "host": "127.0.0.1", "port": smtp_server.port, "from": "fj@example.net"}}}})
    api = create_app(redis=real_r, config=config).test_client()
    executive = Executive(real_r, config)

    def send(state: str, entity: str, *checks: str) -> Counter[tuple[str, str]]:
        seen = len(smtp_server.messages)
        for check in checks:
            push_event(real_r, {"type": "service", "entity": entity, "check": check, "state": state,
                                "summary": f"{check} {state}"})
        executive.drain()
        burst("email", config)
        return mail(smtp_server, seen)

    send("ok", SWITCH, "PING")
    send("ok", WEB, *CHILDREN, "DB")
    assert post(api, "/api/contacts", {"contacts": [
        {"id": name, "first_name": name.title(), "media": {"email": {"address": f"{name}@example.com"}}}
        for name in PEOPLE]}).status_code == 201
    for entity in api.get("/api/entities").get_json(force=True)["entities"]:
        assert api.patch(f"/api/entities/{entity['id']}", data=json.dumps(
            [{"op": "add", "path": "/entities/0/links/contacts", "value": name} for name in PEOPLE]),
            content_type="application/json-patch+json").status_code == 204
    created = post(api, "/api/dependencies", {"dependencies": [{"parent": f"{SWITCH}:PING", "child": {"entity": WEB}}]})
    assert created.status_code == 201, created.get_data(as_text=True)

    def subject(kind: str, check: str, entity: str = WEB) -> set[tuple[str, str]]:
        """(person, subject) of the mail to each person about `check`."""
        state = "OK" if kind == "Recovery" else "Critical"
        return {(p, f"{kind}: '{check}' on {entity} is {state}") for p in PEOPLE}

    assert set(send("critical", WEB, "DB")) == subject("Problem", "DB")  # before the outage: both mailed
    assert set(send("critical", SWITCH, "PING")) == subject("Problem", "PING", SWITCH)
    assert send("critical", WEB, *CHILDREN) == Counter()
    clock.advance(120)
    assert send("critical", WEB, *CHILDREN) == Counter()  # the repeats too
    for check in CHILDREN:
        stop = decision_store.load(real_r, WEB, check)[0]["stopped_by"]
        assert (stop["code"], stop["parent"]) == ("inhibited", f"{SWITCH}:PING")
    assert set(send("ok", WEB, "DB")) == subject("Recovery", "DB")  # paged before: its recovery reaches both
    assert send("ok", WEB, *CHILDREN[2:]) == Counter()  # never paged: nobody is told they recovered
    clock.advance(60)
    after = send("ok", SWITCH, "PING")
    assert set(after) == subject("Recovery", "PING", SWITCH) | subject("Problem", "APP0") | subject("Problem", "APP1")
    assert all(n == 1 for n in after.values())

    cycle = post(api, "/api/dependencies", {"dependencies": [{"parent": f"{WEB}:APP0", "child": {"entity": SWITCH}}]})
    assert cycle.status_code == 422
    [message] = cycle.get_json(force=True)["errors"]
    assert message in ("dependency cycle: switch-3:PING -> web:APP0 -> switch-3:PING (each depends on the next)",
                       "dependency cycle: web:APP0 -> switch-3:PING -> web:APP0 (each depends on the next)")
    assert len(api.get("/api/dependencies").get_json(force=True)["dependencies"]) == 1
