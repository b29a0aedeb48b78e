"""Managing people from the UI: contacts, media, PagerDuty credentials and notification rules round trip
through the forms; a refused form comes back (422) with the API's message next to the field and nothing stored."""

from __future__ import annotations

import re
from datetime import time

import pytest

from flapjack_py import keys
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import media as media_store
from flapjack_py.store import rules as rule_store
from flapjack_py.views.weekly import WeeklyWindow, from_restriction

from .conftest import World


def error_next_to(page: str, field_id: str) -> str:
    """The message shown for the field with id `field_id` (its aria-describedby error element)."""
    assert re.search(rf'id="{field_id}"[^>]*aria-invalid="true"', page), f"{field_id} is not marked invalid"
    found = re.search(rf'<span class="field-error" id="{field_id}-error">([^<]*)</span>', page)
    assert found, f"no message next to {field_id}"
    return found.group(1)


@pytest.fixture
def ann(world: World) -> World:
    world.contact("ann", "Ann", "Oncall", "web-01")
    return world


def test_create_a_contact_and_edit_it(world: World, client) -> None:
    response = client.post("/contacts", data={"first_name": "Bob", "last_name": "Builder", "email": "bob@example.com",
                                              "timezone": "Europe/Berlin", "id": "bob"})
    assert response.status_code == 303 and response.headers["Location"].endswith("/contacts/bob?notice=contact-created")
    bob = contact_store.load_contact(world.s, "bob")
    assert (bob.first_name, bob.last_name, bob.email, bob.timezone) == ("Bob", "Builder", "bob@example.com",
                                                                         "Europe/Berlin")
    assert len(rule_store.rule_ids(world.s, "bob")) == 1  # the general rule, as the API makes it
    page = client.get("/contacts/bob?notice=contact-created").get_data(as_text=True)
    assert "Contact created" in page and 'value="Builder"' in page

    response = client.post("/contacts/bob", data={"first_name": "Robert", "last_name": "Builder", "email": "",
                                                  "timezone": "UTC"})
    assert response.status_code == 303
    bob = contact_store.load_contact(world.s, "bob")
    assert (bob.first_name, bob.email, bob.timezone) == ("Robert", None, "UTC")


def test_a_taken_id_and_an_unknown_zone_are_shown_next_to_their_fields(ann: World, client) -> None:
    before = stored(ann)
    response = client.post("/contacts", data={"first_name": "Ann", "id": "ann", "timezone": "Mars/Olympus"})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert error_next_to(page, "contact-new-timezone").startswith("Unknown time zone &#39;Mars/Olympus&#39;")
    assert 'value="Mars/Olympus"' in page  # what was typed is kept

    response = client.post("/contacts", data={"first_name": "Ann", "id": "ann"})
    assert response.status_code == 422
    assert error_next_to(response.get_data(as_text=True), "contact-new-id") == \
        "Contacts already exist with the following IDs: ann"  # the API's 409 message
    assert stored(ann) == before


def test_media_round_trip_with_the_apis_message_on_a_bad_interval(ann: World, client) -> None:
    response = client.post("/contacts/ann/media", data={"type": "sms", "address": "+4912345", "interval": "600",
                                                        "rollup_threshold": "3"})
    assert response.status_code == 303
    sms = media_store.load_media(ann.s, "ann")["sms"]
    assert (sms.address, sms.interval, sms.rollup_threshold) == ("+4912345", 600, 3)

    response = client.post("/contacts/ann/media", data={"type": "sms", "existing": "1", "address": "+4912345",
                                                        "interval": "ten minutes"})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert error_next_to(page, "medium-sms-interval") == "No valid media were submitted"  # as POST /media says
    assert media_store.load_media(ann.s, "ann")["sms"].interval == 600

    response = client.post("/contacts/ann/media", data={"type": "sms", "existing": "1", "address": "+4999",
                                                        "interval": "", "rollup_threshold": ""})
    assert response.status_code == 303
    sms = media_store.load_media(ann.s, "ann")["sms"]
    assert (sms.address, sms.interval, sms.rollup_threshold) == ("+4999", None, None)
    assert client.post("/contacts/ann/media/sms/delete").status_code == 303
    assert "sms" not in media_store.load_media(ann.s, "ann")


