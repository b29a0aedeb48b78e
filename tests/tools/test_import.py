"""flapjack import contacts|entities."""

from __future__ import annotations

import io
import json

from flapjack_py import keys
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import rules as rule_store

CONTACTS = [
    {"id": "21", "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "timezone": "Europe/London",
     "media": {"email": {"address": "ada@example.com", "interval": 600, "rollup_threshold": 3}}},
    {"first_name": "No", "last_name": "Id"},
]
ENTITIES = [{"id": "e1", "name": "web-1", "contacts": ["21", "99"], "tags": ["web", "prod"]}, {"name": "no-id"}]


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_import_contacts_then_entities(flapjack, real_r, tmp_path, real_s):
    result = flapjack("import", "contacts", "-f", write(tmp_path, "contacts.json", CONTACTS))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Imported 1 of 2 contacts; 1 skipped:",
        f"  Contact #2 has no id: {json.dumps(CONTACTS[1])}",
    ]
    assert result.stderr == ""  # no progress bar off a terminal, and no log line per contact
    contact = contact_store.load_contact(real_s, "21")
    assert (contact.first_name, contact.last_name, contact.email) == ("Ada", "Lovelace", "ada@example.com")
    assert real_r.hget(keys.contact_media("21"), "email") == b"ada@example.com"
    assert real_r.hget(keys.contact_media_intervals("21"), "email") == b"600"
    assert rule_store.rule_ids(real_s, "21")  # the automatic general rule

    result = flapjack("import", "entities", "-f", write(tmp_path, "entities.json", ENTITIES))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "Imported 1 of 2 entities; 1 skipped:"
    assert entity_store.entity_id(real_s, "web-1") == "e1"
    assert entity_store.contact_ids_for_entity(real_s, "e1") == ["21"]  # 99 is no contact
    assert sorted(entity_store.entity_tags(real_s, "e1")) == ["prod", "web"]


def test_reimporting_a_contact_replaces_it_and_detaches_it(flapjack, real_r, tmp_path, real_s):
    flapjack("import", "contacts", "-f", write(tmp_path, "c.json", CONTACTS))
    flapjack("import", "entities", "-f", write(tmp_path, "e.json", ENTITIES))
    changed = [{"id": "21", "first_name": "Augusta", "last_name": "King"}]
    assert flapjack("import", "contacts", "-f", write(tmp_path, "c2.json", changed)).exit_code == 0
    contact = contact_store.load_contact(real_s, "21")
    assert (contact.first_name, contact.email) == ("Augusta", None)
    assert real_r.hget(keys.contact_media("21"), "email") is None
    assert entity_store.contact_ids_for_entity(real_s, "e1") == []


def test_nothing_imported_without_ids(flapjack, real_r, tmp_path):
    result = flapjack("import", "entities", "-f", write(tmp_path, "e.json", [{"name": "x"}]))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["Imported 0 of 1 entities; 1 skipped:", '  Entity #1 has no id: {"name": "x"}']
    assert real_r.keys("*") == []


def test_entities_whose_names_do_not_fit_the_layout_are_skipped_with_the_reason(flapjack, tmp_path, real_s):
    entities = [{"id": "e1", "name": "web:01"}, {"id": "e2", "name": "db\n01"}, {"id": "e3", "name": "db-01"}]
    result = flapjack("import", "entities", "-f", write(tmp_path, "e.json", entities))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Imported 1 of 3 entities; 2 skipped:",
        '  Entity e1 not imported: entity e1: entity name must not contain a colon '
        '(\':\' separates entity and check in check ids): "web:01"',
        '  Entity e2 not imported: entity e2: entity name has a control character (U+000A at offset 2): "db\\n01"',
    ]
    assert entity_store.all_entity_names(real_s) == {"e3": "db-01"}


def test_bad_files(flapjack, tmp_path):
    not_array = flapjack("import", "contacts", "-f", write(tmp_path, "c.json", {"id": "1"}))
    assert not_array.exit_code == 1 and "expected a JSON array of objects" in not_array.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    assert flapjack("import", "contacts", "-f", str(bad)).exit_code == 1
    assert flapjack("import", "contacts").exit_code == 2  # -f is required


def test_a_big_import_is_one_summary_with_the_reasons_counted(flapjack, real_r, tmp_path, monkeypatch, real_s):
    entities = [{"id": f"e{n}", "name": f"host-{n}"} for n in range(300)] + [{"id": f"x{n}"} for n in range(25)]
    (tmp_path / "info.yml").write_text("logging:\n  level: INFO\n")
    monkeypatch.setenv("FLAPJACK_CONFIG", str(tmp_path / "info.yml"))
    result = flapjack("import", "entities", "-f", write(tmp_path, "e.json", entities))
    lines = result.stdout.splitlines()
    assert lines[0] == "Imported 300 of 325 entities; 25 skipped:"
    assert lines[1] == "  Entity x0 not imported: entity x0 has no name"
    assert lines[-1] == "  ... and 5 more" and len(lines) == 22
    logged = [line for line in result.stderr.splitlines() if "flapjack_py.store" in line or "importer" in line]
    assert len(logged) == 1 and f"imported 300 of 325 entities from {tmp_path / 'e.json'}" in logged[0], logged
    assert entity_store.entity_id(real_s, "host-299") == "e299"


def test_the_progress_bar_shows_on_a_terminal(real_r, monkeypatch):
    from rich.console import Console

    from flapjack_py.tools import importer

    shown = io.StringIO()
    monkeypatch.setattr(importer, "Console", lambda stderr: Console(file=shown, force_terminal=True, width=100))
    with importer._progress("entities", 3) as advance:
        for _ in range(3):
            advance()
    assert "Importing entities" in shown.getvalue() and "3/3" in shown.getvalue()
