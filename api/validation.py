"""Strict request-body validation: exact JSON types, every failing field named by dot path.

Litestar's own decoding is lax (`"5"` passes as 5) and stops at the first error, so the POST
handlers run these checks first, from a `before_request` hook, on the raw body bytes. Unknown
fields are ignored. Messages follow docs/api.md §2.2 and §5 (`ValidationFailed` builds `message`).
Litestar still decodes the body into the handler's `data` Struct afterwards (that Struct is
what the OpenAPI schema documents), so whatever passes here must also fit those Structs.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from litestar import Request

from api.errors import ValidationFailed
from api.idempotency import HEADER, key_errors
from api.schemas import orders as s
from models.orders import NewLine
from models.stages import API_TARGET_STAGES

T = TypeVar("T")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MISSING = object()
STATE_KEY = "validated_body"


class Checker:
    """Collects every problem of one body; each check returns the value or None."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def add(self, path: str, message: str) -> None:
        self.errors.setdefault(path, []).append(message)

    def raise_if_any(self) -> None:
        if self.errors:
            raise ValidationFailed(self.errors)

    def _present(self, obj: dict[str, Any], key: str, path: str, required: bool) -> Any:
        value = obj.get(key, _MISSING)
        if value is _MISSING or value is None:
            if required:
                self.add(path, f"The {path} field is required.")
            return _MISSING
        return value

    def integer(
        self,
        obj: dict[str, Any],
        key: str,
        path: str,
        *,
        minimum: int,
        maximum: int | None = None,
        required: bool = True,
    ) -> int | None:
        value = self._present(obj, key, path, required)
        if value is _MISSING:
            return None
        # JSON true/false decode to bool, a subclass of int: not an integer here.
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(path, f"The {path} field must be an integer.")
            return None
        if maximum is not None and not minimum <= value <= maximum:
            self.add(path, f"The {path} field must be between {minimum} and {maximum}.")
            return None
        if value < minimum:
            self.add(path, f"The {path} field must be at least {minimum}.")
            return None
        return value

    def string(
        self,
        obj: dict[str, Any],
        key: str,
        path: str,
        *,
        max_length: int,
        required: bool = False,
        blank: bool = True,
    ) -> str | None:
        value = self._present(obj, key, path, required)
        if value is _MISSING:
            return None
        if not isinstance(value, str):
            self.add(path, f"The {path} field must be a string.")
            return None
        problems = [
            (len(value) > max_length, f"must not be greater than {max_length} characters"),
            ("\x00" in value, "must not contain NUL characters"),
            (not blank and not value.strip(), "must not be blank"),
        ]
        failed = [text for broken, text in problems if broken]
        for text in failed:
            self.add(path, f"The {path} field {text}.")
        return None if failed else value

    def choice(
        self, obj: dict[str, Any], key: str, path: str, *, choices: Collection[str]
    ) -> str | None:
        value = self._present(obj, key, path, True)
        if value is _MISSING:
            return None
        if not isinstance(value, str) or value not in choices:
            self.add(path, f"The selected {path} is invalid; use one of: {', '.join(choices)}.")
            return None
        return value

    def date(
        self, obj: dict[str, Any], key: str, path: str, *, earliest: dt.date, latest: dt.date
    ) -> dt.date | None:
        value = self._present(obj, key, path, False)
        if value is _MISSING:
            return None
        message = f"The {path} field must be a valid date in the format YYYY-MM-DD."
        if not isinstance(value, str) or not _DATE.match(value):
            self.add(path, message)
            return None
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            self.add(path, message)
            return None
        if not earliest <= day <= latest:
            self.add(path, f"The {path} field must be a date between {earliest} and {latest}.")
            return None
        return day

    def array(
        self, obj: dict[str, Any], key: str, path: str, *, min_items: int, max_items: int
    ) -> list[Any] | None:
        value = self._present(obj, key, path, True)
        if value is _MISSING:
            return None
        if not isinstance(value, list):
            self.add(path, f"The {path} field must be an array.")
            return None
        if len(value) < min_items:
            self.add(path, f"The {path} field must have at least {min_items} item(s).")
            return None
        if len(value) > max_items:
            self.add(path, f"The {path} field must not have more than {max_items} items.")
            return None
        return value


