"""What a workspace's invoices say of the shop (Settings → Invoices): its legal name and
address, tax number and the label its tax goes by ("VAT"), bank details, a footer and a logo.
One checker for what is typed (`check`), one writer (`save`), and the reads the invoice pages
and the logo's two addresses use."""

from __future__ import annotations

import hashlib
from typing import Final

import msgspec

from models import clock, db, proofs, statements
from models.errors import FieldErrors
from models.statements import Select, Sql
from models.structs import Input

DEFAULT_TAX_LABEL: Final = "Tax"
MAX_LOGO_BYTES = 512 * 1024
# The logo form's largest body: a logo of a little over 2 MiB still gets the form's own
# message (its size), a bigger body the 413 page.
UPLOAD_BODY_BYTES = 2 * 1024 * 1024 + 64 * 1024
LOGO_TYPES = ("image/png", "image/jpeg")
# Each line field's longest value (the columns' lengths); the multi-line ones are bounded in
# lines too, so the bank details and footer of any invoice leave room for its lines on one
# printed page.
LENGTHS: Final = {
    "legal_name": 200,
    "address_line1": 200,
    "address_line2": 200,
    "city": 100,
    "postcode": 20,
    "country": 100,
    "tax_number": 50,
    "tax_label": 20,
}
BANK_DETAILS = (400, 6)  # characters, lines
FOOTER = (600, 4)


class LetterheadInput(Input):
    """Settings → Invoices as typed: every field, and the logo's bytes when a new one is sent
    (`logo`; None keeps the current one) or `remove_logo`."""

    legal_name: str = ""
    address_line1: str = ""
    address_line2: str = ""
    city: str = ""
    postcode: str = ""
    country: str = ""
    tax_number: str = ""
    tax_label: str = ""
    bank_details: str = ""
    footer: str = ""
    logo: bytes | None = None
    remove_logo: bool = False


class Letterhead(msgspec.Struct, array_like=True, frozen=True):
    """The settings as stored (without the logo's bytes); `DEFAULT` before the first save."""

    legal_name: str
    address_line1: str
    address_line2: str
    city: str
    postcode: str
    country: str
    tax_number: str
    tax_label: str
    bank_details: str
    footer: str
    logo_type: str | None
    logo_sha256: str | None

    @property
    def has_logo(self) -> bool:
        return self.logo_type is not None

    @property
    def address_lines(self) -> list[str]:
        """The shop's address as printed: the lines, the city with its postcode, the country."""
        town = f"{self.city} {self.postcode}".strip()
        lines = (self.address_line1, self.address_line2, town, self.country)
        return [line for line in lines if line]

    def name(self, workspace_name: str) -> str:
        """The name an invoice gives the shop: its legal name, else the workspace's."""
        return self.legal_name or workspace_name


DEFAULT = Letterhead("", "", "", "", "", "", "", DEFAULT_TAX_LABEL, "", "", None, None)


class Checked(msgspec.Struct, frozen=True):
    """What `check` accepted, ready to store."""

    letterhead: Letterhead
    logo: bytes | None  # a new logo (its type and digest are in `letterhead`)
    remove_logo: bool


def _lines(errors: FieldErrors, field: str, value: str, bounds: tuple[int, int]) -> str:
    characters, lines = bounds
    value = errors.text(field, value, characters, required=False, multiline=True)
    # Lines as typed, without the blank ones at either end (the text is stripped).
    if field not in errors.errors and len(value.split("\n")) > lines:
        errors.add(field, f"must be at most {lines} lines")
    return value


def _logo(errors: FieldErrors, data: bytes | None) -> str | None:
    """The logo's content type, told by its bytes; None for no new logo."""
    if data is None:
        return None
    kind = proofs.sniff(data)
    if not data:
        errors.add("logo", "The logo file is empty: choose a PNG or JPEG image.")
    elif len(data) > MAX_LOGO_BYTES:
        size = f"{len(data) / 1024:,.0f} KiB"
        errors.add("logo", f"The logo is {size}; a logo may be at most 512 KiB.")
    elif kind not in LOGO_TYPES:
        errors.add(
            "logo",
            "The logo must be a PNG or JPEG image: this file is neither (whatever its name says).",
        )
    return kind


