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
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from models import (
    accounts,
    artwork,
    catalogue,
    clock,
    db,
    invoices,
    members,
    plans,
)
from models.actors import OPERATOR
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

# style code, style, brand, base price (pence, one-colour print included), colours, sizes
STYLES: tuple[tuple[str, str, str, int, tuple[tuple[str, str, str], ...], tuple[str, ...]], ...] = (
    ("TEE", "Classic Tee", "Gildan", 650,
     (("BLK", "Black", "#000000"), ("WHT", "White", "#FFFFFF"), ("NVY", "Navy", "#1F2A44"),
      ("HGY", "Heather Grey", "#9EA3A8")), ("S", "M", "L", "XL")),
    ("ORG", "Organic Creator Tee", "Stanley/Stella", 1150,
     (("NAT", "Natural Raw", "#EFE6D2"), ("BLK", "Black", "#000000")), ("S", "M", "L", "XL")),
    ("HOOD", "College Hoodie", "AWDis Just Hoods", 1995,
     (("BLK", "Jet Black", "#111111"), ("NVY", "Oxford Navy", "#1C2841"),
      ("BUR", "Burgundy", "#6D2E46")), ("S", "M", "L", "XL")),
    ("TOTE", "Cotton Tote", "Westford Mill", 425,
     (("NAT", "Natural", "#F3ECDC"), ("BLK", "Black", "#000000"), ("NVY", "Navy", "#1F2A44")),
     ("OS",)),
    ("BEAN", "Cuffed Beanie", "Beechfield", 575, (("BLK", "Black", "#000000"),), ("OS",)),
)  # fmt: skip

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

# What each customer orders: (description, [(sku code, quantity)]); decoration priced per unit.
JOBS = (
    (0, "Brewery staff tees, 2-colour front + back", [("TEE-BLK-M", 12), ("TEE-BLK-L", 10)]),
    (0, "Beer festival volunteer hoodies", [("HOOD-NVY-M", 8), ("HOOD-NVY-L", 8)]),
    (0, "Tap room merch totes", [("TOTE-NAT-OS", 60)]),
    (1, "Year 6 leavers hoodies", [("HOOD-BLK-S", 14), ("HOOD-BLK-M", 16)]),
    (1, "Sports day house tees", [("TEE-WHT-M", 30), ("TEE-NVY-M", 30)]),
    (1, "Staff lanyard-day tees", [("TEE-HGY-L", 6)]),
    (2, "Autumn tour tees", [("ORG-NAT-M", 40), ("ORG-NAT-L", 40)]),
    (2, "Tour beanies", [("BEAN-BLK-OS", 25)]),
    (2, "Album launch totes", [("TOTE-BLK-OS", 50)]),
    (3, "10K runner tees, sponsor logos on back", [("TEE-NVY-S", 40), ("TEE-NVY-M", 60)]),
    (3, "Marshal hi-vis print", [("TEE-BLK-XL", 12)]),
    (3, "Finish line banner tees", [("ORG-BLK-M", 20)]),
    (4, "Route-setter hoodies", [("HOOD-BLK-L", 6), ("HOOD-BLK-XL", 4)]),
    (4, "Members' chalk-bag tees", [("ORG-NAT-S", 24)]),
    (5, "Barista aprons-style tees", [("TEE-BLK-S", 8)]),
    (5, "Loyalty-card totes", [("TOTE-NAT-OS", 30)]),
    (0, "Rebrand sample run", [("TEE-WHT-L", 5)]),
    (4, "Bouldering comp entrant tees", [("TEE-HGY-M", 40)]),
)

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


def _skus() -> list[tuple[str, dict[str, Any], int]]:
    """(code, SKU fields, base price) for ~40 SKUs; stock levels come from the seed."""
    rng = random.Random(SEED)  # noqa: S311 - sample data must repeat, not be secret
    rows = []
    for prefix, style, brand, price, colours, sizes in STYLES:
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
                }
                rows.append((code, fields, price))
    return rows


async def _customers(workspace_id: int) -> list[tuple[int, Decimal]]:
    """Creates the customers and contacts; returns (id, discount percent) in CUSTOMERS order."""
    made = []
    for spec in CUSTOMERS:
        customer = await catalogue.create_customer(
            workspace_id=workspace_id,
            name=spec.name,
            price_list=spec.price_list[0] if spec.price_list else None,
            discount=spec.price_list[1] if spec.price_list else None,
            payment_terms=spec.payment_terms,
            carrier=spec.carrier,
            tax_exempt=spec.tax_exempt,
        )
        for name, email, phone in spec.contacts:
            await catalogue.add_contact(
                customer_id=customer.id, name=name, email=email, phone=phone
            )
        discount = Decimal(spec.price_list[1]) if spec.price_list else Decimal(0)
        made.append((int(customer.id), discount))
    return made


async def _order(
    rng: random.Random,
    workspace_id: int,
    customer: tuple[int, Decimal],
    job: tuple[int, str, list[tuple[str, int]]],
    prices: dict[str, int],
    carrier: str,
    final_stage: str,
    artwork_state: str,
) -> tuple[int, str | None]:
    """One job taken to `final_stage` the way the shop would; returns (order id, invoice)."""
    customer_id, discount = customer
    _, title, items = job
    print_cost = rng.choice((250, 350, 450))  # per garment
    lines = [
        NewLine(
            description=f"{title} ({code})",
            quantity=quantity,
            unit_price_cents=int((prices[code] + print_cost) * (100 - discount) / 100),
            sku=code,
        )
        for code, quantity in items
    ]
    if rng.random() < 0.5:
        lines.append(NewLine(description="Screen setup", quantity=1, unit_price_cents=2500))
    created = await creating.create(
        workspace_id=workspace_id,
        customer_id=customer_id,
        lines=lines,
        due_by=clock.now().date() + dt.timedelta(days=rng.randint(3, 28)),
        notes="Sample order made by `pressline demo`.",
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
    skus = _skus()
    rows = []
    for _, fields, _ in skus:
        values, errors = catalogue.sku_values(workspace_id, fields)
        errors.check()
        rows.append(values)
    await catalogue.create_skus(workspace_id, rows)
    prices = {code: price for code, _, price in skus}
    customers = await _customers(workspace_id)
    paid = 0
    invoiced = []
    artwork_states = itertools.cycle(ARTWORK_STATES)
    for job, final_stage in zip(JOBS, FINAL_STAGES, strict=True):
        spec = CUSTOMERS[job[0]]
        state = next(artwork_states) if final_stage == "artwork" else "approved"
        _, invoice = await _order(
            rng,
            workspace_id,
            customers[job[0]],
            job,
            prices,
            spec.carrier,
            final_stage,
            state,
        )
        if invoice is not None:
            invoiced.append(invoice)
    # Most dispatched work has been paid for; the newest invoices are still open.
    for number in invoiced[:-2]:
        await invoices.pay_invoice(workspace_id=workspace_id, number=number)
        paid += 1
    # The moves and proofs above queued their customer emails as live ones would; they are the
    # shop's past, shown on the order pages but never sent (else the first worker with
    # SMTP_URL would mail them all at once).
    await queue.record_sample_history(workspace_id, clock.now())
    return {
        "customers": len(customers),
        "skus": len(rows),
        "orders": len(JOBS),
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
