"""Every Redis key name flapjack-py reads or writes, one function per key family.

Names follow seed 004 (Flapjack's data structures in Redis) plus the 1.x keys
listed in engine.md section 11. No other module holds a key literal: grep here.
`E` is an entity name, `C` a check name, `E:C` a check id.
"""

from __future__ import annotations

# --- event queue, archive, rejects, counters -------------------------------


def events(queue: str = "events") -> str:
    """list: JSON events pushed by feeders (LPUSH), taken from the right."""
    return queue


def events_in_flight(host: str, pid: int) -> str:
    """list: events taken by executive HOST:PID and not yet committed."""
    return f"events_processing:{host}:{pid}"


def events_in_flight_pattern() -> str:
    """SCAN pattern matching every executive's in-flight list."""
    return "events_processing:*"


def events_handoff(executive_id: str) -> str:
    """list: events of checks executive HOST:PID holds, handed over by other executives (taken before `events`)."""
    return f"events_handoff:{executive_id}"


def events_handoff_pattern() -> str:
    """SCAN pattern matching every executive's hand-off list."""
    return "events_handoff:*"


def event_claims() -> str:
    """hash: claim key (folded E:C, see scripts.TAKE_EVENTS) -> HOST:PID of the executive applying its events."""
    return "event_claims"


def executives_taking() -> str:
    """set: HOST:PID of every executive that took events and was not recovered since: the executives whose
    in-flight and hand-off lists recovery looks at (with the owners in event_claims), instead of a keyspace SCAN."""
    return "executives_taking"


def executives_scanned() -> str:
    """string: set once the keyspace was scanned for the lists of executives older than `executives_taking`."""
    return "executives_taking:scanned"


def event_counter_sequence() -> str:
    """string: the last event counter given out (equals event_counters all unless events were taken back)."""
    return "event_counter_sequence"


def events_archive(hour: str) -> str:
    """list + TTL: raw events taken in UTC hour YYYYMMDDHH."""
    return f"events_archive:{hour}"


def events_archive_pattern() -> str:
    """SCAN pattern matching every events_archive:* list."""
    return "events_archive:*"


def known_events_archive_keys() -> str:
    """set: names of the events_archive:* lists."""
    return "known_events_archive_keys"


def events_rejected(hour: str) -> str:
    """list: raw text of invalid events taken in UTC hour YYYYMMDDHH."""
    return f"events_rejected:{hour}"


def events_rejected_reasons(hour: str) -> str:
    """list: JSON {"reason", "bytes", "time"} per rejected event of UTC hour YYYYMMDDHH, in events_rejected order.

    Not a Flapjack key: Flapjack only logs the reason.
    """
    return f"events_rejected_reasons:{hour}"


def events_rejected_pattern() -> str:
    """SCAN pattern matching every events_rejected:* list."""
    return "events_rejected:*"


def events_rejected_reasons_pattern() -> str:
    """SCAN pattern matching every events_rejected_reasons:* list."""
    return "events_rejected_reasons:*"


def event_counters() -> str:
    """hash: all/ok/failure/action/invalid counters since the data began."""
    return "event_counters"


def instance_event_counters(host: str, pid: int) -> str:
    """hash + TTL: the same counters for one executive instance."""
    return f"event_counters:{host}:{pid}"


def executive_instance(host: str, pid: int) -> str:
    """hash + TTL: boot_time of one executive instance; its heartbeat."""
    return f"executive_instance:{host}:{pid}"


def executive_heartbeat(host: str, pid: int) -> str:
    """string + short TTL: exists while executive HOST:PID is alive; its in-flight list is orphaned once gone."""
    return f"executive_heartbeat:{host}:{pid}"


def executive_heartbeat_pattern() -> str:
    """SCAN pattern matching every executive_heartbeat:* key."""
    return "executive_heartbeat:*"


def executive_instance_pattern() -> str:
    """SCAN pattern matching every executive_instance:* hash."""
    return "executive_instance:*"


