"""Where the price list is kept (`workspaces.pricing`, JSON) and read: one function to read
it, one to replace it, and what an order's pricing reads with it (the customer's discount).

A workspace made before price lists holds NULL: it prices as before (typed prices; imprints
and setups not typed cost nothing) until its price list is first saved. New workspaces get
`defaults.PRICE_LIST`.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from decimal import Decimal

import msgspec

from models import clock, db, statements
from models.errors import NotFoundError
from models.pricing import document as doc
from models.pricing.compute import PriceContext

_READ = statements.Sql("SELECT pricing FROM workspaces WHERE id = $1")
_LOCK = statements.Sql("SELECT pricing FROM workspaces WHERE id = $1 FOR NO KEY UPDATE")
_WRITE = statements.Sql("UPDATE workspaces SET pricing = $2, updated_at = $3 WHERE id = $1")
_CONTEXT = statements.Sql(
    """
    SELECT w.pricing, p.discount_percent
    FROM workspaces w
    LEFT JOIN customers c ON c.workspace = w.id AND c.id = $2
    LEFT JOIN price_lists p ON p.id = c.price_list
    WHERE w.id = $1
    """
)

Precondition = Callable[[doc.PricingDocument], Awaitable[None] | None]


@functools.lru_cache(maxsize=256)
def _decoded(stored: str) -> doc.PricingDocument:
    """A stored document decoded once per text (it is read by every priced order write)."""
    return doc.decode(stored)


def _document(stored: object) -> doc.PricingDocument | None:
    if stored is None:
        return None
    if isinstance(stored, bytes):
        stored = stored.decode()
    if not isinstance(stored, str):  # a driver that decodes JSON itself
        return msgspec.convert(stored, doc.PricingDocument)
    return _decoded(stored)


async def read(workspace_id: int) -> doc.PricingDocument:
    """The workspace's price list (an empty one when it has none yet)."""
    async with statements.connection() as conn:
        row = await conn.row(_READ, workspace_id)
    if row is None:
        raise NotFoundError("Workspace not found")
    return _document(row[0]) or doc.EMPTY


async def replace(
    workspace_id: int, document: doc.PricingDocument, *, precondition: Precondition | None = None
) -> doc.PricingDocument:
    """Replace the price list whole, checking its rules; `precondition` is called with the
    current one under the workspace's lock (it raises to refuse: an outdated If-Match)."""
    document.check()

    async def write() -> doc.PricingDocument:
        async with statements.connection() as conn:
            row = await conn.row(_LOCK, workspace_id)
            if row is None:
                raise NotFoundError("Workspace not found")
            if precondition is not None:
                checked = precondition(_document(row[0]) or doc.EMPTY)
                if checked is not None:
                    await checked
            await conn.rows(_WRITE, workspace_id, doc.encode(document).decode(), clock.now())
        return document

    return await db.atomic(write)


async def context(conn: statements.Reader, workspace_id: int, customer_id: int) -> PriceContext:
    """What prices an order of `customer_id` (a customer of another workspace, or none, has
    no discount: the caller refuses it)."""
    row = await conn.row(_CONTEXT, workspace_id, customer_id)
    if row is None:
        raise NotFoundError("Workspace not found")
    discount = Decimal(str(row[1] or 0)).quantize(Decimal("0.01"))
    return PriceContext(document=_document(row[0]), discount_percent=discount)
