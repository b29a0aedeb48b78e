"""The executive's garbage collection happens while it waits for events, not inside a batch (issue 11)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from flapjack_py.runtime import gc_pacing
from flapjack_py.runtime.gc_pacing import GcPacing


@pytest.fixture()
def pacing() -> Iterator[GcPacing]:
    pacing = GcPacing()
    pacing.start()
    yield pacing
    pacing.stop()
    gc.unfreeze()


def cycles(n: int) -> None:
    for _ in range(n):
        a: list[object] = []
        a.append(a)


def test_no_collection_inside_a_batch_however_much_garbage(pacing: GcPacing) -> None:
    collected: list[int] = []
    callback = lambda phase, info: collected.append(info["generation"]) if phase == "stop" else None  # noqa: E731
    gc.callbacks.append(callback)
    try:
        assert not gc.isenabled()
        cycles(50_000)  # would trigger Python's own young collections every 700 objects
        assert collected == []
        pacing.busy()  # 50,000 < BUSY_MOST: still none between batches
        assert collected == []
        pacing.idle()  # waiting for events: the young generations are collected
        assert collected == [1] and gc.get_count()[0] < gc_pacing.IDLE_LEAST
        pacing.idle()  # nothing new since
        assert collected == [1]
    finally:
        gc.callbacks.remove(callback)


def test_a_long_busy_spell_still_collects(pacing: GcPacing) -> None:
    cycles(gc_pacing.BUSY_MOST + 10)
    pacing.busy()
    assert gc.get_count()[0] < 1000


def test_stop_gives_collection_back(pacing: GcPacing) -> None:
    pacing.stop()
    assert gc.isenabled()


def test_without_freeze_nothing_is_collected_or_frozen_at_start_and_a_disabled_gc_stays_disabled() -> None:
    gc.disable()
    try:
        pacing = GcPacing()
        frozen = gc.get_freeze_count()
        pacing.start(freeze=False)
        assert gc.get_freeze_count() == frozen and not gc.isenabled()
        pacing.stop()
        assert not gc.isenabled()  # the caller had turned it off
    finally:
        gc.enable()
