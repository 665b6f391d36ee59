"""Piccolo tables for the whole domain; every tenant-owned table carries `workspace`.

Composite indexes (workspace first) that Piccolo cannot declare on a column live in the
`indexes` migration; see models/migrations.
"""

from __future__ import annotations

from decimal import Decimal

from piccolo.columns import (
    JSON,
    BigInt,
    Boolean,
    Bytea,
    ForeignKey,
    Integer,
    Numeric,
    OnDelete,
    Serial,
    Text,
    Timestamptz,
    Varchar,
)
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.table import Table

from models.delivery_ids import MAX_LENGTH as DELIVERY_ID_LENGTH
from models.delivery_ids import new_delivery_id

# --- tenancy -------------------------------------------------------------------------------


class Workspace(Table, tablename="workspaces"):
    id: Serial
    name = Varchar(length=200)
    plan = Varchar(length=20, default="starter")
    trial_ends_at = Timestamptz(null=True, default=None)
    currency = Varchar(length=3, default="GBP")
    tax_rate = Numeric(digits=(5, 2), default=Decimal("0"))
    timezone = Varchar(length=64, default="UTC")
    require_artwork_approval = Boolean(default=True)  # on for new shops
    strict_sequence = Boolean(default=False)
    open_order_limit = Integer(null=True, default=None)
    created_at = Timestamptz(default=TimestamptzNow())
    updated_at = Timestamptz(default=TimestamptzNow())
    email = Varchar(length=254, default="")  # Reply-To of the customer emails; "" = none
    mail_stages = Varchar(length=200, default="in_production,dispatched")  # emailed moves
    # The price list (models/pricing); NULL: none yet, prices are typed (a workspace made
    # before price lists, until its first save).
    pricing = JSON(null=True, default=None)
    prices_include_tax = Boolean(default=False)  # new orders' default


class User(Table, tablename="users"):
    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    name = Varchar(length=200)
    email = Varchar(length=254)
    is_active = Boolean(default=True)
    deactivated_at = Timestamptz(null=True, default=None)
    created_at = Timestamptz(default=TimestamptzNow())
    updated_at = Timestamptz(default=TimestamptzNow())
    role = Varchar(length=10, default="owner")  # owner | staff: what the admin lets them do
    password_hash = Varchar(length=255, null=True, default=None)  # argon2id; None: no login


class ApiToken(Table, tablename="api_tokens"):
    """Only the SHA-256 digest of a token is stored; `prefix` helps people tell tokens apart."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    user = ForeignKey(User, on_delete=OnDelete.cascade, index=True)
    name = Varchar(length=100, default="")
    digest = Varchar(length=64, unique=True)
    prefix = Varchar(length=16)
    created_at = Timestamptz(default=TimestamptzNow())
    expires_at = Timestamptz()
    revoked_at = Timestamptz(null=True, default=None)
    last_used_at = Timestamptz(null=True, default=None)  # written in batches, not per request


# --- customers -----------------------------------------------------------------------------


class PriceList(Table, tablename="price_lists"):
    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    name = Varchar(length=100)
    discount_percent = Numeric(digits=(5, 2), default=Decimal("0"))
    created_at = Timestamptz(default=TimestamptzNow())
    updated_at = Timestamptz(default=TimestamptzNow())


class Customer(Table, tablename="customers"):
    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    name = Varchar(length=200)
    slug = Varchar(length=100)
    price_list = ForeignKey(PriceList, null=True, on_delete=OnDelete.set_null)
    payment_terms = Varchar(length=20, default="net_30")
    default_carrier = Varchar(length=100, default="")
    tax_exempt = Boolean(default=False)
    created_at = Timestamptz(default=TimestamptzNow())
    updated_at = Timestamptz(default=TimestamptzNow())
    # The integrator's own id for the customer (a storefront's), unique in the workspace.
    external_ref = Varchar(length=100, null=True, default=None)


class Contact(Table, tablename="contacts"):
    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    customer = ForeignKey(Customer, on_delete=OnDelete.cascade, index=True)
    name = Varchar(length=200)
    email = Varchar(length=254)
    phone = Varchar(length=50, default="")
    is_primary = Boolean(default=False)
    created_at = Timestamptz(default=TimestamptzNow())


class Address(Table, tablename="addresses"):
    """A customer's postal address; one of them is the default (models/customers/addresses.py)."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    customer = ForeignKey(Customer, on_delete=OnDelete.cascade, index=True)
    label = Varchar(length=100, default="")
    name = Varchar(length=200, default="")
    company = Varchar(length=200, default="")
    line1 = Varchar(length=200)
    line2 = Varchar(length=200, default="")
    city = Varchar(length=100)
    region = Varchar(length=100, default="")
    postal_code = Varchar(length=20, default="")
    country = Varchar(length=2)  # ISO 3166-1 alpha-2, upper case
    phone = Varchar(length=50, default="")
    is_default = Boolean(default=False)
    created_at = Timestamptz(default=TimestamptzNow())


