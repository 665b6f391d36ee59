"""The one error format: `{"message"}` bodies, plus `errors` on 422, for every failure path."""

from __future__ import annotations

import logging
import re
from typing import Any, Literal, get_args, get_origin

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.status_codes import (
    HTTP_401_UNAUTHORIZED,
    HTTP_403_FORBIDDEN,
    HTTP_404_NOT_FOUND,
    HTTP_409_CONFLICT,
    HTTP_422_UNPROCESSABLE_ENTITY,
    HTTP_500_INTERNAL_SERVER_ERROR,
)

from api.schemas.common import ErrorBody, ValidationErrorBody
from models.errors import ConflictError, DomainError, InvalidFields, NotFoundError

log = logging.getLogger("pressline.errors")


class ApiError(Exception):
    status_code: int = 400
    headers: dict[str, str] | None = None

    def __init__(self, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if headers:
            self.headers = headers

    def body(self) -> ErrorBody | ValidationErrorBody:
        return ErrorBody(message=self.message)


class Unauthorized(ApiError):
    status_code = HTTP_401_UNAUTHORIZED
    headers = {"WWW-Authenticate": "Bearer"}


class Forbidden(ApiError):
    status_code = HTTP_403_FORBIDDEN


class NotFound(ApiError):
    status_code = HTTP_404_NOT_FOUND

    def __init__(self, message: str = "Not found") -> None:
        super().__init__(message)


class Conflict(ApiError):
    status_code = HTTP_409_CONFLICT


class Refused(ApiError):
    """422 for a rule, not a field: plan limits, plan without API, a refused stage move."""

    status_code = HTTP_422_UNPROCESSABLE_ENTITY

    def body(self) -> ValidationErrorBody:
        return ValidationErrorBody(message=self.message, errors={})


class ValidationFailed(ApiError):
    """422 naming every failing field (dot paths for nested ones: `lines.0.quantity`)."""

    status_code = HTTP_422_UNPROCESSABLE_ENTITY

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__(summarise(errors))

    def body(self) -> ValidationErrorBody:
        return ValidationErrorBody(message=self.message, errors=self.errors)


def summarise(errors: dict[str, list[str]]) -> str:
    messages = [message for field_messages in errors.values() for message in field_messages]
    if not messages:
        return "The given data was invalid."
    first = messages[0]
    more = len(messages) - 1
    if more:
        first += f" (and {more} more error{'s' if more > 1 else ''})"
    return first


def _response(
    status_code: int, body: ErrorBody | ValidationErrorBody, headers: dict[str, str] | None = None
) -> Response[Any]:
    return Response(
        content=body, status_code=status_code, headers=headers, media_type=MediaType.JSON
    )


def handle_api_error(_: Request[Any, Any, Any], exc: ApiError) -> Response[Any]:
    return _response(exc.status_code, exc.body(), exc.headers)


def handle_validation_exception(
    request: Request[Any, Any, Any], exc: ValidationException
) -> Response[Any]:
    """Litestar's own parameter errors (query, path, headers) in the contract's 422 shape,
    worded like the body validation's messages."""
    errors: dict[str, list[str]] = {}
    for item in exc.extra if isinstance(exc.extra, list) else []:
        if isinstance(item, dict):
            key = str(item.get("key") or "request")
            message = str(item.get("message", "is invalid"))
            errors.setdefault(key, []).append(parameter_message(key, message, request))
    if not errors:
        errors["request"] = [str(exc.detail)]
    failed = ValidationFailed(errors)
    return _response(failed.status_code, failed.body())


_NOT_INT = re.compile(r"^Expected `int`(, got `\w+`)?$")
_AT_LEAST = re.compile(r"^Expected `int` >= (-?\d+)$")
_AT_MOST = re.compile(r"^Expected `int` <= (-?\d+)$")


def parameter_message(key: str, message: str, request: Request[Any, Any, Any]) -> str:
    """msgspec's terse wording ("Expected `int` >= 1") as a sentence naming the parameter."""
    if _NOT_INT.match(message):
        return f"The {key} parameter must be an integer."
    if match := _AT_LEAST.match(message):
        return f"The {key} parameter must be at least {match[1]}."
    if match := _AT_MOST.match(message):
        return f"The {key} parameter must not be greater than {match[1]}."
    if message.startswith("Invalid enum value"):
        choices = _choices(request, key)
        listed = f"; use one of: {', '.join(choices)}" if choices else ""
        return f"The selected {key} is invalid{listed}."
    return message if message.startswith(key) else f"{key}: {message}"


def _choices(request: Request[Any, Any, Any], key: str) -> list[str]:
    """The allowed values of a `Literal` parameter of the matched handler."""
    try:
        annotation = request.route_handler.parsed_fn_signature.parameters[key].annotation
    except (KeyError, AttributeError, LookupError):
        return []
    pending: list[Any] = [annotation]
    found: list[str] = []
    while pending:
        current = pending.pop(0)
        if get_origin(current) is Literal:
            found.extend(str(arg) for arg in get_args(current))
        else:
            pending.extend(get_args(current))
    return found


def handle_http_exception(_: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    """Framework errors (404 route, 405, 413, ...) in the `{"message"}` shape."""
    status = exc.status_code
    message = {
        HTTP_404_NOT_FOUND: "Not found",
        405: "Method not allowed",
        413: "Request body too large (limit 1 MiB)",
        HTTP_401_UNAUTHORIZED: "Missing bearer token",
        HTTP_403_FORBIDDEN: "Forbidden",
    }.get(status, str(exc.detail))
    if status == HTTP_422_UNPROCESSABLE_ENTITY:
        return _response(status, ValidationErrorBody(message=message, errors={}), exc.headers)
    return _response(status, ErrorBody(message=message), exc.headers)


def handle_internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return _response(HTTP_500_INTERNAL_SERVER_ERROR, ErrorBody(message="Internal server error"))


def handle_domain_error(request: Request[Any, Any, Any], exc: DomainError) -> Response[Any]:
    """Refusals raised by models/ map onto the API's error classes here, and only here."""
    error: ApiError
    if isinstance(exc, InvalidFields):
        error = ValidationFailed(exc.errors)
    elif isinstance(exc, NotFoundError):
        error = NotFound(exc.message)
    elif isinstance(exc, ConflictError):
        error = Conflict(exc.message)
    else:
        error = Refused(exc.message)
    return handle_api_error(request, error)


EXCEPTION_HANDLERS = {
    ApiError: handle_api_error,
    DomainError: handle_domain_error,
    ValidationException: handle_validation_exception,
    HTTPException: handle_http_exception,
    HTTP_500_INTERNAL_SERVER_ERROR: handle_internal_error,
}
