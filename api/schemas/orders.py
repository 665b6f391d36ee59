"""`GET /orders` query parameters (the order bodies are in models/schemas/orders.py)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from api.params import PageNumber, UpdatedSince
from models.orders.queries import Stage
from models.schemas.orders import MAX_EXTERNAL_REF
from models.structs import Schema


class OrderListQuery(Schema):
    """`GET /orders` parameters (docs/api.md §4.4)."""

    stage: Annotated[Stage, msgspec.Meta(description="Only orders in this stage")] | None = None
    customer: (
        Annotated[
            str, msgspec.Meta(description="Customer slug; an unknown slug gives an empty list")
        ]
        | None
    ) = None
    external_ref: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=MAX_EXTERNAL_REF,
                description="Extension: the order with this external_ref (exact), if any",
            ),
        ]
        | None
    ) = None
    updated_since: UpdatedSince = None
    page: PageNumber = 1