# --- catalogue -----------------------------------------------------------------------------


class Sku(Table, tablename="skus"):
    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    code = Varchar(length=64)
    style = Varchar(length=100)
    brand = Varchar(length=100)
    colour = Varchar(length=50)
    colour_hex = Varchar(length=7)
    size = Varchar(length=20)
    on_hand = Integer(default=0)
    reserved = Integer(default=0)
    reorder_point = Integer(default=0)
    discontinued = Boolean(default=False)
    # What the shop pays its supplier for one, in minor units; None while unknown.
    cost_cents = BigInt(null=True, default=None)
    created_at = Timestamptz(default=TimestamptzNow())
    updated_at = Timestamptz(default=TimestamptzNow())


# --- orders --------------------------------------------------------------------------------


class Order(Table, tablename="orders"):
    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    customer = ForeignKey(Customer, on_delete=OnDelete.restrict, index=True)
    number = Varchar(length=32)
    number_year = Integer()
    number_seq = Integer()
    stage = Varchar(length=20, default="artwork")
    substage = Varchar(length=100, null=True, default=None)
    due_by = Timestamptz(null=True, default=None)
    dispatched_at = Timestamptz(null=True, default=None)
    carrier = Varchar(length=100, null=True, default=None)
    tracking_number = Varchar(length=100, null=True, default=None)
    currency = Varchar(length=3)
    subtotal_cents = BigInt(default=0)
    tax_cents = BigInt(default=0)
    total_cents = BigInt(default=0)
    notes = Text(default="")
    external_ref = Varchar(length=100, null=True, default=None)
    stock_consumed = Boolean(default=False)
    # 1 at creation, +1 on every change of content (models/orders/editing.py): a printed work
    # order names its revision.
    revision = Integer(default=1)
    # The address it ships to, copied from the customer's or given (models/orders/ship_to.py).
    ship_to = JSON(null=True, default=None)
    prices_include_tax = Boolean(default=False)  # line prices are gross (models/orders/lines.py)
    created_at = Timestamptz(default=TimestamptzNow())
    updated_at = Timestamptz(default=TimestamptzNow())
    # The rate its tax was computed at (0 for a tax-exempt customer), written with the totals;
    # NULL for orders priced before it was kept.
    tax_rate = Numeric(digits=(5, 2), null=True, default=None)


class OrderItem(Table, tablename="order_items"):
    """A garment on an order: a style in a colour, a run of sizes (models/orders/items.py)."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade, index=True)
    position = Integer()
    style = Varchar(length=100)
    colour = Varchar(length=50)
    description = Varchar(length=200)
    sizes = JSON(default="{}")  # size → quantity, in the order shown
    unit_price_cents = BigInt()
    unit_price_typed = Boolean(default=True)  # False: from the price list, computed on edits
    size_upcharges_cents = JSON(default="{}")  # size → cents


class OrderImprint(Table, tablename="order_imprints"):
    """What is printed or stitched on an item's garments, and where."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade, index=True)
    item = ForeignKey(OrderItem, on_delete=OnDelete.cascade, index=True)
    position = Integer()
    location = Varchar(length=20)
    method = Varchar(length=20)
    colours = Integer(null=True, default=None)
    colour_names = JSON(default="[]")
    stitches = Integer(null=True, default=None)
    width_mm = Integer(null=True, default=None)
    height_mm = Integer(null=True, default=None)
    notes = Text(default="")
    unit_price_cents = BigInt(default=0)
    setup_cents = BigInt(default=0)
    unit_price_typed = Boolean(default=True)  # False: from the price list (models/pricing)
    setup_typed = Boolean(default=True)
    design = Varchar(length=100, null=True, default=None)  # shares a price break and a setup


