"""Customers: the list with search, a customer's page (fields, contacts, orders), create, edit,
and contacts (add, edit, remove; exactly one primary: models/customers/contacts.py).

Paths: /admin/customers, /customers/new, /customers/{id}, /customers/{id}/edit (GET form; the
edit itself is POST /customers/{id}), /customers/{id}/contacts (POST: add),
/customers/{id}/contacts/{contact_id} (GET form, POST edit) and
/customers/{id}/contacts/{contact_id}/remove (GET confirmation, POST remove). Staff and owners
alike. Every successful POST answers 303 with a one-time notice (api/admin/flash.py).
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, in_words, percent, text, whole_number
from api.admin.once import Created, create_once, new_token, token_of
from api.admin.order_forms import Shown, money
from api.admin.pages import page
from api.admin.security import PREFIX
from models.customers import contacts, records
from models.customers import pages as queries
from models.customers.records import PAYMENT_TERMS
from models.errors import InvalidFields, NotFoundError
from models.tables import Contact

CustomerId = Annotated[int, PathParameter(description="Customer id")]
ContactId = Annotated[int, PathParameter(description="Contact id")]
FIELDS = ("name", "slug", "price_list", "discount", "payment_terms", "carrier", "tax_exempt")
CONTACT_FIELDS = ("name", "email", "phone", "primary")
EMPTY = {name: "" for name in FIELDS} | {"payment_terms": "net_30"}
# Each field as a refusal names it (the labels of customer_form.html, _contact_fields.html).
LABELS = {
    "name": "the name", "slug": "the slug", "price_list": "the price list",
    "discount": "the discount", "payment_terms": "the payment terms",
    "carrier": "the default carrier",
}  # fmt: skip
CONTACT_LABELS = {"name": "the name", "email": "the email", "phone": "the phone number"}


def page_number(request: Request[Any, Any, Any]) -> int:
    """`?page=N` (1 when missing or not a number; at most 100,000)."""
    return max(1, min(whole_number(request.query_params.get("page", "1")) or 1, 100_000))


def _optional(value: str) -> str | None:
    return value.strip() or None


async def _typed_contact(request: Request[Any, Any, Any]) -> dict[str, str]:
    """A contact form's fields as typed (shown again when refused)."""
    fields = await form(request)
    return {name: text(fields, name) for name in CONTACT_FIELDS}


def _contact_values(typed: dict[str, str]) -> dict[str, Any]:
    """The typed contact as models/customers/contacts.py takes it (add and edit alike)."""
    return {
        "name": typed["name"],
        "email": typed["email"],
        "phone": typed["phone"],
        "primary": typed["primary"] == "on",
    }


