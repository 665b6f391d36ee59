"""The admin's invoice reads: the list (newest first, filtered by status, with the workspace's
outstanding balance per currency) and one invoice as its printed page shows it (the admin's page
and the customer's, `/i/{token}`): the shop as Settings → Invoices names it, the bill-to, the
lines, the tax at the order's rate, payments and balance."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

import msgspec

from models import statements
from models.invoices import letterhead
from models.invoices.letterhead import Letterhead
from models.invoices.queries import InvoiceRow, PaymentRow, get_invoice
from models.invoices.status import InvoiceStatus
from models.statements import Select, Sql, Stamp, when

PAGE = 50


# The statuses the list filters by (no invoice is a draft or void yet).
LISTED = (InvoiceStatus.ISSUED, InvoiceStatus.PAID)


class InvoiceLine(msgspec.Struct, array_like=True, frozen=True):
    id: int
    number: str
    status: str
    total_cents: int
    paid_cents: int
    currency: str
    issued_at: Stamp | None
    due_at: Stamp | None
    paid_at: Stamp | None
    order_number: str
    customer_id: int
    customer_name: str


class Outstanding(msgspec.Struct, array_like=True, frozen=True):
    currency: str
    invoices: int
    total_cents: int | Decimal


@functools.cache
def list_statements(status: bool) -> tuple[Sql, Select[InvoiceLine]]:
    where = "i.workspace = $1" + (" AND i.status = $2" if status else "")
    n = 2 if status else 1
    count = Sql(f"SELECT COUNT(*) FROM invoices i WHERE {where}")  # noqa: S608 - constants
    page = Select(
        InvoiceLine,
        f"""
        SELECT i.id, i.number, i.status, i.total_cents, i.paid_cents, i.currency,
               UTC_TEXT(i.issued_at), UTC_TEXT(i.due_at), UTC_TEXT(i.paid_at), o.number, c.id,
               c.name
        FROM invoices i
        JOIN orders o ON o.id = i."order"
        JOIN customers c ON c.id = i.customer
        WHERE {where}
        ORDER BY i.created_at DESC, i.id DESC LIMIT ${n + 1} OFFSET ${n + 2}
        """,  # noqa: S608 - constant fragments
    )
    return count, page


OUTSTANDING = Select(
    Outstanding,
    """
    SELECT currency, COUNT(*), SUM(total_cents - paid_cents) FROM invoices
    WHERE workspace = $1 AND status = 'issued'
    GROUP BY currency ORDER BY currency
    """,
)


class InvoiceListPage(msgspec.Struct, frozen=True):
    total: int
    rows: list[InvoiceLine]
    outstanding: list[Outstanding]


async def invoice_list(
    workspace_id: int, *, status: InvoiceStatus | None, offset: int
) -> InvoiceListPage:
    count, page = list_statements(status is not None)
    args: list[object] = [workspace_id] + ([status.value] if status is not None else [])
    async with statements.connection() as reader:
        total, rows = await statements.counted_page(reader, count, page, args, PAGE, offset)
        outstanding = await reader.all(OUTSTANDING, workspace_id)
    return InvoiceListPage(total=total, rows=rows, outstanding=outstanding)


# --- one invoice, as the admin prints it ----------------------------------------------------


class Shop(msgspec.Struct, array_like=True, frozen=True):
    name: str
    email: str  # the workspace's reply-to address; "" when none
    timezone: str  # dates on the page are the shop's


class BillTo(msgspec.Struct, array_like=True, frozen=True):
    """The customer's primary contact and default address (NULLs when it has none)."""

    contact_name: str | None
    contact_email: str | None
    name: str | None
    company: str | None
    line1: str | None
    line2: str | None
    city: str | None
    region: str | None
    postal_code: str | None
    country: str | None


class OrderFacts(msgspec.Struct, array_like=True, frozen=True):
    subtotal_cents: int
    tax_cents: int
    total_cents: int
    dispatched_at: Stamp | None
    external_ref: str | None
    ship_to: str | dict[str, str] | None  # JSON: text on SQLite and PostgreSQL alike
    tax_rate: Decimal | float | int | str | None  # NUMERIC; None for orders priced before it
    prices_include_tax: bool


class PageLine(msgspec.Struct, array_like=True, frozen=True):
    description: str
    quantity: int
    unit_price_cents: int
    line_total_cents: int