def receiver_counters(name: str) -> str:
    """hash: counters of receiver NAME: read, pushed, rejected, rejected:REASON, updated_at (unix time)."""
    return f"receiver_counters:{name}"


def receiver_names() -> str:
    """set: names of the receivers that have counters."""
    return "receivers"


# --- checks ----------------------------------------------------------------


def check_id(entity: str, check: str) -> str:
    """The `E:C` id of a check (not a key by itself)."""
    return f"{entity}:{check}"


def split_check_id(event_id: str) -> tuple[str, str]:
    """Split `E:C` at the first `:` into (entity, check)."""
    entity, _, check = event_id.partition(":")
    return entity, check


def check(entity: str, check: str) -> str:
    """hash: state, last_change, last_update, summary, details, perfdata, delays."""
    return f"check:{entity}:{check}"


def check_states(entity: str, check: str) -> str:
    """list: timestamps of state changes, oldest first."""
    return f"{entity}:{check}:states"


def check_state_at(entity: str, check: str, ts: int | str) -> str:
    """string: the state entered at `ts`."""
    return f"{entity}:{check}:{ts}:state"


def check_summary_at(entity: str, check: str, ts: int | str) -> str:
    """string: the summary of the state change at `ts`."""
    return f"{entity}:{check}:{ts}:summary"


def check_details_at(entity: str, check: str, ts: int | str) -> str:
    """string: the details of the state change at `ts`."""
    return f"{entity}:{check}:{ts}:details"


def check_count_at(entity: str, check: str, ts: int | str) -> str:
    """string: the event counter of the state change at `ts`."""
    return f"{entity}:{check}:{ts}:count"


def check_latency_at(entity: str, check: str, ts: int | str) -> str:
    """string: check latency at `ts` (seed key; never written, purged)."""
    return f"{entity}:{check}:{ts}:check_latency"


def sorted_state_timestamps(entity: str, check: str) -> str:
    """zset: member = score = timestamp of each state change."""
    return f"{entity}:{check}:sorted_state_timestamps"


def check_actions(entity: str, check: str) -> str:
    """hash: timestamp -> action state (acknowledgement, test_notifications)."""
    return f"{entity}:{check}:actions"


def failed_checks() -> str:
    """zset: E:C of failing checks, score = time the failure state began."""
    return "failed_checks"


def current_checks(entity: str) -> str:
    """zset: enabled checks of an entity, score = last service event."""
    return f"current_checks:{entity}"


def current_entities() -> str:
    """zset: entities with current checks, score = last service event."""
    return "current_entities"


def all_checks() -> str:
    """zset: every E:C ever seen, score = last event time."""
    return "all_checks"


def all_checks_for(entity: str) -> str:
    """zset: every check name ever seen on an entity."""
    return f"all_checks:{entity}"


def checks_by_hash() -> str:
    """hash: ack hash (8 hex chars) -> E:C."""
    return "checks_by_hash"


def check_hashes_by_id() -> str:
    """hash: E:C -> ack hash."""
    return "check_hashes_by_id"


def check_tag(tag: str) -> str:
    """set: E:C ids carrying a check tag."""
    return f"check_tag:{tag}"


def known_check_tags() -> str:
    """set: every check tag in use."""
    return "known_tag:check_tag"


def check_tags(entity: str, check: str) -> str:
    """set: the tags of check E:C, the per-check reverse of check_tag:TAG (not a Flapjack key: reading a
    check's tags costs one set read whatever the number of tags in use)."""
    return f"{check_id(entity, check)}:check_tags"


# --- entities --------------------------------------------------------------


def entity_ids_by_name() -> str:
    """hash: entity name -> entity id."""
    return "all_entity_ids_by_name"


def entity_names_by_id() -> str:
    """hash: entity id -> entity name."""
    return "all_entity_names_by_id"


def entity_tag(tag: str) -> str:
    """set: entity ids carrying a tag."""
    return f"entity_tag:{tag}"


