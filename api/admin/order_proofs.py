"""An order's artwork and customer emails in the admin: proofs (upload, view, versions with
the customer's answers), approvals given elsewhere (at checkout, by phone) that staff record,
and the messages sent about the order (status each, resend).

Its two partials, `order/_proofs.html` and `order/_mail.html`, take `order`, `proofs`,
`artwork`, `approvals` and `messages`. The order's page tells the same story in its timeline
(models/orders/timeline.py), each proof a thumbnail served by `proof_file`."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import UploadFile
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, in_words, text
from api.admin.order_forms import Shown
from api.admin.pages import page
from api.admin.security import HEADERS, PREFIX
from api.proofs.render import file_response
from models import artwork, messages, operators, proofs
from models.actors import Actor
from models.errors import InvalidFields, NotFoundError, RuleRefused
from models.tables import Artwork

OrderRef = Annotated[str, PathParameter(description="Order number (ORD-…) or id")]
Version = Annotated[int, PathParameter(description="Proof version")]
MessageId = Annotated[int, PathParameter(description="Customer message id")]
# Bigger bodies get the 413 page, smaller ones over 10 MiB the form's own message.
UPLOAD_BODY_LIMIT = proofs.UPLOAD_BODY_BYTES
# The "Record approval" form: its fields (its note is `approval_note`, the upload form has its
# own `note`) and how refusals name them.
APPROVAL_FIELDS = {"approved_by": "approved_by", "note": "approval_note"}
APPROVAL_LABELS = {"approved_by": "Approved by", "approval_note": "the note"}


class OrderArtworkController(Controller):
    path = "/orders"

    async def _order(self, request: Request[Any, Any, Any], ref: str) -> operators.OrderRef:
        try:
            return await operators.find_order(ref, request.user.workspace_id)
        except RuleRefused as refused:  # not expected within one workspace
            raise NotFoundError(refused.message) from None

    async def _artwork(self, order: operators.OrderRef) -> dict[str, Any]:
        state = await (
            Artwork.select(
                Artwork.status,
                Artwork.version,
                Artwork.approved_at,
                Artwork.approved_by,
                Artwork.approval_source,
                Artwork.approval_note,
            )
            .where(Artwork.order == order.id)
            .first()
        )
        return state or {"status": "awaiting_proof", "version": 0}

    async def _page(
        self,
        request: Request[Any, Any, Any],
        order: operators.OrderRef,
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        message: str = "",
        notice: str = "",
        note: str = "",
        approval: dict[str, str] | None = None,
    ) -> Template:
        workspace_id = request.user.workspace_id
        return page(
            request, "order_artwork.html", status_code=status_code, here="orders",
            title=f"{order.number} · artwork and emails", order=order,
            artwork=await self._artwork(order),
            proofs=await proofs.for_order(workspace_id, order.id),
            approvals=await artwork.recorded_approvals(workspace_id, order.id),
            messages=await messages.for_order(workspace_id, order.id),
            errors=errors or {}, message=message, notice=notice, note=note,
            approval=approval or {}, shown=Shown(request.user.timezone),
        )  # fmt: skip

    @get("/{ref:str}/artwork")
    async def show_artwork(self, request: Request[Any, Any, Any], ref: OrderRef) -> Template:
        order = await self._order(request, ref)
        shown = await flash.take(request)
        return await self._page(request, order, notice=shown.notice)

    @post("/{ref:str}/proofs", status_code=303, request_max_body_size=UPLOAD_BODY_LIMIT)
    async def upload_proof(
        self, request: Request[Any, Any, Any], ref: OrderRef
    ) -> Template | Redirect:
        order = await self._order(request, ref)
        data = await request.form()
        upload = data.get("file")
        note = data.get("note", "")
        note = note if isinstance(note, str) else ""  # a file sent as the note is no note
        try:
            if not isinstance(upload, UploadFile):
                raise InvalidFields({"file": ["Choose a PDF, PNG or JPEG file to upload."]})
            file = proofs.check_file(upload.filename or "", await upload.read(), note)
            version = await artwork.send_proof(
                workspace_id=order.workspace_id,
                order_id=order.id,
                file=file,
                user_id=request.user.user_id,
            )
        except InvalidFields as invalid:
            return await self._page(
                request, order, status_code=422, errors=invalid.errors, note=note
            )
        except RuleRefused as refused:
            return await self._page(
                request, order, status_code=422, message=refused.message, note=note
            )
        sent = await messages.for_order(order.workspace_id, order.id)
        told = (
            "the customer's primary contact will be emailed a link to approve it."
            if sent and sent[-1]["status"] == "queued"
            else "the customer has no primary contact, so nobody was emailed: add one on the "
            "customer's page, then upload again."
        )
        return await flash.redirect(
            request,
            f"{PREFIX}/orders/{order.number}/artwork",
            f"Proof version {version} uploaded; {told}",
        )

    @post("/{ref:str}/artwork/approval", status_code=303)
    async def record_approval(
        self, request: Request[Any, Any, Any], ref: OrderRef
    ) -> Template | Redirect:
        """An approval given elsewhere (at checkout, by phone), recorded by the staff member:
        the same domain function as the API's, so `artwork.approved` is recorded alike."""
        order = await self._order(request, ref)
        fields = await form(request)
        typed = {name: text(fields, field) for name, field in APPROVAL_FIELDS.items()}
        try:
            await artwork.record_approval(
                workspace_id=order.workspace_id,
                order_id=order.id,
                approved_by=typed["approved_by"],
                note=typed["note"],
                actor=Actor.user(request.user.user_id),
            )
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, APPROVAL_LABELS, APPROVAL_FIELDS)
            return await self._page(request, order, status_code=422, errors=errors, approval=typed)
        except RuleRefused as refused:
            return await self._page(
                request, order, status_code=422, message=refused.message, approval=typed
            )
        return await flash.redirect(
            request,
            f"{PREFIX}/orders/{order.number}/artwork",
            f"Approval given by {' '.join(typed['approved_by'].split())} recorded: the artwork "
            "is approved.",
        )

    @get("/{ref:str}/proofs/{version:int}/file")
    async def proof_file(
        self, request: Request[Any, Any, Any], ref: OrderRef, version: Version
    ) -> Response[bytes]:
        order = await self._order(request, ref)
        found = await proofs.file_of(order.workspace_id, order.id, version)
        if found is None:
            raise NotFoundError(f"proof {version}")
        return file_response(found, HEADERS)

    @post("/{ref:str}/messages/{message_id:int}/resend", status_code=303)
    async def resend_message(
        self, request: Request[Any, Any, Any], ref: OrderRef, message_id: MessageId
    ) -> Template | Redirect:
        order = await self._order(request, ref)
        try:
            await messages.resend_message(
                workspace_id=order.workspace_id, order_id=order.id, message_id=message_id
            )
        except RuleRefused as refused:
            return await self._page(request, order, status_code=422, message=refused.message)
        back = "" if (await request.form()).get("back") == "order" else "/artwork"
        return await flash.redirect(
            request,
            f"{PREFIX}/orders/{order.number}{back}",
            "The message is queued again; the worker sends it within moments.",
        )
