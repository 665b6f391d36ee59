"""`GET /customers` query parameters (the customer bodies are in models/schemas/customers.py)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from api.params import PageNumber, Search, UpdatedSince
from models.structs import Schema


class CustomerListQuery(Schema):
    """`GET /customers` parameters (docs/api.md §4.2)."""

    search: Search = None
    email: (
        Annotated[
            str,
            msgspec.Meta(
                description=(
                    "Extension: customers with a contact of exactly this email, in any case"
                )
            ),
        ]
        | None
    ) = None
    external_ref: (
        Annotated[
            str,
            msgspec.Meta(description="Extension: the customer with exactly this external_ref"),
        ]
        | None
    ) = None
    updated_since: UpdatedSince = None
    page: PageNumber = 1
