"""The statuses of an email row (customer messages and staff notices alike)."""

from __future__ import annotations

from enum import StrEnum


class MessageStatus(StrEnum):
    QUEUED = "queued"  # waiting for the worker (again, after a temporary failure)
    SENT = "sent"  # the server accepted it (or, without SMTP_URL, it was written to the log)
    FAILED = "failed"  # refused for good (5xx) or out of attempts; last_error says why
    NO_CONTACT = "no_contact"  # the customer has no primary contact: nobody to write to
    MUTED = "muted"  # the workspace does not email customers about this stage


class Transport(StrEnum):
    SMTP = "smtp"
    LOG = "log"  # SMTP_URL unset: written to the worker's log
    DEMO = "demo"  # `pressline demo`'s sample history: recorded as sent, never sent
