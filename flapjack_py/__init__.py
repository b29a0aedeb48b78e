"""flapjack-py: a Redis-backed monitoring event processor and notifier (Flapjack 1.x successor)."""

__version__ = "0.1.0"
