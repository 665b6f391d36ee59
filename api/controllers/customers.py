"""Customer organisations: list (by name, 50 a page), detail, create and edit; their contacts
and addresses. Every write goes through models/customers/, as the admin's
customer pages and `pressline customer …` do."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, delete, get, patch, post
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.params import Body, PathParameter
from litestar.status_codes import (
    HTTP_200_OK,
    HTTP_201_CREATED,
    HTTP_204_NO_CONTENT,
)

from api import etags
from api.auth import Principal
from api.controllers.orders import WRITE_RESPONSES
from api.errors import NotFound
from api.etags import ETAG_RESPONSE_HEADER, IfMatchHeader, IfNoneMatchHeader
from api.idempotency import REPLAYED_RESPONSE_HEADER, IdempotencyKeyHeader, Outcome, respond
from api.links import request_url
from api.openapi import COMMON_RESPONSES, ONE_RECORD_RESPONSES, error_response
from api.pagination import offset, page_envelope
from api.params import query_operation
from api.schemas.common import ErrorBody, Page
from api.schemas.customers import CustomerListQuery
from api.validation import StrictBody, parse_query
from models.customers import addresses, contacts, queries, records
from models.customers.changes import Precondition
from models.errors import ErrorCode, StaleError
from models.schemas.customers import (
    Address,
    AddressCreate,
    AddressUpdate,
    Contact,
    ContactCreate,
    ContactUpdate,
    CustomerCreate,
    CustomerDetail,
    CustomerRow,
    CustomerUpdate,
    address_row_body,
    contact_body,
    customer_detail_body,
    customer_row_bodies,
)

PER_PAGE = 50
STALE_EXAMPLE = (
    "The customer changed since you read it (its ETag is no longer the one in If-Match); read "
    "it again and retry."
)
STALE_RESPONSE = error_response(
    ErrorBody,
    "The customer changed since the If-Match tag was read",
    {"stale": {"message": STALE_EXAMPLE, "code": ErrorCode.PRECONDITION_FAILED}},
)
EDIT_RESPONSES: dict[int, ResponseSpec] = {
    **WRITE_RESPONSES,
    **ONE_RECORD_RESPONSES,
    412: STALE_RESPONSE,
}
DELETE_RESPONSES: dict[int, ResponseSpec] = {**ONE_RECORD_RESPONSES, 412: STALE_RESPONSE}
IF_MATCH_NOTE = (
    " `If-Match` takes the customer's ETag (GET /customers/{id}): contacts and addresses are "
    "part of the customer."
)

CustomerId = Annotated[int, PathParameter(description="Numeric customer id")]
ContactId = Annotated[int, PathParameter(description="Numeric contact id (customer detail)")]
AddressId = Annotated[int, PathParameter(description="Numeric address id (customer detail)")]


async def _detail_body(workspace_id: int, customer_id: int) -> bytes:
    rows = await queries.get_customer(workspace_id, customer_id)
    if rows is None:
        raise NotFound("Customer not found")
    return msgspec.json.encode(customer_detail_body(rows))


def _if_match(workspace_id: int, customer_id: int, if_match: str | None) -> Precondition | None:
    """The `If-Match` check, run by the domain under the customer's lock."""
    if if_match is None:
        return None

    async def unchanged() -> None:
        body = await _detail_body(workspace_id, customer_id)
        if not etags.current(if_match, etags.of(body)):
            raise StaleError(STALE_EXAMPLE)

    return unchanged


def _outcome(body: msgspec.Struct, status: int = HTTP_200_OK) -> Outcome:
    return Outcome(status=status, body=msgspec.json.encode(body))


