"""Named pipes that never close on their writers: create or check the FIFO, read lines forever.

The receiver opens its pipe read-write: it is then a writer itself, so the pipe never
reaches EOF when Nagios restarts, and a writer that opens it per line (nsca with
aggregate_writes=0, O_NONBLOCK) always finds a reader instead of failing with ENXIO.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterator

log = logging.getLogger(__name__)

DEFAULT_MODE = 0o666
"""Permissions of a FIFO the receiver creates (writers often run as another user, e.g. nagios)."""
READ_SIZE = 65536
"""Bytes asked of the pipe per read (its whole default buffer)."""
MAX_LINE = 1 << 20
"""Longest line kept, in bytes; a longer one is cut off and reported as too long."""
TOO_LONG = object()
"""Yielded by read_lines in place of a line longer than MAX_LINE."""


class FifoError(ValueError):
    """Raised when the pipe's path cannot be used: not a FIFO, or not readable/creatable."""


def prepare_fifo(path: str, mode: int = DEFAULT_MODE) -> int:
    """Open `path` as a FIFO, read-write, creating it with `mode` when missing; return the file descriptor.

    A created pipe appears at `path` already open (made under a temporary name, then linked into
    place), so a writer that finds the path never finds it without a reader.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return _create(path, mode)
    if not stat.S_ISFIFO(info.st_mode):
        raise FifoError(f"{path} exists and is not a named pipe (remove it, or point the receiver elsewhere)")
    if not os.access(path, os.R_OK | os.W_OK):
        raise FifoError(f"the named pipe {path} is not readable and writable by this user")
    return open_fifo(path)


def open_fifo(path: str) -> int:
    """Open the FIFO read-write (never blocks, never sees EOF); return the file descriptor."""
    return os.open(path, os.O_RDWR | os.O_CLOEXEC)


def read_lines(fd: int) -> Iterator[str | object]:
    """Lines of the pipe as they arrive (without their newline, UTF-8, bad bytes replaced); TOO_LONG for overlong ones.

    Ends only if the pipe reaches EOF, which a read-write descriptor never does.
    """
    pending = b""
    skipping = False
    while chunk := os.read(fd, READ_SIZE):
        *lines, pending = (pending + chunk).split(b"\n")
        for raw in lines:
            if skipping:
                skipping = False
                continue
            yield raw.decode("utf-8", errors="replace")
        if len(pending) > MAX_LINE:
            if not skipping:
                yield TOO_LONG
            pending, skipping = b"", True


def read_pipe(fd: int, handle: Callable[[str | object], None]) -> None:
    """Hand every line of the open named pipe to `handle`, forever; close it at the end."""
    try:
        for line in read_lines(fd):
            handle(line)
    finally:
        os.close(fd)


def _create(path: str, mode: int) -> int:
    temporary = f"{path}.{os.getpid()}.new"
    try:
        os.mkfifo(temporary, mode)
        os.chmod(temporary, mode)  # mkfifo applies the umask
        fd = open_fifo(temporary)
    except OSError as exc:
        raise FifoError(f"cannot create the named pipe {path}: {exc.strerror}") from None
    try:
        os.link(temporary, path)
    except FileExistsError:  # a writer created the path meanwhile: check what it made
        os.close(fd)
        return prepare_fifo(path, mode)
    except OSError as exc:
        os.close(fd)
        raise FifoError(f"cannot create the named pipe {path}: {exc.strerror}") from None
    finally:
        os.unlink(temporary)
    log.info("created named pipe %s (mode %o)", path, mode)
    return fd
