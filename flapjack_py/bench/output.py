"""The bench's output: `bench.<section> key=value ...` lines (keys in spec order) and the --json file. Pure,
except `write_json`."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def format_value(value: Any) -> str:
    """A value without spaces; floats with at most 4 decimals (1 from 100 up)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        text = f"{value:.1f}" if abs(value) >= 100 else f"{value:.4f}".rstrip("0").rstrip(".")
        return text if text not in ("", "-0") else "0"
    return str(value).replace(" ", "_") or "-"


def format_line(section: str, fields: Mapping[str, Any]) -> str:
    """`bench.SECTION k=v k=v ...` in the order of `fields`."""
    return " ".join([f"bench.{section}", *(f"{key}={format_value(value)}" for key, value in fields.items())])


def write_json(path: str, data: Mapping[str, Any]) -> None:
    """Write the run's data (the lines' fields plus every repetition's raw values) to `path`."""
    Path(path).write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    log.info("wrote %s", path)