class OrderLine(Table, tablename="order_lines"):
    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade, index=True)
    position = Integer()
    description = Varchar(length=255)
    quantity = Integer()
    unit_price_cents = BigInt()
    line_total_cents = BigInt()
    sku = ForeignKey(Sku, null=True, on_delete=OnDelete.restrict, index=True)
    item = ForeignKey(OrderItem, null=True, on_delete=OnDelete.cascade, index=True)
    price_source = Varchar(length=10, default="typed")  # models.pricing.PriceSource
    price_breakdown = JSON(null=True, default=None)  # models.pricing.breakdown.PriceBreakdown


class StageChange(Table, tablename="stage_history"):
    """One move of an order and who made it: `actor_kind` (models.actors.ActorKind) with the
    staff member (`user`, also a token's owner) and the API token. The database keeps the
    column this replaced, `source` (api | operator), unused."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade, index=True)
    from_stage = Varchar(length=20, null=True, default=None)
    to_stage = Varchar(length=20)
    user = ForeignKey(User, null=True, on_delete=OnDelete.set_null)
    at = Timestamptz(default=TimestamptzNow())
    actor_kind = Varchar(length=10, default="operator")
    token = ForeignKey(ApiToken, null=True, on_delete=OnDelete.set_null)


class OrderEditRecord(Table, tablename="order_edits"):
    """One edit of an order (models/orders/editing.py): the revision it made, the fields it
    changed (`changed`, a JSON list of the API's names, as its `order.updated` event says) and
    who made it (`actor_kind` with the user and/or token, as stage moves). Kept as long as the
    order: retention prunes the outbox's events, never these. Indexed by (workspace, order, id)
    (models_2026_11_27t06_40_01)."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade)
    revision = Integer()
    changed = Text(default="[]")
    actor_kind = Varchar(length=10)  # models.actors.ActorKind
    user = ForeignKey(User, null=True, on_delete=OnDelete.set_null)
    token = ForeignKey(ApiToken, null=True, on_delete=OnDelete.set_null)
    created_at = Timestamptz(default=TimestamptzNow())


class Invoice(Table, tablename="invoices"):
    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade, index=True)
    customer = ForeignKey(Customer, on_delete=OnDelete.restrict, index=True)
    number = Varchar(length=32)
    number_year = Integer()
    number_seq = Integer()
    status = Varchar(length=20, default="issued")
    total_cents = BigInt()
    currency = Varchar(length=3)
    issued_at = Timestamptz(null=True, default=None)
    paid_at = Timestamptz(null=True, default=None)
    created_at = Timestamptz(default=TimestamptzNow())
    updated_at = Timestamptz(default=TimestamptzNow())
    # From the customer's payment terms when issued (models/invoices/terms.py); kept as issued.
    due_at = Timestamptz(null=True, default=None)
    # The sum of its payments (models/invoices/payments.py), written under the invoice's lock.
    paid_cents = BigInt(default=0)


class Payment(Table, tablename="payments"):
    """Money received against an invoice, and who recorded it (`actor_kind` with the user
    and/or token, as stock movements). A voided payment keeps its row and no longer counts
    (models/invoices/voiding.py)."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    invoice = ForeignKey(Invoice, on_delete=OnDelete.cascade, index=True)
    amount_cents = BigInt()
    method = Varchar(length=20)  # models.invoices.status.PaymentMethod
    reference = Varchar(length=100, null=True, default=None)
    paid_at = Timestamptz()
    created_at = Timestamptz(default=TimestamptzNow())
    actor_kind = Varchar(length=10)  # models.actors.ActorKind
    user = ForeignKey(User, null=True, on_delete=OnDelete.set_null)
    token = ForeignKey(ApiToken, null=True, on_delete=OnDelete.set_null)
    voided_at = Timestamptz(null=True, default=None)
    voided_by = ForeignKey(User, null=True, on_delete=OnDelete.set_null)  # None: an operator
    void_reason = Varchar(length=500, null=True, default=None)


class StockMovement(Table, tablename="stock_movements"):
    """One change of a SKU's `on_hand` or `reserved` (models/stock_movements.py): the SKU page
    explains every figure by these. Actor: `actor_kind` with the user and/or token."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade)
    sku = ForeignKey(Sku, on_delete=OnDelete.cascade)
    at = Timestamptz(default=TimestamptzNow())
    kind = Varchar(length=20)  # models.stock_movements.MovementKind
    delta_on_hand = Integer(default=0)
    delta_reserved = Integer(default=0)
    reason = Varchar(length=200, default="")
    order = ForeignKey(Order, null=True, on_delete=OnDelete.set_null)
    actor_kind = Varchar(length=10)  # models.actors.ActorKind
    user = ForeignKey(User, null=True, on_delete=OnDelete.set_null)
    token = ForeignKey(ApiToken, null=True, on_delete=OnDelete.set_null)