class CustomerController(Controller):
    path = "/customers"

    @get("/")
    async def list_customers(self, request: Request[Any, Any, Any]) -> Template:
        search = request.query_params.get("q", "")[:500]
        number = page_number(request)
        found = await queries.customer_list(
            request.user.workspace_id, search=search, offset=(number - 1) * queries.PAGE
        )
        return page(
            request, "customers.html", here="customers", title="Customers", found=found,
            q=search, page_number=number, more=number * queries.PAGE < found.total,
            money=money, notice=(await flash.take(request)).notice,
        )  # fmt: skip

    def _form(
        self,
        request: Request[Any, Any, Any],
        *,
        typed: dict[str, str],
        customer_id: int | None = None,
        errors: dict[str, list[str]] | None = None,
        message: str = "",
        once: str = "",
    ) -> Template:
        return page(
            request, "customer_form.html", status_code=422 if errors or message else 200,
            here="customers", title="Edit customer" if customer_id else "New customer",
            typed=typed, customer_id=customer_id, errors=errors or {}, message=message,
            payment_terms=PAYMENT_TERMS, once=once,
        )  # fmt: skip

    @get("/new")
    async def new_customer(self, request: Request[Any, Any, Any]) -> Template:
        return self._form(request, typed=dict(EMPTY), once=new_token())

    @post("/", status_code=303)
    async def create_customer(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        return await self._save(request, None)

    async def _save(
        self, request: Request[Any, Any, Any], customer_id: int | None
    ) -> Template | Redirect:
        """Create (no `customer_id`) or edit: the form again with its errors, or the 303 to the
        customer's page. A new customer's empty slug is made from the name."""
        fields = await form(request)
        typed = {name: text(fields, name) for name in FIELDS}
        values: dict[str, Any] = {
            "workspace_id": request.user.workspace_id,
            "name": typed["name"],
            "price_list": _optional(typed["price_list"]),
            "discount": _optional(percent(typed["discount"])),  # 12,5 as 12.5
            "payment_terms": typed["payment_terms"],
            "carrier": typed["carrier"],
            "tax_exempt": typed["tax_exempt"] == "on",
        }
        try:
            if customer_id is None:

                async def create() -> Created:
                    row = await records.create_customer(slug=_optional(typed["slug"]), **values)
                    return Created(f"{PREFIX}/customers/{row.id}", row.name)

                return await create_once(
                    request, fields, create, created=lambda c: f"The customer {c.name} was added."
                )
            await records.update_customer(customer_id=customer_id, slug=typed["slug"], **values)
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, LABELS)
            once = token_of(fields) if customer_id is None else ""
            return self._form(
                request, typed=typed, customer_id=customer_id, errors=errors, once=once
            )
        return await flash.redirect(
            request, f"{PREFIX}/customers/{customer_id}", "The customer's details were saved."
        )

    @get("/{customer_id:int}")
    async def show_customer(
        self, request: Request[Any, Any, Any], customer_id: CustomerId
    ) -> Template:
        return await self._show(request, customer_id)

    async def _show(
        self,
        request: Request[Any, Any, Any],
        customer_id: int,
        *,
        typed: dict[str, str] | None = None,
        errors: dict[str, list[str]] | None = None,
    ) -> Template:
        found = await queries.customer_page(request.user.workspace_id, customer_id)
        if found is None:
            raise NotFoundError(f"customer {customer_id} not found")
        return page(
            request, "customer.html", status_code=422 if errors else 200, here="customers",
            title=found.customer.name, c=found, money=money, shown=Shown(request.user.timezone),
            errors=errors or {},
            typed=typed or {"name": "", "email": "", "phone": "", "primary": ""},
            notice=(await flash.take(request)).notice if errors is None else "",
        )  # fmt: skip

    @get("/{customer_id:int}/edit")
    async def edit_customer_form(
        self, request: Request[Any, Any, Any], customer_id: CustomerId
    ) -> Template:
        c = await queries.customer_record(request.user.workspace_id, customer_id)
        if c is None:
            raise NotFoundError(f"customer {customer_id} not found")
        discount = "" if c.discount_percent is None else f"{float(c.discount_percent):.2f}"
        typed = {
            "name": c.name, "slug": c.slug, "price_list": c.price_list or "",
            "discount": discount if c.price_list else "", "payment_terms": c.payment_terms,
            "carrier": c.default_carrier, "tax_exempt": "on" if c.tax_exempt else "",
        }  # fmt: skip
        return self._form(request, typed=typed, customer_id=customer_id)

    @post("/{customer_id:int}", status_code=303)
    async def edit_customer(
        self, request: Request[Any, Any, Any], customer_id: CustomerId
    ) -> Template | Redirect:
        return await self._save(request, customer_id)

    # --- contacts ------------------------------------------------------------------------------

    @post("/{customer_id:int}/contacts", status_code=303)
    async def add_contact(
        self, request: Request[Any, Any, Any], customer_id: CustomerId
    ) -> Template | Redirect:
        typed = await _typed_contact(request)
        try:
            row = await contacts.add_contact(
                workspace_id=request.user.workspace_id, customer_id=customer_id,
                **_contact_values(typed),
            )  # fmt: skip
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, CONTACT_LABELS)
            return await self._show(request, customer_id, typed=typed, errors=errors)
        role = "the primary contact" if row.is_primary else "a contact"
        return await flash.redirect(
            request, f"{PREFIX}/customers/{customer_id}", f"{row.name} was added as {role}."
        )

    async def _contact(
        self, request: Request[Any, Any, Any], customer_id: int, contact_id: int
    ) -> Contact:
        return await contacts.find_contact(request.user.workspace_id, customer_id, contact_id)

    def _contact_form(
        self,
        request: Request[Any, Any, Any],
        contact: Contact,
        *,
        typed: dict[str, str],
        errors: dict[str, list[str]] | None = None,
    ) -> Template:
        return page(
            request, "customer_contact.html", status_code=422 if errors else 200,
            here="customers", title=f"Contact {contact.name}", contact=contact, typed=typed,
            errors=errors or {},
        )  # fmt: skip

    @get("/{customer_id:int}/contacts/{contact_id:int}")
    async def edit_contact_form(
        self, request: Request[Any, Any, Any], customer_id: CustomerId, contact_id: ContactId
    ) -> Template:
        row = await self._contact(request, customer_id, contact_id)
        typed = {"name": row.name, "email": row.email, "phone": row.phone, "primary": ""}
        return self._contact_form(request, row, typed=typed)

    @post("/{customer_id:int}/contacts/{contact_id:int}", status_code=303)
    async def edit_contact(
        self, request: Request[Any, Any, Any], customer_id: CustomerId, contact_id: ContactId
    ) -> Template | Redirect:
        row = await self._contact(request, customer_id, contact_id)
        typed = await _typed_contact(request)
        try:
            row = await contacts.edit_contact(
                workspace_id=request.user.workspace_id, customer_id=customer_id,
                contact_id=contact_id, **_contact_values(typed),
            )  # fmt: skip
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, CONTACT_LABELS)
            return self._contact_form(request, row, typed=typed, errors=errors)
        return await flash.redirect(
            request, f"{PREFIX}/customers/{customer_id}", f"{row.name}'s details were saved."
        )

    @get("/{customer_id:int}/contacts/{contact_id:int}/remove")
    async def confirm_remove_contact(
        self, request: Request[Any, Any, Any], customer_id: CustomerId, contact_id: ContactId
    ) -> Template:
        row = await self._contact(request, customer_id, contact_id)
        return page(
            request, "customer_contact_remove.html", here="customers",
            title=f"Remove {row.name}", contact=row,
        )  # fmt: skip

    @post("/{customer_id:int}/contacts/{contact_id:int}/remove", status_code=303)
    async def remove_contact(
        self, request: Request[Any, Any, Any], customer_id: CustomerId, contact_id: ContactId
    ) -> Redirect:
        row = await self._contact(request, customer_id, contact_id)
        promoted = await contacts.remove_contact(
            workspace_id=request.user.workspace_id, customer_id=customer_id, contact_id=contact_id
        )
        notice = f"{row.name} was removed."
        if promoted is not None:
            notice += f" {promoted.name} is now the primary contact."
        return await flash.redirect(request, f"{PREFIX}/customers/{customer_id}", notice)
