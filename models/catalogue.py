"""Operator-side setup of what a workspace sells to and prints on: customers, contacts, SKUs.

Slugs, price lists, primary contacts and the SKU CSV format are decided here, once; the
command line and the demo builder only pass values through.
"""

from __future__ import annotations

import csv
import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, NamedTuple

from models import clock, db, statements, stock_movements
from models.accounts import FieldErrors, get_workspace, known_id
from models.actors import OPERATOR, Actor
from models.errors import InvalidFields, NotFoundError
from models.queries.inventory import MAX_CODE
from models.stock_movements import Change, MovementKind
from models.tables import Contact, Customer, PriceList, Sku

PAYMENT_TERMS = ("prepaid", "on_receipt", "net_7", "net_15", "net_30", "net_60")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SLUG_LENGTH = 100
HEX_COLOUR = re.compile(r"^#[0-9A-Fa-f]{6}$")
SKU_COLUMNS = ("code", "style", "brand", "colour", "colour_hex", "size", "on_hand")
SKU_OPTIONAL_COLUMNS = ("reorder_point",)
INSERT_BATCH = 200  # rows per INSERT statement: 2,200 parameters, under SQLite's limit


def slugify(name: str) -> str:
    """`Hop & Barley Brewing Co.` → `hop-barley-brewing-co` (accents folded to ASCII)."""
    # Apostrophes join words (`St Aidan's` → `st-aidans`); accents fold to ASCII.
    name = name.replace("'", "").replace("\u2019", "")
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    # Leave room for a "-N" suffix when the slug is taken.
    return slug[: SLUG_LENGTH - 8].rstrip("-") or "customer"


async def _free_slug(workspace_id: int, base: str) -> str:
    rows = await Customer.select(Customer.slug).where(
        (Customer.workspace == workspace_id) & Customer.slug.like(base + "%")
    )
    taken = {row["slug"] for row in rows}
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    return slug


# --- customers -----------------------------------------------------------------------------


async def get_customer(customer_id: int) -> Customer:
    row = None
    if known_id(customer_id):
        row = await Customer.objects().where(Customer.id == customer_id).first()
    if row is None:
        raise NotFoundError(f"customer {customer_id} not found")
    return row


async def _price_list(workspace_id: int, name: str, discount: Decimal | None) -> PriceList:
    """The workspace's price list of that name, created with `discount` when new.

    An existing list is shared by other customers, so a different discount is refused
    rather than silently changing their prices.
    """
    row = await (
        PriceList.objects()
        .where((PriceList.workspace == workspace_id) & (PriceList.name == name))
        .first()
    )
    if row is None:
        now = clock.now()
        row = PriceList(
            workspace=workspace_id,
            name=name,
            discount_percent=discount or Decimal("0.00"),
            created_at=now,
            updated_at=now,
        )
        await row.save()
    elif discount is not None and Decimal(row.discount_percent) != discount:
        raise InvalidFields(
            {
                "discount": [
                    f"price list {name!r} already exists with discount "
                    f"{Decimal(row.discount_percent):.2f}; omit the discount to use it"
                ]
            }
        )
    return row


class CustomerFields(NamedTuple):
    name: str
    slug: str | None
    price_list: str | None
    discount: Decimal | None
    payment_terms: str
    carrier: str


def _customer_fields(
    *,
    name: str,
    slug: str | None,
    price_list: str | None,
    discount: Decimal | str | None,
    payment_terms: str,
    carrier: str,
) -> CustomerFields:
    """The checked fields of a customer, for create and edit alike (InvalidFields lists all)."""
    errors = FieldErrors()
    name = errors.text("name", name, 200)
    if slug is not None:
        slug = slug.strip()
        if len(slug) > SLUG_LENGTH or not SLUG.match(slug):
            errors.add("slug", "must be lowercase letters, digits and single hyphens")
    list_name = None
    if price_list is not None:
        list_name = errors.text("price_list", price_list, 100)
    rate = None if discount is None else errors.percent("discount", discount)
    if rate is not None and price_list is None:
        errors.add("discount", "a discount belongs to a price list: give the price list name")
    if payment_terms not in PAYMENT_TERMS:
        errors.add("payment_terms", f"must be one of {', '.join(PAYMENT_TERMS)}")
    carrier = errors.text("carrier", carrier, 100, required=False)
    errors.check()
    return CustomerFields(name, slug, list_name, rate, payment_terms, carrier)


