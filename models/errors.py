"""Domain refusals, raised by models/ and rendered by api/errors.py, the admin and the CLI.

`InvalidFields` is the one field-error type: the API's request validation, the domain's own
field checks, the admin's forms and the command line all raise it, and each renders it.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

MAX_COUNT = 1_000_000_000  # stock levels and limits; well inside a 32-bit integer column
# An email address: `local@domain` only, ASCII, no display name, no
# brackets, no quoting; what SMTP carries without SMTPUTF8 and a header holds as it is. The
# local part is an RFC 5321 dot-atom of at most 64 characters, the domain dot-separated
# labels (letters, digits, inner hyphens; at least two). Use `EMAIL.fullmatch`.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
EMAIL = re.compile(rf"(?=[^@]{{1,64}}@){_ATOM}(?:\.{_ATOM})*@(?:{_LABEL}\.)+{_LABEL}")
EMAIL_REFUSED = (
    "must be an email address such as name@example.com, in plain ASCII (no accented letters), "
    "without a name or < >"
)


class ErrorCode(StrEnum):
    """The machine-readable `code` of every error body: stable names a client can branch on
    (docs/api.md lists what each means). A new refusal gets a new name; a name never changes."""

    VALIDATION_FAILED = "validation_failed"
    NOT_FOUND = "not_found"
    UNAUTHENTICATED = "unauthenticated"
    FORBIDDEN = "forbidden"
    PLAN_EXCLUDES_API = "plan_excludes_api"
    RATE_LIMITED = "rate_limited"
    IDEMPOTENCY_IN_PROGRESS = "idempotency_in_progress"
    IDEMPOTENCY_MISMATCH = "idempotency_mismatch"
    PRECONDITION_FAILED = "precondition_failed"
    STAGE_MOVE_REFUSED = "stage_move_refused"
    INSUFFICIENT_STOCK = "insufficient_stock"
    ORDER_LOCKED = "order_locked"
    ARTWORK_LOCKED = "artwork_locked"
    PLAN_LIMIT = "plan_limit"
    EXTERNAL_REF_TAKEN = "external_ref_taken"
    INVOICE_NOT_PAYABLE = "invoice_not_payable"
    OVERPAYMENT = "overpayment"
    PAYMENT_ALREADY_VOIDED = "payment_already_voided"
    RULE_REFUSED = "rule_refused"
    BAD_REQUEST = "bad_request"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    BODY_TOO_LARGE = "body_too_large"
    HEADERS_TOO_LARGE = "headers_too_large"
    SERVICE_UNAVAILABLE = "service_unavailable"
    INTERNAL_ERROR = "internal_error"


class DomainError(Exception):
    """A refusal: its words (`message`), its `code`, and `details` naming what it is about
    (the order holding an external_ref: `{"order_id": 19}`)."""

    code: ErrorCode = ErrorCode.RULE_REFUSED

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details: dict[str, Any] = details or {}


class NotFoundError(DomainError):
    """The record does not exist in this workspace (→ 404)."""

    code = ErrorCode.NOT_FOUND


class RuleRefused(DomainError):
    """A business rule refuses the change: plan limit, stage move (→ 422, reason only)."""


class InvalidFields(DomainError):
    """Every problem found with an input, by field (dot paths for nested ones:
    `lines.0.quantity`) (→ 422 `{"message", "code", "errors", "details"}`)."""

    code = ErrorCode.VALIDATION_FAILED

    def __init__(
        self,
        errors: dict[str, list[str]],
        *,
        code: ErrorCode | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        self.errors = errors
        super().__init__(summary(errors), code=code, details=details)


def summary(errors: dict[str, list[str]]) -> str:
    """The first message, plus "(and N more errors)" when there are others."""
    messages = [message for field_messages in errors.values() for message in field_messages]
    if not messages:
        return "The given data was invalid."
    more = len(messages) - 1
    if not more:
        return messages[0]
    return f"{messages[0]} (and {more} more error{'s' if more > 1 else ''})"


class ConflictError(DomainError):
    """The same request is already being processed (→ 409)."""

    code = ErrorCode.IDEMPOTENCY_IN_PROGRESS


class StaleError(DomainError):
    """The record changed since the caller read it (`If-Match`, a form's revision) (→ 412)."""

    code = ErrorCode.PRECONDITION_FAILED


_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f]")  # C0 controls but tab
_CONTROLS_MULTILINE = re.compile(r"[\x00-\x08\x0b-\x1f]")  # and newline, where lines are text


def storable(value: str, *, multiline: bool = False) -> bool:
    """Text the service keeps: valid UTF-8 (undecodable command-line or form
    bytes are not text), no NUL (PostgreSQL text holds none) nor other C0 control but tab, and
    newline only in multi-line fields (whose CR LF from browsers is normalised first)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    controls = _CONTROLS_MULTILINE if multiline else _CONTROLS
    return controls.search(value) is None


def normalise_newlines(value: str) -> str:
    """CR LF and lone CR (as browsers and other systems send them) become LF."""
    return value.replace("\r\n", "\n").replace("\r", "\n")


_DECIMAL_TEXT = re.compile(r"-?[0-9]{1,20}(?:\.[0-9]{1,20})?")

UNSTORABLE_LINE = "must be one line of text, without control characters"
UNSTORABLE_TEXT = "must be text, without control characters other than tabs and line breaks"


class FieldErrors:
    """Collects every problem with an operator's input (command line, admin forms), so one
    `InvalidFields` lists them all."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def add(self, field: str, message: str) -> None:
        self.errors.setdefault(field, []).append(message)

    def text(
        self,
        field: str,
        value: str,
        max_length: int,
        *,
        required: bool = True,
        multiline: bool = False,
    ) -> str:
        value = (normalise_newlines(value) if multiline else value).strip()
        if not storable(value, multiline=multiline):
            self.add(field, UNSTORABLE_TEXT if multiline else UNSTORABLE_LINE)
        elif required and not value:
            self.add(field, "must not be blank")
        elif len(value) > max_length:
            self.add(field, f"must be at most {max_length} characters")
        return value

    def email(self, field: str, value: str) -> str:
        """An address as EMAIL has it, refused when typed (never at send time)."""
        value = self.text(field, value, 254)
        if value and len(value) <= 254 and field not in self.errors and not EMAIL.fullmatch(value):
            self.add(field, EMAIL_REFUSED)
        return value

    def count(self, field: str, value: int, *, maximum: int = MAX_COUNT) -> int:
        if value < 0:
            self.add(field, "must be 0 or more")
        elif value > maximum:
            self.add(field, f"must be at most {maximum}")
        return value

    def percent(self, field: str, value: Decimal | str) -> Decimal:
        """A percentage from 0 to 100 with at most two decimal places (the columns' precision).
        Typed text is ASCII digits with an optional point (not `1_0`, `1e1` nor other scripts'
        digits, which Decimal would read)."""
        text = value.strip() if isinstance(value, str) else str(value)
        if isinstance(value, str) and not _DECIMAL_TEXT.fullmatch(text):
            self.add(field, "must be a number")
            return Decimal(0)
        try:
            number = Decimal(text)
        except InvalidOperation:
            self.add(field, "must be a number")
            return Decimal(0)
        if not number.is_finite() or not Decimal(0) <= number <= Decimal(100):
            self.add(field, "must be between 0 and 100")
        elif number != number.quantize(Decimal("0.01")):
            self.add(field, "must have at most 2 decimal places")
        return number.quantize(Decimal("0.01")) if number.is_finite() else Decimal(0)

    def check(self) -> None:
        if self.errors:
            raise InvalidFields(self.errors)
