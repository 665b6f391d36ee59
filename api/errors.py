"""The one error format for every failure path: `{"message", "code", "details"}`, plus
`errors` on 422 (`code` is a models.errors.ErrorCode)."""

from __future__ import annotations

import logging
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.status_codes import (
    HTTP_401_UNAUTHORIZED,
    HTTP_403_FORBIDDEN,
    HTTP_404_NOT_FOUND,
    HTTP_409_CONFLICT,
    HTTP_412_PRECONDITION_FAILED,
    HTTP_422_UNPROCESSABLE_ENTITY,
    HTTP_500_INTERNAL_SERVER_ERROR,
    HTTP_503_SERVICE_UNAVAILABLE,
)

from api.admin import pages as admin_pages
from api.admin.security import PREFIX as ADMIN_PREFIX
from api.schemas.common import ErrorBody, ValidationErrorBody
from api.validation import StrictBody
from models import db
from models.errors import (
    ConflictError,
    DomainError,
    ErrorCode,
    InvalidFields,
    NotFoundError,
    StaleError,
)
from models.idempotency import KeyBusy

log = logging.getLogger("pressline.errors")
# Scope key, set by api/request_path.py: the client disconnected before its answer was
# complete (closed the connection while its body was being read or its answer streamed).
CLIENT_GONE = "pressline.client_gone"
CLIENT_CLOSED_REQUEST = 499  # the status logged and counted for such a request (never sent)


class ApiError(Exception):
    status_code: int = 400
    code: ErrorCode = ErrorCode.BAD_REQUEST
    headers: dict[str, str] | None = None

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode | None = None,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}
        if code is not None:
            self.code = code
        if headers:
            self.headers = headers

    def body(self) -> ErrorBody | ValidationErrorBody:
        return ErrorBody(message=self.message, code=self.code, details=self.details)


class Unauthorized(ApiError):
    status_code = HTTP_401_UNAUTHORIZED
    code = ErrorCode.UNAUTHENTICATED
    headers = {"WWW-Authenticate": "Bearer"}


class Forbidden(ApiError):
    status_code = HTTP_403_FORBIDDEN
    code = ErrorCode.FORBIDDEN


class NotFound(ApiError):
    status_code = HTTP_404_NOT_FOUND
    code = ErrorCode.NOT_FOUND


class Conflict(ApiError):
    status_code = HTTP_409_CONFLICT
    code = ErrorCode.IDEMPOTENCY_IN_PROGRESS


class PreconditionFailed(ApiError):
    status_code = HTTP_412_PRECONDITION_FAILED
    code = ErrorCode.PRECONDITION_FAILED


class Refused(ApiError):
    """422 for a rule, not a field: plan limits, plan without API, a refused stage move."""

    status_code = HTTP_422_UNPROCESSABLE_ENTITY
    code = ErrorCode.RULE_REFUSED

    def body(self) -> ValidationErrorBody:
        return ValidationErrorBody(
            message=self.message, code=self.code, errors={}, details=self.details
        )


class ServiceUnavailable(ApiError):
    """The database was out of reach (docs/operations.md, Faults): try again in a second."""

    status_code = HTTP_503_SERVICE_UNAVAILABLE
    code = ErrorCode.SERVICE_UNAVAILABLE
    headers = {"Retry-After": "1"}


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
    """Litestar's own parameter errors (path, headers) in the contract's 422 shape. Request
    bodies and list queries are read by api/validation.py, which raises `InvalidFields`; an
    empty body is the exception: Litestar leaves `data` out before any DTO sees it, so it is
    read here as `{}` (every required field missing)."""
    problems = [item for item in exc.extra if isinstance(item, dict)] if exc.extra else []
    dto = request.route_handler.resolve_data_dto()
    empty_body = any(item.get("key") == "data" for item in problems)
    if empty_body and isinstance(dto, type) and issubclass(dto, StrictBody):
        try:
            dto(request).decode_bytes(b"")
        except InvalidFields as invalid:
            return handle_domain_error(request, invalid)
    errors: dict[str, list[str]] = {}
    for item in problems:
        key = str(item.get("key") or "request")
        errors.setdefault(key, []).append(f"The {key} parameter is invalid.")
    return handle_domain_error(request, InvalidFields(errors or {"request": [str(exc.detail)]}))