def known_entity_tags() -> str:
    """set: every entity tag in use."""
    return "known_tag:entity_tag"


def legacy_known_entity_tags() -> str:
    """set: Flapjack 1.6's name for the entity tag index (read on import)."""
    return "known_tags:entity_tag"


def contacts_for(entity_id: str, check: str | None = None) -> str:
    """set: contact ids of an entity (or of one of its checks)."""
    if check is None:
        return f"contacts_for:{entity_id}"
    return f"contacts_for:{entity_id}:{check}"


def contacts_for_pattern() -> str:
    """SCAN pattern matching every contacts_for:* set."""
    return "contacts_for:*"


ALL_ENTITIES_ID = "ALL"
"""Pseudo-entity id whose contacts are told about every check."""


# --- maintenance -----------------------------------------------------------


def maintenance(entity: str, check: str, kind: str) -> str:
    """string + TTL: start ts of the `kind` (scheduled/unscheduled) window in force."""
    return f"{entity}:{check}:{kind}_maintenance"


def maintenances(entity: str, check: str, kind: str) -> str:
    """zset: member = start ts, score = duration, of every `kind` window."""
    return f"{entity}:{check}:{kind}_maintenances"


def maintenance_summary(entity: str, check: str, kind: str, start: int | str) -> str:
    """string: summary of the `kind` window starting at `start`."""
    return f"{entity}:{check}:{start}:{kind}_maintenance:summary"


def maintenance_actor(entity: str, check: str, kind: str, start: int | str) -> str:
    """hash (flapjack-py addition): who made the `kind` window starting at `start`: actor, channel."""
    return f"{entity}:{check}:{start}:{kind}_maintenance:actor"


def sorted_maintenance_timestamps(entity: str, check: str, kind: str) -> str:
    """zset: member = score = start ts of every `kind` window."""
    return f"{entity}:{check}:sorted_{kind}_maintenance_timestamps"


def maintenances_pattern(kind: str) -> str:
    """SCAN pattern matching every check's E:C:<kind>_maintenances zset."""
    return f"*:{kind}_maintenances"


def maintenances_suffix(kind: str) -> str:
    """What follows `E:C` in a name matched by maintenances_pattern (strip it to get E:C)."""
    return f":{kind}_maintenances"


def maintenance_series_ids() -> str:
    """set: ids of every recurring scheduled maintenance series (flapjack-py addition)."""
    return "maintenance_series"


def maintenance_series(series_id: str) -> str:
    """hash: one maintenance series: rrule, timezone, start, duration, summary, checks/entities/tags (JSON)."""
    return f"maintenance_series:{series_id}"


def maintenance_series_occurrences(series_id: str) -> str:
    """zset: member = JSON [entity, check, start] of each window materialised for the series, score = start."""
    return f"maintenance_series:{series_id}:occurrences"


# --- on-call schedules (flapjack-py addition) -------------------------------


def schedule_ids() -> str:
    """set: ids of every on-call schedule."""
    return "schedules"


def schedule(schedule_id: str) -> str:
    """hash: one on-call schedule: `id`, `name`, `json` (its layers and overrides, schedule_data's form)."""
    return f"schedule:{schedule_id}"


# --- escalation policies (flapjack-py addition) -------------------------------


def escalation_policies() -> str:
    """hash: every escalation policy: field = policy id, value = its JSON (escalation.policy_to_json)."""
    return "escalation_policy_by_id"


def escalation_policies_for(entity_id: str) -> str:
    """set: ids of the escalation policies an entity (or the pseudo-entity ALL) links to."""
    return f"escalation_policies_for:{entity_id}"


def escalation_policy_entities(policy_id: str) -> str:
    """set: ids of the entities (and ALL) linked to an escalation policy (the reverse of escalation_policies_for)."""
    return f"escalation_policy_entities:{policy_id}"


def escalation(entity: str, check: str) -> str:
    """string: JSON of the escalation of `E:C` (escalation.state_to_json), running or ended (`ended` set)."""
    return f"escalation:{entity}:{check}"