def check(typed: LetterheadInput) -> Checked:
    """Every field's refusal at once (InvalidFields keyed by field), or what to store."""
    errors = FieldErrors()
    lines = {
        field: errors.text(field, getattr(typed, field), length, required=False)
        for field, length in LENGTHS.items()
    }
    bank_details = _lines(errors, "bank_details", typed.bank_details, BANK_DETAILS)
    footer = _lines(errors, "footer", typed.footer, FOOTER)
    kind = _logo(errors, typed.logo)
    if typed.logo is not None and typed.remove_logo:
        errors.add("logo", "Choose a new logo or remove the logo, not both.")
    errors.check()
    logo = typed.logo if kind is not None else None
    letterhead = Letterhead(
        **{field: value for field, value in lines.items() if field != "tax_label"},
        tax_label=lines["tax_label"] or DEFAULT_TAX_LABEL,
        bank_details=bank_details,
        footer=footer,
        logo_type=kind,
        logo_sha256=hashlib.sha256(logo).hexdigest() if logo is not None else None,
    )
    return Checked(letterhead=letterhead, logo=logo, remove_logo=typed.remove_logo)


# --- storage --------------------------------------------------------------------------------

_FIELDS = (*LENGTHS, "bank_details", "footer")
_COLUMNS = ", ".join(_FIELDS)
_LOGO_COLUMNS = ("logo", "logo_type", "logo_sha256")
READ = Select(
    Letterhead,
    f"SELECT {_COLUMNS}, logo_type, logo_sha256 FROM invoice_settings "  # noqa: S608 - constants
    "WHERE workspace = $1",
)
LOGO = Sql("SELECT logo_type, logo FROM invoice_settings WHERE workspace = $1 AND logo IS NOT NULL")


def _upsert(logo: str) -> Sql:
    """One statement for the first save and every later one (two owners saving a workspace's
    first settings at once both succeed, the later one last): `logo` is `keep`, `set` or
    `remove`."""
    values = ", ".join(f"${n}" for n in range(2, len(_FIELDS) + 2))
    n = len(_FIELDS) + 2
    changed = (*_FIELDS, "updated_at", *(() if logo == "keep" else _LOGO_COLUMNS))
    updates = ", ".join(f"{column} = excluded.{column}" for column in changed)
    return Sql(
        f"""
        INSERT INTO invoice_settings (workspace, {_COLUMNS}, updated_at, logo, logo_type,
            logo_sha256)
        VALUES ($1, {values}, ${n}, ${n + 1}, ${n + 2}, ${n + 3})
        ON CONFLICT (workspace) DO UPDATE SET {updates}
        """  # noqa: S608 - constant fragments
    )


_UPSERT = {logo: _upsert(logo) for logo in ("keep", "set", "remove")}


async def read(workspace_id: int) -> Letterhead:
    """The workspace's settings (DEFAULT before the first save)."""
    async with statements.connection() as reader:
        return await read_with(reader, workspace_id)


async def read_with(reader: statements.Reader, workspace_id: int) -> Letterhead:
    return await reader.one(READ, workspace_id) or DEFAULT


async def save(workspace_id: int, typed: LetterheadInput) -> Letterhead:
    """Check `typed` (InvalidFields with every refusal; nothing is written then) and store it;
    returns what is stored."""
    checked = check(typed)
    head = checked.letterhead
    logo = "set" if checked.logo is not None else "remove" if checked.remove_logo else "keep"

    async def write() -> None:
        async with statements.connection() as conn:
            await conn.rows(
                _UPSERT[logo], workspace_id, *(getattr(head, field) for field in _FIELDS),
                clock.now(), checked.logo, head.logo_type, head.logo_sha256,
            )  # fmt: skip

    await db.atomic(write)
    return await read(workspace_id)


async def logo(workspace_id: int) -> tuple[str, bytes] | None:
    """The logo's content type and bytes; None without one."""
    async with statements.connection() as reader:
        row = await reader.row(LOGO, workspace_id)
    return (str(row[0]), bytes(row[1])) if row is not None else None
