"""Notification: completing it with its check's previous state run."""

from __future__ import annotations

from dataclasses import fields, replace

from flapjack_py.model.notification import Notification, NotificationType


def test_with_previous_run_is_replace_of_the_two_fields() -> None:
    original = Notification(event_id="e:c", entity="e", check="c", state="critical", type=NotificationType.PROBLEM,
                            severity="critical", count=7, event_hash="abcd1234", summary="down", details="d", time=5,
                            state_duration=3, tags=("a", "b"))
    completed = original.with_previous_run("ok", "fine")
    assert completed == replace(original, last_state="ok", last_summary="fine")
    assert [getattr(completed, f.name) for f in fields(Notification)] == \
        [getattr(replace(original, last_state="ok", last_summary="fine"), f.name) for f in fields(Notification)]
    assert original.last_state is None and original.last_summary is None  # the original is left as it was
    assert completed.with_previous_run(None, None) == original
    assert hash(completed) == hash(replace(original, last_state="ok", last_summary="fine"))
