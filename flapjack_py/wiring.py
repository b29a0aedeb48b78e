"""The engine's composition root: the notifier the executive is given (flapjack_py.executive imports none).

`flapjack executive` injects it; `Executive(r, cfg)` (contract section 2, for embedders and tests) gets
this default when it is handed none.
"""

from __future__ import annotations

from .config import Config
from .notifier import Notifier
from .notify_request import Notifying
from .store.client import StrRedis


def default_notifier(client: StrRedis, config: Config) -> Notifying:
    """The project's Notifier on the data layer's (str) client."""
    return Notifier(client, config)
