"""`pressline order list|show|advance|cancel`, `artwork proof|approve` and `invoice pay`:
operators' reads of orders and changes to them, each change in one transaction with the webhook
events it causes. An order is named by id or ORD- number, an invoice by id or INV- number."""

from __future__ import annotations

import click
import msgspec

from cli.output import CommandError, Result, command, moment, money
from models import operators
from models.garments import location_words, method_words
from models.orders.item_reads import ImprintView, ItemView
from models.schemas.orders import AdvanceRequest, order_bodies, order_detail_body
from models.stages import API_TARGET_STAGES, STAGES

ORDER_HELP = "Order id, or ORD- number (e.g. ORD-2026-0042)."
WORKSPACE_HELP = "Workspace id; needed only when the number exists in several workspaces."


@click.group()
def order() -> None:
    """List and show orders; move one to another stage, or cancel it."""


@click.group()
def artwork() -> None:
    """Artwork proofs and the customer's approval."""


@click.group()
def invoice() -> None:
    """Invoices."""


@command(order, "list")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.option("--stage", type=click.Choice(STAGES), help="Only orders in this stage.")
@click.option("--customer", metavar="SLUG", help="Only this customer's orders (its slug).")
@click.option("--limit", type=int, default=50, show_default=True, help="At most this many (1-500).")
async def list_orders(
    workspace: int, stage: str | None, customer: str | None, limit: int
) -> Result:
    """A workspace's orders, newest first, as GET /api/v1/orders shows them."""
    found = await operators.list_orders(workspace, stage=stage, customer_slug=customer, limit=limit)
    bodies = order_bodies(found.rows, found.lines, found.timezone)
    lines = [f"{found.total} order(s) in workspace {workspace}"]
    lines += [
        f"  {o.id}  {o.number}  {o.stage}  {o.customer.name}"
        f"  {money(o.totals.total_cents, o.totals.currency)}  created {moment(o.created_at)}"
        for o in bodies
    ]
    if found.total > len(bodies):
        lines.append(f"  … {found.total - len(bodies)} more (raise --limit)")
    return Result("\n".join(lines), {"total": found.total, "orders": bodies})


@command(order, "show")
@click.argument("ref", metavar="ORDER")
@click.option("--workspace", type=int, help=WORKSPACE_HELP)
async def show(ref: str, workspace: int | None) -> Result:
    """One order with its garments (sizes, imprints, stock), lines, stage history, invoices and
    artwork, as GET /api/v1/orders/{id} shows it. ORDER: order id or ORD- number."""
    found = await operators.order_detail(ref, workspace)
    o = order_detail_body(found.rows, found.timezone)
    lines = [
        f"order {o.id} {o.number}: {o.stage}"
        + (f" ({o.substage})" if o.substage else "")
        + f", customer {o.customer.name} ({o.customer.slug})",
        f"  total {money(o.totals.total_cents, o.totals.currency)}"
        f" (tax {money(o.totals.tax_cents, o.totals.currency)})"
        f"; due {o.due_by[:10] if o.due_by else '-'}; created {moment(o.created_at)}",
    ]
    for item in found.rows.items:
        lines += item_lines(item, o.totals.currency)
    for line in o.lines:
        lines.append(
            f"  {line.quantity} x {line.description}"
            + (f" [{line.sku}]" if line.sku else "")
            + f" @ {money(line.unit_price_cents, o.totals.currency)}"
        )
    lines.append(f"  artwork: {o.artwork.status}, version {o.artwork.version}")
    for entry in o.stage_history:
        lines.append(f"  {moment(entry.at)}  {entry.from_ or '-'} -> {entry.to}")
    for inv in o.invoices:
        lines.append(f"  invoice {inv.number}: {inv.status}, {money(inv.total, inv.currency)}")
    if o.dispatched_at:
        lines.append(
            f"  dispatched {moment(o.dispatched_at)} with {o.carrier or '-'}"
            f" {o.tracking_number or ''}".rstrip()
        )
    return Result("\n".join(lines), o)


def item_lines(item: ItemView, currency: str) -> list[str]:
    """A garment as the shop floor reads it: what, how many in which sizes, stock, imprints."""
    shown = [
        f"  garment {item.position + 1}: {item.quantity} x {item.description} (style"
        f" {item.style}, colour {item.colour}), {_price(item.unit_price_cents, currency)} each",
        "    sizes: " + ", ".join(f"{size} {quantity}" for size, quantity in item.sizes.items()),
    ]
    if item.size_upcharges_cents:
        upcharges = item.size_upcharges_cents.items()
        shown.append(
            "    upcharges: " + ", ".join(f"{size} +{money(c, currency)}" for size, c in upcharges)
        )
    for size, level in (item.stock or {}).items():
        short = f", short {-level.available}" if level.available < 0 else ""
        shown.append(
            f"    stock {size} [{level.sku}]: {level.on_hand} on hand, {level.reserved} reserved,"
            f" {level.available} available{short}"
        )
    shown += [f"    {imprint_line(imprint, currency)}" for imprint in item.imprints]
    return shown


def _price(cents: int | None, currency: str) -> str:
    """A typed price, or where an untyped one comes from (each line shows what it came to)."""
    return "price list" if cents is None else money(cents, currency)


