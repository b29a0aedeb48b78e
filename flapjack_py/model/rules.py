"""Notification rules: the stored rule model, validation and matching a notification (engine.md 5.2). Pure.

A rule hash stores lists as JSON text and booleans as 'true'/'false'
(contract.md section 5); `rule_from_hash`/`rule_to_hash` map it, the store does
the I/O. `select_media` decides which media of a contact a notification uses.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import tzinfo
from typing import Any

from flapjack_py.model.patterns import InvalidPattern, Pattern, compile_pattern, pattern_error
from flapjack_py.model.time_restrictions import InvalidTimeRestriction, restrictions_occurring, validate_restriction

log = logging.getLogger(__name__)

ALL_MEDIA = ("email", "sms", "slack", "sms_twilio", "sms_nexmo", "jabber", "pagerduty", "sns")
"""Flapjack 1.6's media list, in its order: the automatic general rule's warning/critical media (engine.md 5.2).
A compatibility fact, not the list of gateways (flapjack_py.config.media.known_media): a medium beyond Flapjack,
as apprise, is not in it."""

SEVERITIES = ("unknown", "warning", "critical")
"""Severities a rule has media lists and blackhole flags for."""

LIST_FIELDS = ("entities", "regex_entities", "tags", "regex_tags", "time_restrictions",
               "unknown_media", "warning_media", "critical_media")
"""Rule fields stored as JSON text (any may be JSON null)."""

BOOLEAN_FIELDS = ("unknown_blackhole", "warning_blackhole", "critical_blackhole")
"""Rule fields stored as 'true'/'false'."""

MATCH_FIELDS = ("entities", "regex_entities", "tags", "regex_tags")
"""A rule with any of these non-empty is specific; otherwise it is general."""


@dataclass(frozen=True)
class NotificationRule:
    """One notification rule of a contact; list fields are None when stored as null."""

    id: str
    contact_id: str
    entities: list[str] | None = None
    regex_entities: list[str] | None = None
    tags: list[str] | None = None
    regex_tags: list[str] | None = None
    time_restrictions: list[Any] | None = None
    unknown_media: list[str] | None = None
    warning_media: list[str] | None = None
    critical_media: list[str] | None = None
    unknown_blackhole: bool = False
    warning_blackhole: bool = False
    critical_blackhole: bool = False

    @property
    def is_specific(self) -> bool:
        """True when any of entities/regex_entities/tags/regex_tags is non-empty."""
        return any(getattr(self, name) for name in MATCH_FIELDS)

    def media_for(self, severity: str) -> list[str]:
        """The rule's media for a severity ([] for `ok` or a null list)."""
        if severity not in SEVERITIES:
            return []
        return list(getattr(self, f"{severity}_media") or [])

    def blackholes(self, severity: str) -> bool:
        """True when the rule drops every alert of this severity (`ok` never blackholes)."""
        return severity in SEVERITIES and bool(getattr(self, f"{severity}_blackhole"))

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of every field (lists as lists, booleans as bool)."""
        return asdict(self)


@dataclass(frozen=True)
class MediaChoice:
    """What a contact's rules decide for one notification."""

    media: tuple[str, ...] = ()
    blackholed: bool = False
    matched_rules: tuple[str, ...] = field(default=())
    verdicts: tuple[tuple[str, str | None], ...] = field(default=())
    """(rule id, None when it applies, else why not: a MISMATCH_REASONS key), in rule order."""


@dataclass(frozen=True)
class RuleInputs:
    """Which parts of a notification a contact's rules read besides its severity (`inputs_read`)."""

    entity: bool
    tags: bool
    time: bool


MISMATCH_REASONS = {
    "entities": "entity not in the rule's entities",
    "regex_entities": "entity does not match the rule's regex_entities",
    "tags": "a tag of the rule is missing",
    "regex_tags": "no tag matches one of the rule's regex_tags",
    "time_restrictions": "outside the rule's time restrictions",
    "invalid_regex": "the rule has an invalid regex",
    "overridden": "general rule: a specific rule matched",
}
"""Why a contact's rule did not apply to a notification (MediaChoice.verdicts)."""


