"""The OpenAPI document's `webhooks` section and the events feed's `data`, both built from the
webhook body Structs (api/schemas/events.py), with example bodies made by the code that
writes the real ones (models/webhooks/events.py)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import msgspec
from litestar import Litestar
from litestar._openapi.datastructures import SchemaRegistry  # pinned litestar: see pyproject
from litestar._openapi.schema_generation import SchemaCreator
from litestar.enums import ParamType
from litestar.openapi.spec import (
    Discriminator,
    Example,
    OpenAPI,
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Parameter,
    PathItem,
    Reference,
    RequestBody,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType
from litestar.typing import FieldDefinition

from api.openapi import camel_case
from api.schemas.events import WEBHOOK_BODIES
from models import delivery_ids
from models.webhooks import events as outbox
from models.webhooks.names import EventName
from models.webhooks.signing import REPLAY_WINDOW_SECONDS, USER_AGENT

REF = "#/components/schemas/{}"
OCCURRED = dt.datetime(2026, 5, 4, 9, 12, 44, tzinfo=dt.UTC)
DUE = dt.datetime(2026, 5, 8, 23, 0, tzinfo=dt.UTC)
CUSTOMER = {"id": 17, "name": "Acme Tees", "slug": "acme-tees"}
WORKSPACE_ID = 3
EXAMPLE_IDS = {
    "order.stage_changed": "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b",
    "order.dispatched": "6f2d9c1e-8a4b-4e0f-9d3a-2c7b5e1f0a98",
    "invoice.issued": "0c8e7d6f-5b4a-4392-8170-6f5e4d3c2b1a",
    "invoice.paid": "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f",
    "artwork.approved": "4a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d",
    "webhook.test": "7d6c5b4a-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
    "order.created": "2e5a7c9b-1d3f-4a6e-8b0c-9d2e4f6a8c1b",
    "order.updated": "3f6b8d0c-2e4a-4b7f-9c1d-0e3f5a7b9d2c",
    "order.cancelled": "4a7c9e1d-3f5b-4c8a-8d2e-1f4a6b8c0e3d",
    "customer.created": "5b8d0f2e-4a6c-4d9b-9e3f-2a5b7c9d1f4e",
    "customer.updated": "6c9e1a3f-5b7d-4e0c-8f4a-3b6c8d0e2a5f",
    "invoice.payment_received": "7d0f2b4a-6c8e-4f1d-9a5b-4c7d9e1f3b6a",
    "payment.voided": "8e1a3c5b-7d9f-4a2e-8b6c-5d8e0a2f4c7b",
    "artwork.proof_sent": "9f2b4d6c-8e0a-4b3f-9c7d-6e9f1b3d5a8c",
    "artwork.changes_requested": "0a3c5e7d-9f1b-4c4a-8d8e-7f0a2c4e6b9d",
}
SENT_WHEN = {
    "order.stage_changed": "An order moved to any stage other than `dispatched` (API or operator).",
    "order.dispatched": "An order was dispatched.",
    "invoice.issued": "An invoice was issued, when its order was dispatched or by an operator.",
    "invoice.paid": "An operator marked an invoice paid.",
    "artwork.approved": "The customer approved the order's current artwork proof.",
    "artwork.proof_sent": "A new artwork proof was sent (the admin's upload, the API or the "
    "command line): the artwork awaits the customer's approval of `artwork_version`.",
    "artwork.changes_requested": "The customer asked for changes to the current proof on its "
    "page; `comment` is what they asked for. A new proof is needed.",
    "order.created": "An order was created, by the API, the admin or the command line.",
    "order.updated": "An order was edited (due date, notes, external_ref, lines or items); "
    "`changed` names what the edit was given.",
    "order.cancelled": "An order was cancelled by an operator or an owner.",
    "customer.created": "A customer was created, by the API, the admin or the command line.",
    "customer.updated": "A customer's details changed.",
    "invoice.payment_received": "A payment was recorded against an invoice; `balance_cents` "
    "is what is left to pay (0: the invoice is paid, and `invoice.paid` follows).",
    "payment.voided": "An owner voided a payment (a bounced cheque, a refund, the wrong "
    "invoice): it no longer counts, its amount is back in `balance_cents`, and a paid invoice is "
    "`issued` again (`invoice_status`).",
    "webhook.test": "An owner sent a test event to this one subscription (the admin's button or "
    "`pressline webhook test`), whatever its event list; its result does not change the "
    "failure count.",
}
TEST_EVENT = str(EventName.WEBHOOK_TEST)
TEST_COMPONENT = "WebhookTest"


def _fields(name: str) -> dict[str, Any]:
    if name == TEST_EVENT:
        return {"subscription_id": 12}
    if name in {"order.created", "order.updated", "order.cancelled"}:
        return outbox.order_change_fields(
            order_id=1042,
            order_number="ORD-2026-0042",
            stage="cancelled" if name == "order.cancelled" else "artwork",
            revision=2 if name == "order.updated" else 1,
            customer=CUSTOMER,
            external_ref="shop-1042",
            total_cents=14400,
            currency="GBP",
            changed=["due_by", "items"] if name == "order.updated" else None,
        )
    if name.startswith("customer."):
        return outbox.customer_fields(
            customer_id=17, name="Acme Tees", slug="acme-tees", external_ref="shop-cust-77"
        )
    if name == "invoice.payment_received":
        return outbox.payment_fields(
            invoice_id=31,
            invoice_number="INV-2026-0031",
            order_id=1042,
            order_number="ORD-2026-0042",
            customer_id=17,
            payment_id=9,
            amount_cents=5000,
            method="bank_transfer",
            reference="BACS 2211",
            paid_cents=5000,
            balance_cents=9400,
            currency="GBP",
        )
    if name == "payment.voided":
        return outbox.voided_fields(
            invoice_id=31,
            invoice_number="INV-2026-0031",
            invoice_status="issued",
            order_id=1042,
            order_number="ORD-2026-0042",
            customer_id=17,
            payment_id=9,
            amount_cents=5000,
            method="cheque",
            reference="Cheque 000417",
            reason="Cheque returned unpaid by the bank",
            paid_cents=0,
            balance_cents=14400,
            currency="GBP",
        )
    if name.startswith("order."):
        dispatched = name == "order.dispatched"
        return outbox.order_fields(
            order_id=1042,
            order_number="ORD-2026-0042",
            from_stage="qc_pack" if dispatched else "print_queue",
            to_stage="dispatched" if dispatched else "in_production",
            customer=CUSTOMER,
            due_by=DUE,
            timezone="Europe/London",
            dispatch=("Royal Mail", "RM123456785GB") if dispatched else None,
        )
    if name.startswith("invoice."):
        return outbox.invoice_fields(
            order_id=1042,
            order_number="ORD-2026-0042",
            invoice_id=31,
            invoice_number="INV-2026-0031",
            invoice_status=name.removeprefix("invoice."),
            total=14400,
            currency="GBP",
        )
    comment = (
        "Please make the logo 20% smaller and use Hop Gold for the text."
        if name == "artwork.changes_requested"
        else None
    )
    return outbox.artwork_fields(
        order_id=1042, order_number="ORD-2026-0042", artwork_version=2, comment=comment
    )


def example_body(name: str) -> dict[str, Any]:
    """The body the outbox would write for this event (as an object)."""
    text = outbox.encode_body(
        name, EXAMPLE_IDS[name], OCCURRED, _fields(name), workspace_id=WORKSPACE_ID
    )
    body: dict[str, Any] = msgspec.json.decode(text)
    return body


def _body_components(app: Litestar, schema: OpenAPI) -> dict[str, Reference]:
    """Component schemas of the bodies (and what they embed), added to the document;
    returns each event's reference."""
    registry = SchemaRegistry()
    creator = SchemaCreator(plugins=app.plugins.openapi, schema_registry=registry)
    refs = {
        name: creator.for_field_definition(FieldDefinition.from_annotation(body))
        for name, body in WEBHOOK_BODIES.items()
    }
    generated = registry.generate_components_schemas()  # also settles the refs' paths
    existing = schema.components.schemas
    for key, body_schema in generated.items():
        existing.setdefault(key, body_schema)
        if key in {body.__name__ for body in WEBHOOK_BODIES.values()}:
            body_schema.description = WEBHOOK_BODIES_DOC[key]
    schema.components.schemas = dict(sorted(existing.items()))
    return {name: ref for name, ref in refs.items() if isinstance(ref, Reference)}


