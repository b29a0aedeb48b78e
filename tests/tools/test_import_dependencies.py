"""`flapjack import dependencies -f FILE` (issue 33.1): the API's items, an id made when missing, a stored one of
the same id replaced; a cycle or a bad entry is skipped with its reason."""

from __future__ import annotations

import json

from flapjack_py.store import dependencies as store

DEPENDENCIES = [
    {"id": "web-on-switch", "parent": "switch-3:PING", "child": {"entity": "web-1"}},
    {"parent": "switch-3:PING", "child": {"tag": "rack-7"}},
    {"id": "loop", "parent": "web-1:HTTP", "child": {"check": "switch-3:PING"}},
    {"id": "bad", "parent": "switch-3", "child": {"entity": "db"}},
]


def write(tmp_path, data):
    path = tmp_path / "dependencies.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_import_dependencies(flapjack, real_s, tmp_path):
    result = flapjack("import", "dependencies", "-f", write(tmp_path, DEPENDENCIES))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Imported 2 of 4 dependencies; 2 skipped:"
    assert lines[1].startswith("  Dependency loop not imported: dependency cycle: ")
    assert lines[2] == "  Dependency bad not imported: parent must be 'ENTITY:CHECK', got \"switch-3\""
    stored = {d.id: (d.parent, d.kind, d.value) for d in store.load_all(real_s)}
    assert stored["web-on-switch"] == ("switch-3:PING", "entity", "web-1") and len(stored) == 2
    again = flapjack("import", "dependencies", "-f", write(tmp_path, [
        {"id": "web-on-switch", "parent": "core:PING", "child": {"entity": "web-1"}}]))
    assert again.stdout.splitlines() == ["Imported 1 of 1 dependencies."]
    assert {d.id: d.parent for d in store.load_all(real_s)}["web-on-switch"] == "core:PING"