def escalations_due() -> str:
    """zset: member = E:C with a running escalation, score = when its next step is due (unix seconds)."""
    return "escalations_due"


# --- dependencies (flapjack-py addition) ---------------------------------------


def dependencies() -> str:
    """hash: dependency id -> JSON {parent, child, created_at} (flapjack_py.model.dependencies)."""
    return "dependencies"


def dependencies_version() -> str:
    """string: a counter raised by every dependency write; the executives reload their copy when it moves."""
    return "dependencies:version"


# --- incidents (flapjack-py addition) ----------------------------------------


def incident_group(group: str) -> str:
    """hash: the live state of incident group GROUP (`entity=E`, `tag=T`, `check=E:C`): `current` (the
    incident new problems join), `i:ID` (JSON of open incident ID), `c:E:C` (the open incident of a failing
    check), `p:ID:[contact, medium]` (unix time of the last message to it); WATCHed by the executives."""
    return f"incident_group:{group}"


def incident(incident_id: str) -> str:
    """hash: incident ID (id, group, title, state, opened_at, resolved_at, acknowledged_at/_by/_channel) and
    `c:E:C` -> unix time check E:C joined it."""
    return f"incident:{incident_id}"


def incident_timeline(incident_id: str) -> str:
    """list: JSON entries of incident ID, oldest first (model/incidents.py entry)."""
    return f"incident:{incident_id}:timeline"


def check_incident(entity: str, check: str) -> str:
    """string: the id of the latest incident `E:C` joined (kept after it is resolved, for the check page)."""
    return f"{entity}:{check}:incident"


def incidents() -> str:
    """zset: incident ids -> unix time opened."""
    return "incidents"


# --- notifications ---------------------------------------------------------


def last_notification(entity: str, check: str, kind: str) -> str:
    """string: unix time of the last `kind` notification (problem, warning, ...)."""
    return f"{entity}:{check}:last_{kind}_notification"


def notifications(entity: str, check: str, kind: str) -> str:
    """list: unix times of every `kind` notification."""
    return f"{entity}:{check}:{kind}_notifications"


def flapping_checks() -> str:
    """zset: E:C of flapping checks -> since when (flapjack-py addition, flapping.py)."""
    return "flapping_check_ids"


def stale_checks() -> str:
    """zset: E:C of checks gone stale -> when they were last heard from (flapjack-py addition, staleness.py)."""
    return "stale_check_ids"


def stale_sweep_lock() -> str:
    """string + TTL: held by the executive sweeping for stale checks this period (one at a time)."""
    return "stale_sweep_lock"


def paged_for(entity: str, check: str) -> str:
    """hash: who was paged for the current problem episode of `E:C`: JSON [contact, medium] -> unix time last
    paged; the recovery goes to each of them and deletes it (flapjack-py addition, store/paged.py)."""
    return f"{entity}:{check}:paged"


def check_decisions(entity: str, check: str) -> str:
    """list: JSON decision traces of the check's latest notified or filtered events, newest first (bounded by
    executive.decision_trace_length; flapjack-py addition, flapjack_py/notify/decisions.py)."""
    return f"{entity}:{check}:decisions"


# --- contacts, media, rules ------------------------------------------------


def contact(contact_id: str) -> str:
    """hash: first_name, last_name, email."""
    return f"contact:{contact_id}"


def contact_pattern() -> str:
    """SCAN pattern matching every contact:* hash."""
    return "contact:*"


def contact_media(contact_id: str) -> str:
    """hash: medium -> address."""
    return f"contact_media:{contact_id}"


def contact_media_intervals(contact_id: str) -> str:
    """hash: medium -> repeat interval in seconds."""
    return f"contact_media_intervals:{contact_id}"


def contact_media_rollup_thresholds(contact_id: str) -> str:
    """hash: medium -> number of alerting checks that starts rollup."""
    return f"contact_media_rollup_thresholds:{contact_id}"