WEBHOOK_BODIES_DOC = {
    body.__name__: SENT_WHEN[name] + " Keys come in the order listed; the bytes are fixed "
    "when the event is recorded, so every attempt sends the same bytes."
    for name, body in WEBHOOK_BODIES.items()
}


def _header(name: str, description: str, *, required: bool = True, **schema: Any) -> Parameter:
    return Parameter(
        name=name,
        param_in=ParamType.HEADER,
        required=required,
        description=description,
        schema=Schema(type=OpenAPIType.STRING, **schema),
    )


def _operation(name: str, ref: Reference) -> Operation:
    return Operation(
        tags=["Webhooks"],
        summary=SENT_WHEN[name].split(" (")[0].rstrip("."),
        description="Verify `webhook-signature` (Standard Webhooks: it covers the delivery id, "
        "the timestamp and the raw body) or `X-SVC-Signature` (the raw body) before parsing "
        f"it, and refuse a `webhook-timestamp` more than {REPLAY_WINDOW_SECONDS // 60} minutes "
        "old; de-duplicate on `event_id` (delivery is at least once, in no guaranteed order). "
        "The same event is readable later with `GET /api/v1/events/{event_id}`. An owner can "
        "also send a `webhook.test` event (`event`, `event_id`, `occurred_at`, "
        "`workspace_id`, `subscription_id`) to one subscription, whatever its event list.",
        operation_id=camel_case(re.split(r"[._]", name)),
        parameters=[
            _header("X-SVC-Event", "The event name", const=name),
            _header(
                "X-SVC-Signature",
                "`sha256=` and the lowercase hex HMAC-SHA256 of the raw body, keyed with the "
                "subscription's signing secret",
                pattern="^sha256=[0-9a-f]{64}$",
            ),
            _header(
                "X-SVC-Delivery",
                "Extension: the delivery id (as `webhook-id`), the same on every retry and "
                "replay of this event to this subscription",
                pattern=delivery_ids.PATTERN,
            ),
            _header(
                "X-SVC-Workspace",
                "Extension: the id of the workspace (print shop) the event belongs to, as the "
                "body's `workspace_id`",
                pattern="^[1-9][0-9]*$",
            ),
            _header(
                "X-SVC-Attempt",
                "Extension: the attempt number, 1 to 5",
                pattern="^[1-9][0-9]*$",
            ),
            _header("User-Agent", "Always this value", const=USER_AGENT),
            _header(
                "webhook-id",
                "Standard Webhooks: the delivery id, `dlv_` and 26 random lowercase base32 "
                "characters (treat it as an opaque string of at most 64 characters); unique "
                "across every workspace, the same on every retry and replay of this delivery "
                "(as `X-SVC-Delivery`)",
                pattern=delivery_ids.PATTERN,
                max_length=delivery_ids.MAX_LENGTH,
            ),
            _header(
                "webhook-timestamp",
                "Standard Webhooks: Unix seconds when this attempt was made",
                pattern="^[0-9]+$",
            ),
            _header(
                "webhook-signature",
                "Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of "
                "`{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64 decoding "
                "of the secret after `whsec_`; during a secret rotation's overlap two entries, "
                "space-separated, the new secret's first",
                pattern="^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)?$",
            ),
            _header(
                "X-SVC-Signature-Previous",
                "Only during a secret rotation's overlap: as `X-SVC-Signature`, keyed with the "
                "previous secret",
                required=False,
                pattern="^sha256=[0-9a-f]{64}$",
            ),
        ],
        request_body=RequestBody(
            required=True,
            content={
                "application/json": OpenAPIMediaType(
                    schema=ref,
                    examples={name: Example(summary=name, value=example_body(name))},
                )
            },
        ),
        responses={
            "2XX": OpenAPIResponse(description="Received: the delivery succeeded"),
            "default": OpenAPIResponse(
                description=(
                    "Any other status, a redirect (not followed) or no answer within 10 s is a "
                    "failed attempt, retried after 1 min, 5 min, 15 min and 1 h"
                )
            ),
        },
        security=[],
    )


