"""Reads made in steps, several at once: each read is a generator that yields the commands of its next
round trip (a `Step`) and is sent their replies; `together` runs several in lockstep, so one round trip
carries the current step of each.

A read whose next keys depend on what it read (a check's state-change timestamps name the keys of its
state records; a contact's media name its drop keys) cannot be one Lua call that declares its keys
(scripts.py), so it takes a step per dependency. Made one after the other, the notifier's reads were
eleven round trips per notifying batch (issue 11: each costs two context switches on a shared core);
made together they are as many as the longest chain of dependent steps.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from redis.exceptions import NoScriptError

from flapjack_py.store.plumbing.client import StrRedis, script_sha

T = TypeVar("T")


@dataclass(frozen=True)
class Step:
    """The commands of one round trip: `queue` puts them on a non-transactional pipeline. An error reply
    raises, unless `keep_errors` (then it is handed to the read as its exception)."""

    queue: Callable[[Any], None]
    keep_errors: bool = False


Reads = Generator[Step, list[Any], T]
"""A read in steps: yields each Step, is sent the Step's replies, returns what it read."""


def run(client: StrRedis, reads: Reads[T]) -> T:
    """Make `reads`' round trips one after the other and return what it read."""
    try:
        step = next(reads)
        while True:
            pipe = client.pipeline(transaction=False)
            step.queue(pipe)
            replies = pipe.execute(raise_on_error=False) if len(pipe.command_stack) else []
            if not step.keep_errors:
                _raise_first(replies)
            step = reads.send(replies)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def together(*reads: Reads[Any]) -> Reads[list[Any]]:
    """Run `reads` in lockstep (each one's current step in the same round trip); return what each read."""
    results: list[Any] = [None] * len(reads)
    steps: dict[int, Step] = {}
    for index, read in enumerate(reads):
        _advance(read, index, None, steps, results)
    while steps:
        current: dict[int, Step] = dict(steps)
        spans: dict[int, tuple[int, int]] = {}

        def queue(pipe: Any, current: dict[int, Step] = current, spans: dict[int, tuple[int, int]] = spans) -> None:
            for index, step in current.items():
                start = len(pipe.command_stack)
                step.queue(pipe)
                spans[index] = (start, len(pipe.command_stack))

        replies = yield Step(queue, keep_errors=True)
        steps = {}
        for index, step in current.items():
            part = replies[spans[index][0]:spans[index][1]]
            if not step.keep_errors:
                _raise_first(part)
            _advance(reads[index], index, part, steps, results)
    return results


def script(lua: str, calls: Sequence[tuple[Sequence[Any], Sequence[Any]]]) -> Reads[list[Any]]:
    """The read-only Lua `lua` called once per (keys, args) of `calls` by EVALSHA (each call atomic, not
    the set); a server that does not know the script has it loaded and the calls made again."""
    def evals(pipe: Any) -> None:
        for script_keys, args in calls:
            pipe.evalsha(script_sha(lua), len(script_keys), *script_keys, *args)

    replies = yield Step(evals, keep_errors=True)
    if any(isinstance(reply, NoScriptError) for reply in replies):
        yield Step(lambda pipe: pipe.script_load(lua))
        replies = yield Step(evals, keep_errors=True)
    _raise_first(replies)
    return replies


def _advance(read: Reads[Any], index: int, replies: list[Any] | None, steps: dict[int, Step],
             results: list[Any]) -> None:
    try:
        steps[index] = next(read) if replies is None else read.send(replies)
    except StopIteration as done:
        results[index] = done.value


def _raise_first(replies: list[Any]) -> None:
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
