"""API resource: contacts (api-v1.md). Routes are added to web.api.bp; OpenAPI path items go in PATHS."""

from __future__ import annotations

from typing import Any

from . import bp  # noqa: F401

PATHS: dict[str, Any] = {}
