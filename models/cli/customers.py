"""`pressline customer create` and `pressline contact add`."""

from __future__ import annotations

import argparse
from decimal import Decimal
from typing import Any

from models import catalogue
from models.cli.output import Result, add_json_flag
from models.tables import Contact, Customer


def _customer_data(row: Customer) -> dict[str, Any]:
    return {
        "id": row.id,
        "workspace_id": row.workspace,
        "name": row.name,
        "slug": row.slug,
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


async def create_customer(args: argparse.Namespace) -> Result:
    row = await catalogue.create_customer(
        workspace_id=args.workspace,
        name=args.name,
        slug=args.slug,
        price_list=args.price_list,
        discount=args.discount,
        payment_terms=args.payment_terms,
        carrier=args.carrier,
        tax_exempt=args.tax_exempt,
    )
    return Result(
        f"created customer {row.id} {row.name!r} (slug {row.slug}) in workspace {row.workspace}",
        _customer_data(row),
    )


async def add_contact(args: argparse.Namespace) -> Result:
    row = await catalogue.add_contact(
        customer_id=args.customer,
        name=args.name,
        email=args.email,
        phone=args.phone,
        primary=args.primary,
    )
    role = "primary contact" if row.is_primary else "contact"
    return Result(
        f"created {role} {row.id} {row.name} <{row.email}> for customer {row.customer}",
        _contact_data(row),
    )


def register(sub: Any) -> None:
    group = sub.add_parser("customer", help="customers")
    commands = group.add_subparsers(dest="action", required=True, metavar="ACTION")
    parser = commands.add_parser("create", help="add a customer (prints its id)")
    parser.add_argument("--workspace", type=int, required=True, help="workspace id")
    parser.add_argument("--name", required=True)
    parser.add_argument("--slug", help="default: made from the name, unique in the workspace")
    parser.add_argument("--price-list", metavar="NAME", help="found or created by name")
    parser.add_argument("--discount", type=Decimal, help="percent, for a new price list")
    parser.add_argument("--payment-terms", default="net_30", help="|".join(catalogue.PAYMENT_TERMS))
    parser.add_argument("--carrier", default="", help="default carrier for dispatch")
    parser.add_argument("--tax-exempt", action="store_true")
    add_json_flag(parser)
    parser.set_defaults(handler=create_customer)

    group = sub.add_parser("contact", help="customer contacts")
    commands = group.add_subparsers(dest="action", required=True, metavar="ACTION")
    parser = commands.add_parser("add", help="add a contact to a customer (prints its id)")
    parser.add_argument("--customer", type=int, required=True, help="customer id")
    parser.add_argument("--name", required=True)
    parser.add_argument("--email", required=True)
    parser.add_argument("--phone", default="")
    parser.add_argument(
        "--primary", action="store_true", help="make this the primary contact (a first is)"
    )
    add_json_flag(parser)
    parser.set_defaults(handler=add_contact)
