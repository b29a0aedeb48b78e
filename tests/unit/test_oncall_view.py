"""What the on-call page and a check page's summary compute (pure): each schedule's shift now and next, a
person's shifts, which contact a user is, the alerts about the state shown, rule ids named in a trace."""

from __future__ import annotations

from flapjack_py.model.contacts import Contact
from flapjack_py.oncall.schedules import Layer, Schedule
from flapjack_py.views import check_summary, oncall
from flapjack_py.views.rows import Alert, CheckRow

MONDAY = 1_699_261_200  # 2023-11-06 09:00 UTC
WEEK = 7 * 86400
ROTA = Schedule("primary", "Primary", "UTC", (Layer(start=MONDAY, contacts=("ann", "bob")),))


def test_a_schedule_says_who_is_on_call_until_when_and_who_is_next() -> None:
    now = oncall.schedule_now(ROTA, MONDAY + 3600, {})
    assert (now.name, now.now, now.until, now.next, now.next_until) == (
        "Primary", ("ann",), MONDAY + WEEK, ("bob",), MONDAY + 2 * WEEK)
    assert not now.open_ended
    assert [s.now for s in oncall.on_call_in([ROTA], "bob", MONDAY + WEEK + 1, {})] == [("bob",)]
    assert oncall.on_call_in([ROTA], "ann", MONDAY + WEEK + 1, {}) == []


def test_my_shifts_list_the_next_four_weeks_soonest_first() -> None:
    mine = oncall.my_shifts([ROTA], "bob", MONDAY, {})
    assert [(s.schedule, s.start, s.end) for s in mine] == [
        ("Primary", MONDAY + WEEK, MONDAY + 2 * WEEK), ("Primary", MONDAY + 3 * WEEK, MONDAY + 4 * WEEK)]


def test_a_user_is_the_contact_of_that_id_else_email_else_first_name() -> None:
    people = [Contact("c1", "Rex", "Ray", "rray@example.com"), Contact("rex", "Other"), Contact("c3", "Ann", None, "rex@x")]
    assert oncall.contact_of_user("Rex", people).id == "rex"
    assert oncall.contact_of_user("rray", people).id == "c1"
    assert oncall.contact_of_user("ann", people).id == "c3"
    assert oncall.contact_of_user("nobody", people) is None and oncall.contact_of_user("", people) is None


def alert(ts: int, who: str) -> Alert:
    return Alert(f"a{ts}", ts, who, who.title(), "email", "", "web:HTTP", "problem", "", "critical", "", "delivered")


def test_who_was_told_is_the_alerts_since_the_state_began() -> None:
    row = CheckRow("web", "HTTP", "critical", "down", 100, 200, 100, False, False, True,
                   alerts=[alert(150, "ann"), alert(90, "bob")])
    assert [a.contact for a in check_summary.told_about(row)] == ["ann"]


def test_rule_ids_in_a_trace_are_named() -> None:
    lines = ["  contact ann: rules chose media", "    rule 6b0a18ad-1e7f-4c1b-9d7e-0123456789ab: matched (by general)"]
    assert check_summary.rule_ids_in(lines) == ["6b0a18ad-1e7f-4c1b-9d7e-0123456789ab"]
    named = check_summary.named_rules(lines, {"6b0a18ad-1e7f-4c1b-9d7e-0123456789ab": "#1 of Ann Oncall"})
    assert named[1] == "    rule #1 of Ann Oncall: matched (by general)"
