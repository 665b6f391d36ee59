"""The base Structs of every body the service reads and writes (the API's, the command
line's `--json`, the price list's): beneath everything that defines one."""

from __future__ import annotations

from typing import ClassVar

import msgspec


class Schema(msgspec.Struct, kw_only=True):
    """Base for every body: keyword-only fields, encoded in declaration order."""


class Input(Schema, forbid_unknown_fields=True):
    """Base for request bodies: a field the Struct does not have is refused, never dropped
    (a typo'd `shipTo` would otherwise leave the order without its address). api/validation.py
    names such a field "not a field of <noun>": `noun` is the Struct's name in words, by
    default its class name without Create/Update ("OrderLineCreate": "an order line")."""

    noun: ClassVar[str | None] = None
