"""WHERE fragments and parameters shared by the list queries."""

from __future__ import annotations

# Primary keys are 32-bit serials; a larger id in a path cannot exist (and must not reach
# the driver, which would reject it as out of range).
MAX_ID = 2**31 - 1


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def cannot_match(text: str, max_length: int) -> bool:
    """Text no stored value can contain: PostgreSQL rejects NUL in text parameters (an
    error, not a mismatch), SQLite's LIKE would stop reading the pattern at it, and a value
    longer than its column cannot be stored. Such input matches nothing without reaching the
    database, so any length of search text is safe."""
    return "\x00" in text or len(text) > max_length


def contains_ci(column: str, placeholder: str) -> str:
    """Case-insensitive LIKE where `%` and `_` in the text are literal; pass
    `contains_pattern(text)` (a substring) or `starts_pattern(text)` (a prefix)."""
    return f"LOWER({column}) LIKE {placeholder} ESCAPE '\\'"


def contains_pattern(text: str) -> str:
    return f"%{escape_like(text.lower())}%"


def starts_pattern(text: str) -> str:
    return f"{escape_like(text.lower())}%"