def document_events(app: Litestar, schema: OpenAPI) -> None:
    """The `webhooks` section, and the feed's `data` as one of the five bodies."""
    refs = _body_components(app, schema)
    schema.webhooks = {name: PathItem(post=_operation(name, ref)) for name, ref in refs.items()}
    schema.components.schemas[TEST_COMPONENT] = _test_body()
    test_ref = Reference(ref=REF.format(TEST_COMPONENT))
    schema.webhooks[TEST_EVENT] = PathItem(post=_operation(TEST_EVENT, test_ref))
    event = schema.components.schemas.get("Event")
    if isinstance(event, Schema) and event.properties is not None:
        event.properties["data"] = Schema(
            one_of=list(refs.values()),
            discriminator=Discriminator(
                property_name="event", mapping={name: ref.ref for name, ref in refs.items()}
            ),
            description=(
                "The webhook body exactly as delivered (the same keys and values; `event` is "
                "the event name)"
            ),
        )
    _feed_examples(schema)


def _test_body() -> Schema:
    """`webhook.test`: sent to one subscription on request, never part of the events feed."""
    return Schema(
        type=OpenAPIType.OBJECT,
        required=["event", "event_id", "occurred_at", "workspace_id", "subscription_id"],
        properties={
            "event": Schema(type=OpenAPIType.STRING, const=TEST_EVENT),
            "event_id": Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.UUID),
            "occurred_at": Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.DATE_TIME),
            "workspace_id": Schema(
                type=OpenAPIType.INTEGER,
                description="The workspace (print shop) the subscription belongs to",
            ),
            "subscription_id": Schema(
                type=OpenAPIType.INTEGER, description="The subscription the test was sent to"
            ),
        },
        description=SENT_WHEN[TEST_EVENT],
    )


def _feed_row(name: str) -> dict[str, Any]:
    body = example_body(name)
    return {
        "id": body["event_id"],
        "type": name,
        "occurred_at": body["occurred_at"],
        "order_id": body["order_id"],
        "data": body,
    }


def _feed_examples(schema: OpenAPI) -> None:
    paths = schema.paths or {}
    rows = [_feed_row(name) for name in ("invoice.issued", "invoice.paid")]
    base = "https://pressline.example/api/v1/events?type=invoice.issued%2Cinvoice.paid&page="
    page = {
        "data": rows,
        "current_page": 1,
        "last_page": 1,
        "per_page": 100,
        "total": 2,
        "links": {"first": base + "1", "last": base + "1", "prev": None, "next": None},
    }
    for path, summary, value in (
        ("/api/v1/events", "A page of events", page),
        ("/api/v1/events/{event_id}", "One event", _feed_row("artwork.approved")),
    ):
        item = paths.get(path)
        operation = item.get if item is not None else None
        response = (operation.responses or {}).get("200") if operation else None
        if isinstance(response, OpenAPIResponse) and response.content:
            media = response.content["application/json"]
            media.examples = {"example": Example(summary=summary, value=value)}
