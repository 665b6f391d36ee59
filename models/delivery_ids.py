"""A webhook delivery's public id: what its `webhook-id` and `X-SVC-Delivery` headers carry.

`dlv_` followed by 26 characters of the lowercase base32 alphabet (`a`-`z`, `2`-`7`), each
drawn from the operating system's secure random source: 130 random bits, so an id is unique
across every delivery of every workspace and every installation, not only within one shop.
It is made once, when the delivery row is created, and every attempt of that delivery (its
retries and its redeliveries) carries the same one. The integer `id` stays the row's key (the
admin's URLs and the command line use it).

The database makes the same form for rows inserted without one (bulk loads, raw SQL): a
column default on PostgreSQL, a trigger on SQLite (migration 2026-11-30T10:15).
"""

from __future__ import annotations

import base64
import secrets

PREFIX = "dlv_"
LENGTH = 26  # characters after the prefix
ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
PATTERN = f"^{PREFIX}[a-z2-7]{{{LENGTH},}}$"  # receivers may meet longer ids one day
MAX_LENGTH = 64  # the column's width
_BYTES = 17  # 136 bits: the first 26 base32 characters are 130 of them


def new_delivery_id() -> str:
    """A fresh public id: `dlv_` and 26 random lowercase base32 characters."""
    return PREFIX + base64.b32encode(secrets.token_bytes(_BYTES)).decode()[:LENGTH].lower()