# --- mapping to and from the stored hash ---------------------------------


def general_rule(contact_id: str, rule_id: str | None = None) -> NotificationRule:
    """The automatic general rule: all media for warning/critical, none for unknown, no blackholes."""
    return NotificationRule(
        id=rule_id or str(uuid.uuid4()), contact_id=contact_id, entities=[], regex_entities=[], tags=[],
        regex_tags=[], time_restrictions=[], unknown_media=None, warning_media=list(ALL_MEDIA),
        critical_media=list(ALL_MEDIA))


def rule_from_hash(rule_id: str, data: Mapping[str, str]) -> NotificationRule:
    """A rule from its `notification_rule:ID` hash; legacy `entity_tags` is read as `tags` when `tags` is absent."""
    data = dict(data)
    if "tags" not in data and "entity_tags" in data:
        data["tags"] = data["entity_tags"]
    fields: dict[str, Any] = {name: _json_list(rule_id, name, data.get(name)) for name in LIST_FIELDS}
    fields.update({name: str(data.get(name, "")).strip().lower() == "true" for name in BOOLEAN_FIELDS})
    return NotificationRule(id=data.get("id") or rule_id, contact_id=data.get("contact_id", ""), **fields)


def rule_to_hash(rule: NotificationRule) -> dict[str, str]:
    """The `notification_rule:ID` hash fields of a rule."""
    fields = {"id": rule.id, "contact_id": rule.contact_id}
    fields.update({name: json.dumps(getattr(rule, name)) for name in LIST_FIELDS})
    fields.update({name: "true" if getattr(rule, name) else "false" for name in BOOLEAN_FIELDS})
    return fields


def rule_from_fields(rule_id: str, contact_id: str, fields: Mapping[str, Any]) -> NotificationRule:
    """A rule from API-style fields (unknown keys ignored, null blackholes false); validate first."""
    values: dict[str, Any] = {name: fields.get(name) for name in LIST_FIELDS}
    values.update({name: bool(fields.get(name)) for name in BOOLEAN_FIELDS})
    return NotificationRule(id=rule_id, contact_id=contact_id, **values)


def update_rule_fields(rule: NotificationRule, fields: Mapping[str, Any]) -> NotificationRule:
    """A copy of `rule` with the given list/boolean fields replaced (others ignored); validate first."""
    changes = {k: v for k, v in fields.items() if k in LIST_FIELDS}
    changes.update({k: bool(v) for k, v in fields.items() if k in BOOLEAN_FIELDS})
    return replace(rule, **changes)


# --- validation (API, engine.md / api-v1.md 7.3) -------------------------

_VALIDATION_MESSAGES = (
    ("entities", "Rule entities must be a list of strings"),
    ("regex_entities", "Rule regex_entities must be a list of strings"),
    ("tags", "Rule tags must be a tag_set of strings"),
    ("regex_tags", "Rule regex_tags must be a tag_set of strings"),
    ("time_restrictions", "Rule time restrictions are invalid"),
    ("unknown_media", "Rule unknown_media must be a list of strings"),
    ("warning_media", "Rule warning_media must be a list of strings"),
    ("critical_media", "Rule critical_media must be a list of strings"),
    ("unknown_blackhole", "Rule unknown_blackhole must be true or false"),
    ("warning_blackhole", "Rule warning_blackhole must be true or false"),
    ("critical_blackhole", "Rule critical_blackhole must be true or false"),
)


def validate_rule_fields(fields: Mapping[str, Any]) -> list[str]:
    """API validation of rule fields: one message per failed check, in api-v1.md 7.3 order ([] = valid)."""
    return [message for messages in rule_field_errors(fields).values() for message in messages]


def rule_field_errors(fields: Mapping[str, Any]) -> dict[str, list[str]]:
    """The API's validation messages by the field they are about, in api-v1.md 7.3 order ({} = valid).

    The web UI shows them next to its form fields; validate_rule_fields lists them for the API.
    """
    errors: dict[str, list[str]] = {}
    for name, message in _VALIDATION_MESSAGES:
        value = fields.get(name)
        if name in BOOLEAN_FIELDS:
            ok = value is None or isinstance(value, bool)
        elif name == "time_restrictions":
            ok = _valid_restrictions(value)
        else:
            ok = value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value))
        problems = [message] if not ok else []
        if ok and name in ("regex_entities", "regex_tags") and value:
            problems = [f"Rule {name}: {problem}" for v in value if (problem := pattern_error(v))]
        if problems:
            errors[name] = problems
    return errors


