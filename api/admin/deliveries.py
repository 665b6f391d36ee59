"""Deliveries: the workspace's (or one subscription's), newest first, and each one's attempts."""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import whole_number
from api.admin.pages import page
from api.admin.security import PREFIX, owner_only
from models import clock
from models.errors import ConflictError
from models.webhooks import deliveries, signing, subscriptions
from models.webhooks.names import DELIVERY_STATUSES, EVENT_NAMES, EventName

DeliveryId = Annotated[int, PathParameter(description="Webhook delivery id")]
# `?failed=24h`: deliveries with a failed attempt in the last 24 hours (the overview's figure).
FAILED_WITHIN = {"24h": deliveries.RECENT_FAILURES}


def pretty(body: str) -> str:
    """The event's exact JSON, indented for reading (as stored when it is not JSON)."""
    try:
        return json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    except ValueError:
        return body


class DeliveryController(Controller):
    path = "/deliveries"

    @get("/")
    async def list_deliveries(self, request: Request[Any, Any, Any]) -> Template:
        workspace_id = request.user.workspace_id
        query = request.query_params
        status = query.get("status") if query.get("status") in DELIVERY_STATUSES else None
        names = (*EVENT_NAMES, EventName.WEBHOOK_TEST)
        event = query.get("event") if query.get("event") in names else None
        failed = query.get("failed") if query.get("failed") in FAILED_WITHIN else None
        page_number = max(1, min(whole_number(query.get("page", "1")) or 1, 100_000))
        subscription = None
        if query.get("subscription"):
            subscription_id = whole_number(query.get("subscription", "")) or 0
            subscription = await subscriptions.get(subscription_id, workspace_id)
        rows, more = await deliveries.page(
            workspace_id, subscription_id=subscription["id"] if subscription else None,
            status=status, event=event, page_number=page_number,
            failed_since=clock.now() - FAILED_WITHIN[failed] if failed else None,
        )  # fmt: skip
        filters = {
            "subscription": subscription["id"] if subscription else "",
            "status": status or "",
            "event": event or "",
            "failed": failed or "",
        }
        template = "_deliveries.html" if "HX-Request" in request.headers else "deliveries.html"
        return page(
            request, template, here="deliveries", title="Deliveries", deliveries=rows,
            more=more, page_number=page_number, subscription=subscription, filters=filters,
            statuses=DELIVERY_STATUSES, event_names=names,
        )  # fmt: skip

    @get("/{delivery_id:int}")
    async def show_delivery(
        self, request: Request[Any, Any, Any], delivery_id: DeliveryId
    ) -> Template:
        found = await deliveries.detail(delivery_id, request.user.workspace_id)
        d = found.delivery
        # What the next attempt carries, signed now (webhook-timestamp is each attempt's own).
        sent = signing.headers(
            event=d.event, secret=found.secret, body=found.body.encode("utf-8"),
            webhook_id=d.webhook_id, workspace_id=d.workspace, attempt=max(1, d.attempts),
            timestamp=int(time.time()),
            previous_secret=found.previous_secret,
        )  # fmt: skip
        attempts = [
            {**msgspec.structs.asdict(attempt), "headers": list(attempt.response_headers.items())}
            for attempt in found.attempts
        ]
        shown = await flash.take(request)
        return page(
            request, "delivery.html", here="deliveries", title=f"Delivery {delivery_id}",
            d=d, body=pretty(found.body), sent=sent, attempts=attempts,
            notice=shown.notice or None,
        )  # fmt: skip

    @post("/{delivery_id:int}/redeliver", guards=[owner_only], status_code=303)
    async def redeliver(
        self, request: Request[Any, Any, Any], delivery_id: DeliveryId
    ) -> Redirect | Template:
        try:
            await deliveries.redeliver(delivery_id, request.user.workspace_id)
        except ConflictError as refused:
            return page(
                request, "error.html", status_code=409, title="Not queued", message=refused.message
            )
        return await flash.redirect(
            request, f"{PREFIX}/deliveries/{delivery_id}", "The delivery was queued again."
        )
