"""The people forms are the admin's: a viewer or responder sees no form and every POST is refused (403),
changing nothing; an admin logged in through the form gets them, and never a PagerDuty secret in the page."""

from __future__ import annotations

from typing import Any

import pytest

from flapjack_py.access import Role
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import media as media_store

from .conftest import People, world_keys

FORMS = [("/contacts", {"first_name": "Eve"}), ("/contacts/ann", {"first_name": "Eve"}), ("/contacts/ann/delete", {}),
         ("/contacts/ann/media", {"type": "sms", "address": "1"}), ("/contacts/ann/media/email/delete", {}),
         ("/contacts/ann/pagerduty", {"service_key": "x"}), ("/contacts/ann/pagerduty/delete", {}),
         ("/contacts/ann/rules", {"rows": "0"})]


@pytest.fixture
def ann(people: People) -> People:
    contact_store.create_contact(people.s, {"id": "ann", "first_name": "Ann", "last_name": "Oncall"})
    media_store.set_medium(people.s, "ann", "email", "ann@example.com")
    media_store.set_pagerduty_credentials(people.s, "ann", {"service_key": "sk-SECRET", "token": "tok-SECRET"})
    return people


@pytest.mark.parametrize("role", [Role.VIEWER, Role.RESPONDER])
def test_only_admins_manage_people(client: Any, ann: People, role: Role) -> None:
    ann.login(client, role)
    page = client.get("/contacts/ann").get_data(as_text=True)
    assert "Save details" not in page and "Add a notification rule" not in page and "SECRET" not in page
    assert client.get("/contacts/ann/rules/new").status_code == 403
    before = world_keys(ann.r)
    for url, data in FORMS:
        assert client.post(url, data=data).status_code == 403, url
    assert world_keys(ann.r) == before


def test_an_admin_gets_the_forms_but_no_secret(client: Any, ann: People) -> None:
    ann.login(client, Role.ADMIN)
    page = client.get("/contacts/ann").get_data(as_text=True)
    assert "Save details" in page and "Change PagerDuty credentials" in page
    assert "SECRET" not in page
    response = client.post("/contacts/ann/media", data={"type": "sms", "address": "+49 1", "interval": "60"})
    assert response.status_code == 303
    assert media_store.load_media(ann.s, "ann")["sms"].interval == 60
