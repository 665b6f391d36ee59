"""Webhooks: owners create, edit, disable, re-enable, test and rotate subscriptions; staff read.

Every POST that succeeds answers 303 (POST-redirect-GET) with a one-time notice
(api/admin/flash.py); a new signing secret is shown once, on the page the 303 leads to.
Disabling, rotating and sending a test event each have a confirmation step (a GET page with
the form that POSTs)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, in_words, many, text, whole_number
from api.admin.once import Created, create_once, new_token, token_of
from api.admin.pages import page, see_other, zone
from api.admin.security import PREFIX, owner_only
from models import clock, statements
from models.errors import ConflictError, InvalidFields, NotFoundError
from models.queries import admin as queries
from models.tables import Customer
from models.webhooks import stats, subscriptions
from models.webhooks.names import EVENT_NAMES

SubscriptionId = Annotated[int, PathParameter(description="Webhook subscription id")]
UNKNOWN_CUSTOMER = "Choose one of the workspace's customers, or all customers."
OVERLAP_HOURS = "Give a whole number of hours from 0 to 168."
# The subscription form's fields as refusals name them (_subscription_fields.html).
SUBSCRIPTION_LABELS = {"url": "the URL", "events": "the events", "customer": "the customer"}
_SPACED_OFFSET = re.compile(r"\s+([+-]\d\d(?::?\d\d)?|Z)$")
SINCE_EXAMPLE = "Give a date and time, e.g. 2026-11-22 09:00 (the workspace's time zone) or "
SINCE_EXAMPLE += "2026-11-22 09:00 +01:00."
CONFIRMATIONS = {
    "disable": (
        "Disable this subscription?",
        "Nothing more is sent to it. New events are recorded as skipped, so they can be sent "
        "later, when it is re-enabled.",
        "Disable subscription",
    ),
    "test": (
        "Send a test event?",
        "A webhook.test event is sent to this URL now, whatever the subscription's event list. "
        "It is recorded as a delivery; its result does not change the failure count.",
        "Send test event",
    ),
    "rotate": (
        "Rotate the signing secret?",
        "A new secret is made and shown once. During the overlap both secrets sign each "
        "delivery (webhook-signature lists both; X-SVC-Signature-Previous carries the old one), "
        "so the receiver can switch without refusing anything; then the old one is erased.",
        "Rotate secret",
    ),
}


def duration(age: dt.timedelta) -> str:
    """How long the oldest pending delivery has waited, in the largest unit that fits."""
    seconds = int(age.total_seconds())
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 172_800:
        return f"{seconds // 3600} h"
    return f"{seconds // 86_400} days"


def requeued_notice(count: int) -> str:
    if count == 1:
        return " 1 failed or skipped delivery was queued again."
    return f" {count} failed or skipped deliveries were queued again."


def parse_since(typed: str, timezone: str) -> dt.datetime:
    """A moment typed with or without an offset; without one, in the workspace's time zone."""
    value = _SPACED_OFFSET.sub(r"\1", typed.strip())
    try:
        since = dt.datetime.fromisoformat(value)
    except ValueError as exc:
        raise InvalidFields({"since": [SINCE_EXAMPLE]}) from exc
    return since if since.tzinfo is not None else since.replace(tzinfo=zone(timezone))


def shown_since(moment: dt.datetime) -> str:
    """How the form shows a moment: local date and time with the offset (`parse_since` reads it)."""
    return moment.isoformat(sep=" ", timespec="minutes")


async def _subscription_form(
    request: Request[Any, Any, Any], fields: dict[str, Any]
) -> tuple[dict[str, Any], dict]:
    """The typed values, and what they mean for the domain (or field errors)."""
    chosen = many(fields, "events")
    typed = {"url": text(fields, "url"), "events": chosen, "customer": text(fields, "customer")}
    errors: dict[str, list[str]] = {}
    if not chosen:
        errors["events"] = ["Choose at least one event, or all events."]
    customer_id = None
    if typed["customer"]:
        customer_id = whole_number(text(fields, "customer"))
        try:
            await queries.ensure_in_workspace(Customer, customer_id or 0, request.user.workspace_id)
        except NotFoundError:
            errors["customer"] = [UNKNOWN_CUSTOMER]
    return typed, {
        "url": typed["url"],
        "events": "*" if "*" in chosen else ",".join(chosen),
        "customer_id": customer_id,
        "errors": errors,
    }


def _merge(errors: dict[str, list[str]], invalid: InvalidFields) -> dict[str, list[str]]:
    return in_words({**invalid.errors, **errors}, SUBSCRIPTION_LABELS)