# Framework errors by status: their message and code.
_FRAMEWORK_ERRORS = {
    HTTP_404_NOT_FOUND: ("Not found", ErrorCode.NOT_FOUND),
    405: ("Method not allowed", ErrorCode.METHOD_NOT_ALLOWED),
    413: ("Request body too large (limit 1 MiB)", ErrorCode.BODY_TOO_LARGE),
    HTTP_401_UNAUTHORIZED: ("Missing bearer token", ErrorCode.UNAUTHENTICATED),
    HTTP_403_FORBIDDEN: ("Forbidden", ErrorCode.FORBIDDEN),
}


def handle_http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    """Framework errors (404 route, 405, 413, ...) in the one error shape; but a 404 of the
    router under /admin (a path id its converter refused: not digits, or more digits than
    Python converts) is the admin's 404 page, as any unknown id there."""
    status = exc.status_code
    if status == HTTP_404_NOT_FOUND and _in_admin(request):
        return admin_pages.not_found(request, exc)
    message, code = _FRAMEWORK_ERRORS.get(status, (str(exc.detail), ErrorCode.BAD_REQUEST))
    if status == HTTP_422_UNPROCESSABLE_ENTITY:
        body = ValidationErrorBody(
            message=message, code=ErrorCode.VALIDATION_FAILED, errors={}, details={}
        )
        return _response(status, body, exc.headers)
    return _response(status, ErrorBody(message=message, code=code, details={}), exc.headers)


def _in_admin(request: Request[Any, Any, Any]) -> bool:
    path = str(request.scope.get("path", ""))
    return path == ADMIN_PREFIX or path.startswith(f"{ADMIN_PREFIX}/")


def handle_internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """Unhandled errors: 500 with no detail, except a lost or unreachable database, which is
    the database's state, not a fault of the request: 503 with `Retry-After: 1`; and a client
    that disconnected mid-request (Litestar's "client disconnected prematurely" while reading
    the body, or whatever followed): no one reads the answer and nothing failed, so no error is
    logged (the request's own line says "client disconnected")."""
    if request.scope.get(CLIENT_GONE):
        return Response(content=b"", status_code=CLIENT_CLOSED_REQUEST)
    if db.unavailable(exc):
        log.warning(
            "database unavailable on %s %s: %s: %s",
            request.method,
            request.url.path,
            type(exc).__name__,
            exc,
        )
        return handle_api_error(
            request, ServiceUnavailable("Database unavailable; retry in a moment")
        )
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    body = ErrorBody(message="Internal server error", code=ErrorCode.INTERNAL_ERROR, details={})
    return _response(HTTP_500_INTERNAL_SERVER_ERROR, body)


def handle_domain_error(request: Request[Any, Any, Any], exc: DomainError) -> Response[Any]:
    """Refusals raised by models/ map onto the API's error classes here, and only here."""
    if isinstance(exc, InvalidFields):
        body = ValidationErrorBody(
            message=exc.message, code=exc.code, errors=exc.errors, details=exc.details
        )
        return _response(HTTP_422_UNPROCESSABLE_ENTITY, body)
    kind: type[ApiError] = Refused
    headers = None
    if isinstance(exc, NotFoundError):
        kind = NotFound
    elif isinstance(exc, ConflictError):
        kind = Conflict
        if isinstance(exc, KeyBusy):  # 1 s: a running request is usually done by then
            headers = {"Retry-After": str(exc.retry_after)}
    elif isinstance(exc, StaleError):
        kind = PreconditionFailed
    error = kind(exc.message, code=exc.code, details=exc.details, headers=headers)
    return handle_api_error(request, error)


EXCEPTION_HANDLERS = {
    ApiError: handle_api_error,
    DomainError: handle_domain_error,
    ValidationException: handle_validation_exception,
    HTTPException: handle_http_exception,
    HTTP_500_INTERNAL_SERVER_ERROR: handle_internal_error,
}
