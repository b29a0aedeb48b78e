"""Entity and check names that fit the `ENTITY:CHECK` layout: the one rule every way in applies. Pure.

Check ids are `ENTITY:CHECK`, in key names (`check:ENTITY:CHECK`, `ENTITY:CHECK:states`)
and in the API, and are split at the **first** ':' (keys.split_check_id, docs/spec/engine.md
section 0). An entity name holding ':' therefore makes a check that reads back as another
entity's (`web:01` + `HTTP` is `web` + `01:HTTP`); a check name may hold ':'. Control
characters (U+0000-U+001F, U+007F) in either name break the UI's paths, log lines and the
line-based receivers. Events (flapjack_py.model.events), the API's entity and check writes and
`flapjack import` refuse such names; receivers that build names from another system's
labels (flapjack_py.intake.alertmanager) rewrite them with fitted_entity_name instead.
"""

from __future__ import annotations

import re

REPLACEMENT = "-"
"""What fitted_entity_name and fitted_check_name put in place of a character a name cannot hold."""
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_UNFIT_IN_ENTITY = re.compile("[:\x00-\x1f\x7f]")


def entity_name_problem(name: str) -> str | None:
    """Why `name` cannot be an entity name (a ':' or a control character), or None when it can."""
    if _UNFIT_IN_ENTITY.search(name) is None:
        return None
    if ":" in name:
        return "entity name must not contain a colon (':' separates entity and check in check ids)"
    return _control_problem("entity", name)


def check_name_problem(name: str) -> str | None:
    """Why `name` cannot be a check name (a control character), or None when it can (':' is allowed)."""
    return _control_problem("check", name)


def fitted_entity_name(text: str) -> str:
    """`text` as an entity name: every ':' and control character becomes '-' (`::1` -> `--1`, `web:01` -> `web-01`).

    The dashes follow the ipv6-literal.net convention for IPv6 addresses in host names.
    """
    return _UNFIT_IN_ENTITY.sub(REPLACEMENT, text)


def fitted_check_name(text: str) -> str:
    """`text` as a check name: every control character becomes '-' (':' is kept)."""
    return _CONTROL.sub(REPLACEMENT, text)


def _control_problem(what: str, name: str) -> str | None:
    found = _CONTROL.search(name)
    if found is None:
        return None
    return f"{what} name has a control character (U+{ord(found.group()):04X} at offset {found.start()})"
