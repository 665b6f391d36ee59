"""Operator-side setup: workspaces, users and their tokens, with the rules each field obeys.

The command line and the demo builder call these; every refusal is a models.errors type.
Customers and their contacts live in models/customers/, SKUs in models/catalogue.py.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
import zoneinfo
from decimal import Decimal
from typing import Any

import msgspec
from piccolo.query import WhereRaw

from models import clock, db, emails, plans, tokens
from models.errors import FieldErrors, InvalidFields, NotFoundError, RuleRefused
from models.filters import MAX_ID
from models.pricing import defaults
from models.pricing import document as price_document
from models.tables import ApiToken, User, Workspace

MAX_DAYS = 3650  # trial and token lifetimes; keeps `now + days` far from datetime's limits


def known_id(value: int) -> bool:
    """Ids are 32-bit serials; anything else cannot exist (nor reach the driver)."""
    return 0 < value <= MAX_ID


class Keep(enum.Enum):
    """Marks a setting `set_workspace` leaves as it is (None means "clear" for overrides)."""

    KEEP = 0


KEEP = Keep.KEEP


def _days(errors: FieldErrors, field: str, days: int) -> dt.timedelta:
    if not 1 <= days <= MAX_DAYS:
        errors.add(field, f"must be between 1 and {MAX_DAYS}")
        return dt.timedelta(0)
    return dt.timedelta(days=days)


# --- workspaces ----------------------------------------------------------------------------


# Whether the prices given for orders include tax. Not a workspace setting (yet): every
# workspace's unit prices are tax-exclusive, and tax is added on the subtotal
# (models/orders/lines.py).
PRICES_INCLUDE_TAX = False


def tax_rate_text(value: Decimal | float | str) -> str:
    """A stored tax rate in the API's form for percentages: two decimals ("20.00")."""
    return f"{Decimal(str(value)):.2f}"


class WorkspaceInfo(msgspec.Struct, frozen=True):
    """A workspace's settings as operators see them (timestamps in the API's form)."""

    id: int
    name: str
    plan: str
    effective_plan: str
    trial_ends_at: str | None
    currency: str
    tax_rate: str
    timezone: str
    open_order_limit: int | None
    require_artwork_approval: bool
    strict_sequence: bool
    prices_include_tax: bool  # new orders' default: line prices are gross


def workspace_info(row: Workspace) -> WorkspaceInfo:
    return WorkspaceInfo(
        id=row.id,
        name=row.name,
        plan=row.plan,
        effective_plan=plans.effective_plan(row.plan, row.trial_ends_at, clock.now()),
        trial_ends_at=clock.iso(row.trial_ends_at) if row.trial_ends_at else None,
        currency=row.currency,
        tax_rate=tax_rate_text(row.tax_rate),
        timezone=row.timezone,
        open_order_limit=row.open_order_limit,
        require_artwork_approval=row.require_artwork_approval,
        strict_sequence=row.strict_sequence,
        prices_include_tax=row.prices_include_tax,
    )


async def list_workspaces() -> list[WorkspaceInfo]:
    """Every workspace of the deployment, oldest first."""
    rows = await Workspace.objects().order_by(Workspace.id)
    return [workspace_info(row) for row in rows]


async def get_workspace(workspace_id: int) -> Workspace:
    row = None
    if known_id(workspace_id):
        row = await Workspace.objects().where(Workspace.id == workspace_id).first()
    if row is None:
        raise NotFoundError(f"workspace {workspace_id} not found")
    return row


def _plan(errors: FieldErrors, plan: str) -> str:
    if plan not in plans.PLANS:
        errors.add("plan", f"must be one of {', '.join(plans.PLANS)}")
    return plan


def _timezone(errors: FieldErrors, timezone: str) -> str:
    """An IANA time zone name (order numbers' years and due dates follow it)."""
    timezone = timezone.strip()
    try:
        zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        errors.add("timezone", f"unknown time zone {timezone!r} (e.g. Europe/London)")
    return timezone