class WebhookController(Controller):
    path = "/webhooks"

    async def _list(
        self,
        request: Request[Any, Any, Any],
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        typed: dict[str, Any] | None = None,
        notice: str | None = None,
        once: str | None = None,
    ) -> Template:
        workspace_id = request.user.workspace_id
        health = await stats.health(workspace_id)
        age = health["oldest_pending_age"]
        return page(
            request, "webhooks.html", status_code=status_code, here="webhooks", title="Webhooks",
            health=health, waited=duration(age) if age is not None else "",
            subscriptions=await subscriptions.list_for_workspace(workspace_id),
            customers=await queries.customers(workspace_id), event_names=EVENT_NAMES,
            errors=errors or {}, typed=typed or {"url": "", "events": ["*"], "customer": ""},
            notice=notice, once=once or new_token(),
        )  # fmt: skip

    @get("/")
    async def list_subscriptions(self, request: Request[Any, Any, Any]) -> Template:
        return await self._list(request, notice=(await flash.take(request)).notice or None)

    @post("/", guards=[owner_only], status_code=303)
    async def create_subscription(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        fields = await form(request)
        typed, wanted = await _subscription_form(request, fields)
        errors = wanted["errors"]
        try:
            if errors:
                subscriptions.check_url(wanted["url"])  # its message joins the others
                raise InvalidFields(errors)

            async def create() -> Created:
                row, secret = await subscriptions.create(
                    request.user.workspace_id, wanted["url"], wanted["events"],
                    wanted["customer_id"],
                )  # fmt: skip
                url = f"{PREFIX}/webhooks/{row['id']}"
                shown = {"secret": secret, "created": True}
                return Created(f"{url}/secret", f"the subscription to {row['url']}", shown, url)

            return await create_once(
                request, fields, create, created=lambda _: "The subscription was created."
            )
        except InvalidFields as invalid:
            return await self._list(
                request, status_code=422, errors=_merge(errors, invalid), typed=typed,
                once=token_of(fields),
            )  # fmt: skip

    @get("/{subscription_id:int}/secret")
    async def show_new_secret(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template | Redirect:
        """The secret the last POST made, once; a reload finds it gone."""
        sub = await subscriptions.get(subscription_id, request.user.workspace_id)
        shown = await flash.take(request)
        if shown.secret is None:
            return see_other(f"{PREFIX}/webhooks/{subscription_id}")
        return page(
            request, "webhook_secret.html", here="webhooks", secret=True,
            title="Subscription created" if shown.details.get("created") else "New signing secret",
            notice=shown.notice, signing_secret=shown.secret, s=sub,
            created=bool(shown.details.get("created")),
        )  # fmt: skip

    async def _detail(
        self,
        request: Request[Any, Any, Any],
        subscription_id: int,
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        typed: dict[str, Any] | None = None,
        notice: str | None = None,
        since_typed: str | None = None,
    ) -> Template:
        workspace_id = request.user.workspace_id
        row = await subscriptions.get(subscription_id, workspace_id)
        [listed] = [
            s for s in await subscriptions.list_for_workspace(workspace_id) if s["id"] == row["id"]
        ]
        here = zone(request.user.timezone)
        since = statements.when(row["deactivated_at"]) if row["deactivated_at"] else clock.now()
        local = (since - dt.timedelta(days=1)).astimezone(here)
        return page(
            request, "webhook.html", status_code=status_code, here="webhooks",
            title="Webhook subscription", s=listed, customers=await queries.customers(workspace_id),
            event_names=EVENT_NAMES, errors=errors or {},
            typed=typed or {
                "url": row["url"], "events": row["events"].split(","),
                "customer": str(row["customer"] or ""),
            },
            notice=notice, since_default=since_typed or shown_since(local),
            timezone=request.user.timezone,
        )  # fmt: skip

    @get("/{subscription_id:int}")
    async def show_subscription(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template:
        notice = (await flash.take(request)).notice or None
        return await self._detail(request, subscription_id, notice=notice)

    @post("/{subscription_id:int}", guards=[owner_only], status_code=303)
    async def edit_subscription(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template | Redirect:
        workspace_id = request.user.workspace_id
        await subscriptions.get(subscription_id, workspace_id)
        typed, wanted = await _subscription_form(request, await form(request))
        errors = wanted["errors"]
        try:
            if errors:
                subscriptions.check_url(wanted["url"])
                raise InvalidFields(errors)
            await subscriptions.edit(
                subscription_id, url=wanted["url"], events=wanted["events"],
                customer_id=wanted["customer_id"], workspace_id=workspace_id,
            )  # fmt: skip
        except InvalidFields as invalid:
            return await self._detail(
                request, subscription_id, status_code=422, errors=_merge(errors, invalid),
                typed=typed,
            )  # fmt: skip
        return await flash.redirect(
            request, f"{PREFIX}/webhooks/{subscription_id}", "The subscription was saved."
        )

    async def _confirm(
        self,
        request: Request[Any, Any, Any],
        subscription_id: int,
        action: str,
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        overlap: str | int = subscriptions.DEFAULT_OVERLAP_HOURS,
    ) -> Template:
        """The confirmation step of disable, test and secret rotation."""
        sub = await subscriptions.get(subscription_id, request.user.workspace_id)
        title, explanation, button = CONFIRMATIONS[action]
        return page(
            request, "webhook_confirm.html", status_code=status_code, here="webhooks",
            title=title, s=sub, action=action, explanation=explanation, button=button,
            default_overlap=overlap, max_overlap=subscriptions.MAX_OVERLAP_HOURS,
            errors=errors or {},
        )  # fmt: skip

    @get("/{subscription_id:int}/disable")
    async def confirm_disable(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template:
        return await self._confirm(request, subscription_id, "disable")

    @get("/{subscription_id:int}/test")
    async def confirm_test(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template:
        return await self._confirm(request, subscription_id, "test")

    @get("/{subscription_id:int}/rotate")
    async def confirm_rotate(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template:
        return await self._confirm(request, subscription_id, "rotate")

    @post("/{subscription_id:int}/disable", guards=[owner_only], status_code=303)
    async def disable_subscription(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Redirect:
        await subscriptions.disable(subscription_id, workspace_id=request.user.workspace_id)
        return await flash.redirect(
            request, f"{PREFIX}/webhooks/{subscription_id}",
            "The subscription was disabled: new events are recorded as skipped.",
        )  # fmt: skip

    @post("/{subscription_id:int}/enable", guards=[owner_only], status_code=303)
    async def enable_subscription(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template | Redirect:
        user = request.user
        await subscriptions.get(subscription_id, user.workspace_id)
        fields = await form(request)
        since = None
        if text(fields, "requeue") and text(fields, "since"):
            try:
                since = parse_since(text(fields, "since"), user.timezone)
            except InvalidFields as invalid:
                return await self._detail(
                    request, subscription_id, status_code=422, errors=invalid.errors,
                    since_typed=text(fields, "since"),
                )  # fmt: skip
        result = await subscriptions.enable(
            subscription_id, requeue_since=since, workspace_id=user.workspace_id
        )
        notice = "The subscription was re-enabled."
        if since is not None:
            notice += requeued_notice(result["requeued"])
        return await flash.redirect(request, f"{PREFIX}/webhooks/{subscription_id}", notice)

    @post("/{subscription_id:int}/test", guards=[owner_only], status_code=303)
    async def send_test(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template | Redirect:
        try:
            sent = await subscriptions.send_test(subscription_id, request.user.workspace_id)
        except ConflictError as refused:
            return page(
                request, "error.html", status_code=409, title="Not sent", message=refused.message
            )
        return await flash.redirect(
            request, f"{PREFIX}/deliveries/{sent.id}",
            "A test event was queued; its attempt shows here once it is made.",
        )  # fmt: skip

    @post("/{subscription_id:int}/secret", guards=[owner_only], status_code=303)
    async def rotate_secret(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template | Redirect:
        workspace_id = request.user.workspace_id
        await subscriptions.get(subscription_id, workspace_id)
        fields = await form(request)
        typed = text(fields, "overlap_hours") or str(subscriptions.DEFAULT_OVERLAP_HOURS)
        hours = whole_number(typed)
        try:
            if hours is None:
                raise InvalidFields({"overlap_hours": [OVERLAP_HOURS]})
            row, secret = await subscriptions.rotate_secret(subscription_id, hours, workspace_id)
        except InvalidFields as invalid:
            return await self._confirm(
                request, subscription_id, "rotate", status_code=422, errors=invalid.errors,
                overlap=typed,
            )  # fmt: skip
        until = row["previous_secret_until"]
        notice = "The signing secret was rotated." + (
            " The old secret also signs until the time shown below, then it is erased."
            if until
            else " The old secret no longer signs."
        )
        return await flash.redirect(
            request, f"{PREFIX}/webhooks/{subscription_id}/secret", notice, secret=secret,
            created=False,
        )  # fmt: skip
