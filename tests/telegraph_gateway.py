"""A gateway declared in one place, for tests: this module (sender, settings model, medium name) and one entry
point, which `installed_telegraph` puts into the running process (a distribution's metadata on sys.path)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flapjack_py.config import media
from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.types import Text
from flapjack_py.model.alert import Alert
from gateways.base import Declaration, Gateway

SENT: list[Alert] = []
"""The alerts every TelegraphGateway sent, in order."""


class TelegraphSettings(GatewaySettings):
    """`gateways.telegraph`."""

    required = ("wire",)
    wire: Text | None = None
    stop_word: Text = "STOP"


class TelegraphGateway(Gateway):
    """Keeps each alert in SENT."""

    medium = "telegraph"
    required = ("wire",)

    def send(self, alert: Alert) -> None:
        SENT.append(alert)


GATEWAY = Declaration.of(TelegraphGateway, TelegraphSettings)


@contextmanager
def installed_telegraph(folder: Path) -> Iterator[None]:
    """The telegraph gateway registered (its entry point in a distribution's metadata written into `folder`,
    put on sys.path) while the block runs; the registry read again on entry and on exit."""
    info = folder / "flapjack_telegraph-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: flapjack-telegraph\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{media.GROUP}]\ntelegraph = {__name__}:GATEWAY\n")
    sys.path.insert(0, str(folder))
    media.refresh()
    SENT.clear()
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        media.refresh()
        SENT.clear()
