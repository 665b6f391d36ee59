"""Invoices: list (newest first, 50 a page), detail with payments, and recording a payment.
The rules are models/invoices/payments.py's."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.openapi import ResponseSpec
from litestar.params import Body, PathParameter
from litestar.status_codes import HTTP_201_CREATED

from api import etags
from api.auth import Principal
from api.controllers.orders import WRITE_RESPONSES
from api.errors import NotFound
from api.etags import ETAG_RESPONSE_HEADER, IfNoneMatchHeader
from api.idempotency import REPLAYED_RESPONSE_HEADER, IdempotencyKeyHeader, Outcome, respond
from api.openapi import COMMON_RESPONSES, ONE_RECORD_RESPONSES
from api.pagination import offset, page_envelope
from api.params import query_operation
from api.schemas.common import Page
from api.schemas.invoices import (
    InvoiceDetail,
    InvoiceListQuery,
    InvoiceSummary,
    PaymentCreate,
    PaymentReceipt,
    invoice_bodies,
    invoice_detail_body,
)
from api.validation import StrictBody, parse_query
from models.actors import Actor
from models.invoices import payments, queries

PER_PAGE = 50

InvoiceId = Annotated[
    int,
    PathParameter(description="Numeric invoice id (numbers like INV-… are not accepted)"),
]


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
