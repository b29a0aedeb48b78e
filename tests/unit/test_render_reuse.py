"""A notification's alerts share texts where their templates read nothing that differs between them
(flapjack_py.notify.render's `shared`), and never where it would differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flapjack_py.config.settings import load_config
from flapjack_py.notify import render

ALERT = {"id": "1", "timestamp": 1_800_000_000, "contact": "ada", "media": "email", "address": "ada@x",
         "check": "web:http", "type": "problem", "rollup": None, "state": "critical", "contact_id": "ada",
         "contact_first_name": "Ada", "contact_last_name": "L", "event_id": "web:http", "event_hash": "abcd1234",
         "summary": "down", "details": "", "time": 1_800_000_000, "duration": None, "last_state": "ok",
         "last_summary": "up", "state_duration": 0, "tags": ["a"], "notification_type": "problem", "event_count": 7}
CONFIG = load_config({})


def for_contact(alert: dict, n: int, **over: object) -> dict:
    return dict(alert, id=str(n), contact=f"c{n}", contact_id=f"c{n}", address=f"a{n}@x",
                contact_first_name=f"Name{n}", contact_last_name=f"Last{n}", **over)


@pytest.mark.parametrize("field", sorted(render.PER_CONTACT_FIELDS))
def test_only_the_listed_template_variables_come_from_a_per_contact_field(field: str) -> None:
    """If alert_context starts deriving a variable from a per-contact field, PER_CONTACT_FIELDS must say so."""
    before = render.alert_context(ALERT)
    after = render.alert_context(dict(ALERT, **{field: "changed"}))
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    assert changed == {field, *render.PER_CONTACT_FIELDS[field]}


@pytest.fixture()
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the templates rendered."""
    done: list[str] = []
    real = render._render

    def spy(medium: str, name: str, *rest: Any, **options: Any) -> str:
        done.append(name)
        return real(medium, name, *rest, **options)

    monkeypatch.setattr(render, "_render", spy)
    return done


def test_sms_and_the_email_body_are_rendered_once_per_notification(renders: list[str]) -> None:
    """The email body outputs the contact's first name as it is: rendered once, each contact's name put in."""
    shared: dict = {}
    sms = [render.render_alert(for_contact(dict(ALERT, media="sms"), n), CONFIG, shared) for n in range(3)]
    assert len(renders) == 1 and len(set(sms)) == 1
    assert sms[0] == render.render_alert(for_contact(dict(ALERT, media="sms"), 0), CONFIG)  # as without sharing
    email = [render.render_alert(for_contact(ALERT, n), CONFIG, shared) for n in range(3)]
    assert sorted(renders[2:]) == ["alert.text", "alert_subject.text"]
    assert [body.splitlines()[0] for _, body in email] == ["Hi Name0", "Hi Name1", "Hi Name2"]
    assert email == [render.render_alert(for_contact(ALERT, n), CONFIG) for n in range(3)]  # as without sharing
    again = render.render_alert(for_contact(ALERT, 1), CONFIG, shared)
    assert again == email[1] and len(renders) == 4 + 6


@pytest.mark.parametrize("media", ["email", "sms", "sns"])
def test_the_variables_of_a_later_alert_are_its_own(media: str) -> None:
    """Template variables are computed once per notification, then each alert's per-contact fields set."""
    shared: dict = {}
    alerts = [for_contact(dict(ALERT, media=media), n) for n in range(3)]
    del alerts[2]["contact_last_name"]
    alerts[1]["contact_first_name"] = None
    for alert in alerts:
        assert render._shared_context(alert, (media, ""), {}, shared) == render.alert_context(alert)