class Artwork(Table, tablename="artwork"):
    """The artwork state of one order (one row per order, created with the order). While it
    is approved, `approved_by`, `approval_source` and `approval_note` say by whom and how
    (models/artwork.py ApprovalSource); a new proof clears them."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade, unique=True)
    status = Varchar(length=30, default="awaiting_proof")
    version = Integer(default=0)
    approved_at = Timestamptz(null=True, default=None)
    updated_at = Timestamptz(default=TimestamptzNow())
    approved_by = Varchar(length=200, null=True, default=None)  # the name the approver gave
    approval_source = Varchar(length=20, null=True, default=None)  # customer | recorded
    approval_note = Text(null=True, default=None)  # a recorded approval's note


class ArtworkApproval(Table, tablename="artwork_approvals"):
    """An approval given outside the proof page (at checkout, by phone, by email) and recorded
    by staff in the admin, an integration through the API or an operator at a shell
    (models/artwork.py): the version it approved (0 before any proof), the approver's name,
    a note, and who recorded it (`actor_kind` with the user and/or token, as stage moves).
    Kept as long as the order, whatever proofs follow. A customer's answer through the
    proof page is kept on its proof (artwork_proofs) instead."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade, index=True)
    version = Integer()
    approved_by = Varchar(length=200)
    note = Text(default="")
    actor_kind = Varchar(length=10)  # models.actors.ActorKind
    user = ForeignKey(User, null=True, on_delete=OnDelete.set_null)
    token = ForeignKey(ApiToken, null=True, on_delete=OnDelete.set_null)
    created_at = Timestamptz(default=TimestamptzNow())


class ArtworkProof(Table, tablename="artwork_proofs"):
    """One uploaded proof (a version of the order's artwork), its file kept in the database,
    and the customer's answer through the link emailed for it (models/proofs.py)."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade, index=True)
    version = Integer()
    file_name = Varchar(length=255)
    content_type = Varchar(length=50)
    size = Integer()
    sha256 = Varchar(length=64)
    data = Bytea()
    note = Text(default="")
    created_by = ForeignKey(User, null=True, on_delete=OnDelete.set_null)
    created_at = Timestamptz(default=TimestamptzNow())
    token_digest = Varchar(length=64, unique=True)  # SHA-256 of the customer's link token
    token_expires_at = Timestamptz()
    answer = Varchar(length=20, null=True, default=None)  # approved | changes_requested
    answered_at = Timestamptz(null=True, default=None)
    answered_name = Varchar(length=200, null=True, default=None)
    answered_from = Varchar(length=100, null=True, default=None)  # client address
    customer_comment = Text(null=True, default=None)


class NumberSequence(Table, tablename="number_sequences"):
    """Gapless counters per workspace, document kind (`order`, `invoice`) and year."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    kind = Varchar(length=20)
    year = Integer()
    last_value = Integer(default=0)