async def create_workspace(
    *,
    name: str,
    plan: str = "starter",
    currency: str = "GBP",
    tax_rate: Decimal | str = Decimal(0),
    timezone: str = "UTC",
    open_order_limit: int | None = None,
    trial_days: int | None = None,
    require_artwork_approval: bool = True,
) -> Workspace:
    """A new workspace, with the starting price list (models/pricing/defaults.py). Its orders
    leave artwork only once a proof is approved unless `require_artwork_approval` is False (a
    shop that prints without asking)."""
    errors = FieldErrors()
    name = errors.text("name", name, 200)
    _plan(errors, plan)
    currency = currency.strip().upper()
    if not re.fullmatch(r"[A-Z]{3}", currency):
        errors.add("currency", "must be a three-letter code such as GBP")
    rate = errors.percent("tax_rate", tax_rate)
    timezone = _timezone(errors, timezone)
    if open_order_limit is not None:
        errors.count("open_order_limit", open_order_limit)
    now = clock.now()
    trial_ends_at = None
    if trial_days is not None:
        trial_ends_at = now + _days(errors, "trial_days", trial_days)
    errors.check()
    row = Workspace(
        name=name,
        plan=plan,
        currency=currency,
        tax_rate=rate,
        timezone=timezone,
        open_order_limit=open_order_limit,
        require_artwork_approval=require_artwork_approval,
        trial_ends_at=trial_ends_at,
        created_at=now,
        updated_at=now,
        pricing=price_document.encode(defaults.price_list()).decode(),
    )
    await row.save()
    return row


async def set_workspace(
    workspace_id: int,
    *,
    plan: str | None = None,
    open_order_limit: int | Keep | None = KEEP,
    tax_rate: Decimal | str | None = None,
    timezone: str | None = None,
    require_artwork_approval: bool | None = None,
    strict_sequence: bool | None = None,
    prices_include_tax: bool | None = None,
    trial_ends_at: dt.datetime | Keep | None = KEEP,
    end_trial: bool = False,
) -> Workspace:
    """Change the given settings; `open_order_limit=None` clears the override (plan default).
    `end_trial` ends a running trial now: the workspace falls back to its own plan. A new tax
    rate applies to orders created or edited afterwards; orders keep the tax they were given."""
    errors = FieldErrors()
    changes: dict[Any, Any] = {}
    if plan is not None:
        changes[Workspace.plan] = _plan(errors, plan)
    if not isinstance(open_order_limit, Keep):
        if open_order_limit is not None:
            errors.count("open_order_limit", open_order_limit)
        changes[Workspace.open_order_limit] = open_order_limit
    if tax_rate is not None:
        changes[Workspace.tax_rate] = errors.percent("tax_rate", tax_rate)
    if timezone is not None:
        changes[Workspace.timezone] = _timezone(errors, timezone)
    if require_artwork_approval is not None:
        changes[Workspace.require_artwork_approval] = require_artwork_approval
    if strict_sequence is not None:
        changes[Workspace.strict_sequence] = strict_sequence
    if prices_include_tax is not None:
        changes[Workspace.prices_include_tax] = prices_include_tax
    if not isinstance(trial_ends_at, Keep):
        changes[Workspace.trial_ends_at] = trial_ends_at
    if end_trial and not isinstance(trial_ends_at, Keep):
        errors.add("trial_ends_at", "give either a trial end or end the trial, not both")
    errors.check()
    if not changes and not end_trial:
        raise RuleRefused("nothing to change: give at least one setting")

    async def write() -> Workspace:
        current = await get_workspace(workspace_id)
        now = clock.now()
        if end_trial:
            if current.trial_ends_at is None or current.trial_ends_at <= now:
                raise RuleRefused(f"workspace {workspace_id} has no trial running")
            changes[Workspace.trial_ends_at] = now
        changes[Workspace.updated_at] = now
        await Workspace.update(changes).where(Workspace.id == workspace_id)
        return await get_workspace(workspace_id)

    return await db.atomic(write)