def contact_tz(contact_id: str) -> str:
    """string: the contact's time zone name."""
    return f"contact_tz:{contact_id}"


def contact_pagerduty(contact_id: str) -> str:
    """hash: subdomain, token, username, password."""
    return f"contact_pagerduty:{contact_id}"


def contact_tag(tag: str) -> str:
    """set: contact ids carrying a tag."""
    return f"contact_tag:{tag}"


def contact_notification_rules(contact_id: str) -> str:
    """set: rule ids of a contact."""
    return f"contact_notification_rules:{contact_id}"


def notification_rule(rule_id: str) -> str:
    """hash: the rule's fields (lists JSON-encoded, booleans 'true'/'false')."""
    return f"notification_rule:{rule_id}"


def configuration_patterns() -> tuple[str, ...]:
    """SCAN patterns of who is told about what (contacts, media, rules, entity contacts, check tags, dependencies),
    no check state: what `flapjack backtest` copies into its scratch database."""
    return (contact_pattern(), contact_media("*"), contact_media_intervals("*"), contact_media_rollup_thresholds("*"),
            contact_tz("*"), contact_pagerduty("*"), contact_tag("*"), contact_notification_rules("*"),
            notification_rule("*"), contacts_for_pattern(), entity_ids_by_name(), entity_names_by_id(),
            entity_tag("*"), known_entity_tags(), check_tag("*"), known_check_tags(), dependencies(),
            dependencies_version())


def ttl_key_patterns() -> tuple[str, ...]:
    """SCAN patterns of the keys the executive gives a TTL that times notifications: intervals, rollup holds,
    maintenance in force (a replay moves their TTLs with its clock)."""
    return (drop_alerts_for_contact("*") + "*", drop_rollup_alerts_for_contact("*", "*"), maintenance("*", "*", "*"))


def drop_alerts_for_contact(contact_id: str, *parts: str) -> str:
    """string + TTL: holds back alerts; parts = (), (M,), (M, E:C) or (M, E:C, STATE)."""
    return ":".join(("drop_alerts_for_contact", contact_id, *parts))


def drop_rollup_alerts_for_contact(contact_id: str, medium: str) -> str:
    """string + TTL: holds back rollup alerts on a medium for one interval."""
    return f"drop_rollup_alerts_for_contact:{contact_id}:{medium}"


def contact_alerting_checks(contact_id: str, medium: str) -> str:
    """zset: E:C alerting on a contact's medium, score = time added."""
    return f"contact_alerting_checks:{contact_id}:media:{medium}"


# --- alerts ----------------------------------------------------------------


def alert(alert_id: str) -> str:
    """hash: one alert's record (contract section 6)."""
    return f"alert:{alert_id}"


def alerts() -> str:
    """zset: every alert id, score = unix time."""
    return "alerts"


def alerts_by_contact(contact_id: str, medium: str | None = None) -> str:
    """zset: alert ids of a contact (or of one of its media)."""
    if medium is None:
        return f"alerts_by_contact:{contact_id}"
    return f"alerts_by_contact:{contact_id}:{medium}"


def alerts_by_check(entity: str, check: str) -> str:
    """zset: alert ids about a check."""
    return f"alerts_by_check:{entity}:{check}"


def alerts_by_time(date: str) -> str:
    """zset: alert ids generated on UTC date YYYYMMDD."""
    return f"alerts_by_time:{date}"


def alerts_by_time_pattern() -> str:
    """SCAN pattern matching every alerts_by_time:* zset."""
    return "alerts_by_time:*"


# --- ack codes (flapjack-py addition: acknowledging by SMS, email reply or call) --------


def ack_code(code: str) -> str:
    """string + TTL: an ack code (upper case) -> "ISSUED E:C" (unix time, the check it acknowledges); open
    until the check recovers (`check:E:C`'s field `ack_closed`, store/ack_codes.py)."""
    return f"ack_code:{code}"


