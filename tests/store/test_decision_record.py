"""Recording a decision trace: the JSON json.dumps makes, compact."""

from __future__ import annotations

import json

from flapjack_py import keys
from flapjack_py.store import decisions as decision_store
from flapjack_py.store.plumbing.writes import WriteBuffer


def test_a_trace_is_recorded_as_compact_json_and_trimmed() -> None:
    shared = [{"id": "r1", "matched": True, "by": ["general"]}]
    entry = {"at": 5, "check": "e:c", "state": "critical", "type": "problem", "result": "alerted", "severity": "critical",
             "contacts": [{"id": f"c{i}", "outcome": "considered", "rules": shared,
                           "media": [{"medium": "email", "outcome": "alerted", "alert": "a\u00e9\"b"}]} for i in range(2)]}
    writes = WriteBuffer()
    decision_store.record(writes, "e", "c", entry, 3)
    key = keys.check_decisions("e", "c")
    assert writes.calls == [("lpush", (key, json.dumps(entry, separators=(",", ":"))), {}), ("ltrim", (key, 0, 2), {})]
    assert json.loads(writes.calls[0][1][1]) == entry


def test_no_trace_is_recorded_when_traces_are_off() -> None:
    writes = WriteBuffer()
    decision_store.record(writes, "e", "c", {"at": 5}, 0)
    assert writes.calls == []
