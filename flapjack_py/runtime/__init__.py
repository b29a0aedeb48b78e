"""Processes and what they run on: the Redis clients (connection.py, session.py) and the embedded Redis,
supervisor, watchdog, health, metrics, logging, GC pacing."""
