"""An order's artwork through the API: upload a proof (multipart/form-data) and record an
approval given elsewhere (at checkout, by phone). Both go through models/artwork.py, as the
admin's artwork page does, and answer the order's artwork as its detail shows it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, post
from litestar.datastructures import UploadFile
from litestar.exceptions import ClientException, HTTPException
from litestar.openapi import ResponseSpec
from litestar.params import Body
from litestar.status_codes import (
    HTTP_200_OK,
    HTTP_201_CREATED,
    HTTP_413_REQUEST_ENTITY_TOO_LARGE,
)

from api.auth import Principal
from api.controllers.orders import WRITE_RESPONSES, OrderId
from api.errors import NotFound, handle_http_exception
from api.idempotency import (
    HEADER,
    REPLAYED_RESPONSE_HEADER,
    IdempotencyKeyHeader,
    Outcome,
    key_errors,
    respond,
)
from api.openapi import ONE_RECORD_RESPONSES, error_response
from api.schemas.artwork import ApprovalRequest, ProofUploadFields, ProofUploadOperation
from api.schemas.common import ErrorBody
from api.validation import StrictBody, parse_form
from models import artwork, proofs
from models.actors import Actor
from models.errors import ErrorCode, InvalidFields
from models.orders import queries
from models.schemas.orders import Artwork, artwork_body

UPLOAD_LIMIT_MIB = proofs.UPLOAD_BODY_BYTES // (1024 * 1024)
TOO_LARGE = f"Request body too large (limit {UPLOAD_LIMIT_MIB} MiB)"
NOT_MULTIPART = "The request body must be multipart/form-data, the proof in its `file` field."
NOT_A_FORM = "The request body is not valid multipart/form-data."

REFUSALS = (
    "422 (reason in `message`, `errors` empty) when the order is dispatched or cancelled: its "
    "artwork can no longer change."
)
UPLOAD_RESPONSES: dict[int, ResponseSpec] = {
    **WRITE_RESPONSES,
    **ONE_RECORD_RESPONSES,
    413: error_response(
        ErrorBody,
        f"Request body larger than {UPLOAD_LIMIT_MIB} MiB",
        {"too large": {"message": TOO_LARGE, "code": ErrorCode.BODY_TOO_LARGE}},
    ),
}
APPROVE_RESPONSES: dict[int, ResponseSpec] = {**WRITE_RESPONSES, **ONE_RECORD_RESPONSES}


def too_large(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    """The upload's 413, in the API's error shape with its own limit."""
    response = handle_http_exception(request, exc)
    response.content = msgspec.structs.replace(response.content, message=TOO_LARGE)
    return response


@dataclass(frozen=True)
class Upload:
    """A proof upload that passed every check."""

    file: proofs.ProofFile
    notify: bool
    meaning: bytes  # what the request says, as JSON, for Idempotency-Key (its file by digest)


async def read_upload(request: Request[Any, Any, Any]) -> Upload:
    """The multipart form as an Upload, or one InvalidFields naming every problem: a field it
    does not have, a missing or unreadable file, a notify that is not true or false, and the
    Idempotency-Key header's."""
    await request.body()  # whole, whatever its type: past the limit it is a 413, never read
    errors: dict[str, list[str]] = {}
    if problems := key_errors(request.headers.get(HEADER)):
        errors[HEADER] = problems
    content_type, _ = request.content_type
    if content_type != "multipart/form-data":
        raise InvalidFields({"body": [NOT_MULTIPART], **errors})
    try:
        form = await request.form()
    except ClientException as refused:  # a malformed body; a too large one stays a 413
        if refused.status_code == HTTP_413_REQUEST_ENTITY_TOO_LARGE:
            raise
        raise InvalidFields({"body": [NOT_A_FORM], **errors}) from None
    except (UnicodeDecodeError, LookupError):  # a text part not in UTF-8, an unknown charset
        raise InvalidFields({"body": [NOT_A_FORM], **errors}) from None
    notify = True
    try:
        notify = parse_form(form, ProofUploadFields, files=("file",)).notify
    except InvalidFields as invalid:
        errors.update(invalid.errors)
    files = form.getall("file") if "file" in form else []
    file = None
    if not files:
        errors["file"] = ["The file field is required: the proof, a PDF, PNG or JPEG file."]
    elif len(files) > 1 or not isinstance(files[0], UploadFile):
        errors["file"] = ["The file field must be one file (a part with a file name)."]
    else:
        upload = files[0]
        try:
            file = proofs.check_file(upload.filename or "", await upload.read())
        except InvalidFields as invalid:
            errors.update(invalid.errors)
    if errors or file is None:
        raise InvalidFields(errors)
    meaning = msgspec.json.encode(
        {
            "file": {"name": file.file_name, "sha256": hashlib.sha256(file.data).hexdigest()},
            "notify": notify,
        }
    )
    return Upload(file=file, notify=notify, meaning=meaning)