def _valid_restrictions(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, list):
        return False
    try:
        for entry in value:
            validate_restriction(entry, long_names=False)
    except InvalidTimeRestriction:
        return False
    return True


# --- matching (engine.md 5.2 steps 1-4) ----------------------------------


def rule_matches(rule: NotificationRule, entity: str, tags: Iterable[str], now: int, zone: tzinfo) -> bool:
    """True when the rule's criteria all match (a general rule has none) and it is occurring at `now`."""
    return rule_mismatch(rule, entity, tags, now, zone) is None


def rule_mismatch(rule: NotificationRule, entity: str, tags: Iterable[str], now: int, zone: tzinfo) -> str | None:
    """None when the rule matches at `now`; otherwise the first criterion it fails (a MISMATCH_REASONS key)."""
    try:
        failed = _criteria_mismatch(rule, entity, set(tags))
    except InvalidPattern as exc:
        log.warning("notification rule %s (contact %s): invalid regex (%s); rule ignored",
                    rule.id, rule.contact_id, exc)
        return "invalid_regex"
    if failed is None and not restrictions_occurring(rule.time_restrictions, now, zone):
        return "time_restrictions"
    return failed


def select_media(rules: Sequence[NotificationRule], entity: str, tags: Iterable[str], severity: str,
                 now: int, zone: tzinfo) -> MediaChoice:
    """Apply a contact's rules to a notification: matching, specific over general, blackholes, media union."""
    tag_list = list(tags)
    verdicts = {rule.id: rule_mismatch(rule, entity, tag_list, now, zone) for rule in rules}
    matching = [rule for rule in rules if verdicts[rule.id] is None]
    if any(rule.is_specific for rule in matching):
        verdicts.update((rule.id, "overridden") for rule in matching if not rule.is_specific)
        matching = [rule for rule in matching if rule.is_specific]
    ids = tuple(rule.id for rule in matching)
    found = tuple(verdicts.items())
    if any(rule.blackholes(severity) for rule in matching):
        return MediaChoice(blackholed=True, matched_rules=ids, verdicts=found)
    media: list[str] = []
    for rule in matching:
        media += [m for m in rule.media_for(severity) if m not in media]
    return MediaChoice(media=tuple(media), matched_rules=ids, verdicts=found)


def inputs_read(rules: Sequence[NotificationRule]) -> RuleInputs:
    """What `select_media` reads of a notification for these rules, besides its severity: its entity, its tags,
    the time. Two notifications alike in what is read get the same MediaChoice."""
    return RuleInputs(entity=any(r.entities or r.regex_entities for r in rules),
                      tags=any(r.tags or r.regex_tags for r in rules),
                      time=any(r.time_restrictions for r in rules))


def _criteria_mismatch(rule: NotificationRule, entity: str, tags: set[str]) -> str | None:
    if rule.entities and entity not in rule.entities:
        return "entities"
    if rule.regex_entities and not all(p.search(entity) for p in _patterns(rule.regex_entities)):
        return "regex_entities"
    if rule.tags and not all(t in tags for t in rule.tags):
        return "tags"
    if rule.regex_tags and not all(any(p.search(t) for t in tags) for p in _patterns(rule.regex_tags)):
        return "regex_tags"
    return None


def _patterns(sources: Sequence[str]) -> list[Pattern]:
    """Compile every pattern first (RE2, cached), so an invalid one excludes the rule even after a failing match."""
    return [compile_pattern(source) for source in sources]


def _json_list(rule_id: str, name: str, text: str | None) -> Any:
    if text is None or text == "":
        return None
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    if value is not None and not isinstance(value, list):
        log.warning("notification rule %s: field %s is not a JSON list (%.100r); read as null", rule_id, name, text)
        return None
    return value
