"""Orders: list (newest first, 50 a page) and detail. Create and advance live here too."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, patch, post
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.params import Body, PathParameter
from litestar.status_codes import HTTP_200_OK, HTTP_201_CREATED

from api import etags
from api.auth import Principal
from api.errors import NotFound
from api.etags import ETAG_RESPONSE_HEADER, IfMatchHeader, IfNoneMatchHeader
from api.idempotency import REPLAYED_RESPONSE_HEADER, IdempotencyKeyHeader, Outcome, respond
from api.links import request_url
from api.openapi import COMMON_RESPONSES, ONE_RECORD_RESPONSES, error_response
from api.pagination import offset, page_envelope
from api.params import query_operation
from api.schemas.common import ErrorBody, Page
from api.schemas.orders import OrderListQuery
from api.validation import StrictBody, parse_query
from models.actors import Actor
from models.errors import ErrorCode, StaleError
from models.orders import creating, editing, stage_moves
from models.orders import queries as queries
from models.orders.queries import OrderRows, Precondition
from models.schemas.orders import (
    AdvanceRequest,
    Order,
    OrderCreate,
    OrderDetail,
    OrderUpdate,
    order_bodies,
    order_detail_body,
    validated_part,
)

PER_PAGE = 50
STALE_EXAMPLE = (
    "The order changed since you read it (its ETag is no longer the one in If-Match); read "
    "it again and retry."
)
STALE_RESPONSE = error_response(
    ErrorBody,
    "The order changed since the If-Match tag was read",
    {"stale": {"message": STALE_EXAMPLE, "code": ErrorCode.PRECONDITION_FAILED}},
)
WRITE_RESPONSES: dict[int, ResponseSpec] = {
    **COMMON_RESPONSES,
    409: error_response(
        ErrorBody,
        "A request with the same Idempotency-Key is still running",
        {
            "key busy": {
                "message": "A request with this Idempotency-Key is still being processed; "
                "retry in 1 second.",
                "code": ErrorCode.IDEMPOTENCY_IN_PROGRESS,
            }
        },
    ),
    413: error_response(
        ErrorBody,
        "Request body larger than 1 MiB",
        {
            "too large": {
                "message": "Request body too large (limit 1 MiB)",
                "code": ErrorCode.BODY_TOO_LARGE,
            }
        },
    ),
}

OrderId = Annotated[
    int,
    PathParameter(description="Numeric order id (document numbers like ORD-… are not accepted)"),
]


class OrderController(Controller):
    path = "/orders"
    tags = ["Orders"]

    @get(
        summary="List orders, newest first",
        responses=COMMON_RESPONSES,
        operation_class=query_operation(OrderListQuery),
    )
    async def list_orders(self, request: Request[Principal, int, Any]) -> Page[Order]:
        query = parse_query(request.query_params, OrderListQuery)
        principal = request.user
        total, rows, lines = await queries.list_orders(
            principal.workspace_id,
            stage=query.stage,
            customer_slug=query.customer,
            updated_since=query.updated_since,
            external_ref=query.external_ref,
            limit=PER_PAGE,
            offset=offset(query.page, PER_PAGE),
        )
        return page_envelope(
            request,
            order_bodies(rows, lines, principal.timezone),
            page=query.page,
            per_page=PER_PAGE,
            total=total,
        )

    @get(
        "/{order_id:int}",
        summary="One order with history, invoices, artwork and items",
        responses={
            **ONE_RECORD_RESPONSES,
            304: ResponseSpec(None, description="Not modified: the If-None-Match tag is current"),
        },
        response_headers=[ETAG_RESPONSE_HEADER],
    )
    async def get_order(
        self,
        request: Request[Principal, int, Any],
        order_id: OrderId,
        if_none_match: IfNoneMatchHeader = None,
    ) -> Response[OrderDetail]:
        principal = request.user
        row = await queries.get_order(principal.workspace_id, order_id)
        if row is None:
            raise NotFound("Order not found")
        detail = order_detail_body(row, principal.timezone)
        return etags.read(
            msgspec.json.encode(detail), etags.of(validated_part(detail)), if_none_match
        )

    @patch(
        "/{order_id:int}",
        summary="Edit an order: due date, notes, external_ref, lines, items",
        status_code=HTTP_200_OK,
        responses={**WRITE_RESPONSES, **ONE_RECORD_RESPONSES, 412: STALE_RESPONSE},
        response_headers=[ETAG_RESPONSE_HEADER, REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[OrderUpdate],
        return_dto=None,
    )
    async def edit_order(
        self,
        request: Request[Principal, int, Any],
        order_id: OrderId,
        data: Annotated[
            OrderUpdate,
            Body(
                description=(
                    "Only the fields sent change; a given `lines` or `items` replaces all of "
                    "its kind. Lines and items change while the order is in "
                    "artwork or print_queue; due_by, notes and external_ref until it is "
                    "dispatched or cancelled. Each change raises `revision` by one; totals "
                    "and stock reservations follow."
                )
            ),
        ],
        if_match: IfMatchHeader = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[OrderDetail]:
        principal = request.user
        edit = data.edit()

        async def change() -> Outcome:
            await editing.edit_order(
                workspace_id=principal.workspace_id,
                order_id=order_id,
                edit=edit,
                actor=Actor.token(principal.token_id, principal.user_id),
                precondition=_if_match(if_match),
            )
            return await _detail_outcome(principal, order_id, HTTP_200_OK)

        return _tagged(await respond(request, idempotency_key, change))

    @post(
        summary="Create an order (stage artwork, next number, totals and tax)",
        status_code=HTTP_201_CREATED,
        responses=WRITE_RESPONSES,
        response_headers=[
            ResponseHeader(
                name="Location", description="URL of the new order", documentation_only=True
            ),
            ETAG_RESPONSE_HEADER,
            REPLAYED_RESPONSE_HEADER,
        ],
        dto=StrictBody[OrderCreate],
        return_dto=None,
    )
    async def create_order(
        self,
        request: Request[Principal, int, Any],
        data: Annotated[
            OrderCreate,
            Body(
                description=(
                    'Types are strict (`"5"` is not an integer); every failing field is '
                    "reported, keyed by dot path (`lines.0.quantity`), and so is a field not "
                    "listed here, at any depth (`shipTo`, `stage`)."
                )
            ),
        ],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[OrderDetail]:
        principal = request.user
        lines = data.new_lines()

        async def create() -> Outcome:
            created = await creating.create(
                workspace_id=principal.workspace_id,
                customer_id=data.customer_id,
                lines=lines,
                items=data.new_items(),
                ship_to=None if data.ship_to is None else data.ship_to.new_address(),
                ship_to_address_id=data.ship_to_address_id,
                due_by=data.due_by,
                notes=data.notes or "",
                external_ref=data.external_ref,
                prices_include_tax=data.prices_include_tax,
                actor=Actor.token(principal.token_id, principal.user_id),
            )
            return Outcome(
                status=HTTP_201_CREATED,
                body=msgspec.json.encode(order_detail_body(created, principal.timezone)),
                location=f"{request_url(request).rstrip('/')}/{created.order.id}",
            )

        return _tagged(await respond(request, idempotency_key, create))

    @post(
        "/{order_id:int}/advance",
        summary="Move an order to another stage",
        status_code=HTTP_200_OK,
        responses={**WRITE_RESPONSES, **ONE_RECORD_RESPONSES, 412: STALE_RESPONSE},
        response_headers=[ETAG_RESPONSE_HEADER, REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[AdvanceRequest],
        return_dto=None,
    )
    async def advance_order(
        self,
        request: Request[Principal, int, Any],
        order_id: OrderId,
        data: Annotated[
            AdvanceRequest,
            Body(
                description=(
                    "The workspace refuses (422, reason in `message`) a move of a dispatched "
                    "or cancelled order, a move to the current stage, leaving artwork before "
                    "approval when it requires approval, and skipping forward when it requires "
                    "stages in sequence. Rework (backward moves) is allowed. An unknown "
                    "`to_stage`, or `cancelled`, answers 422 with `errors.to_stage`. With "
                    "`If-Match`, the move is made only while the order's ETag is still that "
                    "one (otherwise 412, nothing moved)."
                )
            ),
        ],
        if_match: IfMatchHeader = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[OrderDetail]:
        principal = request.user

        async def advance() -> Outcome:
            await stage_moves.advance_order(
                workspace_id=principal.workspace_id,
                order_id=order_id,
                to_stage=data.to_stage,
                carrier=data.carrier,
                tracking_number=data.tracking_number,
                actor=Actor.token(principal.token_id, principal.user_id),
                precondition=_if_match(if_match),
            )
            return await _detail_outcome(principal, order_id, HTTP_200_OK)

        return _tagged(await respond(request, idempotency_key, advance))


def _if_match(if_match: str | None) -> Precondition | None:
    """An `If-Match` header as the write's precondition, checked by the domain under the
    order's lock (so the check and the change are one step): the order's ETag, as a GET would
    give it now, must be one the header names (`*` names any; a weak tag none). None without
    the header: the write checks nothing."""
    if if_match is None:
        return None

    async def unchanged(current: OrderRows, timezone: str) -> None:
        tag = etags.of(validated_part(order_detail_body(current, timezone)))
        if not etags.current(if_match, tag):
            raise StaleError(STALE_EXAMPLE)

    return unchanged


def _tagged(response: Response[Any]) -> Response[Any]:
    """A write's detail answer with the order's ETag, as a GET would give it (`respond`
    returns successes only: every error is raised to the app's exception handlers). A replay
    of an answer stored by an earlier version, whose body no longer reads as today's detail,
    goes back as it was stored, without an ETag (a GET gives the current one)."""
    try:
        shown = msgspec.json.decode(response.content, type=OrderDetail)
    except msgspec.ValidationError:
        return response
    response.headers["ETag"] = etags.of(validated_part(shown))
    return response


async def _detail_outcome(
    principal: Principal, order_id: int, status: int, location: str | None = None
) -> Outcome:
    """The detail body as bytes, read inside the write's transaction (so a replay of it is
    exactly what the first caller saw)."""
    row = await queries.get_order(principal.workspace_id, order_id)
    if row is None:
        raise NotFound("Order not found")
    body = msgspec.json.encode(order_detail_body(row, principal.timezone))
    return Outcome(status=status, body=body, location=location)