def ack_code_counter() -> str:
    """string: codes handed out so far (INCRBY reserves a block of them for a notifier)."""
    return "ack_codes:issued"


def email_reply_uids(mailbox: str) -> str:
    """set: UIDVALIDITY:UID of the messages of an IMAP mailbox the email-reply poller has handled."""
    return f"email_replies:seen:{mailbox}"


# --- gateways --------------------------------------------------------------


def chat_message(medium: str, room: str, message_id: str) -> str:
    """string (JSON) + TTL: the alert a chat message posted by gateway MEDIUM (slack, mattermost, matrix) in ROOM
    (channel or room id) carries, {check, alert_id}: buttons, replies and reactions on it act on that check."""
    return f"chat_message:{medium}:{room}:{message_id}"


def chat_thread(medium: str, check_id: str) -> str:
    """hash + TTL: room -> JSON {message_id, alert_id} of the last problem alert about CHECK_ID posted there by
    gateway MEDIUM: the message an acknowledgement or recovery updates or answers in its thread."""
    return f"chat_thread:{medium}:{check_id}"


def chat_room(medium: str, address: str) -> str:
    """string + TTL: the room gateway MEDIUM opened for ADDRESS (a Matrix user id: their direct room), so a
    restarted gateway uses it again instead of opening another."""
    return f"chat_room:{medium}:{address}"


def pagerduty_acks_running() -> str:
    """string + TTL: semaphore held while a PagerDuty ack poll runs."""
    return "sem_pagerduty_acks_running"


def gateway_breaker(medium: str) -> str:
    """hash + TTL (refreshed while open): the circuit breaker of gateway MEDIUM while its server refuses:
    `since`, `step`, `next_probe` (unix times, seconds), `server` (SMTP, PagerDuty ...) and the last `error`.
    Absent: closed."""
    return f"gateway_breaker:{medium}"


def contact_mass_update_lock() -> str:
    """string + TTL: the API's lock around contact, media and PagerDuty writes."""
    return "semaphores:contact_mass_update"


# --- metrics (flapjack-py's own, outside Flapjack's layout) -----------------


def metrics_alerts() -> str:
    """hash: `MEDIUM|TYPE|STATUS` -> number of alerts that reached that status (monotonic counters)."""
    return "flapjack_metrics:alerts"


def metrics_delivery_seconds(medium: str) -> str:
    """hash: histogram of enqueue -> delivered seconds of a medium: bucket upper bound -> count, plus
    `sum` and `count`."""
    return f"flapjack_metrics:delivery_seconds:{medium}"


def metrics_delivery_seconds_pattern() -> str:
    """SCAN pattern matching every metrics_delivery_seconds hash."""
    return "flapjack_metrics:delivery_seconds:*"


def metrics_batch_seconds() -> str:
    """hash: histogram of the executive's batch processing seconds: bucket upper bound -> count, `sum`, `count`."""
    return "flapjack_metrics:batch_seconds"


def metrics_rejected() -> str:
    """hash: reject reason class -> number of events rejected for it (monotonic counters)."""
    return "flapjack_metrics:rejected"


# --- web users, tokens and sessions (flapjack-py only; outside Flapjack 1.x's key space) ---


def web_users() -> str:
    """hash: user name -> JSON {"role", "password_hash" (argon2), "created"}."""
    return "flapjack-py:web:users"


def web_tokens() -> str:
    """hash: SHA-256 hex of an API token -> JSON {"id", "user", "created"}; the token itself is never stored."""
    return "flapjack-py:web:tokens"


def web_secret_key() -> str:
    """string: the key that signs session cookies and CSRF tokens, shared by every web process."""
    return "flapjack-py:web:secret_key"


def web_login_limits_prefix() -> str:
    """Prefix of Flask-Limiter's counters of failed logins (per user name and per client address)."""
    return "flapjack-py:web:login_limits"


# --- flapjack bench (its own keys, never touched by the engine) --------------


