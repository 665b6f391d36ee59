"""Strict validation of the POST bodies: every rule, every message, all errors at once, dot
paths for nested fields, JSON types taken literally, and nothing written on a 422."""

from __future__ import annotations

import json
from typing import Any

import pytest

from models.tables import IdempotencyKey, Order
from tests.api.order_helpers import advance, create, line, order_body, shop

REQUIRED = "The {} field is required."
INTEGER = "The {} field must be an integer."
STRING = "The {} field must be a string."
ONE_LINE = "The {} field must be one line of text, without control characters."
MULTI_LINE = (
    "The {} field must be text, without control characters other than tabs and line breaks."
)


def _body_with(path: str, value: Any) -> dict[str, Any]:
    """A valid create body (customer id filled in later) with one field set or removed."""
    body: dict[str, Any] = {"customer_id": "CUSTOMER", "lines": [line()]}
    target: Any = body
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if value is _REMOVE:
        del target[int(last) if last.isdigit() else last]
    else:
        target[int(last) if last.isdigit() else last] = value
    return body


_REMOVE = object()

CASES = [
    # customer_id
    ("customer_id", _REMOVE, [REQUIRED.format("customer_id")]),
    ("customer_id", None, [REQUIRED.format("customer_id")]),
    ("customer_id", "5", [INTEGER.format("customer_id")]),
    ("customer_id", 5.0, [INTEGER.format("customer_id")]),
    ("customer_id", True, [INTEGER.format("customer_id")]),
    ("customer_id", [5], [INTEGER.format("customer_id")]),
    ("customer_id", 0, ["The customer_id field must be at least 1."]),
    ("customer_id", -3, ["The customer_id field must be at least 1."]),
    ("customer_id", 2**31, ["The selected customer_id is invalid."]),
    ("customer_id", 2**70, ["The selected customer_id is invalid."]),
    # lines
    ("lines", _REMOVE, [REQUIRED.format("lines")]),
    ("lines", None, [REQUIRED.format("lines")]),
    ("lines", {"0": line()}, ["The lines field must be an array."]),
    ("lines", "lines", ["The lines field must be an array."]),
    ("lines", [], ["The lines field must have at least 1 line."]),
    ("lines", [line()] * 501, ["The lines field must not have more than 500 lines."]),
    ("lines.0", "Front print", ["The lines.0 field must be an object."]),
    ("lines.0", None, ["The lines.0 field must be an object."]),
    # lines[].description
    ("lines.0.description", _REMOVE, [REQUIRED.format("lines.0.description")]),
    ("lines.0.description", 12, [STRING.format("lines.0.description")]),
    ("lines.0.description", "   ", ["The lines.0.description field must not be blank."]),
    (
        "lines.0.description",
        "x" * 256,
        ["The lines.0.description field must not be greater than 255 characters."],
    ),
    # every C0 control but tab is refused in one-line text, NUL included
    *[
        ("lines.0.description", value, [ONE_LINE.format("lines.0.description")])
        for value in ("a\x00b", "a\x01b", "a\nb", "a\rb", "a\x1bb", "a\x1fb", "x\x7f\x00")
    ],
    # lines[].quantity
    ("lines.0.quantity", _REMOVE, [REQUIRED.format("lines.0.quantity")]),
    ("lines.0.quantity", "10", [INTEGER.format("lines.0.quantity")]),
    ("lines.0.quantity", 1.5, [INTEGER.format("lines.0.quantity")]),
    ("lines.0.quantity", 10.0, [INTEGER.format("lines.0.quantity")]),
    ("lines.0.quantity", 0, ["The lines.0.quantity field must be at least 1."]),
    (
        "lines.0.quantity",
        10_001,
        ["The lines.0.quantity field must not be greater than 10000."],
    ),
    (
        "lines.0.quantity",
        2**70,
        ["The lines.0.quantity field must not be greater than 10000."],
    ),
    # lines[].unit_price_cents
    ("lines.0.unit_price_cents", _REMOVE, [REQUIRED.format("lines.0.unit_price_cents")]),
    ("lines.0.unit_price_cents", "1250", [INTEGER.format("lines.0.unit_price_cents")]),
    (
        "lines.0.unit_price_cents",
        -1,
        ["The lines.0.unit_price_cents field must be at least 0."],
    ),
    (
        "lines.0.unit_price_cents",
        100_000_001,
        ["The lines.0.unit_price_cents field must not be greater than 100000000."],
    ),
    # lines[].sku (extension)
    ("lines.0.sku", 7, [STRING.format("lines.0.sku")]),
    ("lines.0.sku", "", ["The lines.0.sku field must not be blank."]),
    ("lines.0.sku", "S" * 65, ["The lines.0.sku field must not be greater than 64 characters."]),
    ("lines.0.sku", "TEE\x00", [ONE_LINE.format("lines.0.sku")]),
    ("lines.0.sku", "TEE\x0b", [ONE_LINE.format("lines.0.sku")]),
    # due_by
    *[
        ("due_by", value, ["The due_by field must be a valid date in the format YYYY-MM-DD."])
        for value in (
            "2026-7-1",
            "2026-02-30",
            "2026-07-01T00:00:00",
            "01/07/2026",
            "",
            20260701,
            "２０２６-07-01",  # noqa: RUF001 - full-width digits are not ASCII digits
        )
    ],
    (
        "due_by",
        "1899-12-31",
        ["The due_by field must be a date between 1900-01-01 and 9999-12-30."],
    ),
    (
        "due_by",
        "9999-12-31",
        ["The due_by field must be a date between 1900-01-01 and 9999-12-30."],
    ),
    # notes
    ("notes", 5, [STRING.format("notes")]),
    ("notes", "n" * 2001, ["The notes field must not be greater than 2000 characters."]),
    *[
        ("notes", value, [MULTI_LINE.format("notes")])
        for value in ("a\x00b", "line\x0bbreak", "form\x0cfeed", "esc\x1b[0m", "a\x08")
    ],
    # external_ref (extension)
    ("external_ref", 1001, [STRING.format("external_ref")]),
    ("external_ref", "", ["The external_ref field must not be blank."]),
    (
        "external_ref",
        "r" * 101,
        ["The external_ref field must not be greater than 100 characters."],
    ),
    ("external_ref", "SHOP\x001", [ONE_LINE.format("external_ref")]),
    ("external_ref", "SHOP\n1", [ONE_LINE.format("external_ref")]),
]


