"""Invoices: list (newest first, 50 a page), detail with payments, recording a payment, and
voiding one (an owner's token). The rules are models/invoices/payments.py's and
voiding.py's."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.openapi import ResponseSpec
from litestar.params import Body, PathParameter
from litestar.status_codes import HTTP_200_OK, HTTP_201_CREATED

from api import etags
from api.auth import Principal
from api.controllers.orders import WRITE_RESPONSES
from api.errors import Forbidden, NotFound
from api.etags import ETAG_RESPONSE_HEADER, IfNoneMatchHeader
from api.idempotency import REPLAYED_RESPONSE_HEADER, IdempotencyKeyHeader, Outcome, respond
from api.openapi import COMMON_RESPONSES, ONE_RECORD_RESPONSES, error_response
from api.pagination import offset, page_envelope
from api.params import query_operation
from api.schemas.common import ErrorBody, Page
from api.schemas.invoices import (
    InvoiceDetail,
    InvoiceListQuery,
    InvoiceSummary,
    PaymentCreate,
    PaymentReceipt,
    PaymentVoid,
    invoice_bodies,
    invoice_detail_body,
)
from api.validation import StrictBody, parse_query
from models.actors import Actor
from models.errors import ErrorCode
from models.invoices import payments, queries, voiding

PER_PAGE = 50

InvoiceId = Annotated[
    int,
    PathParameter(description="Numeric invoice id (numbers like INV-… are not accepted)"),
]
PaymentId = Annotated[int, PathParameter(description="Numeric payment id (an invoice's payments)")]
OWNERS_ONLY = "Only an owner's token can void a payment."


class InvoiceController(Controller):
    path = "/invoices"
    tags = ["Invoices"]

    @get(
        summary="List invoices, newest first",
        responses=COMMON_RESPONSES,
        operation_class=query_operation(InvoiceListQuery),
    )
    async def list_invoices(self, request: Request[Principal, int, Any]) -> Page[InvoiceSummary]:
        query = parse_query(request.query_params, InvoiceListQuery)
        total, rows = await queries.list_invoices(
            request.user.workspace_id,
            status=query.status,
            customer_slug=query.customer,
            order_id=query.order,
            updated_since=query.updated_since,
            limit=PER_PAGE,
            offset=offset(query.page, PER_PAGE),
        )
        return page_envelope(
            request, invoice_bodies(rows), page=query.page, per_page=PER_PAGE, total=total
        )

    @get(
        "/{invoice_id:int}",
        summary="One invoice with its payments, balance and due date",
        responses={
            **ONE_RECORD_RESPONSES,
            304: ResponseSpec(None, description="Not modified: the If-None-Match tag is current"),
        },
        response_headers=[ETAG_RESPONSE_HEADER],
    )
    async def get_invoice(
        self,
        request: Request[Principal, int, Any],
        invoice_id: InvoiceId,
        if_none_match: IfNoneMatchHeader = None,
    ) -> Response[InvoiceDetail]:
        rows = await queries.get_invoice(request.user.workspace_id, invoice_id)
        if rows is None:
            raise NotFound("Invoice not found")
        body = msgspec.json.encode(invoice_detail_body(rows))
        return etags.read(body, etags.of(body), if_none_match)

    @post(
        "/{invoice_id:int}/payments",
        summary="Record a payment against an invoice (a part or the balance)",
        status_code=HTTP_201_CREATED,
        responses={**WRITE_RESPONSES, **ONE_RECORD_RESPONSES},
        response_headers=[REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[PaymentCreate],
        return_dto=None,
    )
    async def create_payment(
        self,
        request: Request[Principal, int, Any],
        invoice_id: InvoiceId,
        data: Annotated[
            PaymentCreate,
            Body(
                description=(
                    "An amount from 1 to the invoice's balance_cents; more answers 422 with "
                    "`errors.amount_cents` naming the balance (also when another payment "
                    "took it first). Only an issued invoice takes payments. The payment that "
                    "brings the balance to 0 makes the invoice paid. Events: "
                    "`invoice.payment_received` for each payment, `invoice.paid` once."
                )
            ),
        ],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[PaymentReceipt]:
        principal = request.user

        async def pay() -> Outcome:
            recorded = await payments.record_payment(
                workspace_id=principal.workspace_id,
                invoice=invoice_id,
                amount_cents=data.amount_cents,
                method=data.method,
                reference=data.reference,
                paid_at=data.paid_at,
                actor=Actor.token(principal.token_id, principal.user_id),
            )
            rows = await queries.get_invoice(principal.workspace_id, invoice_id)
            if rows is None:  # the payment's own transaction: it is there
                raise NotFound("Invoice not found")
            detail = invoice_detail_body(rows)
            made = next(p for p in detail.payments if p.id == recorded.payment_id)
            receipt = PaymentReceipt(payment=made, invoice=detail)
            return Outcome(status=HTTP_201_CREATED, body=msgspec.json.encode(receipt))

        return await respond(request, idempotency_key, pay)


class PaymentController(Controller):
    path = "/payments"
    tags = ["Invoices"]

    @post(
        "/{payment_id:int}/void",
        summary="Void a payment (an owner's token): its invoice's balance comes back",
        status_code=HTTP_200_OK,
        responses={
            **WRITE_RESPONSES,
            **ONE_RECORD_RESPONSES,
            403: error_response(
                ErrorBody,
                "The token's user is deactivated, or not an owner",
                {"not an owner": {"message": OWNERS_ONLY, "code": ErrorCode.FORBIDDEN}},
            ),
        },
        response_headers=[REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[PaymentVoid],
        return_dto=None,
    )
    async def void_payment(
        self,
        request: Request[Principal, int, Any],
        payment_id: PaymentId,
        data: Annotated[
            PaymentVoid,
            Body(
                description=(
                    "Why the payment is voided. The payment keeps its place in the invoice's "
                    "`payments` with `voided_at` and `void_reason`, and no longer counts: "
                    "`paid_cents` drops by its amount, and a paid invoice is issued again "
                    "(`paid_at` null). A payment already voided answers 422 "
                    f"`{ErrorCode.PAYMENT_ALREADY_VOIDED}`. Event: `payment.voided`."
                )
            ),
        ],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[InvoiceDetail]:
        principal = request.user
        if principal.role != "owner":
            raise Forbidden(OWNERS_ONLY)

        async def void() -> Outcome:
            voided = await voiding.void_payment(
                workspace_id=principal.workspace_id,
                payment_id=payment_id,
                reason=data.reason,
                actor=Actor.token(principal.token_id, principal.user_id),
            )
            rows = await queries.get_invoice(principal.workspace_id, voided.invoice_id)
            if rows is None:  # the void's own transaction: it is there
                raise NotFound("Invoice not found")
            body = msgspec.json.encode(invoice_detail_body(rows))
            return Outcome(status=HTTP_200_OK, body=body)

        return await respond(request, idempotency_key, void)