def bench_reference_queue() -> str:
    """list: the prefilled list the bench's reference LMOVEs from (events-sized strings)."""
    return "bench:reference:queue"


def bench_reference_in_flight() -> str:
    """list: where the bench's reference LMOVEs to."""
    return "bench:reference:in_flight"


def bench_reference_job(n: int) -> str:
    """hash: one alert-sized job written by the bench's reference."""
    return f"bench:reference:job:{n}"


def bench_reference_jobs() -> str:
    """list: ids of the jobs written by the bench's reference."""
    return "bench:reference:jobs"


def bench_reference_pattern() -> str:
    """SCAN pattern matching every key of the bench's reference."""
    return "bench:reference:*"


_HISTORY_SUFFIXES = (":state", ":summary", ":details", ":count", ":check_latency")
_FAMILY_PREFIXES = (("alert:", "alert_records"), ("alerts", "alert_indexes"), ("rq:", "rq_jobs"),
                    ("check:", "checks"), ("drop_", "intervals"), ("contact", "contacts"),
                    ("events", "events"), ("bench:", "bench"))


def key_family(name: str) -> str:
    """The family of a key for memory reports: state_history, alert_records, rq_jobs, checks, ... or other
    (`notifications`: the last_<kind>_notification facts; `notification_times`: the <kind>_notifications logs)."""
    if name.endswith((":states", ":sorted_state_timestamps")):
        return "state_history"
    if name.endswith(_HISTORY_SUFFIXES) and name.rsplit(":", 2)[-2].isdigit():
        return "state_history"
    if name.startswith("drop_"):  # interval keys end with the state: drop_alerts_for_contact:...:test_notifications
        return "intervals"
    if name.endswith("_notifications"):
        return "notification_times"
    if name.endswith("_notification"):
        return "notifications"
    if name.endswith(":decisions"):
        return "decisions"
    for prefix, family in _FAMILY_PREFIXES:
        if name.startswith(prefix):
            return family
    return "other"

# --- health and watchdog (flapjack-py additions) ----------------------------


def heartbeats() -> str:
    """zset: heartbeat key name (executive_heartbeat:* / gateway_heartbeat:*) -> unix time of its last beat."""
    return "heartbeats"


def gateway_heartbeat(medium: str, host: str, pid: int) -> str:
    """string (JSON) + short TTL: exists while a worker of gateway MEDIUM runs as HOST:PID."""
    return f"gateway_heartbeat:{medium}:{host}:{pid}"


def queue_head() -> str:
    """hash: `fingerprint` of the event at the head of the queue and `since` (unix time) it has been there."""
    return "health:queue_head"


def watchdog_lock() -> str:
    """string + TTL: held by the one watchdog deciding whether to send a down/back alert."""
    return "watchdog:lock"


def watchdog_state() -> str:
    """hash: `status` (ok|down) the watchdogs last announced, `since` (unix time), `reasons` (JSON list)."""
    return "watchdog:state"


def watchdog_ping() -> str:
    """string + TTL (watchdog.ping_interval): set by the watchdog that requested ping_url this interval."""
    return "watchdog:ping"


def rate_samples() -> str:
    """list: `TIME EVENTS QUEUE` samples (unix time, event_counters `all`, events queue length), newest first,
    one per 30 s bucket, capped (flapjack_py.store.samples): the UI's sparklines."""
    return "flapjack_metrics:rate_samples"


# --- audit trail (flapjack-py addition) --------------------------------------


def audit() -> str:
    """stream: one entry per write (time, actor, channel, address, action, target, outcome), append-only,
    trimmed by age (flapjack_py.store.audit)."""
    return "audit"


def teams() -> str:
    """hash: team id -> JSON {name, members, entities, tags, schedules, policies, contacts} (flapjack-py
    addition, flapjack_py.store.teams)."""
    return "teams"


def audit_token_seen(token_id: str) -> str:
    """`audit:token_seen:ID`: set (for an hour) when token ID's use was last written to the audit trail."""
    return f"audit:token_seen:{token_id}"
