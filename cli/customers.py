"""`pressline customer create|list` and `pressline contact add`."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import click

from cli.output import DECIMAL, Result, command
from models import operators
from models.customers import contacts, records
from models.schemas.customers import customer_row_bodies
from models.tables import Contact, Customer


@click.group()
def customer() -> None:
    """Add and list a workspace's customers."""


@click.group()
def contact() -> None:
    """Add contacts to customers."""


def _customer_data(row: Customer) -> dict[str, Any]:
    return {
        "id": row.id,
        "workspace_id": row.workspace,
        "name": row.name,
        "slug": row.slug,
        "external_ref": row.external_ref,
        "price_list_id": row.price_list,
        "payment_terms": row.payment_terms,
        "default_carrier": row.default_carrier,
        "tax_exempt": row.tax_exempt,
    }


def _contact_data(row: Contact) -> dict[str, Any]:
    return {
        "id": row.id,
        "customer_id": row.customer,
        "name": row.name,
        "email": row.email,
        "phone": row.phone,
        "is_primary": row.is_primary,
    }


@command(customer, "create")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.option("--name", required=True, help="The customer's name.")
@click.option("--slug", help="URL name; default: made from the name, unique in the workspace.")
@click.option(
    "--external-ref", metavar="REF", help="Another system's id for it, unique in the workspace."
)
@click.option("--price-list", metavar="NAME", help="Price list, found or created by name.")
@click.option("--discount", type=DECIMAL, help="Discount in percent, for a new price list.")
@click.option(
    "--payment-terms",
    default="net_30",
    show_default=True,
    help="|".join(records.PAYMENT_TERMS),
)
@click.option("--carrier", default="", help="Default carrier for dispatch.")
@click.option("--tax-exempt", is_flag=True, help="Invoice this customer without tax.")
async def create_customer(
    workspace: int,
    name: str,
    slug: str | None,
    external_ref: str | None,
    price_list: str | None,
    discount: Decimal | None,
    payment_terms: str,
    carrier: str,
    tax_exempt: bool,
) -> Result:
    """Add a customer (prints its id); records customer.created, as the API's create does."""
    row = await records.create_customer(
        workspace_id=workspace,
        name=name,
        slug=slug,
        external_ref=external_ref,
        price_list=price_list,
        discount=discount,
        payment_terms=payment_terms,
        carrier=carrier,
        tax_exempt=tax_exempt,
    )
    return Result(
        f"created customer {row.id} {row.name!r} (slug {row.slug}) in workspace {row.workspace}",
        _customer_data(row),
    )


@command(customer, "list")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.option(
    "--search", metavar="TEXT", help="Only customers whose name contains TEXT (any case)."
)
@click.option("--limit", type=int, default=50, show_default=True, help="At most this many (1-500).")
async def list_customers(workspace: int, search: str | None, limit: int) -> Result:
    """A workspace's customers by name, as GET /api/v1/customers shows them."""
    found = await operators.list_customers(workspace, search=search, limit=limit)
    bodies = customer_row_bodies(found.rows, found.order_counts)
    lines = [f"{found.total} customer(s) in workspace {workspace}"]
    lines += [
        f"  {c.id}  {c.name}  (slug {c.slug})  price list {c.price_list or '-'}"
        f"  orders {c.orders_count} ({c.open_orders} open)"
        for c in bodies
    ]
    if found.total > len(bodies):
        lines.append(f"  … {found.total - len(bodies)} more (raise --limit)")
    return Result("\n".join(lines), {"total": found.total, "customers": bodies})


@command(contact, "add")
@click.option("--customer", type=int, required=True, help="Customer id.")
@click.option("--name", required=True, help="The contact's name.")
@click.option("--email", required=True, help="The contact's email address.")
@click.option("--phone", default="", help="Phone number, as written.")
@click.option(
    "--primary",
    is_flag=True,
    help="Make this the primary contact (a customer's first contact is).",
)
async def add_contact(customer: int, name: str, email: str, phone: str, primary: bool) -> Result:
    """Add a contact to a customer (prints its id); stage messages go to the primary one."""
    row = await contacts.add_contact(
        customer_id=customer, name=name, email=email, phone=phone, primary=primary
    )
    role = "primary contact" if row.is_primary else "contact"
    return Result(
        f"created {role} {row.id} {row.name} <{row.email}> for customer {row.customer}",
        _contact_data(row),
    )