@pytest.mark.parametrize(("path", "value", "messages"), CASES)
async def test_each_create_rule(client, path, value, messages):
    s = await shop()
    body = _body_with(path, value)
    if body.get("customer_id") == "CUSTOMER":
        body["customer_id"] = s.customer.id
    response = await create(client, s.auth, body)
    assert response.status_code == 422, response.text
    key = path if path != "lines.0" else "lines.0"
    assert response.json() == {
        "message": messages[0],
        "code": "validation_failed",
        "errors": {key: messages},
        "details": {},
    }
    assert await Order.count() == 0


async def test_every_error_is_reported_with_a_count_in_the_message(client):
    s = await shop()
    body = {
        "customer_id": "7",
        "lines": [
            {"description": "", "quantity": 0, "unit_price_cents": -5},
            line(),
            {"quantity": "2"},
        ],
        "due_by": "tomorrow",
        "notes": ["x"],
    }
    response = await create(client, s.auth, body)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert list(errors) == [
        "customer_id",
        "lines.0.description",
        "lines.0.quantity",
        "lines.0.unit_price_cents",
        "lines.2.description",
        "lines.2.quantity",
        "lines.2.unit_price_cents",
        "due_by",
        "notes",
    ]
    assert (
        response.json()["message"]
        == "The customer_id field must be an integer. (and 8 more errors)"
    )


