"""Which stage moves email the customer: one switch per stage, stored on the workspace as a
comma list (default: in_production and dispatched; proofs are always emailed)."""

from __future__ import annotations

from models.stages import STAGES

DEFAULT_MAIL_STAGES = ("in_production", "dispatched")
EMAIL_STAGES = STAGES  # one switch per stage a move can reach (cancel included)


def parse_mail_stages(text: str) -> tuple[str, ...]:
    """The stored comma list as stage codes, in stage order (unknown codes dropped)."""
    chosen = {part.strip() for part in text.split(",")}
    return tuple(stage for stage in EMAIL_STAGES if stage in chosen)
