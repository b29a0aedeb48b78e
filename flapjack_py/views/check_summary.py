"""The facts a check page leads with (pure): who was told about the problem now shown (the one source of "who
was told" on the page), who acknowledged it and when, and rule ids in decision traces named for people."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from flapjack_py.views.rows import Alert, CheckRow

TOLD_SHOWN = 10
"""Most alerts the summary card lists."""
RULE_ID = re.compile(r"\brule ([0-9a-fA-F-]{8,64})\b")


def told_about(row: CheckRow) -> list[Alert]:
    """The alerts about the state the row is in (sent since it began; newest first); the latest few when none."""
    since = row.since
    current = [a for a in row.alerts if since and a.timestamp and a.timestamp >= since]
    return current[:TOLD_SHOWN]


def named_rules(lines: Sequence[str], labels: Mapping[str, str]) -> list[str]:
    """Trace lines with each `rule <id>` replaced by the rule's label (`ann's rule 2`) when known."""
    return [RULE_ID.sub(lambda m: f"rule {labels.get(m.group(1), m.group(1))}", line) for line in lines]


def rule_ids_in(lines: Sequence[str]) -> list[str]:
    """Every rule id the trace lines name, once each."""
    return list(dict.fromkeys(m.group(1) for line in lines for m in RULE_ID.finditer(line)))
