"""Each UI page answers 200 and shows the data the executive made."""

from __future__ import annotations

import html
import re
import time

import pytest

import web
from flapjack_py.executive import Executive
from flapjack_py.store import media as media_store
from flapjack_py.store.receivers import push_batch

from .conftest import World

WEB, DB = "web-01.example.com", "db-01.example.com"
HTTP, DISK, REPL = "HTTP port 80", "Disk / Util", "MySQL: replication"


@pytest.fixture
def failing(world: World, clock) -> World:
    """web-01 HTTP critical and db-01 replication warning (both alerted to their contact), db-01 disk ok."""
    world.contact("ann", "Ann", "Oncall", WEB)
    world.contact("bob", "Bob", "Backup", DB)
    for entity, check in ((WEB, HTTP), (DB, DISK), (DB, REPL)):
        world.event(entity, check, "ok")
    world.drain()
    clock.advance(60)
    world.event(DB, REPL, "warning", "Replication lag 45s", initial_failure_delay=0, perfdata="lag=45s;;;0 qps=120")
    world.drain()
    clock.advance(60)
    world.event(WEB, HTTP, "critical", "Connection refused", initial_failure_delay=0, details="curl: (7)")
    world.drain()
    return world


def text(response) -> str:
    """The page's text with tags removed and whitespace squeezed."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))


def test_front_page_lists_failing_checks_first_worst_first(failing: World, client, clock) -> None:
    clock.advance(2 * 3600)
    response = client.get("/")
    page = text(response)
    assert response.status_code == 200
    assert "2 failing checks" in page
    failing_part = page[:page.index("All checks")]
    assert failing_part.index(HTTP) < failing_part.index(REPL)  # critical before warning
    assert DISK not in failing_part
    assert "Critical" in failing_part and "Connection refused" in failing_part
    assert "2 hours" in failing_part  # failing for
    assert "Ann Oncall by email" in failing_part  # who was told
    assert DISK in page[page.index("All checks"):]


def test_checks_page_filters(failing: World, client) -> None:
    only_failing = text(client.get("/checks?show=failing"))
    assert DISK not in only_failing
    by_entity = text(client.get("/checks?q=db-01"))
    assert DISK in by_entity and REPL in by_entity and HTTP not in by_entity


def test_ack_and_maintenance_badges(failing: World, client, clock) -> None:
    client.post(f"/checks/{WEB}/{HTTP}/acknowledge", data={"duration": "1 hour", "comment": "on it"})
    failing.drain()
    assert "Acknowledged" in text(client.get("/"))


def test_check_page_shows_state_details_history_and_alerts(failing: World, client) -> None:
    response = client.get(f"/checks/{DB}/{REPL}")
    page = text(response)
    assert response.status_code == 200
    assert "Warning" in page and "Replication lag 45s" in page
    assert "lag 45s" in page and "qps 120" in page  # perfdata table
    assert "Initial failure delay 0 seconds" in page and "Repeat failure delay 1 minute" in page
    assert re.search(r"State history When State Summary .*Warning Replication lag 45s .*OK", page)
    assert "Bob Backup" in page and "email" in page and "undeliverable" in page
    assert "Problem: 'MySQL: replication' on db-01.example.com is Warning" in page


def test_check_page_explains_why_there_was_or_was_not_an_alert(failing: World, client, clock) -> None:
    clock.advance(10)
    failing.event(WEB, HTTP, "critical", "Connection refused", initial_failure_delay=0)  # repeat delay holds it
    failing.drain()
    page = text(client.get(f"/checks/{WEB}/{HTTP}"))
    why = page[page.index("Why (no) alert?"):page.index("Alerts about this check")]
    assert "critical: not notified, delays filter: repeat failure delay not over" in why
    assert "problem notification (critical), nobody alerted" not in why
    assert "contact ann: rules chose media" in why and "email: alert recorded, but the gateway is not enabled" in why
    asked = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(clock.now - 5))
    earlier = text(client.get(f"/checks/{WEB}/{HTTP}", query_string={"why_at": asked}))
    earlier = earlier[earlier.index("Why (no) alert?"):earlier.index("Alerts about this check")]
    assert "repeat failure delay" not in earlier and "contact ann" in earlier
    nonsense = text(client.get(f"/checks/{WEB}/{HTTP}", query_string={"why_at": "the day after never"}))
    assert "Why no alert at" in nonsense and "No decision recorded" not in nonsense


def test_stale_check_flagged_on_its_page(failing: World, client, clock) -> None:
    clock.advance(300)
    failing.drain()  # housekeeping: db-01 replication (results 60 s apart) is silent for 360 s > 3 x 60 s;
    # web-01 HTTP (120 s apart) for 300 s < 3 x 120 s; db-01 Disk sent a single result (nothing learned)
    assert "Stale: no result since" in text(client.get(f"/checks/{DB}/{REPL}"))
    assert "Stale: no result since" not in text(client.get(f"/checks/{WEB}/{HTTP}"))


def test_check_page_of_names_with_slash_space_and_colon(failing: World, client) -> None:
    assert client.get(f"/checks/{DB}/{DISK}").status_code == 200
    assert client.get("/checks/db-01.example.com/Disk%20%2F%20Util").status_code == 200
    missing = client.get(f"/checks/{DB}/nope")
    assert missing.status_code == 404 and "No check 'nope' on entity 'db-01.example.com'" in text(missing)


def test_entities_and_entity_page(failing: World, client) -> None:
    page = text(client.get("/entities"))
    assert DB in page and WEB in page and "1 failing" in page
    entity = client.get(f"/entities/{DB}")
    assert entity.status_code == 200
    assert text(entity).index(REPL) < text(entity).index(DISK)  # failing first
    assert "Bob Backup" in text(entity)
    assert client.get("/entities/no-such-host").status_code == 404


def test_contacts_and_contact_page(failing: World, client) -> None:
    media_store.update_medium(failing.s, "bob", "email", rollup_threshold=3)
    assert "Bob Backup" in text(client.get("/contacts"))
    page = text(client.get("/contacts/bob"))
    assert "bob@example.com" in page and "1 minute" in page and "summarise at 3 alerting checks" in page
    assert "Applies to every check (general rule)" in page
    assert DB in page
    assert "MySQL: replication" in page  # alert sent to him
    assert client.get("/contacts/nobody").status_code == 404


def test_alerts_newest_first(failing: World, client) -> None:
    page = text(client.get("/alerts"))
    assert page.index(HTTP) < page.index(REPL)
    assert "Ann Oncall" in page and "Bob Backup" in page


@pytest.mark.parametrize("path", ["/status", "/self_stats"])
def test_status_page(failing: World, client, path: str) -> None:
    failing.event(WEB, "queued", "ok")  # still on the queue
    page = text(client.get(path))
    assert re.search(r"2 failing checks of 3", page)
    assert re.search(r"1 events waiting on events", page)
    assert re.search(r"All time 5 3 2 0 0", page)  # all ok failure action invalid
    assert "Executive instances Host Pid Booted" in page and "No executive has run yet" not in page


def test_status_shows_receiver_counters(failing: World, client) -> None:
    assert "No receiver has reported yet" in text(client.get("/status"))
    push_batch(failing.s, "nagios", ['{"n": 1}'], {"read": 3, "pushed": 1, "rejected": 2, "rejected:tab_in_output": 2},
               time.time())
    page = text(client.get("/status"))
    assert "Receivers Receiver Lines read Events pushed Rejected Last report nagios 3 1 2 tab_in_output: 2" in page


def test_pages_update_live_without_any_meta_refresh(failing: World, client) -> None:
    for path in ("/", "/entities", f"/checks/{WEB}/{HTTP}", "/contacts", "/alerts", "/status", "/nowhere"):
        page = client.get(path).get_data(as_text=True)
        assert "http-equiv" not in page and 'data-live-every="15"' in page and "/ui-static/live.js" in page
        assert 'id="live-pause"' in page
    response = client.get("/refresh?every=30&next=/entities")
    assert response.status_code == 303 and response.headers["Location"].endswith("/entities")
    assert 'data-live-every="30"' in client.get("/").get_data(as_text=True)
    client.get("/refresh?every=7")  # not offered: back to the default
    assert 'data-live-every="15"' in client.get("/").get_data(as_text=True)
    assert client.get("/refresh?every=30&next=//evil.example").headers["Location"].endswith("/")
    assert "evil" not in client.get("/refresh?every=30&next=//evil.example").headers["Location"]


def test_empty_system(client) -> None:
    for path in ("/", "/checks", "/entities", "/contacts", "/alerts", "/status"):
        assert client.get(path).status_code == 200, path
    assert "No failing checks" in text(client.get("/"))


def test_stylesheet_is_served(client) -> None:
    response = client.get("/ui-static/flapjack.css")
    assert response.status_code == 200 and b"--critical" in response.data


def test_status_shows_delivery_queues_of_enabled_gateways(real_r, clock) -> None:
    config = {"executive": {"new_check_scheduled_maintenance_duration": 0}, "gateways": {"email": {"enabled": True}}}
    world = World(real_r)
    world.executive = Executive(real_r, config)
    world.contact("ann", "Ann", "Oncall", WEB)
    world.event(WEB, HTTP, "ok")
    world.drain()
    world.event(WEB, HTTP, "critical", initial_failure_delay=0)
    world.drain()
    page = text(web.create_app(redis=real_r, config=config).test_client().get("/status"))
    assert "Delivery queues Medium Gateway Waiting Failed email enabled 1 0" in page
    overview = text(web.create_app(redis=real_r, config=config).test_client().get("/"))
    assert "told Ann Oncall by email queued" in overview, overview


@pytest.mark.parametrize("path", ["/no/such/page", "/checksx", "/entities/a/b/c"])
def test_an_unknown_ui_url_is_an_html_page_in_the_layout(failing: World, client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404 and response.mimetype == "text/html"
    page = text(response)
    assert "Not found" in page and f"There is no page at {path}" in page
    assert "Checks 2 unhandled Entities Contacts Escalation" in page and "On call" in page  # the frame, menu


def test_an_unknown_api_url_stays_json(failing: World, client) -> None:
    response = client.get("/api/no/such/thing")
    assert response.status_code == 404 and response.get_json() == {"errors": ["not routable"]}