class CustomerMessage(Table, tablename="customer_messages"):
    """An email to the customer's primary contact (a stage move, a proof), sent by the worker
    (daemon/mail.py); every field of the email is fixed when the row is queued."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    order = ForeignKey(Order, on_delete=OnDelete.cascade, index=True)
    customer = ForeignKey(Customer, on_delete=OnDelete.cascade)
    contact = ForeignKey(Contact, null=True, on_delete=OnDelete.set_null)
    kind = Varchar(length=40)
    subject = Varchar(length=255)
    body = Text()
    status = Varchar(length=20, default="queued")
    created_at = Timestamptz(default=TimestamptzNow())
    # Sending (models/mail): the same columns on StaffNotice.
    recipient = Varchar(length=254, default="")
    from_name = Varchar(length=200, default="")
    reply_to = Varchar(length=254, default="")
    message_id = Varchar(length=255, default="")
    body_html = Text(default="")
    attempts = Integer(default=0)
    next_attempt_at = Timestamptz(default=TimestamptzNow())
    lease_expires_at = Timestamptz(null=True, default=None)
    leased_by = Varchar(length=100, null=True, default=None)
    last_error = Text(null=True, default=None)
    reply = Text(null=True, default=None)  # the server's answer to the accepted message
    transport = Varchar(length=10, null=True, default=None)  # models.mail.status.Transport
    sent_at = Timestamptz(null=True, default=None)
    updated_at = Timestamptz(default=TimestamptzNow())


class StaffNotice(Table, tablename="staff_notices"):
    """An email to a workspace's staff (a deactivated webhook subscription), sent like a
    customer message."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    user = ForeignKey(User, null=True, on_delete=OnDelete.set_null)
    kind = Varchar(length=40)
    subject = Varchar(length=255)
    body = Text()
    status = Varchar(length=20, default="queued")
    created_at = Timestamptz(default=TimestamptzNow())
    recipient = Varchar(length=254, default="")
    from_name = Varchar(length=200, default="")
    reply_to = Varchar(length=254, default="")
    message_id = Varchar(length=255, default="")
    body_html = Text(default="")
    attempts = Integer(default=0)
    next_attempt_at = Timestamptz(default=TimestamptzNow())
    lease_expires_at = Timestamptz(null=True, default=None)
    leased_by = Varchar(length=100, null=True, default=None)
    last_error = Text(null=True, default=None)
    reply = Text(null=True, default=None)
    transport = Varchar(length=10, null=True, default=None)
    sent_at = Timestamptz(null=True, default=None)
    updated_at = Timestamptz(default=TimestamptzNow())
    # The deactivation a notice tells about (unique with the recipient: one notice each).
    subscription_id = Integer(null=True, default=None)
    about_time = Timestamptz(null=True, default=None)


class IdempotencyKey(Table, tablename="idempotency_keys"):
    """The first response to a POST carrying `Idempotency-Key`, kept 24 h per user and key."""

    id: Serial
    user = ForeignKey(User, on_delete=OnDelete.cascade, index=True)
    key = Varchar(length=255)
    request_hash = Varchar(length=64)
    status = Varchar(length=20, default="running")
    response_status = Integer(null=True, default=None)
    response_body = Text(null=True, default=None)
    response_location = Varchar(length=255, null=True, default=None)
    created_at = Timestamptz(default=TimestamptzNow())
    expires_at = Timestamptz()


# --- webhooks ------------------------------------------------------------------------------


class WebhookSubscription(Table, tablename="webhook_subscriptions"):
    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    url = Varchar(length=2048)
    events = Varchar(length=255, default="*")
    secret = Varchar(length=100)
    customer = ForeignKey(Customer, null=True, on_delete=OnDelete.cascade)
    is_active = Boolean(default=True)
    consecutive_failures = Integer(default=0)
    deactivated_at = Timestamptz(null=True, default=None)
    deactivated_reason = Varchar(length=255, null=True, default=None)
    created_at = Timestamptz(default=TimestamptzNow())
    updated_at = Timestamptz(default=TimestamptzNow())
    # Attempts started and not yet recorded (claims add, results and expired leases take off).
    in_flight = Integer(default=0)
    # During a rotation's overlap the old secret still signs, until it expires.
    previous_secret = Varchar(length=100, null=True, default=None)
    previous_secret_expires_at = Timestamptz(null=True, default=None)


class WebhookEvent(Table, tablename="webhook_events"):
    """One event; `body` holds the exact JSON bytes (UTF-8) every attempt sends."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    event_id = Varchar(length=36, unique=True)
    name = Varchar(length=40)
    order = ForeignKey(Order, null=True, on_delete=OnDelete.set_null)
    customer = ForeignKey(Customer, null=True, on_delete=OnDelete.set_null)
    body = Text()
    created_at = Timestamptz(default=TimestamptzNow())


class WebhookDelivery(Table, tablename="webhook_deliveries"):
    """One event for one subscription: `pending` → `succeeded` | `failed`, or `skipped`.
    `public_id` (`dlv_…`, models/delivery_ids.py) is what its `webhook-id` carries, the same on
    every attempt; the integer `id` stays the key operators and the admin's URLs use."""

    id: Serial
    # Made here for every row written through Piccolo; the database makes one for any other
    # insert (migration 2026-11-30T10:15). Unique: deliveries_public_id.
    public_id = Varchar(length=DELIVERY_ID_LENGTH, unique=True, default=new_delivery_id)
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    # No index of their own: deliveries_event_subscription and deliveries_subscription_created
    # start with these columns (migration 2026-11-25T17:00).
    event = ForeignKey(WebhookEvent, on_delete=OnDelete.cascade)
    subscription = ForeignKey(WebhookSubscription, on_delete=OnDelete.cascade)
    status = Varchar(length=20, default="pending")
    attempts = Integer(default=0)
    next_attempt_at = Timestamptz(default=TimestamptzNow())
    lease_expires_at = Timestamptz(null=True, default=None)
    leased_by = Varchar(length=100, null=True, default=None)
    last_status_code = Integer(null=True, default=None)
    last_error = Text(null=True, default=None)
    completed_at = Timestamptz(null=True, default=None)
    created_at = Timestamptz(default=TimestamptzNow())
    updated_at = Timestamptz(default=TimestamptzNow())