async def _slug_taken(workspace_id: int, slug: str, customer_id: int | None = None) -> None:
    query = Customer.exists().where((Customer.workspace == workspace_id) & (Customer.slug == slug))
    if customer_id is not None:
        query = query.where(Customer.id != customer_id)
    if await query:
        raise InvalidFields({"slug": [f"{slug} is already used in this workspace"]})


async def create_customer(
    *,
    workspace_id: int,
    name: str,
    slug: str | None = None,
    price_list: str | None = None,
    discount: Decimal | str | None = None,
    payment_terms: str = "net_30",
    carrier: str = "",
    tax_exempt: bool = False,
) -> Customer:
    """A customer; the slug comes from the name (made unique) unless one is given."""
    fields = _customer_fields(
        name=name, slug=slug, price_list=price_list, discount=discount,
        payment_terms=payment_terms, carrier=carrier,
    )  # fmt: skip
    async with db.transaction():
        await get_workspace(workspace_id)
        slug = fields.slug
        if slug is None:
            slug = await _free_slug(workspace_id, slugify(fields.name))
        else:
            await _slug_taken(workspace_id, slug)
        price_list_id = None
        if fields.price_list is not None:
            price_list_id = (await _price_list(workspace_id, fields.price_list, fields.discount)).id
        now = clock.now()
        row = Customer(
            workspace=workspace_id,
            name=fields.name,
            slug=slug,
            price_list=price_list_id,
            payment_terms=fields.payment_terms,
            default_carrier=fields.carrier,
            tax_exempt=tax_exempt,
            created_at=now,
            updated_at=now,
        )
        await row.save()
    return row


async def update_customer(
    *,
    workspace_id: int,
    customer_id: int,
    name: str,
    slug: str,
    price_list: str | None = None,
    discount: Decimal | str | None = None,
    payment_terms: str = "net_30",
    carrier: str = "",
    tax_exempt: bool = False,
) -> Customer:
    """New values for every field `create_customer` takes (the admin's edit form); no price
    list (None) takes the customer off its list, which stays for its other customers."""
    fields = _customer_fields(
        name=name, slug=slug, price_list=price_list, discount=discount,
        payment_terms=payment_terms, carrier=carrier,
    )  # fmt: skip
    async with db.transaction():
        row = await get_customer(customer_id)
        if row.workspace != workspace_id:
            raise NotFoundError(f"customer {customer_id} not found")
        assert fields.slug is not None  # noqa: S101 - a str was given
        await _slug_taken(workspace_id, fields.slug, customer_id)
        price_list_id = None
        if fields.price_list is not None:
            price_list_id = (await _price_list(workspace_id, fields.price_list, fields.discount)).id
        await Customer.update(
            {
                Customer.name: fields.name,
                Customer.slug: fields.slug,
                Customer.price_list: price_list_id,
                Customer.payment_terms: fields.payment_terms,
                Customer.default_carrier: fields.carrier,
                Customer.tax_exempt: tax_exempt,
                Customer.updated_at: clock.now(),
            }
        ).where(Customer.id == customer_id)
    return await get_customer(customer_id)


async def add_contact(
    *, customer_id: int, name: str, email: str, phone: str = "", primary: bool = False
) -> Contact:
    """A contact (the rule of exactly one primary lives in models/contacts.py)."""
    from models import contacts  # contacts builds on this module's customers

    return await contacts.add_contact(
        customer_id=customer_id, name=name, email=email, phone=phone, primary=primary
    )


# --- SKUs ----------------------------------------------------------------------------------


