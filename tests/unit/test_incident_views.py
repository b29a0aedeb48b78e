"""The timeline and the postmortem of a scripted incident (issue 33): entries in time order whatever order they
were stored in, each worded with who acted and through which channel; the postmortem's sections and times."""

from __future__ import annotations

import json

from flapjack_py.model.incidents import Live, entry, group_of, head_from_hash, live_to_json, paged_field, title_of
from flapjack_py.store.incidents import Incident
from flapjack_py.views.incidents import in_order, postmortem

T = 1_700_000_000
INCIDENT = Incident("1-abcdef01", "entity=web-1", "entity web-1", "resolved", T, T + 900, T + 120, "ann", "slack",
                    {"web-1:HTTP": T, "web-1:SSH": T + 5})
SCRIPT = [json.loads(e) for e in (
    entry(T, "opened", title="entity web-1"), entry(T, "problem", check="web-1:HTTP", state="critical", summary="down"),
    entry(T, "page", check="web-1:HTTP", contact="ann", medium="email", alert="a1", type="problem"),
    entry(T + 5, "joined", check="web-1:SSH"),
    entry(T + 600, "escalation", check="web-1:HTTP", contacts=["bob"], levels=[2]),
    entry(T + 120, "acknowledgement", check="web-1:HTTP", state="acknowledgement", summary="on it", actor="ann",
          channel="slack"),
    entry(T + 300, "note", text="switch-3 lost power", actor="cat", channel="ui"),
    entry(T + 900, "recovery", check="web-1:SSH", state="ok", summary="fine"),
    entry(T + 900, "resolved"))]


def test_the_timeline_is_in_time_order_with_the_actors() -> None:
    timeline = in_order(SCRIPT)
    assert [e["kind"] for e in timeline] == ["opened", "problem", "page", "joined", "acknowledgement", "note",
                                             "escalation", "recovery", "resolved"]
    words = [e["text"] for e in timeline]
    assert "web-1:HTTP acknowledged by ann (slack): on it" in words
    assert "note by cat (ui): switch-3 lost power" in words
    assert "paged ann on email (problem, alert a1)" in words and "web-1:HTTP: escalation paged bob" in words


def test_the_postmortem_draft() -> None:
    text = postmortem(INCIDENT, SCRIPT, {"web-1:HTTP": "ok", "web-1:SSH": "ok"})
    assert text.startswith("# Postmortem: entity web-1 (incident 1-abcdef01)")
    order = [text.index(h) for h in ("## Summary", "## Impact window", "## Checks", "## Timeline",
                                     "## Who was paged and when", "## Response")]
    assert order == sorted(order)
    assert "- Duration: 15m 0s" in text and "2 checks failed" in text
    assert "- Time to acknowledge: 2m 0s (by ann via slack)" in text and "- Time to resolve: 15m 0s" in text
    assert text.index("acknowledged by ann") < text.index("note by cat") < text.index("escalation paged bob")
    assert "ann on email (problem)" in text


def test_groups_and_the_live_state_round_trip() -> None:
    assert group_of("entity", "web-1", "web-1:HTTP", []) == "entity=web-1"
    assert group_of("tag:db", "web-1", "web-1:HTTP", ["db"]) == "tag=db"
    assert group_of("tag:db", "web-1", "web-1:HTTP", ["web"]) is None
    assert group_of("none", "web-1", "web-1:HTTP", []) is None and title_of("check=a:B") == "check a:B"
    live = Live(T, T + 5, "entity web-1", None, 2)
    head = head_from_hash({"current": "x-1", "i:x-1": live_to_json(live), "c:web-1:HTTP": "x-1", "c:web-1:SSH": "",
                           paged_field("x-1", ("ann", "email")): str(T), "i:gone": ""})
    assert head.live == {"x-1": live} and head.checks == {"web-1:HTTP": "x-1"}
    assert head.paged == {"x-1": {("ann", "email"): T}} and head.live["x-1"].grouped
