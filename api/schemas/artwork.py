"""The artwork endpoints' request bodies: a recorded approval (JSON, decoded by StrictBody) and
a proof upload (multipart/form-data, read by api/controllers/artwork.py; its OpenAPI request
body is written here). Both answer the order's `Artwork` (models/schemas/orders.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import msgspec
from litestar.openapi.spec import (
    Encoding,
    OpenAPIFormat,
    OpenAPIMediaType,
    OpenAPIType,
    Operation,
    RequestBody,
    Schema,
)

from api.validation import TextFormat
from models import artwork, proofs
from models.field_rules import MULTI_LINE, NOT_BLANK
from models.structs import Input


class ApprovalRequest(Input):
    """`POST /orders/{id}/artwork/approve`: an approval given elsewhere (at checkout, by
    phone, by email), recorded."""

    noun: ClassVar[str] = "an artwork approval"

    approved_by: Annotated[
        str,
        msgspec.Meta(
            max_length=artwork.MAX_APPROVED_BY,
            pattern=NOT_BLANK,
            description="Who approved: the customer's name as they gave it. One line, not "
            "blank; runs of spaces and tabs become one space",
        ),
    ]
    note: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=artwork.MAX_APPROVAL_NOTE,
                pattern=MULTI_LINE,
                description="How and where it was given (e.g. `Approved at checkout, "
                "storefront order 10442`); line breaks allowed",
            ),
        ]
        | None
    ) = None


TRUE_FALSE = {"true": True, "false": False}


def _true_or_false(text: str) -> bool:
    if text not in TRUE_FALSE:
        raise ValueError(text)
    return TRUE_FALSE[text]


class ProofUploadFields(Input):
    """The text fields of a proof upload (its `file` part is read beside them), read by
    api.validation.parse_form."""

    noun: ClassVar[str] = "a proof upload"

    notify: Annotated[
        bool, msgspec.Meta(extra={"rule": TextFormat(_true_or_false, "true or false")})
    ] = True


@dataclass
class ProofUploadOperation(Operation):
    """The upload's OpenAPI operation with its multipart/form-data request body (the handler
    reads the form itself, so Litestar has no `data` to describe)."""

    def __post_init__(self) -> None:
        form = Schema(
            type=OpenAPIType.OBJECT,
            required=["file"],
            properties={
                "file": Schema(
                    type=OpenAPIType.STRING,
                    format=OpenAPIFormat.BINARY,
                    description=(
                        "The proof: a PDF, PNG or JPEG (told by its first bytes, whatever its "
                        f"name or part's Content-Type), 1 byte to {proofs.MAX_BYTES // 2**20} "
                        "MiB. Its file name is kept (made safe, with the extension of what the "
                        "file is)"
                    ),
                ),
                "notify": Schema(
                    type=OpenAPIType.STRING,
                    enum=list(TRUE_FALSE),
                    default="true",
                    description=(
                        "`true`: email the customer's primary contact a link to approve the "
                        "proof or ask for changes. `false`: keep the email back (the customer "
                        "sees the proof elsewhere; record their approval with "
                        "`POST /orders/{id}/artwork/approve`)"
                    ),
                ),
            },
        )
        self.request_body = RequestBody(
            required=True,
            description=(
                "multipart/form-data with the fields below and no others (another field "
                "answers 422 naming it)."
            ),
            content={
                "multipart/form-data": OpenAPIMediaType(
                    schema=form,
                    encoding={
                        "file": Encoding(content_type="application/pdf, image/png, image/jpeg")
                    },
                )
            },
        )