def _whole(errors: FieldErrors, field: str, value: object) -> int:
    if isinstance(value, int):
        return errors.count(field, value)
    text = str(value).strip()
    if not re.fullmatch(r"[0-9]+", text):
        errors.add(field, "must be a whole number, 0 or more")
        return 0
    return errors.count(field, int(text))


def sku_code(errors: FieldErrors, code: str) -> str:
    """A SKU code: up to 64 printable characters, any of them (`/`, `..`, `%`, `?` and spaces
    inside included: the admin's URLs percent-encode it, DECISIONS §21); no tab or other
    control, no invisible format character."""
    code = errors.text("code", code, MAX_CODE)
    if "code" not in errors.errors and not code.isprintable():
        errors.add("code", "must be printable characters only (no tabs or invisible characters)")
    return code


def sku_values(workspace_id: int, raw: Mapping[str, object]) -> tuple[dict[str, Any], FieldErrors]:
    """Checked column values for one SKU (`reorder_point` optional, default 0)."""
    errors = FieldErrors()
    values: dict[str, Any] = {
        "workspace": workspace_id,
        "code": sku_code(errors, str(raw["code"])),
        "style": errors.text("style", str(raw["style"]), 100),
        "brand": errors.text("brand", str(raw["brand"]), 100),
        "colour": errors.text("colour", str(raw["colour"]), 50),
        "size": errors.text("size", str(raw["size"]), 20),
        "on_hand": _whole(errors, "on_hand", raw["on_hand"]),
    }
    colour_hex = str(raw["colour_hex"]).strip()
    if not HEX_COLOUR.match(colour_hex):
        errors.add("colour_hex", "must be #RRGGBB")
    values["colour_hex"] = colour_hex.upper()
    reorder = raw.get("reorder_point")
    blank = reorder is None or str(reorder).strip() == ""
    values["reorder_point"] = 0 if blank else _whole(errors, "reorder_point", reorder)
    return values, errors


async def _existing_codes(workspace_id: int, codes: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(codes), INSERT_BATCH):
        rows = await Sku.select(Sku.code).where(
            (Sku.workspace == workspace_id) & Sku.code.is_in(codes[start : start + INSERT_BATCH])
        )
        found.update(row["code"] for row in rows)
    return found


_SKU_COLUMNS = (
    "workspace", "code", "style", "brand", "colour", "colour_hex", "size", "on_hand",
    "reorder_point",
)  # fmt: skip
_SKU_WIDTH = len(_SKU_COLUMNS) + 2  # and created_at, updated_at


@functools.lru_cache(maxsize=16)
def _skus_insert(count: int) -> statements.Sql:
    """One INSERT of `count` SKUs, returning each one's id and on_hand."""
    rows = ", ".join(
        "(" + ", ".join(f"${1 + row * _SKU_WIDTH + n}" for n in range(_SKU_WIDTH)) + ")"
        for row in range(count)
    )
    columns = ", ".join(_SKU_COLUMNS)
    return statements.Sql(
        f"INSERT INTO skus ({columns}, created_at, updated_at) VALUES {rows}"  # noqa: S608
        " RETURNING id, on_hand"
    )


async def create_skus(
    workspace_id: int,
    rows: list[dict[str, Any]],
    *,
    kind: MovementKind = MovementKind.CREATED,
    actor: Actor = OPERATOR,
) -> list[int]:
    """Insert checked SKU values in one transaction; any code already in use refuses all.
    Each SKU's initial `on_hand` is recorded as a stock movement of `kind` by `actor`.
    Plain SQL, INSERT_BATCH rows a statement: a 5 MiB import is tens of thousands of rows."""
    async with db.transaction(), statements.connection() as conn:
        await get_workspace(workspace_id)
        taken = await _existing_codes(workspace_id, [row["code"] for row in rows])
        if taken:
            raise InvalidFields({"code": [f"{code} already exists" for code in sorted(taken)]})
        now = clock.now()
        ids: list[int] = []
        for start in range(0, len(rows), INSERT_BATCH):
            batch = rows[start : start + INSERT_BATCH]
            args = [
                value
                for row in batch
                for value in (*(row[column] for column in _SKU_COLUMNS), now, now)
            ]
            inserted = await conn.rows(_skus_insert(len(batch)), *args)
            ids.extend(int(row[0]) for row in inserted)
            initial = [Change(int(r[0]), workspace_id, delta_on_hand=int(r[1])) for r in inserted]
            await stock_movements.record(initial, kind=kind, actor=actor, at=now)
    return ids