def imprint_line(imprint: ImprintView, currency: str) -> str:
    """`Front: Screen print, 2 colours (White, Red), 280 x 200 mm; 1.80 GBP a garment, …`."""
    names = f" ({', '.join(imprint.colour_names)})" if imprint.colour_names else ""
    what = [method_words(imprint.method)]
    if imprint.colours is not None:
        plural = "" if imprint.colours == 1 else "s"
        what.append(f"{imprint.colours} colour{plural}{names}")
    else:  # thread or ink colours named without a count
        what[0] += names
    if imprint.stitches is not None:
        what.append(f"{imprint.stitches:,} stitches")
    if imprint.width_mm or imprint.height_mm:
        what.append(f"{imprint.width_mm or '?'} x {imprint.height_mm or '?'} mm")
    prices = [f"{_price(imprint.unit_price_cents, currency)} a garment"]
    if imprint.setup_cents is None:
        prices.append("setup from the price list")
    elif imprint.setup_cents:
        prices.append(f"setup {money(imprint.setup_cents, currency)}")
    location = location_words(imprint.location)
    text = f"{location}: " + ", ".join(what) + "; " + ", ".join(prices)
    if imprint.notes:
        text += "; notes: " + " / ".join(imprint.notes.splitlines())
    return text


@command(order, "advance")
@click.argument("ref", metavar="ORDER")
@click.option(
    "--to",
    "to_stage",
    required=True,
    type=click.Choice(API_TARGET_STAGES),
    help="The stage to move to (`order cancel` cancels).",
)
@click.option("--carrier", help="Only with --to dispatched; default: the customer's carrier.")
@click.option("--tracking-number", help="Only with --to dispatched.")
@click.option("--workspace", type=int, help=WORKSPACE_HELP)
async def advance(
    ref: str,
    to_stage: str,
    carrier: str | None,
    tracking_number: str | None,
    workspace: int | None,
) -> Result:
    """Move an order to another stage as POST /api/v1/orders/{id}/advance does: the
    workspace's rules, the same refusals (exit status 1), the webhook events, stock, invoice
    and customer message. Recorded as an operator's move. ORDER: order id or ORD- number."""
    try:  # the API's own request Struct: its bounds and "carrier only on dispatch"
        request = msgspec.convert(
            {"to_stage": to_stage, "carrier": carrier, "tracking_number": tracking_number},
            AdvanceRequest,
        )
    except msgspec.ValidationError as invalid:
        raise CommandError(str(invalid)) from None
    found = await operators.advance_order(
        ref,
        workspace,
        to_stage=request.to_stage,
        carrier=request.carrier,
        tracking_number=request.tracking_number,
    )
    o = order_detail_body(found.rows, found.timezone)
    move = o.stage_history[-1]
    human = f"order {o.number} moved from {move.from_} to {move.to}"
    if o.stage == "dispatched":
        shipped = " ".join(part for part in (o.carrier, o.tracking_number) if part)
        human += f" ({shipped or 'no carrier'})"
        if o.invoices:
            human += f"; invoice {o.invoices[-1].number} issued"
    return Result(human, o)


@command(order, "cancel")
@click.option("--order", "ref", required=True, metavar="ORDER", help=ORDER_HELP)
@click.option("--workspace", type=int, help=WORKSPACE_HELP)
async def cancel(ref: str, workspace: int | None) -> Result:
    """Cancel an open order, releasing its unconsumed stock (webhook event `order.cancelled`)."""
    done = await operators.cancel_order(ref, workspace)
    return Result(
        f"order {done.order_number} cancelled; unconsumed stock reservations released", done
    )


@command(artwork, "proof")
@click.option("--order", "ref", required=True, metavar="ORDER", help=ORDER_HELP)
@click.option("--workspace", type=int, help=WORKSPACE_HELP)
async def proof(ref: str, workspace: int | None) -> Result:
    """Send a new proof: version + 1, awaiting the customer's approval."""
    state = await operators.send_proof(ref, workspace)
    return Result(
        f"proof v{state.version} sent for {state.order_number}: awaiting the customer's approval",
        state,
    )


@command(artwork, "approve")
@click.option("--order", "ref", required=True, metavar="ORDER", help=ORDER_HELP)
@click.option("--workspace", type=int, help=WORKSPACE_HELP)
async def approve(ref: str, workspace: int | None) -> Result:
    """Record the customer's approval of the current proof (emits artwork.approved)."""
    state = await operators.approve_artwork(ref, workspace)
    return Result(
        f"artwork v{state.version} of {state.order_number} approved (artwork.approved queued)",
        state,
    )


@command(invoice, "pay")
@click.argument("ref", metavar="INVOICE")
@click.option("--workspace", type=int, help=WORKSPACE_HELP)
async def pay(ref: str, workspace: int | None) -> Result:
    """Mark an issued invoice paid (emits invoice.paid). INVOICE: invoice id or INV- number
    (e.g. INV-2026-0001)."""
    state = await operators.pay_invoice(ref, workspace)
    return Result(f"invoice {state.number} marked paid (invoice.paid queued)", state)
