"""A customer's addresses in the admin: add, edit, make default, remove (after a confirmation);
listed on the customer's page. Every change is models/customers/addresses.py's — the functions
the API's address routes call — so exactly one address is the default whenever any exist, and
each change records `customer.updated`.

Paths: /admin/customers/{id}/addresses/new (GET form; the add itself is POST
/customers/{id}/addresses), /customers/{id}/addresses/{address_id} (GET form, POST edit),
POST /customers/{id}/addresses/{address_id}/default, and
/customers/{id}/addresses/{address_id}/remove (GET confirmation, POST remove). Staff and owners
alike; each POST answers 303 to the customer's page with a one-time notice.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import address_forms, flash
from api.admin.forms import form, in_words, text
from api.admin.pages import page
from api.admin.security import PREFIX
from models.customers import addresses
from models.customers import pages as queries
from models.customers.pages import CustomerRecord
from models.errors import InvalidFields, NotFoundError
from models.tables import Address

CustomerId = Annotated[int, PathParameter(description="Customer id")]
AddressId = Annotated[int, PathParameter(description="Address id (the customer's addresses)")]


def _customer_url(customer_id: int) -> str:
    return f"{PREFIX}/customers/{customer_id}#addresses"


def _name(row: Address) -> str:
    """How a notice names an address: its label, else its first line."""
    return str(row.label or row.line1)


async def _customer(request: Request[Any, Any, Any], customer_id: int) -> CustomerRecord:
    found = await queries.customer_record(request.user.workspace_id, customer_id)
    if found is None:
        raise NotFoundError(f"customer {customer_id} not found")
    return found


class CustomerAddressController(Controller):
    path = "/customers"

    def _form(
        self,
        request: Request[Any, Any, Any],
        customer: CustomerRecord,
        *,
        typed: dict[str, str],
        address: Address | None = None,
        default: bool = False,
        errors: dict[str, list[str]] | None = None,
    ) -> Template:
        return page(
            request, "customer_address.html", status_code=422 if errors else 200,
            here="customers", title="Edit address" if address else "New address", c=customer,
            address=address, typed=typed, default=default, errors=errors or {},
            limits=addresses.LIMITS,
        )  # fmt: skip

    async def _address(
        self, request: Request[Any, Any, Any], customer_id: int, address_id: int
    ) -> Address:
        return await addresses.find_address(request.user.workspace_id, customer_id, address_id)

    @get("/{customer_id:int}/addresses/new")
    async def new_address(
        self, request: Request[Any, Any, Any], customer_id: CustomerId
    ) -> Template:
        customer = await _customer(request, customer_id)
        return self._form(request, customer, typed=dict(address_forms.EMPTY))

    @post("/{customer_id:int}/addresses", status_code=303)
    async def add_address(
        self, request: Request[Any, Any, Any], customer_id: CustomerId
    ) -> Template | Redirect:
        customer = await _customer(request, customer_id)
        fields = await form(request)
        typed = address_forms.typed_address(fields)
        default = text(fields, "default") == "on"
        try:
            row = await addresses.add_address(
                workspace_id=request.user.workspace_id, customer_id=customer_id,
                address=address_forms.new_address(typed, default=default),
            )  # fmt: skip
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, address_forms.LABELS)
            return self._form(request, customer, typed=typed, default=default, errors=errors)
        role = "the default address" if row.is_default else "an address"
        return await flash.redirect(
            request, _customer_url(customer_id), f"{_name(row)} was added as {role}."
        )

    @get("/{customer_id:int}/addresses/{address_id:int}")
    async def edit_address_form(
        self, request: Request[Any, Any, Any], customer_id: CustomerId, address_id: AddressId
    ) -> Template:
        customer = await _customer(request, customer_id)
        row = await self._address(request, customer_id, address_id)
        return self._form(request, customer, typed=address_forms.typed_from(row), address=row)

    @post("/{customer_id:int}/addresses/{address_id:int}", status_code=303)
    async def edit_address(
        self, request: Request[Any, Any, Any], customer_id: CustomerId, address_id: AddressId
    ) -> Template | Redirect:
        customer = await _customer(request, customer_id)
        row = await self._address(request, customer_id, address_id)
        fields = await form(request)
        typed = address_forms.typed_address(fields)
        default = text(fields, "default") == "on"
        try:
            row = await addresses.edit_address(
                workspace_id=request.user.workspace_id, customer_id=customer_id,
                address_id=address_id, changes=typed, default=default,
            )  # fmt: skip
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, address_forms.LABELS)
            return self._form(
                request, customer, typed=typed, address=row, default=default, errors=errors
            )
        return await flash.redirect(request, _customer_url(customer_id), f"{_name(row)} was saved.")

    @post("/{customer_id:int}/addresses/{address_id:int}/default", status_code=303)
    async def make_default(
        self, request: Request[Any, Any, Any], customer_id: CustomerId, address_id: AddressId
    ) -> Redirect:
        await self._address(request, customer_id, address_id)
        row = await addresses.edit_address(
            workspace_id=request.user.workspace_id, customer_id=customer_id,
            address_id=address_id, changes={}, default=True,
        )  # fmt: skip
        return await flash.redirect(
            request, _customer_url(customer_id), f"{_name(row)} is now the default address."
        )

    @get("/{customer_id:int}/addresses/{address_id:int}/remove")
    async def confirm_remove_address(
        self, request: Request[Any, Any, Any], customer_id: CustomerId, address_id: AddressId
    ) -> Template:
        customer = await _customer(request, customer_id)
        row = await self._address(request, customer_id, address_id)
        return page(
            request, "customer_address_remove.html", here="customers",
            title=f"Remove {_name(row)}", c=customer, address=row,
        )  # fmt: skip

    @post("/{customer_id:int}/addresses/{address_id:int}/remove", status_code=303)
    async def remove_address(
        self, request: Request[Any, Any, Any], customer_id: CustomerId, address_id: AddressId
    ) -> Redirect:
        row = await self._address(request, customer_id, address_id)
        promoted = await addresses.remove_address(
            workspace_id=request.user.workspace_id, customer_id=customer_id, address_id=address_id
        )
        notice = f"{_name(row)} was removed."
        if promoted is not None:
            notice += f" {_name(promoted)} is now the default address."
        return await flash.redirect(request, _customer_url(customer_id), notice)
