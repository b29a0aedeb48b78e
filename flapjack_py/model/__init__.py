"""The domain, pure: events and names, check state and facts, verdicts, flapping and staleness,
notification rules and time restrictions, the notification record, heartbeats. Every stage and the store use it."""
