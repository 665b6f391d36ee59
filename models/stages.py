"""Order stages and the stage-move policy (DECISIONS 5), kept as data, not branches."""

from __future__ import annotations

STAGES = ("artwork", "print_queue", "in_production", "qc_pack", "dispatched", "cancelled")
# The production sequence; `cancelled` sits outside it.
SEQUENCE = ("artwork", "print_queue", "in_production", "qc_pack", "dispatched")
TERMINAL_STAGES = frozenset({"dispatched", "cancelled"})
OPEN_STAGES = frozenset(STAGES) - TERMINAL_STAGES
# What `POST /orders/{id}/advance` accepts as `to_stage`.
API_TARGET_STAGES = SEQUENCE