async def test_rules_beyond_types_are_reported_with_the_others(client):
    s = await shop()
    body = {
        "customer_id": 0,
        "lines": [line(quantity=10_001)],
        "due_by": "1899-12-31",
        "external_ref": " ",
    }
    response = await create(client, s.auth, body)
    assert response.json()["errors"] == {
        "customer_id": ["The customer_id field must be at least 1."],
        "lines.0.quantity": ["The lines.0.quantity field must not be greater than 10000."],
        "due_by": ["The due_by field must be a date between 1900-01-01 and 9999-12-30."],
        "external_ref": ["The external_ref field must not be blank."],
    }
    assert response.json()["message"] == (
        "The customer_id field must be at least 1. (and 3 more errors)"
    )


async def test_numbers_too_large_for_a_float_are_numbers_not_integers(client):
    s = await shop()
    raw = (
        b'{"customer_id": 1e400, "lines": [{"description": "Tee", "quantity": -1e400,'
        b' "unit_price_cents": 12.5}]}'
    )
    response = await client.post(
        "/api/v1/orders", content=raw, headers={**s.auth, "Content-Type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert response.json()["errors"] == {
        "customer_id": [INTEGER.format("customer_id")],
        "lines.0.quantity": [INTEGER.format("lines.0.quantity")],
        "lines.0.unit_price_cents": [INTEGER.format("lines.0.unit_price_cents")],
    }


async def test_a_long_description_with_nul_reports_both_problems(client):
    s = await shop()
    body = order_body(s.customer.id, lines=[line(description="\x00" + "x" * 255)])
    response = await create(client, s.auth, body)
    assert response.json()["errors"] == {
        "lines.0.description": [
            "The lines.0.description field must not be greater than 255 characters.",
            ONE_LINE.format("lines.0.description"),
        ]
    }
    assert response.json()["message"].endswith("(and 1 more error)")


async def test_a_blank_description_of_controls_is_refused_for_its_first_problem_only(client):
    s = await shop()
    response = await create(
        client, s.auth, order_body(s.customer.id, lines=[line(description="\n")])
    )
    assert response.status_code == 422, response.text
    assert response.json()["errors"] == {
        "lines.0.description": [ONE_LINE.format("lines.0.description")]
    }
    assert await Order.count() == 0


async def test_tabs_are_text_and_notes_keep_line_breaks(client):
    """Tab is allowed everywhere; notes are multi-line, their CR LF kept as LF."""
    s = await shop()
    body = order_body(
        s.customer.id,
        lines=[line(description="Front\tprint", sku=None)],
        external_ref="SHOP\t7",
        notes="Pack in twos.\r\nRush:\tyes\rCall first.\n",
    )
    response = await create(client, s.auth, body)
    assert response.status_code == 201, response.text
    assert response.json()["lines"][0]["description"] == "Front\tprint"
    row = await Order.select(Order.notes, Order.external_ref).first()
    assert row == {"notes": "Pack in twos.\nRush:\tyes\nCall first.\n", "external_ref": "SHOP\t7"}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"customer_id": 1, "lines": [', "The request body is not valid JSON."),
        (b"{'customer_id': 1}", "The request body is not valid JSON."),
        (b'{"a": "\xff"}', "The request body is not valid JSON."),
        (b'{"a": "\\ud800"}', "The request body is not valid JSON."),
        (b"[]", "The request body must be a JSON object."),
        (b'"order"', "The request body must be a JSON object."),
        (b"42", "The request body must be a JSON object."),
        (b"null", "The request body must be a JSON object."),
        (b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}", "The request body is not valid JSON."),
    ],
)
async def test_malformed_json_is_a_body_error(client, raw, message):
    s = await shop()
    response = await client.post(
        "/api/v1/orders",
        content=raw,
        headers={**s.auth, "Content-Type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert response.json() == {
        "message": message,
        "code": "validation_failed",
        "errors": {"body": [message]},
        "details": {},
    }


async def test_the_body_is_json_whatever_the_content_type_says(client):
    s = await shop()
    raw = json.dumps(
        {
            "customer_id": s.customer.id,
            "lines": [{"description": "Tee", "quantity": 1, "unit_price_cents": 100}],
        }
    ).encode()
    for content_type in (None, "text/plain"):
        headers = {**s.auth, **({"Content-Type": content_type} if content_type else {})}
        response = await client.post("/api/v1/orders", content=raw, headers=headers)
        assert response.status_code == 201, response.text


async def test_an_empty_body_reports_the_required_fields(client):
    s = await shop()
    response = await client.post("/api/v1/orders", headers=s.auth)
    assert response.status_code == 422
    assert response.json()["errors"] == {
        "customer_id": [REQUIRED.format("customer_id")],
        "lines": [REQUIRED.format("lines")],
    }


async def test_boundaries_are_accepted(client):
    s = await shop()
    body = {
        "customer_id": s.customer.id,
        "lines": [
            {"description": "d" * 255, "quantity": 1, "unit_price_cents": 0, "sku": None},
            {"description": "Max", "quantity": 10_000, "unit_price_cents": 100_000_000},
        ],
        "due_by": None,
        "notes": None,
        "external_ref": "r" * 100,
    }
    response = await create(client, s.auth, body)
    assert response.status_code == 201, response.text
    assert response.json()["stage"] == "artwork"
    assert response.json()["totals"]["subtotal_cents"] == 10_000 * 100_000_000
    assert response.json()["due_by"] is None


async def test_unknown_and_read_only_fields_are_refused_naming_each(client):
    s = await shop()
    body = {
        **order_body(s.customer.id),
        "priority": "high",
        "stage": "dispatched",
        "totals": {"total_cents": 1},
    }
    body["lines"] = [{**body["lines"][0], "colour": "red"}]
    response = await create(client, s.auth, body)
    assert response.status_code == 422, response.text
    assert response.json()["errors"] == {
        "lines.0.colour": ["colour is not a field of an order line."],
        "priority": ["priority is not a field of an order."],
        "stage": ["stage is not a field of an order."],
        "totals": ["totals is not a field of an order."],
    }
    assert response.json()["code"] == "validation_failed"
    assert await Order.count() == 0


@pytest.mark.parametrize("day", ["1900-01-01", "9999-12-30", "2028-02-29"])
async def test_due_by_edges_round_trip(client, day):
    s = await shop(timezone="Pacific/Kiritimati")  # UTC+14, the largest offset there is
    response = await create(client, s.auth, order_body(s.customer.id, due_by=day))
    assert response.status_code == 201, response.text
    assert response.json()["due_by"].startswith(f"{day}T00:00:00")


async def test_a_body_over_one_mebibyte_is_413(client):
    s = await shop()
    body = order_body(s.customer.id, notes="n" * (1024 * 1024))
    response = await create(client, s.auth, body)
    assert response.status_code == 413


# --- advance --------------------------------------------------------------------------------

STAGE_CHOICES = "artwork, print_queue, in_production, qc_pack, dispatched"
INVALID_STAGE = f"The selected to_stage is invalid; use one of: {STAGE_CHOICES}."
OPERATOR_ONLY = "Orders are cancelled by an operator, not through the API."


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"to_stage": [REQUIRED.format("to_stage")]}),
        ({"to_stage": None}, {"to_stage": [REQUIRED.format("to_stage")]}),
        ({"to_stage": "cancelled"}, {"to_stage": [OPERATOR_ONLY]}),
        ({"to_stage": "shipped"}, {"to_stage": [INVALID_STAGE]}),
        ({"to_stage": "Dispatched"}, {"to_stage": [INVALID_STAGE]}),
        ({"to_stage": 2}, {"to_stage": [INVALID_STAGE]}),
        ({"to_stage": ["qc_pack"]}, {"to_stage": [INVALID_STAGE]}),
        (
            {"to_stage": "qc_pack", "carrier": "DHL"},
            {"carrier": ["The carrier field is only accepted when to_stage is dispatched."]},
        ),
        (
            {"to_stage": "print_queue", "tracking_number": "1Z"},
            {
                "tracking_number": [
                    "The tracking_number field is only accepted when to_stage is dispatched."
                ]
            },
        ),
        ({"to_stage": "dispatched", "carrier": 5}, {"carrier": [STRING.format("carrier")]}),
        (
            {"to_stage": "dispatched", "carrier": "c" * 101},
            {"carrier": ["The carrier field must not be greater than 100 characters."]},
        ),
        (
            {"to_stage": "dispatched", "tracking_number": "t" * 101},
            {
                "tracking_number": [
                    "The tracking_number field must not be greater than 100 characters."
                ]
            },
        ),
        (
            {"to_stage": "dispatched", "carrier": "DHL\x00", "tracking_number": "1Z\n2"},
            {
                "carrier": [ONE_LINE.format("carrier")],
                "tracking_number": [ONE_LINE.format("tracking_number")],
            },
        ),
        (
            {"to_stage": "cancelled", "carrier": ["DHL"]},
            {"to_stage": [OPERATOR_ONLY], "carrier": [STRING.format("carrier")]},
        ),
    ],
)
async def test_each_advance_rule(client, body, errors):
    s = await shop()
    response = await create(client, s.auth, order_body(s.customer.id))
    order_id = response.json()["id"]
    answer = await client.post(f"/api/v1/orders/{order_id}/advance", json=body, headers=s.auth)
    assert answer.status_code == 422, answer.text
    assert answer.json()["errors"] == errors
    detail = await client.get(f"/api/v1/orders/{order_id}", headers=s.auth)
    assert detail.json()["stage"] == "artwork"
    assert len(detail.json()["stage_history"]) == 1


