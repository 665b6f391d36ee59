"""The names an invoice and a payment take (the columns hold these strings)."""

from __future__ import annotations

from enum import StrEnum


class InvoiceStatus(StrEnum):
    DRAFT = "draft"
    ISSUED = "issued"  # sent with the dispatched order; takes payments until its balance is 0
    PAID = "paid"
    VOID = "void"


class PaymentMethod(StrEnum):
    CARD = "card"
    BANK_TRANSFER = "bank_transfer"
    CASH = "cash"
    CHEQUE = "cheque"
    OTHER = "other"