# --- users ---------------------------------------------------------------------------------


async def get_user(user_id: int) -> User:
    row = await User.objects().where(User.id == user_id).first() if known_id(user_id) else None
    if row is None:
        raise NotFoundError(f"user {user_id} not found")
    return row


async def create_user(*, workspace_id: int, name: str, email: str) -> User:
    errors = FieldErrors()
    name = errors.text("name", name, 200)
    email = errors.email("email", email)
    errors.check()

    async def write() -> User:
        await get_workspace(workspace_id)
        # One user per address in a workspace, as logging in finds them: ASCII letters in
        # any case (models/emails.py), so Sam@… is refused beside sam@….
        taken = await User.exists().where(
            (User.workspace == workspace_id)
            & WhereRaw(f"{emails.column_key('email')} = {{}}", emails.key(email))
        )
        if taken:
            raise InvalidFields({"email": [f"{email} already has a user in this workspace"]})
        now = clock.now()
        row = User(workspace=workspace_id, name=name, email=email, created_at=now, updated_at=now)
        await row.save()
        return row

    return await db.atomic(write)


# --- tokens --------------------------------------------------------------------------------


def token_data(row: ApiToken | dict[str, Any]) -> dict[str, Any]:
    """What may be shown about a token: never the token itself nor its digest."""
    values = row if isinstance(row, dict) else row.to_dict()
    return {
        "id": values["id"],
        "user_id": values["user"],
        "name": values["name"],
        "prefix": values["prefix"],
        "created_at": clock.iso(values["created_at"]),
        "expires_at": clock.iso(values["expires_at"]),
        "revoked_at": clock.iso(values["revoked_at"]) if values["revoked_at"] else None,
    }


async def issue_token(
    *,
    user_id: int,
    name: str = "",
    expires_in_days: int | None = None,
    expires_at: dt.datetime | None = None,
) -> tuple[ApiToken, str]:
    """A new token for an active user; the clear token is returned once and never stored."""
    errors = FieldErrors()
    name = errors.text("name", name, 100, required=False)
    now = clock.now()
    if expires_in_days is not None and expires_at is not None:
        errors.add("expires_at", "give either a lifetime in days or an expiry time, not both")
    elif expires_in_days is not None:
        expires_at = now + _days(errors, "expires_in_days", expires_in_days)
    elif expires_at is not None:
        if expires_at.tzinfo is None:
            expires_at = expires_at.replace(tzinfo=dt.UTC)
        if expires_at <= now:
            errors.add("expires_at", "must be in the future")
        elif expires_at > now + dt.timedelta(days=MAX_DAYS):
            errors.add("expires_at", f"must be within {MAX_DAYS} days")
    errors.check()
    user = await get_user(user_id)
    if not user.is_active:
        raise RuleRefused(f"user {user_id} is deactivated; activate the user first")
    return await tokens.create_token(
        workspace_id=user.workspace, user_id=user.id, name=name, expires_at=expires_at
    )


async def list_tokens(user_id: int) -> list[dict[str, Any]]:
    await get_user(user_id)
    rows = (
        await ApiToken.select(
            ApiToken.id,
            ApiToken.user,
            ApiToken.name,
            ApiToken.prefix,
            ApiToken.created_at,
            ApiToken.expires_at,
            ApiToken.revoked_at,
        )
        .where(ApiToken.user == user_id)
        .order_by(ApiToken.id)
    )
    return [token_data(row) for row in rows]


async def revoke_token(token_id: int) -> tuple[ApiToken, bool]:
    """Revoke a token (next request answers 401); returns it and whether it was live before."""

    async def write() -> tuple[ApiToken, bool]:
        row = None
        if known_id(token_id):
            row = await ApiToken.objects().where(ApiToken.id == token_id).first()
        if row is None:
            raise NotFoundError(f"token {token_id} not found")
        if row.revoked_at is not None:
            return row, False
        row.revoked_at = clock.now()
        await row.save([ApiToken.revoked_at])
        return row, True

    return await db.atomic(write)
