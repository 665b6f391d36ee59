"""An address as the admin's forms type it: a customer's address (its own pages) and an order's
typed ship-to (the order forms) share the fields, their names and their labels
(templates/_address_fields.html). A field is `{prefix}{name}` (`ship_to-city` on
the order forms); the country is taken in capitals (`gb` is GB), as the rule wants an ISO code.
"""

from __future__ import annotations

from typing import Any

from api.admin.forms import text
from models.customers.addresses import LIMITS, NewAddress

FIELDS = tuple(LIMITS)  # label, name, company, line1, line2, city, region, postal_code, ...
# Each field as the form labels it (templates/_address_fields.html) and as a refusal names it.
LABELS = {
    "label": "the label",
    "name": "the name",
    "company": "the company",
    "line1": "address line 1",
    "line2": "address line 2",
    "city": "the town or city",
    "region": "the county, state or region",
    "postal_code": "the postcode",
    "country": "the country",
    "phone": "the phone number",
}
EMPTY = dict.fromkeys(FIELDS, "")


def typed_address(fields: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """The address fields as typed (shown again when refused), the country in capitals."""
    typed = {name: text(fields, f"{prefix}{name}") for name in FIELDS}
    typed["country"] = typed["country"].strip().upper()
    return typed


def new_address(typed: dict[str, str], *, default: bool = False) -> NewAddress:
    """The typed address as models/customers/addresses.py takes it (checked there)."""
    return NewAddress(**{name: typed[name] for name in FIELDS}, default=default)


def typed_from(row: Any) -> dict[str, str]:
    """A stored address (an Address row or a read of one) as its form starts."""
    return {name: str(getattr(row, name) or "") for name in FIELDS}


def is_blank(typed: dict[str, str]) -> bool:
    return not any(value.strip() for value in typed.values())
