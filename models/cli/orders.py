"""`pressline artwork proof|approve`, `invoice pay` and `order cancel`: operators' changes to
orders, each in one transaction with the webhook events it causes."""

from __future__ import annotations

import argparse
from typing import Any

from models import artwork, invoices, orders
from models.cli.output import CommandError, Result, add_json_flag
from models.queries.filters import MAX_ID
from models.tables import Artwork, Invoice, Order


async def _order(order_id: int) -> dict[str, Any]:
    """The order's workspace (operators name orders by id alone) and its number."""
    row = None
    if 0 < order_id <= MAX_ID:
        row = (
            await Order.select(Order.id, Order.workspace, Order.number)
            .where(Order.id == order_id)
            .first()
        )
    if row is None:
        raise CommandError(f"order {order_id} not found")
    return row


async def _artwork_data(order: dict[str, Any]) -> dict[str, Any]:
    row = (
        await Artwork.select(Artwork.status, Artwork.version, Artwork.approved_at)
        .where(Artwork.order == order["id"])
        .first()
    )
    return {"order_id": order["id"], "order_number": order["number"], **(row or {})}


async def proof(args: argparse.Namespace) -> Result:
    order = await _order(args.order)
    await artwork.send_proof(workspace_id=order["workspace"], order_id=order["id"])
    data = await _artwork_data(order)
    return Result(
        f"proof v{data['version']} sent for {order['number']}: awaiting the customer's approval",
        data,
    )


async def approve(args: argparse.Namespace) -> Result:
    order = await _order(args.order)
    await artwork.approve_artwork(workspace_id=order["workspace"], order_id=order["id"])
    data = await _artwork_data(order)
    return Result(
        f"artwork v{data['version']} of {order['number']} approved (artwork.approved queued)",
        data,
    )


async def pay(args: argparse.Namespace) -> Result:
    await invoices.pay_invoice(workspace_id=args.workspace, number=args.number)
    row = (
        await Invoice.select(
            Invoice.number, Invoice.status, Invoice.total_cents, Invoice.currency, Invoice.paid_at
        )
        .where(Invoice.workspace == args.workspace, Invoice.number == args.number)
        .first()
    )
    return Result(f"invoice {args.number} marked paid (invoice.paid queued)", row or {})


async def cancel(args: argparse.Namespace) -> Result:
    order = await _order(args.order)
    await orders.cancel_order(workspace_id=order["workspace"], order_id=order["id"])
    return Result(
        f"order {order['number']} cancelled; unconsumed stock reservations released",
        {"order_id": order["id"], "order_number": order["number"], "stage": "cancelled"},
    )


def _command(commands: Any, name: str, help_text: str, handler: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, help=help_text)
    add_json_flag(parser)
    parser.set_defaults(handler=handler)
    return parser


def register(sub: Any) -> None:
    group = sub.add_parser("artwork", help="artwork proofs and approval")
    commands = group.add_subparsers(dest="action", required=True, metavar="ACTION")
    parser = _command(commands, "proof", "send a new proof (version + 1)", proof)
    parser.add_argument("--order", type=int, required=True, help="order id")
    parser = _command(commands, "approve", "record the customer's approval", approve)
    parser.add_argument("--order", type=int, required=True, help="order id")

    group = sub.add_parser("invoice", help="invoices")
    commands = group.add_subparsers(dest="action", required=True, metavar="ACTION")
    parser = _command(commands, "pay", "mark an issued invoice paid", pay)
    parser.add_argument("--workspace", type=int, required=True, help="workspace id")
    parser.add_argument("number", metavar="NUMBER", help="invoice number, e.g. INV-2026-0001")

    group = sub.add_parser("order", help="orders")
    commands = group.add_subparsers(dest="action", required=True, metavar="ACTION")
    parser = _command(commands, "cancel", "cancel an open order, releasing its stock", cancel)
    parser.add_argument("--order", type=int, required=True, help="order id")
