"""The authenticated user and their workspace (`GET /me`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import msgspec

from models.accounts import PRICES_INCLUDE_TAX
from models.schemas.common import DecimalString
from models.structs import Schema

if TYPE_CHECKING:
    from api.auth import Principal


class Workspace(Schema):
    """The settings of the token's workspace that shape what the API answers."""

    id: int
    name: str
    currency: Annotated[
        str, msgspec.Meta(description="ISO 4217 code of every amount in the workspace (GBP)")
    ]
    tax_rate: Annotated[
        DecimalString,
        msgspec.Meta(description='Percent of tax added to order subtotals, e.g. "20.00"'),
    ]
    time_zone: Annotated[
        str,
        msgspec.Meta(
            description="IANA time zone name (Europe/London): due_by offsets and the years "
            "of order and invoice numbers follow it"
        ),
    ]
    require_artwork_approval: Annotated[
        bool,
        msgspec.Meta(description="Orders leave the artwork stage only with approved artwork"),
    ]
    prices_include_tax: Annotated[
        bool,
        msgspec.Meta(
            description="Whether unit prices include tax; false: prices are tax-exclusive and "
            "tax is added on the subtotal"
        ),
    ]


class User(Schema):
    id: int
    name: str
    email: str
    workspace: Workspace


def user_body(principal: Principal) -> User:
    return User(
        id=principal.user_id,
        name=principal.name,
        email=principal.email,
        workspace=Workspace(
            id=principal.workspace_id,
            name=principal.workspace_name,
            currency=principal.currency,
            tax_rate=principal.tax_rate,
            time_zone=principal.timezone,
            require_artwork_approval=principal.require_artwork_approval,
            prices_include_tax=PRICES_INCLUDE_TAX,
        ),
    )
