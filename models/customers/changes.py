"""What every change to a customer shares: the locks taken first, `updated_at` moved, the
`customer.created` / `customer.updated` event recorded in the change's transaction, and the
caller's precondition (the API's `If-Match`) checked once the lock is held.

Lock order, whatever the change: the workspace row (only when a slug or external_ref is
written: they are unique in the workspace), then the customer row. On SQLite write
transactions run one at a time anyway.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from models import clock, db
from models.accounts import known_id
from models.errors import NotFoundError
from models.tables import Customer, Workspace
from models.webhooks import events as outbox
from models.webhooks.names import EventName

# Checked under the customer's lock; raises StaleError when the customer is not as the caller
# read it (the API compares the customer detail's ETag).
Precondition = Callable[[], Awaitable[None]]


async def lock_workspace(workspace_id: int) -> None:
    """The workspace row, locked on PostgreSQL so that slug and external_ref checks and the
    insert that follows them run one at a time per workspace."""
    query = Workspace.select(Workspace.id).where(Workspace.id == workspace_id)
    if db.is_postgres():
        query = query.lock_rows("NO KEY UPDATE")
    if await query.first() is None:
        raise NotFoundError(f"workspace {workspace_id} not found")


async def lock_customer(customer_id: int, workspace_id: int | None) -> Customer:
    """The customer (of `workspace_id` when given), its row locked for this transaction."""
    row = None
    if known_id(customer_id):
        query = Customer.objects().where(Customer.id == customer_id)
        if workspace_id is not None:
            query = query.where(Customer.workspace == workspace_id)
        if db.is_postgres():
            query = query.lock_rows("NO KEY UPDATE")
        row = await query.first()
    if row is None:
        raise NotFoundError(f"customer {customer_id} not found")
    return row


async def record(customer_id: int, name: EventName) -> None:
    """`customer.created` or `customer.updated`, with the customer as it is now."""
    row = await (
        Customer.select(Customer.workspace, Customer.name, Customer.slug, Customer.external_ref)
        .where(Customer.id == customer_id)
        .first()
    )
    if row is None:
        raise NotFoundError(f"customer {customer_id} not found")
    await outbox.record_event(
        workspace_id=row["workspace"],
        name=name,
        fields=outbox.customer_fields(
            customer_id=customer_id,
            name=row["name"],
            slug=row["slug"],
            external_ref=row["external_ref"],
        ),
        customer_id=customer_id,
    )


async def changed(customer_id: int) -> None:
    """A contact or address changed: the customer's `updated_at` moves and `customer.updated`
    is recorded (its detail embeds them)."""
    await Customer.update({Customer.updated_at: clock.now()}).where(Customer.id == customer_id)
    await record(customer_id, EventName.CUSTOMER_UPDATED)
