"""When an invoice is due: the customer's payment terms counted from its issue.

`prepaid` and `on_receipt` are due on issue; `net_N` N days after. The date is fixed when the
invoice is issued, so changing a customer's terms later moves none of their invoices."""

from __future__ import annotations

import datetime as dt

# Every payment-terms code (the customers' own list of codes is checked against this one).
TERM_DAYS: dict[str, int] = {
    "prepaid": 0,
    "on_receipt": 0,
    "net_7": 7,
    "net_15": 15,
    "net_30": 30,
    "net_60": 60,
}


def due_at(issued_at: dt.datetime, payment_terms: str) -> dt.datetime:
    """The due date of an invoice issued at `issued_at`; an unknown code is due on issue."""
    return issued_at + dt.timedelta(days=TERM_DAYS.get(payment_terms, 0))