async def create_sku(*, workspace_id: int, **fields: object) -> Sku:
    values, errors = sku_values(workspace_id, fields)
    errors.check()
    [sku_id] = await create_skus(workspace_id, [values])
    row = await Sku.objects().where(Sku.id == sku_id).first()
    assert row is not None  # noqa: S101 - inserted just above
    return row


def _header(fieldnames: Iterable[str] | None) -> dict[str, str]:
    """File column → SKU field; `colour-hex`, `Colour Hex` and `colour_hex` all match."""
    columns = {name: re.sub(r"[\s-]+", "_", name.strip().lower()) for name in fieldnames or []}
    known = set(SKU_COLUMNS) | set(SKU_OPTIONAL_COLUMNS)
    problems = []
    missing = [name for name in SKU_COLUMNS if name not in columns.values()]
    if missing:
        problems.append(f"missing column(s): {', '.join(missing)}")
    unknown = [name for name, field in columns.items() if field not in known]
    if unknown:
        problems.append(
            f"unknown column(s): {', '.join(unknown)} "
            f"(expected {', '.join(SKU_COLUMNS + SKU_OPTIONAL_COLUMNS)})"
        )
    if problems:
        raise InvalidFields({"line 1": problems})
    return columns


def _line_order(item: tuple[str, list[str]]) -> int:
    key = item[0]
    return int(key.removeprefix("line ")) if key.startswith("line ") else 0


async def import_skus(
    workspace_id: int, lines: Iterable[str], *, actor: Actor = OPERATOR
) -> list[int]:
    """Create every SKU of a CSV file (header row first), or none: bad rows are reported by
    line number, together with codes repeated in the file or already in the workspace."""
    await get_workspace(workspace_id)
    reader = csv.DictReader(lines)
    errors = FieldErrors()
    rows: list[dict[str, Any]] = []
    first_seen: dict[str, int] = {}
    try:
        columns = _header(reader.fieldnames)
        for raw in reader:
            line = f"line {reader.line_num}"
            if None in raw or None in raw.values():
                errors.add(line, f"expected {len(columns)} fields")
                continue
            values, row_errors = sku_values(
                workspace_id, {columns[key]: value for key, value in raw.items()}
            )
            for field, messages in row_errors.errors.items():
                for message in messages:
                    errors.add(line, f"{field}: {message}")
            code = values["code"]
            # A refused code (a NUL, say) is not looked up: PostgreSQL would fail on it.
            if "code" not in row_errors.errors and code in first_seen:
                errors.add(line, f"code: {code} repeats line {first_seen[code]}")
            elif "code" not in row_errors.errors:
                first_seen[code] = reader.line_num
            rows.append({**values, "line": reader.line_num})
    except csv.Error as exc:
        errors.add(f"line {reader.line_num}", f"unreadable CSV: {exc}")
    if not rows and not errors.errors:
        errors.add("file", "no SKU rows after the header")
    for code in sorted(await _existing_codes(workspace_id, list(first_seen))):
        errors.add(f"line {first_seen[code]}", f"code: {code} already exists in the workspace")
    if errors.errors:
        raise InvalidFields(dict(sorted(errors.errors.items(), key=_line_order)))
    return await create_skus(
        workspace_id,
        [{k: v for k, v in row.items() if k != "line"} for row in rows],
        kind=MovementKind.IMPORT,
        actor=actor,
    )