class CustomerController(Controller):
    path = "/customers"
    tags = ["Customers"]

    @get(
        summary="List customers, ordered by name",
        responses=COMMON_RESPONSES,
        operation_class=query_operation(CustomerListQuery),
    )
    async def list_customers(self, request: Request[Principal, int, Any]) -> Page[CustomerRow]:
        query = parse_query(request.query_params, CustomerListQuery)
        total, rows, order_counts = await queries.list_customers(
            request.user.workspace_id,
            search=query.search,
            updated_since=query.updated_since,
            email=query.email,
            external_ref=query.external_ref,
            limit=PER_PAGE,
            offset=offset(query.page, PER_PAGE),
        )
        return page_envelope(
            request,
            customer_row_bodies(rows, order_counts),
            page=query.page,
            per_page=PER_PAGE,
            total=total,
        )

    @get(
        "/{customer_id:int}",
        summary="One customer with its contacts and addresses",
        responses={
            **ONE_RECORD_RESPONSES,
            304: ResponseSpec(None, description="Not modified: the If-None-Match tag is current"),
        },
        response_headers=[ETAG_RESPONSE_HEADER],
    )
    async def get_customer(
        self,
        request: Request[Principal, int, Any],
        customer_id: CustomerId,
        if_none_match: IfNoneMatchHeader = None,
    ) -> Response[CustomerDetail]:
        body = await _detail_body(request.user.workspace_id, customer_id)
        etag = etags.of(body)
        return etags.read(body, etag, if_none_match)

    @post(
        summary="Create a customer with its contacts and addresses",
        status_code=HTTP_201_CREATED,
        responses=WRITE_RESPONSES,
        response_headers=[
            ResponseHeader(
                name="Location", description="URL of the new customer", documentation_only=True
            ),
            ETAG_RESPONSE_HEADER,
            REPLAYED_RESPONSE_HEADER,
        ],
        dto=StrictBody[CustomerCreate],
        return_dto=None,
    )
    async def create_customer(
        self,
        request: Request[Principal, int, Any],
        data: Annotated[
            CustomerCreate,
            Body(
                description=(
                    "The slug is made from the name (unique in the workspace). Types are "
                    "strict; every failing field is reported, keyed by dot path "
                    "(`contacts.0.email`). An external_ref already used answers 422 naming "
                    "the customer that has it. Records `customer.created`."
                )
            ),
        ],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[CustomerDetail]:
        workspace_id = request.user.workspace_id

        async def create() -> Outcome:
            row = await records.create_customer(
                workspace_id=workspace_id, **data.create_arguments()
            )
            return Outcome(
                status=HTTP_201_CREATED,
                body=await _detail_body(workspace_id, row.id),
                location=f"{request_url(request).rstrip('/')}/{row.id}",
            )

        response = await respond(request, idempotency_key, create)
        response.headers["ETag"] = etags.of(response.content)
        return response

    @patch(
        "/{customer_id:int}",
        summary="Edit a customer: name, external_ref, price list, terms, carrier, tax",
        status_code=HTTP_200_OK,
        responses=EDIT_RESPONSES,
        response_headers=[ETAG_RESPONSE_HEADER, REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[CustomerUpdate],
        return_dto=None,
    )
    async def edit_customer(
        self,
        request: Request[Principal, int, Any],
        customer_id: CustomerId,
        data: Annotated[
            CustomerUpdate,
            Body(
                description=(
                    "Only the fields sent change (the slug stays); null clears external_ref "
                    "or price_list. Records `customer.updated` when anything changed."
                )
            ),
        ],
        if_match: IfMatchHeader = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[CustomerDetail]:
        workspace_id = request.user.workspace_id

        async def change() -> Outcome:
            await records.edit_customer(
                workspace_id=workspace_id,
                customer_id=customer_id,
                changes=data.changes(),
                precondition=_if_match(workspace_id, customer_id, if_match),
            )
            return Outcome(status=HTTP_200_OK, body=await _detail_body(workspace_id, customer_id))

        response = await respond(request, idempotency_key, change)
        response.headers["ETag"] = etags.of(response.content)
        return response

    # --- contacts ------------------------------------------------------------------------------

    @post(
        "/{customer_id:int}/contacts",
        operation_id="createCustomerContact",
        summary="Add a contact to a customer",
        status_code=HTTP_201_CREATED,
        responses={**WRITE_RESPONSES, **ONE_RECORD_RESPONSES},
        response_headers=[REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[ContactCreate],
        return_dto=None,
    )
    async def add_contact(
        self,
        request: Request[Principal, int, Any],
        customer_id: CustomerId,
        data: Annotated[
            ContactCreate,
            Body(
                description=(
                    "The customer's first contact is primary; `is_primary` makes the new one "
                    "primary instead of the old. Records `customer.updated`."
                )
            ),
        ],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[Contact]:
        workspace_id = request.user.workspace_id
        contact = data.new_contact()

        async def add() -> Outcome:
            row = await contacts.add_contact(
                workspace_id=workspace_id,
                customer_id=customer_id,
                name=contact.name,
                email=contact.email,
                phone=contact.phone,
                primary=contact.primary,
            )
            return _outcome(contact_body(row), HTTP_201_CREATED)

        return await respond(request, idempotency_key, add)

    @patch(
        "/{customer_id:int}/contacts/{contact_id:int}",
        operation_id="updateCustomerContact",
        summary="Edit a customer's contact",
        status_code=HTTP_200_OK,
        responses=EDIT_RESPONSES,
        response_headers=[REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[ContactUpdate],
        return_dto=None,
    )
    async def edit_contact(
        self,
        request: Request[Principal, int, Any],
        customer_id: CustomerId,
        contact_id: ContactId,
        data: Annotated[
            ContactUpdate,
            Body(
                description="Only the fields sent change; `is_primary: true` makes it the "
                "primary contact (false never unmakes it). Records `customer.updated`."
                + IF_MATCH_NOTE
            ),
        ],
        if_match: IfMatchHeader = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[Contact]:
        workspace_id = request.user.workspace_id

        async def change() -> Outcome:
            row = await contacts.edit_contact(
                workspace_id=workspace_id,
                customer_id=customer_id,
                contact_id=contact_id,
                precondition=_if_match(workspace_id, customer_id, if_match),
                **data.changes(),
            )
            return _outcome(contact_body(row))

        return await respond(request, idempotency_key, change)

    @delete(
        "/{customer_id:int}/contacts/{contact_id:int}",
        operation_id="deleteCustomerContact",
        summary="Remove a customer's contact",
        status_code=HTTP_204_NO_CONTENT,
        responses=DELETE_RESPONSES,
        description="Removing the primary contact makes the oldest other one primary. Records "
        "`customer.updated`." + IF_MATCH_NOTE,
    )
    async def remove_contact(
        self,
        request: Request[Principal, int, Any],
        customer_id: CustomerId,
        contact_id: ContactId,
        if_match: IfMatchHeader = None,
    ) -> None:
        workspace_id = request.user.workspace_id
        await contacts.remove_contact(
            workspace_id=workspace_id,
            customer_id=customer_id,
            contact_id=contact_id,
            precondition=_if_match(workspace_id, customer_id, if_match),
        )

    # --- addresses -----------------------------------------------------------------------------

    @post(
        "/{customer_id:int}/addresses",
        operation_id="createCustomerAddress",
        summary="Add an address to a customer",
        status_code=HTTP_201_CREATED,
        responses={**WRITE_RESPONSES, **ONE_RECORD_RESPONSES},
        response_headers=[REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[AddressCreate],
        return_dto=None,
    )
    async def add_address(
        self,
        request: Request[Principal, int, Any],
        customer_id: CustomerId,
        data: Annotated[
            AddressCreate,
            Body(
                description=(
                    "The customer's first address is the default; `is_default` makes the new "
                    "one the default instead of the old. Records `customer.updated`."
                )
            ),
        ],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[Address]:
        workspace_id = request.user.workspace_id

        async def add() -> Outcome:
            row = await addresses.add_address(
                workspace_id=workspace_id, customer_id=customer_id, address=data.new_address()
            )
            return _outcome(address_row_body(row), HTTP_201_CREATED)

        return await respond(request, idempotency_key, add)

    @patch(
        "/{customer_id:int}/addresses/{address_id:int}",
        operation_id="updateCustomerAddress",
        summary="Edit a customer's address",
        status_code=HTTP_200_OK,
        responses=EDIT_RESPONSES,
        response_headers=[REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[AddressUpdate],
        return_dto=None,
    )
    async def edit_address(
        self,
        request: Request[Principal, int, Any],
        customer_id: CustomerId,
        address_id: AddressId,
        data: Annotated[
            AddressUpdate,
            Body(
                description="Only the fields sent change; `is_default: true` makes it the "
                "default address (false never unmakes it). Records `customer.updated`."
                + IF_MATCH_NOTE
            ),
        ],
        if_match: IfMatchHeader = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[Address]:
        workspace_id = request.user.workspace_id

        async def change() -> Outcome:
            row = await addresses.edit_address(
                workspace_id=workspace_id,
                customer_id=customer_id,
                address_id=address_id,
                changes=data.changes(),
                default=data.is_default is True,
                precondition=_if_match(workspace_id, customer_id, if_match),
            )
            return _outcome(address_row_body(row))

        return await respond(request, idempotency_key, change)

    @delete(
        "/{customer_id:int}/addresses/{address_id:int}",
        operation_id="deleteCustomerAddress",
        summary="Remove a customer's address",
        status_code=HTTP_204_NO_CONTENT,
        responses=DELETE_RESPONSES,
        description="Removing the default address makes the oldest other one the default. "
        "Records `customer.updated`." + IF_MATCH_NOTE,
    )
    async def remove_address(
        self,
        request: Request[Principal, int, Any],
        customer_id: CustomerId,
        address_id: AddressId,
        if_match: IfMatchHeader = None,
    ) -> None:
        workspace_id = request.user.workspace_id
        await addresses.remove_address(
            workspace_id=workspace_id,
            customer_id=customer_id,
            address_id=address_id,
            precondition=_if_match(workspace_id, customer_id, if_match),
        )
