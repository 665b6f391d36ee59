"""`/proofs/{token}`: the proof, and the customer's approve / request-changes forms (§15)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, Router, get, post
from litestar.exceptions import ClientException
from litestar.params import PathParameter

from api.admin.forms import form, text
from api.admin.login import client_address
from api.proofs.render import HERE, PAGE_HEADERS, csrf_ok, csrf_token, file_response, html
from models import admin_sessions, clock, proof_answers, proofs
from models.errors import InvalidFields
from models.proofs import Link, LinkState

Token = Annotated[str, PathParameter(description="The link's token, as emailed")]
CSS = (HERE / "templates" / "proof.css").read_bytes()


def _not_found() -> Response[str]:
    return html("missing.html", status_code=404)


async def _page(
    token: str,
    link: Link,
    *,
    status_code: int = 200,
    errors: dict[str, list[str]] | None = None,
    typed: dict[str, str] | None = None,
) -> Response[str]:
    return html(
        "proof.html",
        status_code=status_code,
        link=link,
        token=token,
        csrf=csrf_token(await admin_sessions.csrf_key(), token),
        errors=errors or {},
        typed={"name": "", "comment": "", **(typed or {})},
        State=LinkState,
    )


@get("/assets/proof.css", include_in_schema=False)
async def stylesheet() -> Response[bytes]:
    return Response(
        content=CSS,
        media_type="text/css",
        headers={**PAGE_HEADERS, "Cache-Control": "public, max-age=3600"},
    )


@get("/{token:str}", include_in_schema=False)
async def show_proof(token: Token) -> Response[str]:
    link = await proofs.find_link(token, clock.now())
    if link is None:
        return _not_found()
    return await _page(token, link)


@get("/{token:str}/file", include_in_schema=False)
async def proof_file(token: Token) -> Response[Any]:
    found = await proofs.link_file(token, clock.now())
    if found is None:
        return _not_found()
    return file_response(found, PAGE_HEADERS)


async def _answer(request: Request[Any, Any, Any], token: str, kind: str) -> Response[str]:
    try:
        fields = await form(request)
    except ClientException as unreadable:  # not UTF-8, or too many fields: the customer's page
        return html("refused.html", status_code=400, token=token, reason=unreadable.detail)
    link = await proofs.find_link(token, clock.now())
    if link is None:
        return _not_found()
    key = await admin_sessions.csrf_key()
    if not csrf_ok(key, token, text(fields, "_csrf")):
        return html("refused.html", status_code=403, token=token)
    typed = {"name": text(fields, "name"), "comment": text(fields, "comment")}
    try:
        if kind == "approve":
            done, link_now = await proof_answers.approve(
                token, name=typed["name"], address=client_address(request)
            )
        else:
            done, link_now = await proof_answers.request_changes(
                token, comment=typed["comment"], name=typed["name"], address=client_address(request)
            )
    except InvalidFields as invalid:
        return await _page(token, link, status_code=422, errors=invalid.errors, typed=typed)
    except proof_answers.UnknownLink:
        return _not_found()
    if not done:  # a stale link changes nothing: the page says why
        return await _page(token, link_now, status_code=409)
    return Response(
        content="", status_code=303, headers={**PAGE_HEADERS, "Location": f"/proofs/{token}"}
    )


@post("/{token:str}/approve", include_in_schema=False, status_code=303)
async def approve_proof(request: Request[Any, Any, Any], token: Token) -> Response[str]:
    return await _answer(request, token, "approve")


@post("/{token:str}/changes", include_in_schema=False, status_code=303)
async def request_changes(request: Request[Any, Any, Any], token: Token) -> Response[str]:
    return await _answer(request, token, "changes")


def proofs_router() -> Router:
    return Router(
        path="/proofs",
        route_handlers=[stylesheet, show_proof, proof_file, approve_proof, request_changes],
        include_in_schema=False,
    )