async def _artwork_outcome(principal: Principal, order_id: int, status: int) -> Outcome:
    """The order's artwork as bytes, read inside the write's transaction (so a replay of it is
    exactly what the first caller saw)."""
    found = await queries.get_artwork(principal.workspace_id, order_id)
    if found is None:
        raise NotFound("Order not found")
    row, proof_rows = found
    return Outcome(status=status, body=msgspec.json.encode(artwork_body(row, proof_rows)))


class ArtworkController(Controller):
    path = "/orders"
    tags = ["Orders"]

    @post(
        "/{order_id:int}/proofs",
        summary="Upload a proof of an order's artwork (multipart/form-data)",
        description=(
            "Extension. The proof becomes the order's next artwork version, awaiting the "
            "customer's approval (an earlier approval, of any version, no longer counts). "
            "Unless `notify` is `false`, the customer's primary contact is emailed a link to "
            "approve it or ask for changes. Answers 201 with the order's artwork, the new "
            "proof last in `proofs`. A file that is empty, over 10 MiB or not a PDF, PNG or "
            "JPEG answers 422 with `errors.file`; a body over "
            f"{UPLOAD_LIMIT_MIB} MiB answers 413. " + REFUSALS
        ),
        status_code=HTTP_201_CREATED,
        response_description="The order's artwork, the new proof last in `proofs`",
        request_max_body_size=proofs.UPLOAD_BODY_BYTES,
        responses=UPLOAD_RESPONSES,
        response_headers=[REPLAYED_RESPONSE_HEADER],
        operation_class=ProofUploadOperation,
        exception_handlers={HTTP_413_REQUEST_ENTITY_TOO_LARGE: too_large},
    )
    async def upload_proof(
        self,
        request: Request[Principal, int, Any],
        order_id: OrderId,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[Artwork]:
        upload = await read_upload(request)
        principal = request.user

        async def send() -> Outcome:
            await artwork.send_proof(
                workspace_id=principal.workspace_id,
                order_id=order_id,
                file=upload.file,
                user_id=principal.user_id,
                notify=upload.notify,
            )
            return await _artwork_outcome(principal, order_id, HTTP_201_CREATED)

        return await respond(request, idempotency_key, send, body=upload.meaning)

    @post(
        "/{order_id:int}/artwork/approve",
        summary="Record an approval of an order's artwork given elsewhere",
        description=(
            "Extension. For an approval the customer gave outside the proof page: at "
            "checkout, on the phone, by email. The artwork becomes `approved` and "
            "`artwork.approved` is sent exactly as for the customer's own approval on the "
            "proof page, its `artwork_version` the current version (0 before any proof). "
            "Allowed before any proof, for a proof awaiting approval, and over the "
            "customer's request for changes (the current version is approved as it is); "
            "an artwork already approved answers 422. A proof uploaded afterwards starts a "
            "new version that needs approving again. Answers 200 with the order's artwork. "
            + REFUSALS
        ),
        status_code=HTTP_200_OK,
        responses=APPROVE_RESPONSES,
        response_headers=[REPLAYED_RESPONSE_HEADER],
        dto=StrictBody[ApprovalRequest],
        return_dto=None,
    )
    async def record_approval(
        self,
        request: Request[Principal, int, Any],
        order_id: OrderId,
        data: Annotated[
            ApprovalRequest,
            Body(
                description=(
                    "Who approved and, optionally, how. Types are strict; every failing "
                    "field is reported in `errors`, and a field not listed here too."
                )
            ),
        ],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[Artwork]:
        principal = request.user

        async def approve() -> Outcome:
            await artwork.record_approval(
                workspace_id=principal.workspace_id,
                order_id=order_id,
                approved_by=data.approved_by,
                note=data.note or "",
                actor=Actor.token(principal.token_id, principal.user_id),
            )
            return await _artwork_outcome(principal, order_id, HTTP_200_OK)

        return await respond(request, idempotency_key, approve)