async def test_advance_field_errors_come_before_the_dispatch_only_rule(client):
    s = await shop()
    order_id = (await create(client, s.auth, order_body(s.customer.id))).json()["id"]
    answer = await client.post(
        f"/api/v1/orders/{order_id}/advance",
        json={"to_stage": "qc_pack", "carrier": "DHL", "tracking_number": 7},
        headers=s.auth,
    )
    # The carrier rule is between fields: checked once every field is valid on its own.
    assert answer.json()["errors"] == {"tracking_number": [STRING.format("tracking_number")]}


async def test_advance_with_malformed_json_is_a_body_error(client):
    s = await shop()
    order_id = (await create(client, s.auth, order_body(s.customer.id))).json()["id"]
    response = await client.post(
        f"/api/v1/orders/{order_id}/advance",
        content=b"to_stage=qc_pack",
        headers={**s.auth, "Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["body"]


async def test_advance_refuses_unknown_fields_naming_each(client):
    s = await shop()
    order_id = (await create(client, s.auth, order_body(s.customer.id))).json()["id"]
    response = await advance(client, s.auth, order_id, "print_queue", substage="x", force=True)
    assert response.status_code == 422, response.text
    assert response.json() == {
        "message": "substage is not a field of a stage move. (and 1 more error)",
        "code": "validation_failed",
        "errors": {
            "substage": ["substage is not a field of a stage move."],
            "force": ["force is not a field of a stage move."],
        },
        "details": {},
    }
    assert (await Order.select(Order.stage).where(Order.id == order_id).first())["stage"] == (
        "artwork"
    )


# --- the Idempotency-Key header --------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("k" * 256, "The Idempotency-Key header must not be greater than 255 characters."),
        ("   ", "The Idempotency-Key header must not be blank."),
        ("a\tb", "The Idempotency-Key header must not contain control characters."),
    ],
)
async def test_a_bad_idempotency_key_is_reported_with_the_body_errors(client, key, message):
    s = await shop()
    body = order_body(s.customer.id, notes=7)
    response = await create(client, s.auth, body, **{"Idempotency-Key": key})
    assert response.status_code == 422
    assert response.json()["errors"] == {
        "notes": [STRING.format("notes")],
        "Idempotency-Key": [message],
    }
    assert await IdempotencyKey.count() == 0
    alone = await create(client, s.auth, order_body(s.customer.id), **{"Idempotency-Key": key})
    assert alone.json()["errors"] == {"Idempotency-Key": [message]}
    assert await Order.count() == 0
