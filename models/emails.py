"""Email addresses as every look-up compares them: the same address whatever the case of its
ASCII letters, and nothing else folded.

Stored addresses are ASCII (models/errors.py `EMAIL`). Unicode case folding would let a typed
address reach one it does not name: Python's `lower()` and PostgreSQL's `LOWER()` turn the
Kelvin sign "K" into "k" and "ǅ" into "ǆ", and `casefold()` turns "ß" into "ss". Here only
A-Z become a-z, in Python (`key`) and in SQL (`column_key`, or the statements' `ASCII_LOWER`).
"""

from __future__ import annotations

import string

from models import db

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def key(email: str) -> str:
    """`email` with A-Z lower-cased and every other character as it is."""
    return email.translate(_ASCII_LOWER)


def same(first: str, second: str) -> bool:
    """Whether two addresses are the same one for a look-up (ASCII letters in any case)."""
    return key(first) == key(second)


def column_key(column: str) -> str:
    """SQL for `column` as `key` has it, on the bound engine: SQLite's lower() folds ASCII
    only; PostgreSQL's follows the database's locale, except under the "C" collation."""
    return f'lower({column} COLLATE "C")' if db.is_postgres() else f"lower({column})"
