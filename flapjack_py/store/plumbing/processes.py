"""Local process facts used to tell a crashed executive or worker from a live one."""

from __future__ import annotations

import contextlib
import os


def pid_alive(pid: int) -> bool:
    """True when process `pid` exists on this host and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"  # a zombie is dead
    return True
