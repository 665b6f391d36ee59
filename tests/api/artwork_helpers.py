"""Requests to the artwork endpoints: a proof upload as multipart/form-data, a recorded
approval as JSON."""

from __future__ import annotations

from typing import Any

import httpx

from tests.proofs.files import png


async def upload(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    order_id: int,
    content: bytes | None = None,
    name: str = "front.png",
    *,
    data: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    """POST the file (a PNG unless given) with the form fields `data`."""
    return await client.post(
        f"/api/v1/orders/{order_id}/proofs",
        data=data or {},
        files={"file": (name, png() if content is None else content, "application/octet-stream")},
        headers={**auth, **(headers or {})},
    )


async def approve(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    order_id: int,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    return await client.post(
        f"/api/v1/orders/{order_id}/artwork/approve",
        json={"approved_by": "Dana Reyes"} if body is None else body,
        headers={**auth, **(headers or {})},
    )