def test_overrides_outputting_every_per_contact_field_give_each_alert_its_own(renders: list[str],
                                                                             tmp_path: Path) -> None:
    (tmp_path / "alert.text").write_text(" ".join(f"{{{{ {f} }}}}" for f in ["first_name", *render.PER_CONTACT_FIELDS]))
    (tmp_path / "alert_subject.text").write_text("{{ address }}: {{ summary }}")
    config = load_config({"gateways": {"email": {"templates": str(tmp_path)}}})
    shared: dict = {}
    texts = [render.render_alert(for_contact(ALERT, n, status="queued"), config, shared) for n in range(3)]
    assert texts == [render.render_alert(for_contact(ALERT, n, status="queued"), config) for n in range(3)]
    assert texts[2] == ("a2@x: down", "Name2 2 c2 c2 a2@x Last2 Name2 queued   ")  # no error, no escalation
    assert len(renders) == 2 + 6  # once for the notification (each alert's fields put in), then once per alert


def test_each_alert_names_the_escalation_level_that_paged_its_contact(tmp_path: Path) -> None:
    """Escalation fields are set per contact (only paged contacts have them): never shared between alerts."""
    (tmp_path / "alert.text").write_text("{{ summary }} level {{ escalation_level }} of {{ escalation_policy }}")
    config = load_config({"gateways": {"sms": {"templates": str(tmp_path)}}})
    shared: dict = {}
    alerts = [for_contact(dict(ALERT, media="sms"), 0, escalation_policy="p1", escalation_level=2),
              for_contact(dict(ALERT, media="sms"), 1)]
    texts = [render.render_alert(alert, config, shared)[1] for alert in alerts]
    assert texts == ["down level 2 of p1", "down level  of"]


def test_a_later_medium_gets_its_own_medium_and_alias(tmp_path: Path) -> None:
    """The template variables are computed once per notification: the medium and its gateway's alias are each alert's."""
    for name in ("alert.text", "alert_subject.text"):
        (tmp_path / name).write_text("{{ media }} {{ alias }} {{ summary }}")
    config = load_config({"gateways": {"email": {"templates": str(tmp_path)},
                                       "jabber": {"templates": str(tmp_path), "alias": "bot"}}})
    shared: dict = {}
    texts = [render.render_alert(for_contact(dict(ALERT, media=m), 0), config, shared) for m in ("email", "jabber")]
    assert texts == [("email flapjack down", "email flapjack down"), ("", "jabber bot down")]
    assert texts == [render.render_alert(for_contact(dict(ALERT, media=m), 0), config) for m in ("email", "jabber")]


def test_a_rollup_decision_gets_its_own_text(renders: list[str]) -> None:
    shared: dict = {}
    plain = render.render_alert(for_contact(dict(ALERT, media="sms"), 0), CONFIG, shared)
    rollup = render.render_alert(for_contact(dict(ALERT, media="sms"), 1, rollup="problem", rollup_threshold=2,
                                             rollup_alerts={"web:http": {"state": "critical", "duration": 5}}),
                                 CONFIG, shared)
    other = render.render_alert(for_contact(dict(ALERT, media="sms"), 2, rollup="problem", rollup_threshold=2,
                                            rollup_alerts={"web:db": {"state": "warning", "duration": 5}}),
                                CONFIG, shared)
    assert len({plain, rollup, other}) == 3 and len(renders) == 3


def test_an_override_that_outputs_a_per_contact_field_is_rendered_once(renders: list[str], tmp_path: Path) -> None:
    (tmp_path / "alert.text").write_text("to {{ address }}: {{ summary }}")
    config = load_config({"gateways": {"sms": {"templates": str(tmp_path)}}})
    shared: dict = {}
    texts = [render.render_alert(for_contact(dict(ALERT, media="sms"), n), config, shared)[1] for n in range(3)]
    assert texts == ["to a0@x: down", "to a1@x: down", "to a2@x: down"] and len(renders) == 1


WORKED_ON = ["{{ address|upper }}", "{% if address %}to {{ address }}{% endif %}", "{{ address ~ '!' }}",
             "{% filter upper %}{{ address }}{% endfilter %}", "{% set a %}{{ address }}{% endset %}{{ a|length }}",
             "{% macro m() %}{{ address }}{% endmacro %}{{ m()|upper }}", "{{ address is string }}{{ address }}",
             "{% for c in address %}{{ c }}.{% endfor %}", "{{ address }}{% set address = 'x' %}{{ address }}",
             "{% autoescape true %}{{ address }}{% endautoescape %}", "{{ address[1:] }} {{ address }}"]