def json_object(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object; an empty body counts as `{}` (every field missing)."""
    if not raw.strip():
        return {}
    try:
        value = msgspec.json.decode(raw)
    except (msgspec.DecodeError, ValueError, RecursionError) as exc:  # RecursionError: nesting
        raise ValidationFailed({"body": [f"The request body is not valid JSON ({exc})."]}) from None
    if not isinstance(value, dict):
        raise ValidationFailed({"body": ["The request body must be a JSON object."]})
    return value


def strict_body(validate: Callable[[dict[str, Any]], T]) -> Callable[[Request[Any, Any, Any]], Any]:
    """A `before_request` hook for a POST: validate the raw body and the Idempotency-Key
    header together, and keep the result for the handler (`validated_body`)."""

    async def hook(request: Request[Any, Any, Any]) -> None:
        errors: dict[str, list[str]] = {}
        try:
            request.state[STATE_KEY] = validate(json_object(await request.body()))
        except ValidationFailed as failed:
            errors.update(failed.errors)
        key_problems = key_errors(request.headers.get(HEADER))
        if key_problems:
            errors[HEADER] = key_problems
        if errors:
            raise ValidationFailed(errors)

    return hook


def validated_body(request: Request[Any, Any, Any], kind: type[T]) -> T:
    value = request.state[STATE_KEY]
    if not isinstance(value, kind):
        raise TypeError(f"expected a validated {kind.__name__}")
    return value


# --- the two order bodies ------------------------------------------------------------------


@dataclass(frozen=True)
class OrderInput:
    customer_id: int
    lines: list[NewLine]
    due_by: dt.date | None
    notes: str
    external_ref: str | None


@dataclass(frozen=True)
class AdvanceInput:
    to_stage: str
    carrier: str | None
    tracking_number: str | None


def _order_line(check: Checker, value: Any, path: str) -> NewLine | None:
    if not isinstance(value, dict):
        check.add(path, f"The {path} field must be an object.")
        return None
    description = check.string(
        value,
        "description",
        f"{path}.description",
        max_length=s.MAX_DESCRIPTION,
        required=True,
        blank=False,
    )
    quantity = check.integer(
        value, "quantity", f"{path}.quantity", minimum=1, maximum=s.MAX_QUANTITY
    )
    unit_price = check.integer(
        value,
        "unit_price_cents",
        f"{path}.unit_price_cents",
        minimum=0,
        maximum=s.MAX_UNIT_PRICE_CENTS,
    )
    sku = check.string(value, "sku", f"{path}.sku", max_length=s.MAX_SKU_CODE, blank=False)
    if description is None or quantity is None or unit_price is None:
        return None
    return NewLine(description=description, quantity=quantity, unit_price_cents=unit_price, sku=sku)


def order_create(body: dict[str, Any]) -> OrderInput:
    """`POST /orders` (docs/api.md §4.6)."""
    check = Checker()
    customer_id = check.integer(body, "customer_id", "customer_id", minimum=1)
    if customer_id is not None and customer_id > s.MAX_ID:
        check.add("customer_id", "The selected customer_id is invalid.")
    raw_lines = check.array(body, "lines", "lines", min_items=1, max_items=s.MAX_LINES)
    lines = [_order_line(check, line, f"lines.{i}") for i, line in enumerate(raw_lines or [])]
    due_by = check.date(
        body, "due_by", "due_by", earliest=s.EARLIEST_DUE_BY, latest=s.LATEST_DUE_BY
    )
    notes = check.string(body, "notes", "notes", max_length=s.MAX_NOTES)
    external_ref = check.string(
        body, "external_ref", "external_ref", max_length=s.MAX_EXTERNAL_REF, blank=False
    )
    check.raise_if_any()
    return OrderInput(
        customer_id=customer_id or 0,
        lines=[line for line in lines if line is not None],
        due_by=due_by,
        notes=notes or "",
        external_ref=external_ref,
    )


def advance(body: dict[str, Any]) -> AdvanceInput:
    """`POST /orders/{id}/advance` (docs/api.md §4.7); carrier details only on dispatch."""
    check = Checker()
    to_stage = check.choice(body, "to_stage", "to_stage", choices=API_TARGET_STAGES)
    extras = {
        "carrier": check.string(body, "carrier", "carrier", max_length=s.MAX_CARRIER),
        "tracking_number": check.string(
            body, "tracking_number", "tracking_number", max_length=s.MAX_TRACKING_NUMBER
        ),
    }
    if to_stage is not None and to_stage != "dispatched":
        for name, value in extras.items():
            if value is not None:
                check.add(name, f"The {name} field is only accepted when to_stage is dispatched.")
    check.raise_if_any()
    return AdvanceInput(to_stage=to_stage or "", **extras)