def test_pagerduty_secrets_are_write_only(ann: World, client) -> None:
    response = client.post("/contacts/ann/pagerduty", data={"subdomain": "acme"})
    assert response.status_code == 422
    assert "service key" in error_next_to(response.get_data(as_text=True), "pagerduty-service_key")

    response = client.post("/contacts/ann/pagerduty", data={"service_key": "sk-SECRET-1", "subdomain": "acme",
                                                            "username": "ann", "token": "tok-SECRET-2",
                                                            "password": "pw-SECRET-3"})
    assert response.status_code == 303
    page = client.get("/contacts/ann").get_data(as_text=True)
    assert "SECRET" not in page and "acme" in page
    client.post("/contacts/ann/pagerduty", data={"subdomain": "acme2", "username": "ann"})  # secrets left empty
    assert media_store.load_pagerduty_credentials(ann.s, "ann") == {
        "service_key": "sk-SECRET-1", "subdomain": "acme2", "token": "tok-SECRET-2", "username": "ann",
        "password": "pw-SECRET-3"}


def rule_form(**over: object) -> dict[str, object]:
    form: dict[str, object] = {"entities": "web-01\nweb-02", "tags": "", "regex_entities": "", "regex_tags": "",
                               "critical_media": ["sms", "email"], "warning_media": ["email"], "rows": "2",
                               "tr-0-days": ["1", "2", "3", "4", "5"], "tr-0-start": "09:00", "tr-0-end": "17:00",
                               "tr-1-start": "", "tr-1-end": ""}
    form.update(over)
    return form


def test_a_rule_round_trips_through_the_weekly_editor(ann: World, client) -> None:
    assert client.get("/contacts/ann/rules/new").status_code == 200
    response = client.post("/contacts/ann/rules", data=rule_form(warning_blackhole="on"))
    assert response.status_code == 303
    [rule] = [r for r in rule_store.load_rules(ann.s, "ann", ensure_general=False) if r.entities]
    assert (rule.entities, rule.critical_media, rule.warning_media, rule.warning_blackhole) == (
        ["web-01", "web-02"], ["email", "sms"], ["email"], True)
    assert [from_restriction(e) for e in rule.time_restrictions] == [
        WeeklyWindow((1, 2, 3, 4, 5), time(9), time(17))]
    page = client.get("/contacts/ann").get_data(as_text=True)
    assert "Only Mon–Fri 09:00–17:00" in page

    edit = client.get(f"/contacts/ann/rules/{rule.id}").get_data(as_text=True)
    assert 'value="09:00"' in edit and "Window 1: Mon–Fri 09:00–17:00" in edit
    response = client.post(f"/contacts/ann/rules/{rule.id}", data=rule_form(**{"tr-0-remove": "on", "tags": "db"}))
    assert response.status_code == 303
    saved = rule_store.load_rule(ann.s, rule.id)
    assert (saved.tags, saved.time_restrictions, saved.warning_blackhole) == (["db"], [], False)
    assert client.post(f"/contacts/ann/rules/{rule.id}/delete").status_code == 303
    assert rule_store.load_rule(ann.s, rule.id) is None


def test_a_bad_regex_and_a_bad_window_are_refused_next_to_their_fields(ann: World, client) -> None:
    before = rule_store.rule_ids(ann.s, "ann")
    response = client.post("/contacts/ann/rules", data=rule_form(**{"regex_entities": "web-(", "tr-0-end": "5pm"}))
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "Rule regex_entities: " in page  # flapjack_py.model.rules' API message
    assert re.search(r'id="rule-regex_entities"[^>]*aria-invalid="true"', page)
    assert error_next_to(page, "tr-0-end") == "&#39;5pm&#39; is not a time of day (HH:MM)"
    assert rule_store.rule_ids(ann.s, "ann") == before


def stored(world: World) -> set[bytes]:
    """Every key but the UI's signing key (made by the first request)."""
    return set(world.r.keys()) - {keys.web_secret_key().encode()}


def test_forms_for_unknown_contacts_and_rules_are_404_and_change_nothing(ann: World, client) -> None:
    client.get("/contacts")
    before = stored(ann)
    assert client.post("/contacts/nobody/media", data={"type": "sms", "address": "1"}).status_code == 404
    assert client.post("/contacts/nobody", data={"first_name": "X"}).status_code == 404
    assert client.post("/contacts/ann/rules/nope", data=rule_form()).status_code == 404
    assert client.get("/contacts/nobody/rules/new").status_code == 404
    assert stored(ann) == before


def test_delete_a_contact(ann: World, client) -> None:
    response = client.post("/contacts/ann/delete")
    assert response.status_code == 303 and "notice=contact-deleted" in response.headers["Location"]
    assert contact_store.load_contact(ann.s, "ann") is None
