"""`pressline pricing export|import --workspace N FILE`: a workspace's price list as the JSON
document `GET /api/v1/pricing` answers (`-`: standard output or input). An import is checked
as `PUT /api/v1/pricing` checks its body (a field the document does not have is refused; the
rules between fields, `PricingDocument.check`) and replaces the whole price list, or changes
nothing and names each problem by its dot path."""

from __future__ import annotations

import re
import sys
from typing import Any

import click
import msgspec

from cli.output import CommandError, Result, command
from models.errors import InvalidFields
from models.orders.items import Method
from models.pricing import document as price_document
from models.pricing import store
from models.pricing.document import PricingDocument

_DECODER = msgspec.json.Decoder(PricingDocument)
# msgspec's refusal: "Expected `int` >= 1 - at `$.matrices[0].rows[1].min_quantity`".
_AT = re.compile(r"(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?", re.DOTALL)
_INDEX = re.compile(r"\[(\d+)\]")
_FIELD = re.compile(r"Object (?P<what>contains unknown|missing required) field `(?P<name>[^`]*)`")


@click.group()
def pricing() -> None:
    """The workspace's price list (the admin's Settings → Pricing, GET/PUT /api/v1/pricing)."""


def _facts(document: PricingDocument) -> dict[str, int]:
    return {
        "matrices": len(document.matrices),
        "setups": sum(document.setups.rule(method) is not None for method in Method),
        "garment_markups": len(document.garment_markups),
        "size_upcharges": len(document.size_upcharges_cents),
    }


def _described(facts: dict[str, int]) -> str:
    return (
        f"{facts['matrices']} matrices, {facts['setups']} setups, "
        f"{facts['garment_markups']} markup rows, {facts['size_upcharges']} size upcharges"
    )


@command(pricing, "export")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.argument("file", metavar="FILE")
async def export(workspace: int, file: str) -> Result:
    """Write the price list to FILE as GET /api/v1/pricing answers it (the same bytes).
    FILE: a path, or `-` for standard output (the document followed by a newline, with or
    without --json)."""
    document = await store.read(workspace)
    body = price_document.encode(document)
    if file == "-":
        return Result(body.decode(), None, verbatim=True)
    try:
        with open(file, "wb") as target:  # noqa: ASYNC230 - one small file
            target.write(body)
    except OSError as exc:
        raise CommandError(f"cannot write {file}: {exc.strerror}") from None
    facts = _facts(document)
    return Result(
        f"exported the price list of workspace {workspace} to {file} ({_described(facts)})",
        {"workspace_id": workspace, "file": file, "bytes": len(body), **facts},
    )


def _read(file: str) -> bytes:
    if file == "-":
        return sys.stdin.read().encode("utf-8", "surrogateescape")
    try:
        with open(file, "rb") as source:
            return source.read()
    except OSError as exc:
        raise CommandError(f"cannot read {file}: {exc.strerror}") from None


def refusal(error: msgspec.DecodeError) -> InvalidFields:
    """msgspec's one refusal keyed by its dot path, as the API keys its own
    (`matrices.0.rows.1.min_quantity`); one about the whole document, or a file that is not
    JSON, under `file`."""
    if not isinstance(error, msgspec.ValidationError):  # not JSON at all
        return InvalidFields({"file": [f"is not a JSON price list: {error}"]})
    found = _AT.fullmatch(str(error))
    message, at = (found["message"], found["path"] or "") if found else (str(error), "")
    path = _INDEX.sub(r".\1", at).strip(".")
    if field := _FIELD.fullmatch(message):
        path = f"{path}.{field['name']}".strip(".")
        unknown = field["what"] == "contains unknown"
        message = "is not a field of the price list" if unknown else "is required"
    return InvalidFields({path or "file": [message]})


@command(pricing, "import")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.argument("file", metavar="FILE")
async def import_file(workspace: int, file: str) -> Result:
    """Replace the price list with the JSON document in FILE (as PUT /api/v1/pricing takes
    it), checked first: on any problem each is printed as `path: message`, the exit status
    is 1 and nothing changes. FILE: a path, or `-` for standard input."""
    raw = _read(file).removeprefix(b"\xef\xbb\xbf")  # a byte-order mark some editors write
    try:
        document = _DECODER.decode(raw)
    except msgspec.DecodeError as error:  # ValidationError too
        raise refusal(error) from None
    saved = await store.replace(workspace, document)  # PricingDocument.check first
    facts = _facts(saved)
    data: dict[str, Any] = {"workspace_id": workspace, **facts}
    return Result(f"imported the price list of workspace {workspace} ({_described(facts)})", data)
