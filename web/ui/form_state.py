"""A posted form shown again with a message next to each refused field (the UI's people forms).

`FormState` holds what was typed and the messages by field name; templates ask
`forms(name)` for the state of one form on the page (empty unless that form
was the one refused). Every text field has a length limit, checked here as well
as by the browser (`maxlength`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from werkzeug.datastructures import MultiDict

NAME_LIMIT = 200
"""Longest name, email, subdomain or user name accepted from a form, in characters."""
ID_LIMIT = 100
"""Longest contact id, in characters."""
ADDRESS_LIMIT = 500
"""Longest medium address or credential, in characters."""
LIST_LIMIT = 100
"""Most entries in one list field of a rule (entities, tags, regexes)."""
NUMBER_LIMIT = 12
"""Longest number (interval, rollup threshold) accepted, in characters."""


@dataclass
class FormState:
    """What one form held when posted (`values`), and why it was refused (`errors`: field -> message)."""

    name: str
    values: Mapping[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def value(self, name: str, default: Any = "") -> Any:
        """The posted value of field `name`, else `default` (the stored value)."""
        return self.values.get(name, default) if self.values else default

    def values_of(self, name: str, default: list[str]) -> list[str]:
        """Every posted value of a multi-value field (checkboxes), else `default`."""
        if not self.values:
            return default
        getlist = getattr(self.values, "getlist", None)
        return list(getlist(name)) if getlist else list(self.values.get(name, []))

    def error(self, name: str) -> str:
        return self.errors.get(name, "")

    def text(self, name: str, limit: int = NAME_LIMIT) -> str:
        """The stripped text of field `name`; records an error when it is longer than `limit`."""
        value = str(self.values.get(name, "") or "").strip()
        if len(value) > limit:
            self.errors.setdefault(name, f"At most {limit} characters")
        return value

    def lines(self, name: str, limit: int = NAME_LIMIT, *, commas: bool = True) -> list[str]:
        """The non-empty lines (and, with `commas`, comma-separated parts) of a list field, each at most `limit`."""
        raw = str(self.values.get(name, "") or "")
        parts = [part.strip() for line in raw.splitlines() for part in (line.split(",") if commas else [line])]
        found = [part for part in parts if part]
        if len(found) > LIST_LIMIT:
            self.errors.setdefault(name, f"At most {LIST_LIMIT} entries")
        if any(len(part) > limit for part in found):
            self.errors.setdefault(name, f"Each entry at most {limit} characters")
        return found


def posted(name: str, form: MultiDict[str, str]) -> FormState:
    """The state of form `name` from the request's form data."""
    return FormState(name, form)


def lookup(failed: FormState | None) -> Any:
    """The `forms(name)` template function: the refused form's state for its name, an empty state otherwise."""
    def forms(name: str) -> FormState:
        return failed if failed is not None and failed.name == name else FormState(name)
    return forms
