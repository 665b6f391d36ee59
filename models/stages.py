"""Order stages and the stage-move policy (docs/api.md §4.7), kept as data, not branches."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

STAGES = ("artwork", "print_queue", "in_production", "qc_pack", "dispatched", "cancelled")
# The production sequence; `cancelled` sits outside it.
SEQUENCE = ("artwork", "print_queue", "in_production", "qc_pack", "dispatched")
TERMINAL_STAGES = frozenset({"dispatched", "cancelled"})
OPEN_STAGES = frozenset(STAGES) - TERMINAL_STAGES
# The open stages in production order: the board's columns, the `open` filter; OPEN_LIST is
# them as a SQL list (`stage IN (...)`) for every admin statement that counts open orders.
OPEN = tuple(stage for stage in SEQUENCE if stage in OPEN_STAGES)
OPEN_LIST = ", ".join(f"'{stage}'" for stage in OPEN)
# Editing: an order's lines and items change only in these stages; its due
# date, notes and external_ref until it is dispatched or cancelled.
CONTENT_EDITABLE = frozenset({"artwork", "print_queue"})
# What `POST /orders/{id}/advance` accepts as `to_stage`.
API_TARGET_STAGES = SEQUENCE
# Reserved stock is consumed the first time an order reaches this stage or a later one.
CONSUMES_STOCK_FROM = "in_production"


def consumes_stock(stage: str) -> bool:
    return stage in SEQUENCE and SEQUENCE.index(stage) >= SEQUENCE.index(CONSUMES_STOCK_FROM)


@dataclass(frozen=True)
class Move:
    """A requested stage move and the workspace facts the policy looks at."""

    number: str
    current: str
    target: str
    artwork_approved: bool
    require_artwork_approval: bool
    strict_sequence: bool

    @property
    def steps(self) -> int:
        """Distance along the sequence: 1 is the next stage, negative is rework."""
        return SEQUENCE.index(self.target) - SEQUENCE.index(self.current)

    @property
    def next_stage(self) -> str:
        return SEQUENCE[SEQUENCE.index(self.current) + 1]


@dataclass(frozen=True)
class Rule:
    """One reason the workspace refuses a move; `reason` is formatted with the Move."""

    name: str
    applies: Callable[[Move], bool]
    reason: str


TERMINAL = Rule(
    "terminal",
    lambda m: m.current in TERMINAL_STAGES,
    "Order {m.number} is {m.current}; a {m.current} order cannot change stage.",
)

# docs/api.md §4.7, checked in this order; the first rule that applies refuses the move.
# Anything no rule refuses is allowed, including backward moves (rework) among open stages.
REFUSALS: tuple[Rule, ...] = (
    TERMINAL,
    Rule(
        "same_stage",
        lambda m: m.target == m.current,
        "Order {m.number} is already in stage {m.target}.",
    ),
    Rule(
        "artwork_not_approved",
        lambda m: (
            m.current == "artwork"
            and m.target != "artwork"
            and m.require_artwork_approval
            and not m.artwork_approved
        ),
        "Order {m.number} cannot leave artwork before its artwork is approved "
        "(the workspace requires artwork approval).",
    ),
    Rule(
        "skips_stage",
        lambda m: m.strict_sequence and m.steps > 1,
        "Order {m.number} cannot skip from {m.current} to {m.target}: the workspace requires "
        "stages in sequence (the next stage is {m.next_stage}).",
    ),
)

# An operator's cancel is refused only for orders that are already finished.
CANCEL_REFUSALS: tuple[Rule, ...] = (TERMINAL,)


def refusal(move: Move, rules: tuple[Rule, ...] = REFUSALS) -> str | None:
    """The reason the first applicable rule gives, or None when the move is allowed."""
    for rule in rules:
        if rule.applies(move):
            return rule.reason.format(m=move)
    return None
