"""`flapjack bench`: the project's benchmark of the real executive against one Redis (docs in bench.md).

runner (start to end) -> servers (placement, Redis) + worker (child processes) -> reference, scenarios,
latency, memory (what is measured) -> correctness (is it right) -> output (lines, --json).
"""