SHOP = Select(Shop, "SELECT name, email, timezone FROM workspaces WHERE id = $1")
BILL_TO = Select(
    BillTo,
    """
    SELECT ct.name, ct.email, a.name, a.company, a.line1, a.line2, a.city, a.region,
        a.postal_code, a.country
    FROM customers c
    LEFT JOIN contacts ct ON ct.customer = c.id AND ct.is_primary
    LEFT JOIN addresses a ON a.customer = c.id AND a.is_default
    WHERE c.id = $1
    LIMIT 1
    """,
)
# The order and its lines: the order id comes from the invoice, read within the workspace.
ORDER_FACTS = Select(
    OrderFacts,
    """
    SELECT subtotal_cents, tax_cents, total_cents, UTC_TEXT(dispatched_at), external_ref,
        ship_to, tax_rate, prices_include_tax
    FROM orders WHERE id = $1
    """,
)
LINES = Select(
    PageLine,
    """
    SELECT description, quantity, unit_price_cents, line_total_cents FROM order_lines
    WHERE "order" = $1 ORDER BY position
    """,
)


# The address fields in the order a bill-to prints them (a customer's address or a ship-to).
_ADDRESS = (("company",), ("line1",), ("line2",), ("city", "postal_code"), ("region",),
            ("country",))  # fmt: skip


def _address_lines(address: Mapping[str, Any]) -> list[str]:
    lines = (" ".join(address.get(key) or "" for key in keys).strip() for keys in _ADDRESS)
    return [line for line in lines if line]


def rate_text(rate: Decimal | float | int | str | None) -> str | None:
    """A stored rate as people write it: `20`, `17.5` (None when the order has none)."""
    if rate is None:
        return None
    try:
        value = Decimal(str(rate))
    except InvalidOperation:
        return None
    text = f"{value.quantize(Decimal('0.01')):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


class InvoicePage(msgspec.Struct, frozen=True):
    invoice: InvoiceRow
    payments: list[PaymentRow]
    shop: Shop
    bill_to: BillTo | None
    order: OrderFacts
    lines: list[PageLine]
    letterhead: Letterhead

    @property
    def shop_name(self) -> str:
        return self.letterhead.name(self.shop.name)

    @property
    def contact_email(self) -> str | None:
        """The customer's primary contact's address: where "Email invoice" sends it."""
        return self.bill_to.contact_email if self.bill_to else None

    def bill_to_lines(self) -> list[str]:
        """Under the customer's name: the primary contact, then the customer's default
        address, or the order's ship-to when the customer has none."""
        b = self.bill_to
        contact = [line for line in (b.contact_name, b.contact_email) if line] if b else []
        address = msgspec.structs.asdict(b) if b is not None and b.line1 else self.ship_to() or {}
        lines = _address_lines(address)
        if lines and lines[0] == self.invoice.customer_name == address.get("company"):
            lines = lines[1:]  # the company is the customer, named above
        return contact + lines

    @property
    def tax_words(self) -> str:
        """The tax line's words: the label and the order's rate, "VAT 20 %" (the label
        alone for an order priced before its rate was kept)."""
        rate = rate_text(self.order.tax_rate)
        label = self.letterhead.tax_label
        return f"{label} {rate} %" if rate is not None else label

    @property
    def balance_cents(self) -> int:
        return self.invoice.total_cents - self.invoice.paid_cents

    def overdue(self, now: dt.datetime) -> bool:
        """Issued, with something left to pay, past its due date."""
        due = self.invoice.due_at
        issued = self.invoice.status == InvoiceStatus.ISSUED
        return issued and self.balance_cents > 0 and due is not None and when(due) < now

    def ship_to(self) -> dict[str, str] | None:
        value = self.order.ship_to
        return msgspec.json.decode(value) if isinstance(value, str) else value


async def invoice_page(workspace_id: int, number: str) -> InvoicePage | None:
    """The invoice named by its number, with everything its printed page shows; None when the
    workspace has no such invoice."""
    found = await get_invoice(workspace_id, number)
    if found is None:
        return None
    invoice = found.invoice
    async with statements.connection() as reader:
        shop = await reader.one(SHOP, workspace_id)
        order = await reader.one(ORDER_FACTS, invoice.order_id)
        if shop is None or order is None:  # deleted in between
            return None
        bill_to = await reader.one(BILL_TO, invoice.customer_id)
        return InvoicePage(
            invoice=invoice,
            payments=found.payments,
            shop=shop,
            bill_to=bill_to,
            order=order,
            lines=await reader.all(LINES, invoice.order_id),
            letterhead=await letterhead.read_with(reader, workspace_id),
        )
