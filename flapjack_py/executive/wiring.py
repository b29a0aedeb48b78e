"""The engine's composition root: the notifier the executive is given (flapjack_py.executive.loop imports none).

`flapjack executive` injects it; `Executive(r, cfg)` (contract section 2, for embedders and tests) gets
this default when it is handed none.
"""

from __future__ import annotations

from flapjack_py.config.settings import Config
from flapjack_py.notify.notifier import Notifier
from flapjack_py.notify.request import Notifying
from flapjack_py.store.plumbing.client import StrRedis


def default_notifier(client: StrRedis, config: Config) -> Notifying:
    """The project's Notifier on the data layer's (str) client."""
    return Notifier(client, config)
