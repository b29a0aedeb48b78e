"""The UI's template filters: periods in words, state titles, rule summaries."""

from __future__ import annotations

import re

import pytest

from flapjack_py.model.rules import NotificationRule
from flapjack_py.views.weekly import parse_window, to_restriction
from web.ui.format import (
    age,
    age_text,
    ago,
    ago_text,
    iso_time,
    restrictions_text,
    rule_summary,
    since,
    state_title,
    when,
    when_text,
)


@pytest.mark.parametrize(("seconds", "said"), [
    (0, "0 seconds"), (1, "1 second"), (59, "59 seconds"), (3600, "1 hour"), (7260, "2 hours and 1 minute"),
    (7201, "2 hours and 1 second"), (90061, "1 day, 1 hour, 1 minute and 1 second"),
])
def test_age_is_an_iso_duration_in_words(seconds: int, said: str) -> None:
    assert age_text(seconds) == said
    assert str(age(seconds)) == f'<time datetime="PT{seconds}S">{said}</time>'
    assert age(None) == age_text(None) == ""


def test_ago_since_and_when(clock) -> None:
    assert str(ago(clock.now - 300)) == (f'<time datetime="{iso_time(clock.now - 300)}" '
                                         f'title="{when_text(clock.now - 300)}">5 minutes ago</time>')
    assert ago_text(clock.now + 3600) == "an hour from now"
    assert ago(None) == "never"
    assert str(since(clock.now - 7300)) == (f'<time datetime="{iso_time(clock.now - 7300)}" '
                                            f'title="since {when_text(clock.now - 7300)}">2 hours</time>')
    assert since(None) == ""
    assert when_text(1_700_000_000) == "2023-11-14 22:13:20 UTC"
    assert iso_time(1_700_000_000) == "2023-11-14T22:13:20Z"
    assert str(when(1_700_000_000)) == ('<time class="local" datetime="2023-11-14T22:13:20Z" '
                                        'title="2023-11-14 22:13:20 UTC">2023-11-14 22:13:20 UTC</time>')
    assert str(when(None)) == ""


def test_every_time_on_the_pages_is_an_iso_time_element(clock) -> None:
    """What the filters put in a page: a <time> whose datetime is ISO 8601 (a moment or a PT…S duration)."""
    for markup in (ago(clock.now - 5), since(clock.now - 5), when(clock.now), age(42)):
        value = re.search(r'<time[^>]* datetime="([^"]+)"', str(markup)).group(1)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|PT\d+S", value), value


def test_state_title() -> None:
    assert [state_title(s) for s in ("ok", "critical", "test_notifications", None)] == \
        ["OK", "Critical", "Test Notifications", "No data"]


def test_rule_summary() -> None:
    rule = NotificationRule(id="r1", contact_id="c1", entities=["foo"], regex_tags=["^db"],
                            critical_media=["sms", "email"], warning_blackhole=True,
                            time_restrictions=[{"start_time": "2013-02-01 08:00:00"}])
    assert rule_summary(rule) == [
        "Applies to entities foo; tags matching /^db/", "Critical: sms, email", "Warning: never alert (blackhole)",
        "Unknown: no media", "Only within a custom time restriction"]
    weekly = to_restriction(parse_window(["1", "2", "3", "4", "5"], "09:00", "17:30"))
    assert restrictions_text([weekly, to_restriction(parse_window(["6", "0"], "22:00", "06:00"))]) == \
        "Only Mon–Fri 09:00–17:30; Sat, Sun 22:00–06:00 (next day)"
    assert restrictions_text([]) == restrictions_text(None) == "At any time"