class WebhookAttempt(Table, tablename="webhook_attempts"):
    id: Serial
    delivery = ForeignKey(WebhookDelivery, on_delete=OnDelete.cascade)  # attempts_delivery_number
    number = Integer()
    started_at = Timestamptz()
    duration_ms = Integer()
    status_code = Integer(null=True, default=None)
    error = Text(null=True, default=None)
    response_headers = Text(default="{}")
    response_body = Text(default="")
    response_truncated = Boolean(default=False)
    response_length = Integer(default=0)
    worker = Varchar(length=100, default="")


# --- admin ---------------------------------------------------------------------------------


class AdminSession(Table, tablename="admin_sessions"):
    """A logged-in admin browser; only the SHA-256 digest of the cookie's random id is kept."""

    id: Serial
    digest = Varchar(length=64, unique=True)
    user = ForeignKey(User, on_delete=OnDelete.cascade, index=True)
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    created_at = Timestamptz(default=TimestamptzNow())
    last_seen_at = Timestamptz(default=TimestamptzNow())
    expires_at = Timestamptz()  # the absolute end; idle expiry counts from last_seen_at


class AdminFlash(Table, tablename="admin_flashes"):
    """A one-time notice for the page a POST redirects to (api/admin/flash.py); read once, then
    deleted. `secret` holds a value shown once (a new token) for the few seconds until then."""

    id: Serial
    session = ForeignKey(AdminSession, on_delete=OnDelete.cascade, index=True)
    notice = Text(default="")
    secret = Text(null=True, default=None)
    details = Text(default="{}")  # JSON: what the page shows beside the secret
    created_at = Timestamptz(default=TimestamptzNow())


class FailedLogin(Table, tablename="failed_logins"):
    """One counted admin login attempt, by email (lower case) and client address: reserved
    before the password is checked, kept when it fails (models/login_throttle.py)."""

    id: Serial
    email = Varchar(length=254)
    at = Timestamptz(default=TimestamptzNow())
    address = Varchar(length=64, default="")


# --- invoices as tax documents ---------------------------------------------------------------


class InvoiceSettings(Table, tablename="invoice_settings"):
    """What a workspace's invoices say of the shop (models/invoices/letterhead.py): one row per
    workspace, written when its owner first saves Settings → Invoices. The logo's bytes are
    read only where the logo is served."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, unique=True)
    legal_name = Varchar(length=200, default="")
    address_line1 = Varchar(length=200, default="")
    address_line2 = Varchar(length=200, default="")
    city = Varchar(length=100, default="")
    postcode = Varchar(length=20, default="")
    country = Varchar(length=100, default="")
    tax_number = Varchar(length=50, default="")
    tax_label = Varchar(length=20, default="Tax")
    bank_details = Text(default="")
    footer = Text(default="")
    logo = Bytea(null=True, default=None)
    logo_type = Varchar(length=20, null=True, default=None)  # image/png | image/jpeg
    logo_sha256 = Varchar(length=64, null=True, default=None)
    updated_at = Timestamptz(default=TimestamptzNow())


class InvoiceLink(Table, tablename="invoice_links"):
    """The customer's link to an invoice's own page, `/i/{token}` (models/invoices/links.py):
    one per "Email invoice", stored as the token's SHA-256 digest only."""

    id: Serial
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade, index=True)
    invoice = ForeignKey(Invoice, on_delete=OnDelete.cascade, index=True)
    message = ForeignKey(CustomerMessage, null=True, on_delete=OnDelete.set_null, index=True)
    token_digest = Varchar(length=64, unique=True)
    created_by = ForeignKey(User, null=True, on_delete=OnDelete.set_null)
    created_at = Timestamptz(default=TimestamptzNow())
    expires_at = Timestamptz()
    opened_at = Timestamptz(null=True, default=None)  # the customer's first opening
