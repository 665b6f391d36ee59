"""The overview: what needs attention first (models/orders/attention.py), each kind with its
orders linked; then the plan, open orders by stage, low stock and unpaid invoices."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from litestar import Controller, Request, get
from litestar.response import Template

from api.admin.order_forms import STAGE_NAMES, Shown
from api.admin.pages import page
from models import clock
from models.orders.attention import WORK, Item, Kind, needs_attention
from models.queries import admin as queries
from models.queries.shop_figures import shop_figures
from models.statements import when


@dataclass(frozen=True, slots=True)
class Heading:
    """How the overview names one kind of attention, and the list that holds all of it."""

    title: str
    rule: str
    full_list: tuple[str, str] | None = None  # a path under the admin's prefix, its words


HEADINGS = {
    Kind.OVERDUE: Heading(
        "Overdue", "Open orders past their due date.",
        ("/orders?due=overdue", "All overdue orders"),
    ),
    Kind.DUE_SOON: Heading(
        "Due within 2 days", "Due today, tomorrow or the day after, and not yet in QC & pack."
    ),
    Kind.PROOF_WAITING: Heading(
        "Proofs waiting on the customer", "Sent more than 2 days ago and not yet answered."
    ),
    Kind.CHANGES_REQUESTED: Heading(
        "Changes requested", "The customer asked for changes: a new proof is needed."
    ),
    Kind.UNAPPROVED: Heading(
        "In production without approved artwork",
        "In print queue or a later stage, and the artwork is not approved.",
    ),
    Kind.SHORT_OF_STOCK: Heading(
        "Short of stock",
        "A line's SKU has less than nothing available, and the order is not yet in production.",
    ),
    Kind.INVOICE_OVERDUE: Heading(
        "Invoices overdue", "Past their due date with a balance left to pay.",
        ("/invoices?status=issued", "All unpaid invoices"),
    ),
    Kind.ART_TO_DO: Heading(
        "Art to do", "In Artwork, and no proof has been sent yet.",
        ("/orders?stage=artwork", "All orders in Artwork"),
    ),
    Kind.READY_TO_PRINT: Heading(
        "Ready to print", "In Print queue with approved artwork and every size in stock.",
        ("/orders?stage=print_queue", "All orders in Print queue"),
    ),
    Kind.DISPATCH_TODAY: Heading(
        "Dispatch today", "In QC & pack: to be packed and sent.",
        ("/orders?stage=qc_pack", "All orders in QC & pack"),
    ),
}  # fmt: skip
ARTWORK_STATES = {
    "awaiting_proof": "no proof sent",
    "awaiting_approval": "proof awaiting approval",
    "changes_requested": "changes requested",
}


class Facts:
    """What the template shows of each item: its link and the line saying why it is listed."""

    def __init__(self, shown: Shown, now: dt.datetime) -> None:
        self.shown, self.now = shown, now

    def link(self, item: Item) -> str:
        if item.kind == Kind.INVOICE_OVERDUE:
            return f"/invoices/{item.number}"
        return f"/orders/{item.number}"

    def due(self, at: Any) -> str:
        if at is None:
            return "no due date"
        days = (when(at) - self.shown.today).days
        if days < 0:
            return f"due {self.shown.day(at)}, {self.ago(-days)} late"
        return {0: "due today", 1: "due tomorrow"}.get(days, f"due {self.shown.day(at)}")

    @staticmethod
    def ago(days: int) -> str:
        return "1 day" if days == 1 else f"{days} days"

    def since(self, at: Any) -> str:
        days = (self.shown.today - when(at)).days + 1 if when(at) < self.shown.today else 0
        if days == 0:
            return "today"
        return "yesterday" if days == 1 else f"{self.ago(days)} ago ({self.shown.day(at)})"

    def why(self, item: Item) -> list[str]:
        """The item's urgency in a few short phrases (a change request's comment apart)."""
        stage = self.shown.stage(item.stage)
        match item.kind:
            case (
                Kind.OVERDUE | Kind.DUE_SOON | Kind.ART_TO_DO | Kind.READY_TO_PRINT
                | Kind.DISPATCH_TODAY
            ):  # fmt: skip
                return [self.due(item.at), stage]
            case Kind.PROOF_WAITING:
                return [f"proof {item.figure}", f"sent {self.since(item.at)}"]
            case Kind.CHANGES_REQUESTED:
                if item.at is None:
                    return ["changes requested", stage]
                return [f"proof {item.figure}", f"answered {self.since(item.at)}", stage]
            case Kind.UNAPPROVED:
                return [stage, ARTWORK_STATES.get(item.note or "", item.note or "")]
            case Kind.SHORT_OF_STOCK:
                return [f"{item.note}: {-(item.figure or 0):,} short", self.due(item.at)]
            case _:  # Kind.INVOICE_OVERDUE
                balance = self.shown.money(item.figure, item.note or "")
                return [f"{balance} to pay", f"was due {self.shown.day(item.at)}"]


class OverviewController(Controller):
    path = "/"

    @get("/")
    async def show_overview(self, request: Request[Any, Any, Any]) -> Template:
        user = request.user
        shown = Shown(user.timezone)
        now = clock.now()
        attention = await needs_attention(user.workspace_id, today=shown.today, now=now)
        problems = [a for a in attention if a.kind not in WORK]
        return page(
            request, "overview.html", here="overview", title="Overview",
            o=await queries.overview(user.workspace_id), shown=shown, stage_names=STAGE_NAMES,
            shop=await shop_figures(user.workspace_id), headings=HEADINGS,
            waiting=[a for a in problems if a.count], clear=[a for a in problems if not a.count],
            work=[a for a in attention if a.kind in WORK],
            facts=Facts(shown, now),
        )  # fmt: skip
