"""WHERE fragments shared by the list queries."""

from __future__ import annotations

from piccolo.columns import Column, Varchar
from piccolo.columns.combination import Where
from piccolo.query.mixins import WhereRaw

# Primary keys are 32-bit serials; a larger id in a path cannot exist (and must not reach
# the driver, which would reject it as out of range).
MAX_ID = 2**31 - 1

# Text no stored value can contain: PostgreSQL rejects NUL in text parameters (an error,
# not a mismatch) and SQLite's LIKE would stop reading the pattern at it.
NOTHING = WhereRaw("1 = 0")


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _cannot_match(column: Column, text: str) -> bool:
    limit = column.length if isinstance(column, Varchar) else None
    return "\x00" in text or (limit is not None and len(text) > limit)


def contains_ci(column: Column, text: str) -> WhereRaw:
    """Case-insensitive substring match where `%` and `_` in `text` are literal.

    Input that no stored value can contain (a NUL, or longer than the column) matches
    nothing without reaching the database, so any length of search text is safe."""
    if _cannot_match(column, text):
        return NOTHING
    table = column._meta.table._meta.tablename
    name = column._meta.db_column_name
    return WhereRaw(
        f'LOWER("{table}"."{name}") LIKE {{}} ESCAPE \'\\\'',
        f"%{escape_like(text.lower())}%",
    )


def equals(column: Column, text: str) -> Where | WhereRaw:
    """Exact match on a text column; impossible input matches nothing instead of erroring."""
    if _cannot_match(column, text):
        return NOTHING
    return column == text
