"""The price list (`GET`/`PUT /pricing`, with ETag and If-Match) and the price preview
(`POST /prices`: the order a create body would make, nothing kept)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post, put
from litestar.openapi import ResponseSpec
from litestar.params import Body
from litestar.status_codes import HTTP_200_OK

from api import etags
from api.auth import Principal
from api.controllers.orders import STALE_RESPONSE, WRITE_RESPONSES
from api.errors import Forbidden
from api.etags import ETAG_RESPONSE_HEADER, IfMatchHeader, IfNoneMatchHeader
from api.openapi import COMMON_RESPONSES, error_response
from api.ratelimit import COUNTS_AS_READ
from api.schemas.common import ErrorBody
from api.validation import StrictBody
from models.actors import Actor
from models.errors import ErrorCode, StaleError
from models.orders import creating
from models.pricing import document as price_document
from models.pricing import store
from models.pricing.document import PricingDocument
from models.schemas.orders import OrderCreate, PricePreview, price_preview_body

OWNERS_ONLY = "Only an owner's token can change the price list."
STALE_EXAMPLE = (
    "The price list changed since you read it (its ETag is no longer the one in If-Match); "
    "read it again and retry."
)


def _tag(document: PricingDocument) -> str:
    return etags.of(price_document.encode(document))


class PricingController(Controller):
    tags = ["Pricing"]

    @get(
        "/pricing",
        summary="The workspace's price list",
        responses={
            **COMMON_RESPONSES,
            304: ResponseSpec(None, description="Not modified: the If-None-Match tag is current"),
        },
        response_headers=[ETAG_RESPONSE_HEADER],
    )
    async def get_pricing(
        self, request: Request[Principal, int, Any], if_none_match: IfNoneMatchHeader = None
    ) -> Response[PricingDocument]:
        document = await store.read(request.user.workspace_id)
        body = price_document.encode(document)
        return etags.read(body, etags.of(body), if_none_match)

    @put(
        "/pricing",
        summary="Replace the price list (an owner's token)",
        status_code=HTTP_200_OK,
        responses={
            # No Idempotency-Key here (a PUT is idempotent), so no 409.
            **{status: spec for status, spec in WRITE_RESPONSES.items() if status != 409},
            403: error_response(
                ErrorBody,
                "The token's user is deactivated, or not an owner",
                {"not an owner": {"message": OWNERS_ONLY, "code": ErrorCode.FORBIDDEN}},
            ),
            412: STALE_RESPONSE,
        },
        response_headers=[ETAG_RESPONSE_HEADER],
        dto=StrictBody[PricingDocument],
        return_dto=None,
    )
    async def replace_pricing(
        self,
        request: Request[Principal, int, Any],
        data: Annotated[
            PricingDocument,
            Body(
                description="The whole price list: what is left out is removed. Prices "
                "already on orders do not change until the order's content is edited."
            ),
        ],
        if_match: IfMatchHeader = None,
    ) -> Response[PricingDocument]:
        if request.user.role != "owner":
            raise Forbidden(OWNERS_ONLY)

        def unchanged(current: PricingDocument) -> None:
            if if_match is not None and not etags.current(if_match, _tag(current)):
                raise StaleError(STALE_EXAMPLE)

        saved = await store.replace(request.user.workspace_id, data, precondition=unchanged)
        body = price_document.encode(saved)
        return etags.read(body, etags.of(body), None)

    @post(
        "/prices",
        summary="Price an order without creating it",
        status_code=HTTP_200_OK,
        responses=COMMON_RESPONSES,
        dto=StrictBody[OrderCreate],
        return_dto=None,
        opt={COUNTS_AS_READ: True},
    )
    async def preview_prices(
        self,
        request: Request[Principal, int, Any],
        data: Annotated[
            OrderCreate,
            Body(
                description="An order create body. The answer is what that create would "
                "make — every line with its price source and breakdown, and the totals — "
                "with nothing saved, numbered or reserved. Counts against the read limit."
            ),
        ],
    ) -> PricePreview:
        principal = request.user
        rows = await creating.preview(
            workspace_id=principal.workspace_id,
            customer_id=data.customer_id,
            lines=data.new_lines(),
            items=data.new_items(),
            ship_to=None if data.ship_to is None else data.ship_to.new_address(),
            ship_to_address_id=data.ship_to_address_id,
            due_by=data.due_by,
            notes=data.notes or "",
            external_ref=data.external_ref,
            prices_include_tax=data.prices_include_tax,
            actor=Actor.token(principal.token_id, principal.user_id),
        )
        return price_preview_body(rows)
