"""The data layer: every Redis read and write of the engine, API and gateways.

Modules here take a str client (`client.StrRedis`, built once where the process
is composed; optionally a pipeline for atomic writes), hide Redis types and
return plain values. Only the raw event payloads (the event queue's take, the
archive) and rq read through a bytes client (`client.BytesRedis`). Key names
come from flapjack_py.keys.
"""

from __future__ import annotations
