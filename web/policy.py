"""Who may call which route: one table, endpoint -> the role it needs (or OPEN), checked by web/auth.py.

Every endpoint of the app must be listed: an endpoint missing here is refused to
everyone (default deny), and tests/web/test_policy.py fails for it. Add a route,
add its line. Reads need a viewer; writes need the role of flapjack_py.access.Role.
"""

from __future__ import annotations

from typing import Final

from flapjack_py.access import Role

OPEN: Final = "open"
"""Served to anyone, even when users exist: health, static files, the login page."""

SIGNED: Final = "signed"
"""Served to a caller proving itself by a signature or a token (an SMS or call provider's webhook), checked
by web/signatures.py: the route must declare its check (@verified_by), else it is refused."""

V, R, A = Role.VIEWER, Role.RESPONDER, Role.ADMIN

POLICY: dict[str, Role | str] = {
    # open: probes, documents, static files, logging in and out
    "api.get_health": OPEN, "api.openapi": OPEN, "api.options": OPEN,
    "static": OPEN, "ui.static": OPEN, "ui.login": OPEN, "ui.logout": OPEN,
    "ui.sso_login": OPEN, "ui.sso_callback": OPEN,
    # UI pages
    "ui.index": V, "ui.check": V, "ui.entities": V, "ui.entity": V, "ui.contacts": V, "ui.contact": V,
    "ui.alerts": V, "ui.status": V, "ui.analytics": V, "ui.set_refresh": V,
    # UI forms of a check
    "ui.acknowledge": R, "ui.test_notifications": R, "ui.end_unscheduled": R, "ui.create_scheduled": R,
    "ui.end_scheduled": R, "ui.set_enabled": R, "ui.delete_series": R,
    # UI forms managing people: contacts, media, PagerDuty credentials, notification rules
    "ui.create_contact": A, "ui.update_contact": A, "ui.delete_contact": A, "ui.save_medium": A,
    "ui.delete_medium": A, "ui.save_pagerduty": A, "ui.delete_pagerduty": A, "ui.new_rule": A, "ui.rule": A,
    "ui.create_rule": A, "ui.update_rule": A, "ui.delete_rule": A,
    # UI: one action on many checks (selected, or every check a filter matches)
    "ui.bulk": R,
    # UI forms of an entity (recurring windows; a one-tap window over every check)
    "ui.create_entity_series": R, "ui.delete_entity_series": R, "ui.entity_maintenance": R,
    # UI: who is on call (schedules, policies' first level, my shifts)
    "ui.oncall": V,
    # UI: a recurring-maintenance series (read by viewers, edited by responders, as through the API)
    "ui.maintenance_series": V, "ui.update_series": R,
    # UI: escalation policies (read by viewers; made, changed and deleted by admins, as through the API)
    "ui.escalation_policies": V, "ui.escalation_policy": V, "ui.new_escalation_policy": A,
    "ui.create_escalation_policy": A, "ui.update_escalation_policy": A, "ui.delete_escalation_policy": A,
    # API reads
    "api.get_alerts": V, "api.get_check_decisions": V, "api.get_stale_checks": V, "api.get_flapping_checks": V, "api.get_check_freshness": V, "api.get_check_metrics": V, "api.get_checks": V,
    "api.get_contact_alerts": V, "api.get_contacts": V, "api.get_entities": V, "api.get_entity_metrics": V,
    "api.get_event_metrics": V, "api.get_media": V, "api.get_metrics": V, "api.get_notification_rules": V,
    "api.get_pagerduty_credentials": V, "api.get_report": V, "prometheus.prometheus_metrics": V,
    "api.get_series": V, "api.maintenances_ics": V, "api.get_schedules": V, "api.get_oncall": V,
    "api.get_analytics_summary": V, "api.get_analytics_checks": V, "api.get_analytics_people": V,
    "api.get_analytics_suggestions": V,
    "api.get_shifts": V, "api.get_schedule_ics": V, "api.get_contact_oncall_ics": V, "api.get_policies": V,
    # API: acknowledge, maintenance, test notifications, enable/disable checks
    "api.patch_checks": R, "api.post_scheduled": R, "api.delete_scheduled": R, "api.post_unscheduled": R,
    "api.patch_unscheduled": R, "api.post_test_notifications": R,
    "api.post_series": R, "api.patch_series": R, "api.delete_series": R,
    # API: events from receivers (they change check state like any feeder)
    "api.alertmanager_webhook": R, "api.grafana_webhook": R, "api.generic_webhook": R,
    # API: replies from phones (SMS, calls), signed by their provider (web/signatures.py)
    "api.twilio_sms_reply": SIGNED, "api.kannel_sms_reply": SIGNED, "api.twilio_voice_reply": SIGNED,
    "api.twilio_voice_status": SIGNED,
    # API: chat button presses; open because Slack and Mattermost do not log in: the views refuse (401) any press
    # without a valid Slack signature or Mattermost action token before reading it (web/api/chat.py)
    "api.slack_interactions": OPEN, "api.mattermost_actions": OPEN,
    # API: contacts, media, rules, PagerDuty credentials, entities and checks themselves
    "api.post_contacts": A, "api.patch_contacts": A, "api.delete_contacts": A,
    "api.post_media": A, "api.patch_media": A, "api.delete_media": A,
    "api.post_notification_rules": A, "api.patch_notification_rules": A, "api.delete_notification_rules": A,
    "api.post_pagerduty_credentials": A, "api.patch_pagerduty_credentials": A,
    "api.delete_pagerduty_credentials": A,
    "api.post_entities": A, "api.patch_entities": A, "api.post_checks": A,
    # API: on-call schedules
    "api.post_schedules": A, "api.patch_schedules": A, "api.delete_schedules": A,
    # API: escalation policies
    "api.post_policies": A, "api.patch_policies": A, "api.delete_policies": A,
    # API: dependencies (read by viewers, made and deleted by admins)
    "api.get_dependencies": V, "api.post_dependencies": A, "api.delete_dependencies": A,
    # UI: dependencies (the list for viewers; admins add and delete, as through the API)
    "ui.dependencies": V, "ui.create_dependency": A, "ui.delete_dependency": A,
    # API: incidents (read by viewers; acknowledged and annotated by responders)
    "api.get_incidents": V, "api.get_incident": V, "api.get_incident_timeline": V,
    "api.get_incident_postmortem": V, "api.acknowledge_incident": R, "api.post_incident_note": R,
    # UI: incidents (the list and pages for viewers; responders acknowledge and add notes, as through the API)
    "ui.incidents": V, "ui.incident": V, "ui.incident_postmortem": V, "ui.acknowledge_incident": R,
    "ui.incident_note": R,
    # the audit trail (admins only: it names who did what from where)
    "api.get_audit": A, "ui.audit_trail": A,
    # teams (read by viewers; made, changed and deleted by admins)
    "api.get_teams": V, "api.post_teams": A, "api.patch_teams": A, "api.delete_teams": A,
}


def required(endpoint: str | None) -> Role | str | None:
    """The role `endpoint` needs, OPEN, or None when the endpoint is not in the table (refuse it)."""
    return POLICY.get(endpoint or "")