@pytest.mark.parametrize("source", WORKED_ON)
def test_an_override_that_works_on_a_per_contact_field_is_rendered_per_alert(renders: list[str], tmp_path: Path,
                                                                            source: str) -> None:
    (tmp_path / "alert.text").write_text(source + " {{ summary }} {{ first_name }}")
    config = load_config({"gateways": {"sms": {"templates": str(tmp_path)}}})
    shared: dict = {}
    alerts = [dict(for_contact(dict(ALERT, media="sms"), n), address=address) for n, address in enumerate(["a<b", "Zoë"])]
    texts = [render.render_alert(alert, config, shared) for alert in alerts]
    assert len(renders) == 2 and texts == [render.render_alert(alert, config) for alert in alerts]


TRICKY = ["", " ", "Ada", "Zoë ✓", "line\nbreak", "  padded  ", "{{ summary }}", "<b>&amp;</b>", "\x00", "\\1",
          "Name1", None, 7]


@pytest.mark.parametrize("media", ["email", "sms", "sns", "jabber"])
def test_texts_put_together_from_one_rendering_are_each_alerts_own(media: str, tmp_path: Path) -> None:
    """Whatever the per-contact values (line breaks in one-line texts, template syntax, a stand-in's
    look-alike, not a str), every alert's texts are those rendered for it alone; also through an override
    that outputs every per-contact field twice, next to each other."""
    (tmp_path / "alert.text").write_text(
        "\n".join(f"[{{{{ {f} }}}}{{{{ {f} }}}}]" for f in ["first_name", *render.PER_CONTACT_FIELDS]) + "\n")
    configs = [CONFIG, load_config({"gateways": {media: {"templates": str(tmp_path)}}})]
    for config in configs:
        shared: dict = {}
        alerts = [dict(for_contact(dict(ALERT, media=media), n), contact_first_name=name, address=name, status=name)
                  for n, name in enumerate(TRICKY)]
        alerts.append(dict(alerts[0], contact_first_name=render._STAND_INS["first_name"][:-1]))
        del alerts[1]["contact_last_name"]
        texts = [render.render_alert(alert, config, shared) for alert in alerts]
        assert texts == [render.render_alert(alert, config) for alert in alerts]


def test_slots_are_the_per_contact_variables_output_as_they_are() -> None:
    assert render._slots("email", "alert.text", None) == ("first_name",)
    assert render._slots("email", "alert.html", None) == ()  # autoescaped
    assert render._slots("text", "alert.text", None) == ()


def test_an_override_that_includes_another_template_is_not_shared(renders: list[str], tmp_path: Path) -> None:
    (tmp_path / "alert.text").write_text("{% include 'rollup.text' %}")
    (tmp_path / "rollup.text").write_text("{{ contact }}")
    config = load_config({"gateways": {"sms": {"templates": str(tmp_path)}}})
    shared: dict = {}
    texts = [render.render_alert(for_contact(dict(ALERT, media="sms"), n), config, shared)[1] for n in range(2)]
    assert texts == ["c0", "c1"]


@pytest.mark.parametrize("rollup_alerts", [None, {}])
def test_an_alert_without_rollup_alerts_has_the_rollup_wording_of_none(rollup_alerts: dict | None) -> None:
    """alert_context skips the rollup wording of an alert without rollup alerts: it is that of none."""
    context = render.alert_context(dict(ALERT, rollup_alerts=rollup_alerts))
    assert context["rollup_summary"] == render.rollup_summary({})
    assert context["rollup_detail_3"] == render.rollup_detail({}, 3)
    assert context["rollup_detail_10"] == render.rollup_detail({}, 10) and context["rollup_rows"] == []
