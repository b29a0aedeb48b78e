"""The registry of gateways: which media exist, and each one's declaration (settings model, sender).

A gateway is declared in one place, its module in gateways/: a `GatewayDeclaration` (medium name, settings
model, sender) named under the entry-point group `flapjack_py.gateways` in pyproject.toml, the entry point's
name being the medium (`email = "gateways.email:GATEWAY"`). Config validation, the notifier, enqueueing,
metrics, the web app's media lists and the worker all ask this module.

Why entry points: the engine may not import gateways/ (an import-linter contract: dependencies point down),
yet it must know every medium and validate each configured gateway's settings. Entry points give the list of
media from the installed package's metadata without importing anything, and a declaration (importing its
module) only when it is needed: validating a `gateways.<medium>` section that is present, or running that
medium's worker. The other way, each declaration moved into the engine, would leave a gateway in two places
(its declaration here, its sender there) joined by its name. The price: the package must be installed
(`pip install -e .`, as scripts/venv does) for its entry points to exist, and a process whose config has a
gateway's section imports that gateway's module (and its library: boto3 for sns) to validate it.

The alert text stays the engine's (style.md 11): a medium with wording of its own has templates in
flapjack_py/templates/<medium>/, others use templates/text/; the media whose alerts carry a subject
(notify/render.py) and those whose address is a credential (config/redaction.py) are listed where alerts are
rendered and logs redacted, which import no gateway. The automatic general rule's media are Flapjack 1.6's
list (model.rules.ALL_MEDIA, engine.md 5.2), a compatibility fact rather than the gateways there are.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.types import validated
from flapjack_py.errors import ConfigError
from flapjack_py.model.rules import ALL_MEDIA

log = logging.getLogger(__name__)

GROUP = "flapjack_py.gateways"
"""The entry-point group naming each gateway's declaration: medium = "module:attribute"."""


@dataclass(frozen=True)
class GatewayDeclaration:
    """What the engine knows of a gateway: its medium and the model of its `gateways.<medium>` settings.

    gateways/base.py extends it with the sender (or the module's own loop, jabber)."""

    medium: str
    settings: type[GatewaySettings]


def known_media() -> tuple[str, ...]:
    """Every registered medium: Flapjack 1.6's in its order (model.rules.ALL_MEDIA), then the others by name.

    Raises ConfigError when none is registered (the package metadata is missing: not installed)."""
    return _registered()[0]


def is_known_medium(name: str) -> bool:
    """True when `name` is a registered medium (nothing is imported)."""
    return name in _registered()[1]


def declaration(medium: str) -> GatewayDeclaration:
    """The declaration of a registered medium, its module imported on first use.

    Raises ConfigError naming `gateways.<medium>` when there is no such gateway or it cannot be loaded."""
    found = _loaded.get(medium)
    if found is None:
        found = _loaded[medium] = _load(medium)
    return found


def refresh() -> None:
    """Read the registry again on next use (after a gateway was installed into a running process: tests)."""
    _registered.cache_clear()
    _loaded.clear()


def validate_gateways(data: Any) -> dict[str, dict[str, Any]]:
    """The `gateways` section validated, each medium's by its gateway's settings model: medium -> its settings as
    the plain mapping gateways read (YAML key names, unset values left out). An empty section means the defaults.

    Raises ConfigError naming the key (`gateways.telegraph` for an unknown gateway)."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"gateways: expected a mapping of gateways, got {type(data).__name__}")
    sections = {}
    for name, section in data.items():
        medium = str(name)
        settings = validated(declaration(medium).settings, {} if section is None else section, at=("gateways", medium))
        sections[medium] = settings.model_dump(by_alias=True, exclude_none=True)
    return sections


# --- private helpers ---------------------------------------------------------

_loaded: dict[str, GatewayDeclaration] = {}
"""Declarations loaded so far, by medium (the registry does not change while a process runs)."""


@functools.cache
def _registered() -> tuple[tuple[str, ...], frozenset[str], Mapping[str, EntryPoint]]:
    """(media in order, the same as a set, medium -> its entry point), read once from the package metadata."""
    found = {point.name: point for point in entry_points(group=GROUP)}
    if not found:
        raise ConfigError(f"no gateway is registered (entry-point group {GROUP}): flapjack-py is not installed; "
                          "install it (pip install -e . or scripts/venv)")
    ordered = tuple(m for m in ALL_MEDIA if m in found) + tuple(sorted(set(found) - set(ALL_MEDIA)))
    return ordered, frozenset(ordered), found


def _load(medium: str) -> GatewayDeclaration:
    point = _registered()[2].get(medium)
    if point is None:
        raise ConfigError(f"gateways.{medium}: no such gateway (known: {', '.join(sorted(known_media()))})")
    try:
        loaded = point.load()
    except (ImportError, AttributeError) as exc:  # its module or a library it needs is missing
        raise ConfigError(f"gateways.{medium}: its gateway ({point.value}) cannot be loaded: "
                          f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(loaded, GatewayDeclaration) or loaded.medium != medium:
        raise ConfigError(f"gateways.{medium}: {point.value} is not the GatewayDeclaration of medium {medium}")
    return loaded
