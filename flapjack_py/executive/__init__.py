"""The executive: take events, run each through its check's state and the filters, commit the batch,
hand notifications over, and the chores between batches. `Executive` (loop.py) is the entry point."""

from flapjack_py.executive.loop import Executive

__all__ = ["Executive"]
