"""Domain refusals, raised by models/ and rendered by api/errors.py (and by the CLI)."""

from __future__ import annotations


class DomainError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFoundError(DomainError):
    """The record does not exist in this workspace (→ 404)."""


class RuleRefused(DomainError):
    """A business rule refuses the change: plan limit, stage move (→ 422, reason only)."""


class InvalidFields(DomainError):
    """Field-level problems found by the domain, e.g. a foreign customer id (→ 422)."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        first = next((m for messages in errors.values() for m in messages), "Invalid data")
        super().__init__(first)


class ConflictError(DomainError):
    """The same request is already being processed (→ 409)."""
