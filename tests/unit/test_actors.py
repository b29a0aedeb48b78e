"""The actor of an acknowledgement reaches the alerts it makes and their text."""

from __future__ import annotations

from flapjack_py.model.notification import Notification, NotificationType
from flapjack_py.notify.notifier import shared_fields
from flapjack_py.notify.render import ack_clause


def _ack(actor: str | None) -> Notification:
    return Notification(event_id="web-01:HTTP", entity="web-01", check="HTTP", state="acknowledgement",
                        type=NotificationType.ACKNOWLEDGEMENT, severity="critical", count=3, event_hash="abc",
                        duration=600, actor=actor, channel="slack" if actor else None)


def test_an_acknowledgements_alerts_carry_who_acknowledged() -> None:
    shared = shared_fields(_ack("slack:U123"))
    assert (shared.get("actor"), shared.get("channel")) == ("slack:U123", "slack")
    assert "actor" not in shared_fields(_ack(None))


def test_the_acknowledgement_text_names_the_actor() -> None:
    assert ack_clause("acknowledgement", 600, "rex") == \
        " has been acknowledged by rex, unscheduled maintenance created for 10 minutes"
    assert ack_clause("acknowledgement", 600) == " has been acknowledged, unscheduled maintenance created for 10 minutes"
    assert ack_clause("problem", 600, "rex") == ""
