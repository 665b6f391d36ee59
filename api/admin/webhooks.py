"""Webhooks: owners create, edit, disable and re-enable subscriptions; staff read them."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin.forms import form, many, text, whole_number
from api.admin.pages import page, see_other, zone
from api.admin.security import PREFIX, owner_only
from models import clock, subscriptions
from models.errors import InvalidFields, NotFoundError
from models.outbox import EVENT_NAMES
from models.queries import admin as queries
from models.tables import Customer, WebhookSubscription
from models.urls import masked_url

SubscriptionId = Annotated[int, PathParameter(description="Webhook subscription id")]
NOTICES = {
    "edited": "The subscription was saved.",
    "disabled": "The subscription was disabled: new events are recorded as skipped.",
    "enabled": "The subscription was re-enabled.",
}
UNKNOWN_CUSTOMER = "Choose one of the workspace's customers, or all customers."


async def _subscription_form(request: Request[Any, Any, Any]) -> tuple[dict[str, Any], dict]:
    """The typed values, and what they mean for the domain (or field errors)."""
    fields = await form(request)
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


def _notice(query: Any) -> str | None:
    notice = NOTICES.get(query.get("done", ""))
    requeued = query.get("requeued", "")
    if notice and requeued.isdigit() and int(requeued):
        notice += f" {int(requeued)} failed or skipped deliveries were queued again."
    return notice


def _merge(errors: dict[str, list[str]], invalid: InvalidFields) -> dict[str, list[str]]:
    return {**invalid.errors, **errors}


class WebhookController(Controller):
    path = "/webhooks"

    async def _list(
        self,
        request: Request[Any, Any, Any],
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        typed: dict[str, Any] | None = None,
    ) -> Template:
        workspace_id = request.user.workspace_id
        return page(
            request, "webhooks.html", status_code=status_code, here="webhooks", title="Webhooks",
            subscriptions=await queries.subscriptions(workspace_id),
            customers=await queries.customers(workspace_id), event_names=EVENT_NAMES,
            errors=errors or {}, typed=typed or {"url": "", "events": ["*"], "customer": ""},
        )  # fmt: skip

    @get("/")
    async def list_subscriptions(self, request: Request[Any, Any, Any]) -> Template:
        return await self._list(request)

    @post("/", guards=[owner_only], status_code=200)
    async def create_subscription(self, request: Request[Any, Any, Any]) -> Template:
        typed, wanted = await _subscription_form(request)
        errors = wanted["errors"]
        try:
            if errors:
                subscriptions.check_url(wanted["url"])  # its message joins the others
                raise InvalidFields(errors)
            row, secret = await subscriptions.create(
                request.user.workspace_id, wanted["url"], wanted["events"], wanted["customer_id"]
            )
        except InvalidFields as invalid:
            return await self._list(
                request, status_code=422, errors=_merge(errors, invalid), typed=typed
            )
        return page(
            request, "webhook_secret.html", here="webhooks", title="Subscription created",
            secret=True, signing_secret=secret, subscription_id=row["id"], created=True,
        )  # fmt: skip

    async def _detail(
        self,
        request: Request[Any, Any, Any],
        subscription_id: int,
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        typed: dict[str, Any] | None = None,
    ) -> Template:
        workspace_id = request.user.workspace_id
        row = await queries.subscription(workspace_id, subscription_id)
        events = row["events"].split(",")
        since = row["deactivated_at"] or clock.now()
        if isinstance(since, str):
            since = dt.datetime.fromisoformat(since).replace(tzinfo=dt.UTC)
        local = (since - dt.timedelta(days=1)).astimezone(zone(request.user.timezone))
        return page(
            request, "webhook.html", status_code=status_code, here="webhooks",
            title="Webhook subscription", s=row, customers=await queries.customers(workspace_id),
            event_names=EVENT_NAMES, errors=errors or {},
            typed=typed or {
                "url": masked_url(row["url"]), "events": events,
                "customer": str(row["customer"] or ""),
            },
            notice=_notice(request.query_params), since_default=f"{local:%Y-%m-%dT%H:%M:%S}",
        )  # fmt: skip

    @get("/{subscription_id:int}")
    async def show_subscription(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template:
        return await self._detail(request, subscription_id)

    @post("/{subscription_id:int}", guards=[owner_only], status_code=303)
    async def edit_subscription(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template | Redirect:
        await queries.ensure_in_workspace(
            WebhookSubscription, subscription_id, request.user.workspace_id
        )
        typed, wanted = await _subscription_form(request)
        errors = wanted["errors"]
        try:
            if errors:
                subscriptions.check_url(wanted["url"])
                raise InvalidFields(errors)
            await subscriptions.edit(
                subscription_id,
                url=wanted["url"],
                events=wanted["events"],
                customer_id=wanted["customer_id"],
            )
        except InvalidFields as invalid:
            return await self._detail(
                request, subscription_id, status_code=422, errors=_merge(errors, invalid),
                typed=typed,
            )  # fmt: skip
        return see_other(f"{PREFIX}/webhooks/{subscription_id}?done=edited")

    @post("/{subscription_id:int}/disable", guards=[owner_only], status_code=303)
    async def disable_subscription(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Redirect:
        await queries.ensure_in_workspace(
            WebhookSubscription, subscription_id, request.user.workspace_id
        )
        await subscriptions.disable(subscription_id)
        return see_other(f"{PREFIX}/webhooks/{subscription_id}?done=disabled")

    @post("/{subscription_id:int}/enable", guards=[owner_only], status_code=303)
    async def enable_subscription(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template | Redirect:
        user = request.user
        await queries.ensure_in_workspace(WebhookSubscription, subscription_id, user.workspace_id)
        fields = await form(request)
        since = None
        if text(fields, "requeue") and text(fields, "since"):
            try:
                since = dt.datetime.fromisoformat(text(fields, "since"))
            except ValueError:
                return await self._detail(
                    request, subscription_id, status_code=422,
                    errors={"since": ["Give a date and time, e.g. 2026-11-22 09:00."]},
                )  # fmt: skip
            if since.tzinfo is None:  # typed in the workspace's time zone
                since = since.replace(tzinfo=zone(user.timezone))
        result = await subscriptions.enable(subscription_id, requeue_since=since)
        requeued = result.get("requeued", 0) if isinstance(result, dict) else 0
        return see_other(f"{PREFIX}/webhooks/{subscription_id}?done=enabled&requeued={requeued}")

    @post("/{subscription_id:int}/secret", guards=[owner_only], status_code=200)
    async def reveal_secret(
        self, request: Request[Any, Any, Any], subscription_id: SubscriptionId
    ) -> Template:
        secret = await queries.secret(request.user.workspace_id, subscription_id)
        template = "_secret.html" if "HX-Request" in request.headers else "webhook_secret.html"
        return page(
            request, template, here="webhooks", title="Signing secret", secret=True,
            signing_secret=secret, subscription_id=subscription_id, created=False,
        )  # fmt: skip
