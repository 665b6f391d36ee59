"""Deliveries: the workspace's (or one subscription's), newest first, and each one's attempts."""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin.forms import whole_number
from api.admin.pages import page, see_other
from api.admin.security import PREFIX, owner_only
from models import subscriptions
from models.errors import ConflictError
from models.outbox import EVENT_NAMES
from models.queries import admin as queries
from models.tables import WebhookDelivery, WebhookSubscription
from models.webhooks import signing

DeliveryId = Annotated[int, PathParameter(description="Webhook delivery id")]


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
        status = query.get("status") if query.get("status") in queries.DELIVERY_STATUSES else None
        event = query.get("event") if query.get("event") in EVENT_NAMES else None
        page_number = max(1, min(whole_number(query.get("page", "1")) or 1, 100_000))
        subscription = None
        subscription_id = whole_number(query.get("subscription", ""))
        if query.get("subscription"):
            if subscription_id is None:
                await queries.ensure_in_workspace(WebhookSubscription, 0, workspace_id)
            subscription = await queries.subscription(workspace_id, subscription_id or 0)
        rows, more = await queries.deliveries(
            workspace_id, subscription_id=subscription["id"] if subscription else None,
            status=status,
            event=event, page=page_number,
        )  # fmt: skip
        filters = {
            "subscription": subscription["id"] if subscription else "",
            "status": status or "",
            "event": event or "",
        }
        template = "_deliveries.html" if "HX-Request" in request.headers else "deliveries.html"
        return page(
            request, template, here="deliveries", title="Deliveries", deliveries=rows,
            more=more, page_number=page_number, subscription=subscription, filters=filters,
            statuses=queries.DELIVERY_STATUSES, event_names=EVENT_NAMES,
        )  # fmt: skip

    @get("/{delivery_id:int}")
    async def show_delivery(
        self, request: Request[Any, Any, Any], delivery_id: DeliveryId
    ) -> Template:
        row = await queries.delivery(request.user.workspace_id, delivery_id)
        body = row["body"].encode("utf-8")
        sent = signing.headers(
            event=row["event"], secret=row["secret"], body=body, delivery_id=row["id"],
            attempt=max(1, row["attempts"]), timestamp=int(time.time()),
        )  # fmt: skip
        attempts = [
            {**msgspec.structs.asdict(attempt), "headers": list(attempt.response_headers.items())}
            for attempt in row["attempt_rows"]
        ]
        return page(
            request, "delivery.html", here="deliveries", title=f"Delivery {delivery_id}",
            d=row, body=pretty(row["body"]), sent=sent, attempts=attempts,
            notice="The delivery was queued again." if request.query_params.get("done") else None,
        )  # fmt: skip

    @post("/{delivery_id:int}/redeliver", guards=[owner_only], status_code=303)
    async def redeliver(
        self, request: Request[Any, Any, Any], delivery_id: DeliveryId
    ) -> Redirect | Template:
        await queries.ensure_in_workspace(WebhookDelivery, delivery_id, request.user.workspace_id)
        try:
            await subscriptions.redeliver(delivery_id)
        except ConflictError as busy:
            return page(
                request, "error.html", status_code=409, title="Being sent", message=busy.message
            )
        return see_other(f"{PREFIX}/deliveries/{delivery_id}?done=redelivered")
