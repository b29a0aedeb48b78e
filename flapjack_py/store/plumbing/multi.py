"""Executing a batch's MULTI on its guard's connection, replies read straight off the pipeline's parser.

redis-py's transaction pipeline reads each command's `QUEUED` reply through four Python calls and
runs a response callback per result; a storm batch queues 5-6 commands per alert, so that reading
cost about as much as packing them. Here the queued commands are packed by hiredis as redis-py has
them packed, sent in one write, and the replies taken from the same hiredis reader redis-py uses,
in one loop; a command queued with `queue_packed` is sent as its caller packed it. The outcome is
redis-py's `execute(raise_on_error=False)`
but for the callbacks (results come back as Redis sent them): a changed WATCHed key, or a lost
connection, raises WatchError, a command refused while queueing aborts the transaction with its
error, a command failing inside EXEC is its result.
"""

from __future__ import annotations

import logging
from typing import Any

from hiredis import pack_command
from redis._parsers.hiredis import NOT_ENOUGH_DATA, _HiredisParser
from redis.client import EMPTY_RESPONSE
from redis.connection import HiredisRespSerializer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, ExecAbortError, ResponseError, TimeoutError, WatchError

log = logging.getLogger(__name__)


class Packed(tuple):  # type: ignore[type-arg]
    """A queued command's arguments with their protocol form made ahead by the caller (`packed`, what
    hiredis's `pack_command` makes of them): `execute` sends that; redis-py, when it runs the pipeline,
    packs the arguments as it does any command's."""

    packed: bytes


def queue_packed(pipe: Any, args: tuple[Any, ...], packed: bytes) -> None:
    """Queue the command `args` on `pipe` (a MULTI pipeline), to be sent as `packed` (`pack_command(args)`,
    made by the caller from parts it packs once for many commands) when `execute` runs it."""
    if pipe.watching and not pipe.explicit_transaction:  # redis-py would run it now: no MULTI yet
        pipe.execute_command(*args)
        return
    command = Packed(args)
    command.packed = packed
    pipe.command_stack.append((command, {}))


def bulk(value: str | bytes) -> bytes:
    """One argument in Redis's protocol (a bulk string, str as UTF-8), as `pack_command` packs it."""
    data = value.encode() if isinstance(value, str) else value
    return b"$%d\r\n%b\r\n" % (len(data), data)


def bulks(values: tuple[Any, ...]) -> bytes:
    """Arguments in Redis's protocol as `pack_command` packs them, without a command's count header."""
    if not values:
        return b""
    packed: bytes = pack_command(values)
    return packed[packed.index(b"\n") + 1:]


def execute(pipe: Any) -> list[Any]:
    """Run `pipe`'s queued commands as one MULTI/EXEC on its (WATCHing) connection; their results in order.

    A pipeline without a connection of its own, whose connection does not read with hiredis (or has a
    reply read ahead), with scripts to load or a command redis-py answers without sending it, is
    executed by redis-py.
    """
    conn = pipe.connection
    parser = getattr(conn, "_parser", None)
    if (conn is None or pipe.scripts or not isinstance(parser, _HiredisParser) or parser._reader is None
            or parser._next_response is not NOT_ENOUGH_DATA
            or any(EMPTY_RESPONSE in options for _, options in pipe.command_stack)):
        return list(pipe.execute(raise_on_error=False))
    commands = [args for args, _ in pipe.command_stack]
    packed = _packed(conn, [("MULTI",), *commands, ("EXEC",)])
    try:
        conn.send_packed_command(packed)
        replies = _read(parser, len(commands) + 2)
    except (RedisConnectionError, TimeoutError) as exc:
        conn.disconnect()  # the EXEC may or may not have run: redis-py says so as a WatchError
        raise WatchError("A ConnectionError occurred while watching one or more keys") from exc
    except BaseException:
        conn.disconnect()
        raise
    finally:
        pipe.watching = False  # EXEC (or the lost connection) ended the WATCH
    return _results(replies, commands)


def _packed(conn: Any, commands: list[tuple[Any, ...]]) -> list[Any]:
    """The commands in Redis's protocol, in chunks to send, as the connection packs them: with hiredis,
    command by command (as its packer does, without its per-command wrapping and chunking); a `Packed`
    command as its caller packed it."""
    names = {command[0] for command in commands}
    if not isinstance(conn._command_packer, HiredisRespSerializer) or any(
            (" " if isinstance(name, str) else b" ") in name for name in names):
        return list(conn.pack_commands(commands))
    try:
        return [b"".join([command.packed if type(command) is Packed else pack_command(command)
                          for command in commands])]
    except TypeError as exc:
        raise DataError(exc) from exc


def _read(parser: Any, count: int) -> list[Any]:
    """`count` replies from the parser's reader, reading the socket when it needs more."""
    reader = parser._reader
    replies: list[Any] = []
    while len(replies) < count:
        reply = reader.gets()
        if reply is NOT_ENOUGH_DATA:
            parser.read_from_socket()
        elif isinstance(reply, RedisConnectionError):
            raise reply
        else:
            replies.append(reply)
    return replies


def _results(replies: list[Any], commands: list[tuple[Any, ...]]) -> list[Any]:
    """EXEC's results; the MULTI's and the queueing errors raised as redis-py raises them."""
    multi, queued, result = replies[0], replies[1:-1], replies[-1]
    if isinstance(multi, ResponseError):
        raise multi
    if isinstance(result, ResponseError):
        refused = next((i for i, reply in enumerate(queued) if isinstance(reply, ResponseError)), None)
        if refused is not None:
            raise type(queued[refused])(f"Command # {refused + 1} ({commands[refused][0]!r}) of pipeline "
                                        f"caused error: {queued[refused]}")
        raise result if isinstance(result, ExecAbortError) else ExecAbortError(str(result))
    if result is None:
        raise WatchError("Watched variable changed.")
    if len(result) != len(commands):
        raise ResponseError("Wrong number of response items from pipeline execution")
    return list(result)
