"""`GET /customers` query parameters (the customer bodies are in models/schemas/customers.py)."""

from __future__ import annotations

from api.params import PageNumber, Search, UpdatedSince
from models.schemas.common import Schema


class CustomerListQuery(Schema):
    """`GET /customers` parameters (docs/api.md §4.2)."""

    search: Search = None
    updated_since: UpdatedSince = None
    page: PageNumber = 1
