"""The sample workspace `pressline demo` builds: a print shop mid-week, reproducibly.

Everything goes through the domain operations an operator or integrator would use (orders
are created, proofed, moved, cancelled and paid through models.orders & co.), in one
transaction, so a failed build leaves nothing half-made. A second run finds the workspace
by name and only issues a fresh token: the previous demo token is revoked (demo tokens live
30 days), and the owner's password is set only while they have none, so a password changed
since is kept.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import secrets
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from models import (
    accounts,
    artwork,
    catalogue,
    clock,
    db,
    members,
    plans,
)
from models.actors import OPERATOR
from models.customers import contacts, records
from models.garments import NewImprint, NewItem
from models.invoices import payments
from models.mail import queue
from models.orders import cancelling, creating, stage_moves
from models.orders.lines import NewLine
from models.stages import SEQUENCE
from models.tables import ApiToken, Invoice, User, Workspace

WORKSPACE_NAME = "Demo Print Co"
STAFF = ("Priya Shah", "priya@demo-print.example")
TRIAL_DAYS = 14
TOKEN_NAME = "demo"  # noqa: S105 - a label, not a secret
TOKEN_DAYS = 30
SEED = 20261122

# style code, style, brand, cost (pence: what the shop pays; the price list marks it up),
# colours, sizes
STYLES: tuple[tuple[str, str, str, int, tuple[tuple[str, str, str], ...], tuple[str, ...]], ...] = (
    ("TEE", "Classic Tee", "Gildan", 185,
     (("BLK", "Black", "#000000"), ("WHT", "White", "#FFFFFF"), ("NVY", "Navy", "#1F2A44"),
      ("HGY", "Heather Grey", "#9EA3A8")), ("S", "M", "L", "XL", "2XL")),
    ("ORG", "Organic Creator Tee", "Stanley/Stella", 395,
     (("NAT", "Natural Raw", "#EFE6D2"), ("BLK", "Black", "#000000")), ("S", "M", "L", "XL")),
    ("HOOD", "College Hoodie", "AWDis Just Hoods", 890,
     (("BLK", "Jet Black", "#111111"), ("NVY", "Oxford Navy", "#1C2841"),
      ("BUR", "Burgundy", "#6D2E46")), ("S", "M", "L", "XL", "2XL")),
    ("TOTE", "Cotton Tote", "Westford Mill", 140,
     (("NAT", "Natural", "#F3ECDC"), ("BLK", "Black", "#000000"), ("NVY", "Navy", "#1F2A44")),
     ("OS",)),
    ("BEAN", "Cuffed Beanie", "Beechfield", 230, (("BLK", "Black", "#000000"),), ("OS",)),
)  # fmt: skip
# Garments the shop buys in for each job (no SKUs, so not stocked): style → the garment's
# price, typed (the price list marks up only the costs of stocked SKUs).
BOUGHT_IN = {"5 Panel Cap": 650, "Trucker Cap": 575}

# What is printed or stitched: priced by the workspace's price list (matrices and setups),
# except the DTG print, whose price the shop types.
IMPRINTS: dict[str, NewImprint] = {
    "front_2": NewImprint("front", "screen", colours=2, colour_names=("White", "PMS 7406 C"),
                          width_mm=280, height_mm=200, design="club-crest"),
    "front_1": NewImprint("front", "screen", colours=1, colour_names=("Black",),
                          width_mm=220, height_mm=220),
    "back_1": NewImprint("back", "screen", colours=1, colour_names=("White",), width_mm=300,
                         height_mm=90, notes="Across the shoulders, 8 cm below the collar"),
    "left_chest": NewImprint("left_chest", "embroidery", stitches=7800,
                             colour_names=("Gold", "White"), width_mm=90, height_mm=60),
    "cap_front": NewImprint("front", "embroidery", stitches=5200, colour_names=("White",),
                            width_mm=100, height_mm=50),
    "dtg_front": NewImprint("front", "dtg", width_mm=250, height_mm=300, unit_price_cents=450,
                            setup_cents=0),
}  # fmt: skip
# The same design on a second garment: the screens print both, so one setup and one price
# break for the two (models/pricing).
IMPRINTS["front_2_again"] = replace(IMPRINTS["front_2"], notes="Same screens as the first garment")


@dataclass(frozen=True)
class Garment:
    style: str  # a STYLES style (stocked: its SKUs' sizes) or one of BOUGHT_IN
    colour: str
    sizes: tuple[tuple[str, int], ...]
    imprints: tuple[str, ...]  # IMPRINTS keys


@dataclass(frozen=True)
class Job:
    customer: int  # index into CUSTOMERS
    title: str
    garments: tuple[Garment, ...] = ()
    lines: tuple[tuple[str, int, int, str | None], ...] = ()  # description, qty, price, SKU


# SKUs kept away from the sample orders, so the inventory shows every stock status.
OUT_OF_STOCK = ("HOOD-BUR-XL", "ORG-BLK-S", "TEE-HGY-XL")
LOW_STOCK = ("HOOD-BUR-S", "TOTE-NVY-OS", "ORG-NAT-XL", "TEE-WHT-S")


@dataclass(frozen=True)
class DemoCustomer:
    name: str
    payment_terms: str
    carrier: str
    contacts: tuple[tuple[str, str, str], ...]  # name, email, phone; the first is primary
    price_list: tuple[str, str] | None = None  # name, discount percent
    tax_exempt: bool = False


CUSTOMERS = (
    DemoCustomer("Hop & Barley Brewing Co.", "net_30", "DPD",
                 (("Tom Fletcher", "tom@hopandbarley.example", "+44 113 496 0112"),
                  ("Ruth Okafor", "events@hopandbarley.example", "+44 113 496 0178")),
                 ("Trade", "12.50")),
    DemoCustomer("St Aidan's Primary School", "net_30", "Royal Mail",
                 (("Helen Price", "office@staidans.example", "+44 161 496 0301"),),
                 ("Education", "15.00")),
    DemoCustomer("The Velvet Tides", "prepaid", "Evri",
                 (("Kit Moreno", "merch@velvettides.example", "+44 7700 900123"),)),
    DemoCustomer("Run for Riverside", "on_receipt", "DPD",
                 (("Sam Adeyemi", "sam@runforriverside.example", "+44 20 7946 0455"),
                  ("Lena Novak", "volunteers@runforriverside.example", "")),
                 ("Charity", "20.00"), tax_exempt=True),
    DemoCustomer("Northside Climbing Wall", "net_15", "DPD",
                 (("Ollie Grant", "ollie@northsideclimbing.example", "+44 131 496 0720"),),
                 ("Trade", "12.50")),
    DemoCustomer("Maple & Thistle Café", "net_7", "Royal Mail",
                 (("Aisha Rahman", "hello@maplethistle.example", "+44 29 2018 0044"),)),
)  # fmt: skip

TEE, ORGANIC, HOODIE, TOTE = "Classic Tee", "Organic Creator Tee", "College Hoodie", "Cotton Tote"
# What each customer orders: garments in sizes with their imprints; one job of plain lines.
JOBS = (
    Job(0, "Brewery staff tees, 2-colour front + back", (
        Garment(TEE, "Black", (("S", 4), ("M", 12), ("L", 10), ("XL", 4), ("2XL", 2)),
                ("front_2", "back_1")),)),
    Job(0, "Beer festival volunteer hoodies", (
        Garment(HOODIE, "Oxford Navy", (("M", 8), ("L", 8), ("XL", 4)), ("left_chest",)),)),
    Job(0, "Tap room merch totes", (Garment(TOTE, "Natural", (("OS", 60),), ("front_1",)),)),
    Job(1, "Year 6 leavers hoodies", (
        Garment(HOODIE, "Jet Black", (("S", 14), ("M", 16)), ("left_chest", "back_1")),)),
    Job(1, "Sports day house tees", (
        Garment(TEE, "White", (("M", 30), ("L", 12)), ("front_2",)),
        Garment(TEE, "Navy", (("S", 10), ("M", 30)), ("front_2_again",)),
    )),
    Job(1, "Staff lanyard-day tees", (Garment(TEE, "Heather Grey", (("L", 6),), ("dtg_front",)),)),
    Job(2, "Autumn tour tees", (
        Garment(ORGANIC, "Natural Raw", (("M", 40), ("L", 40)), ("front_2", "back_1")),)),
    Job(2, "Tour beanies", (Garment("Cuffed Beanie", "Black", (("OS", 25),), ("cap_front",)),)),
    Job(2, "Album launch totes", (Garment(TOTE, "Black", (("OS", 50),), ("front_1",)),)),
    Job(3, "10K runner tees, sponsor logos on back", (
        Garment(TEE, "Navy", (("S", 40), ("M", 60), ("2XL", 6)), ("front_2", "back_1")),)),
    Job(3, "Marshal caps", (
        Garment("5 Panel Cap", "Hi-Vis Yellow", (("One size", 12),), ("cap_front",)),)),
    Job(3, "Finish line banner tees", (
        Garment(ORGANIC, "Black", (("M", 20),), ("dtg_front",)),)),
    Job(4, "Route-setter hoodies", (
        Garment(HOODIE, "Jet Black", (("L", 6), ("XL", 4)), ("left_chest", "back_1")),)),
    Job(4, "Members' chalk-bag tees", (
        Garment(ORGANIC, "Natural Raw", (("S", 24),), ("front_1",)),)),
    Job(5, "Barista tees and caps", (
        Garment(TEE, "Black", (("S", 8),), ("front_2",)),
        Garment("Trucker Cap", "Stone", (("One size", 8),), ("cap_front",)),
    )),
    Job(5, "Loyalty-card totes", (Garment(TOTE, "Natural", (("OS", 30),), ("front_1",)),)),
    Job(0, "Rebrand sample run", lines=(
        ("Sample run: Classic Tee White L, front DTG", 5, 800, "TEE-WHT-L"),
        ("Artwork: new logo set up for print", 1, 3500, None),
    )),
    Job(4, "Bouldering comp entrant tees", (
        Garment(TEE, "Heather Grey", (("M", 40),), ("front_2",)),
        Garment("Trucker Cap", "Black", (("One size", 20),), ("cap_front",)),
    )),
)  # fmt: skip

# The stage each job ends in, in JOBS order: every stage appears, most more than once.
FINAL_STAGES = (
    "dispatched", "in_production", "artwork", "dispatched", "qc_pack", "print_queue",
    "dispatched", "artwork", "cancelled", "print_queue", "in_production", "qc_pack",
    "dispatched", "artwork", "dispatched", "print_queue", "cancelled", "in_production",
)  # fmt: skip
ARTWORK_STATES = ("awaiting_proof", "awaiting_approval", "approved")
CARRIER_PREFIX = {"DPD": "15502", "Royal Mail": "RM", "Evri": "H01"}


@dataclass
class Demo:
    workspace_id: int
    user_id: int
    token: str
    expires_at: dt.datetime
    created: bool
    counts: dict[str, int] = field(default_factory=dict)
    trial_renewed: bool = False
    admin_email: str = ""
    admin_password: str | None = None  # set on this run; None: the owner's own is kept
    revoked_tokens: int = 0  # earlier demo tokens revoked by this run


def _skus() -> list[dict[str, Any]]:
    """The fields of ~50 SKUs; stock levels come from the seed."""
    rng = random.Random(SEED)  # noqa: S311 - sample data must repeat, not be secret
    rows = []
    for prefix, style, brand, cost, colours, sizes in STYLES:
        for colour_code, colour, hex_code in colours:
            for size in sizes:
                code = f"{prefix}-{colour_code}-{size}"
                reorder_point = rng.choice((10, 15, 20, 25))
                on_hand = rng.randint(120, 300)
                if code in OUT_OF_STOCK:
                    on_hand = 0
                elif code in LOW_STOCK:
                    on_hand = rng.randint(1, reorder_point)
                fields = {
                    "code": code,
                    "style": style,
                    "brand": brand,
                    "colour": colour,
                    "colour_hex": hex_code,
                    "size": size,
                    "on_hand": on_hand,
                    "reorder_point": reorder_point,
                    "cost_cents": cost + (45 if size == "2XL" else 0),
                }
                rows.append(fields)
    return rows


async def _customers(workspace_id: int) -> list[int]:
    """Creates the customers and contacts; returns their ids in CUSTOMERS order."""
    made = []
    for spec in CUSTOMERS:
        customer = await records.create_customer(
            workspace_id=workspace_id,
            name=spec.name,
            price_list=spec.price_list[0] if spec.price_list else None,
            discount=spec.price_list[1] if spec.price_list else None,
            payment_terms=spec.payment_terms,
            carrier=spec.carrier,
            tax_exempt=spec.tax_exempt,
        )
        for name, email, phone in spec.contacts:
            await contacts.add_contact(customer_id=customer.id, name=name, email=email, phone=phone)
        made.append(int(customer.id))
    return made


def _item(garment: Garment) -> NewItem:
    """A garment as staff enter it: the price list prices what they leave empty (with the
    customer's discount); a bought-in garment's price is typed."""
    return NewItem(
        style=garment.style,
        colour=garment.colour,
        sizes=garment.sizes,
        unit_price_cents=BOUGHT_IN.get(garment.style),
        imprints=tuple(IMPRINTS[key] for key in garment.imprints),
    )


async def _order(
    rng: random.Random,
    workspace_id: int,
    customer_id: int,
    job: Job,
    carrier: str,
    final_stage: str,
    artwork_state: str,
) -> tuple[int, str | None]:
    """One job taken to `final_stage` the way the shop would; returns (order id, invoice)."""
    created = await creating.create(
        workspace_id=workspace_id,
        customer_id=customer_id,
        items=[_item(garment) for garment in job.garments],
        lines=[
            NewLine(description=text, quantity=quantity, unit_price_cents=price, sku=sku)
            for text, quantity, price, sku in job.lines
        ],
        due_by=clock.now().date() + dt.timedelta(days=rng.randint(3, 28)),
        notes=f"{job.title}. Sample order made by `pressline demo`.",
        actor=OPERATOR,
    )
    order_id = created.order.id
    scope: dict[str, Any] = {"workspace_id": workspace_id, "order_id": order_id}
    if final_stage == "artwork":
        # Waiting for the studio's proof, for the customer's answer, or ready to print.
        if artwork_state != "awaiting_proof":
            await artwork.send_proof(**scope)
        if artwork_state == "approved":
            await artwork.approve_artwork(**scope)
        return order_id, None
    if final_stage == "cancelled":
        await cancelling.cancel_order(**scope, actor=OPERATOR)
        return order_id, None
    await artwork.send_proof(**scope)
    await artwork.approve_artwork(**scope)
    for stage in SEQUENCE[1 : SEQUENCE.index(final_stage) + 1]:
        extra: dict[str, Any] = {}
        if stage == "dispatched":
            extra = {"carrier": carrier, "tracking_number": _tracking(rng, carrier)}
        await stage_moves.advance_order(
            workspace_id=workspace_id,
            order_id=order_id,
            to_stage=stage,
            actor=OPERATOR,
            **extra,
        )
    if final_stage != "dispatched":
        return order_id, None
    invoice = await Invoice.select(Invoice.number).where(Invoice.order == order_id).first()
    return order_id, invoice["number"] if invoice else None


def _tracking(rng: random.Random, carrier: str) -> str:
    return CARRIER_PREFIX.get(carrier, "TRK") + "".join(rng.choices("0123456789", k=10))


async def _build(workspace_id: int) -> dict[str, int]:
    rng = random.Random(SEED)  # noqa: S311 - sample data must repeat, not be secret
    rows = []
    for fields in _skus():
        values, errors = catalogue.sku_values(workspace_id, fields)
        errors.check()
        rows.append(values)
    await catalogue.create_skus(workspace_id, rows)
    customers = await _customers(workspace_id)
    paid = 0
    invoiced = []
    artwork_states = itertools.cycle(ARTWORK_STATES)
    for job, final_stage in zip(JOBS, FINAL_STAGES, strict=True):
        spec = CUSTOMERS[job.customer]
        state = next(artwork_states) if final_stage == "artwork" else "approved"
        _, invoice = await _order(
            rng,
            workspace_id,
            customers[job.customer],
            job,
            spec.carrier,
            final_stage,
            state,
        )
        if invoice is not None:
            invoiced.append(invoice)
    # Most dispatched work has been paid for; the newest invoices are still open.
    for number in invoiced[:-2]:
        await payments.pay_invoice(workspace_id=workspace_id, number=number)
        paid += 1
    # The moves and proofs above queued their customer emails as live ones would; they are the
    # shop's past, shown on the order pages but never sent (else the first worker with
    # SMTP_URL would mail them all at once).
    await queue.record_sample_history(workspace_id, clock.now())
    return {
        "customers": len(customers),
        "skus": len(rows),
        "orders": len(JOBS),
        "garments": sum(len(job.garments) for job in JOBS),
        "invoices": len(invoiced),
        "paid_invoices": paid,
    }


async def _staff(workspace_id: int) -> int:
    """The demo's staff user: the first active user, or the original one reactivated."""
    user = await (
        User.objects()
        .where((User.workspace == workspace_id) & User.is_active.eq(True))
        .order_by(User.id)
        .first()
    )
    if user is not None:
        return int(user.id)
    first = await User.objects().where(User.workspace == workspace_id).order_by(User.id).first()
    if first is not None:
        return int((await members.set_user_active(first.id, True)).id)
    return int(
        (await accounts.create_user(workspace_id=workspace_id, name=STAFF[0], email=STAFF[1])).id
    )


async def build_demo() -> Demo:
    """Find or build the demo workspace and issue a fresh token for its staff user."""
    async with db.transaction():
        existing = await (
            Workspace.objects()
            .where(Workspace.name == WORKSPACE_NAME)
            .order_by(Workspace.id)
            .first()
        )
        renewed = False
        counts: dict[str, int] = {}
        if existing is None:
            workspace = await accounts.create_workspace(
                name=WORKSPACE_NAME,
                plan="starter",
                currency="GBP",
                tax_rate=Decimal(20),
                timezone="Europe/London",
                trial_days=TRIAL_DAYS,
            )
            user = await accounts.create_user(
                workspace_id=workspace.id, name=STAFF[0], email=STAFF[1]
            )
            user_id = int(user.id)
            counts = await _build(int(workspace.id))
        else:
            workspace = existing
            # The printed token must work: an ended trial (or a downgrade) starts a new one.
            plan = plans.effective_plan(workspace.plan, workspace.trial_ends_at, clock.now())
            if not plans.includes_api(plan):
                await accounts.set_workspace(
                    workspace.id,
                    trial_ends_at=clock.now() + dt.timedelta(days=TRIAL_DAYS),
                )
                renewed = True
            user_id = await _staff(workspace.id)
        revoked = await _revoke_demo_tokens(int(workspace.id))
        row, token = await accounts.issue_token(
            user_id=user_id, name=TOKEN_NAME, expires_in_days=TOKEN_DAYS
        )
    password = None
    owner = await members.get_member(user_id)
    if not await _has_password(user_id):
        password = secrets.token_urlsafe(12)  # 96 bits, 16 characters
        await members.set_password(user_id, password)
    return Demo(
        workspace_id=int(workspace.id),
        user_id=user_id,
        token=token,
        expires_at=row.expires_at,
        created=existing is None,
        counts=counts,
        trial_renewed=renewed,
        admin_email=owner.email,
        admin_password=password,
        revoked_tokens=revoked,
    )


async def _revoke_demo_tokens(workspace_id: int) -> int:
    """Revoke the live tokens earlier runs issued, so each run leaves one demo token alive."""
    live = await ApiToken.select(ApiToken.id).where(
        (ApiToken.workspace == workspace_id)
        & (ApiToken.name == TOKEN_NAME)
        & ApiToken.revoked_at.is_null()
        & (ApiToken.expires_at > clock.now())
    )
    for row in live:
        await accounts.revoke_token(row["id"])
    return len(live)


async def _has_password(user_id: int) -> bool:
    row = await User.select(User.password_hash).where(User.id == user_id).first()
    return row is not None and row["password_hash"] is not None
