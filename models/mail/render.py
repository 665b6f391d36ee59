"""Every email's words come from the Jinja2 templates beside this module, one set per kind:
`<kind>.subject`, `<kind>.txt` (the plain-text part) and `<kind>.html` (the HTML part)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import jinja2
import msgspec

TEMPLATES = Path(__file__).with_name("templates")

_text = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=False,  # plain text: nothing to escape  # noqa: S701
    keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined,
)
_html = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)

STAGE_WORDS = {
    "artwork": "Artwork",
    "print_queue": "Queued for printing",
    "in_production": "In production",
    "qc_pack": "Checking and packing",
    "dispatched": "Dispatched",
    "cancelled": "Cancelled",
}


@dataclass(frozen=True, slots=True)
class Rendered:
    subject: str
    text: str
    html: str


def render(kind: str, **context: Any) -> Rendered:
    """Subject, text and HTML of one email of `kind` (`stage`, `proof`, `deactivated`)."""
    subject = " ".join(_text.get_template(f"{kind}.subject").render(**context).split())
    return Rendered(
        subject=subject[:255],
        text=_text.get_template(f"{kind}.txt").render(subject=subject, **context),
        html=_html.get_template(f"{kind}.html").render(subject=subject, **context),
    )


# The ship-to fields in the order a label shows them (models/orders/ship_to.py stores them).
_ADDRESS_LINES = (
    ("name",),
    ("company",),
    ("line1",),
    ("line2",),
    ("city", "postal_code"),
    ("region",),
    ("country",),
)


def address_lines(stored: str | dict[str, str] | None) -> list[str]:
    """An order's ship-to as the lines of a label (none without one)."""
    if not stored:
        return []
    address = stored if isinstance(stored, dict) else msgspec.json.decode(stored)
    lines = (" ".join(address.get(key, "") for key in keys).strip() for keys in _ADDRESS_LINES)
    return [line for line in lines if line]


def due_date(due_by: dt.datetime | None, timezone: str) -> str | None:
    """A due date as people write it, in the workspace's time zone: `Friday 4 December 2026`."""
    if due_by is None:
        return None
    local = due_by.astimezone(ZoneInfo(timezone))
    return f"{local:%A} {local.day} {local:%B %Y}"
