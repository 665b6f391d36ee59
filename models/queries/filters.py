"""WHERE fragments shared by the list queries."""

from __future__ import annotations

from piccolo.columns import Column
from piccolo.query.mixins import WhereRaw

# Primary keys are 32-bit serials; a larger id in a path cannot exist (and must not reach
# the driver, which would reject it as out of range).
MAX_ID = 2**31 - 1


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def contains_ci(column: Column, text: str) -> WhereRaw:
    """Case-insensitive substring match where `%` and `_` in `text` are literal."""
    table = column._meta.table._meta.tablename
    name = column._meta.db_column_name
    return WhereRaw(
        f'LOWER("{table}"."{name}") LIKE {{}} ESCAPE \'\\\'',
        f"%{escape_like(text.lower())}%",
    )
