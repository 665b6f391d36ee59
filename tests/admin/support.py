"""Admin test helpers: users with passwords, logging in through the real form, CSRF tokens
read from the page like a browser would."""

from __future__ import annotations

import re
from typing import Any

import httpx

from models import passwords
from models.tables import User, Workspace
from tests import factories

PASSWORD = "correct horse battery staple"
_CSRF = re.compile(r'name="_csrf_token" value="([^"]+)"')


async def member(ws: Workspace, *, role: str = "owner", **fields: Any) -> User:
    """A user of `ws` who can log in with PASSWORD."""
    return await factories.user(
        ws, role=role, password_hash=passwords.hash_password(PASSWORD), **fields
    )


def csrf_of(page: httpx.Response) -> str:
    found = _CSRF.search(page.text)
    assert found, f"no CSRF field on {page.request.url}"
    return found.group(1)


async def log_in(client: httpx.AsyncClient, email: str, password: str = PASSWORD) -> httpx.Response:
    form = await client.get("/admin/login")
    return await client.post(
        "/admin/login",
        data={"email": email, "password": password, "_csrf_token": csrf_of(form)},
    )


async def post_form(
    client: httpx.AsyncClient, page: str, action: str, data: dict[str, Any] | None = None
) -> httpx.Response:
    """Open `page`, then submit `data` to `action` with that page's CSRF token."""
    opened = await client.get(page)
    assert opened.status_code == 200, (page, opened.status_code)
    return await client.post(action, data={**(data or {}), "_csrf_token": csrf_of(opened)})


async def statement_count(client: httpx.AsyncClient, statements: list[str], path: str) -> int:
    """The SQL statements one GET of `path` sends (`statements`: the fixture's list). The page
    is asked once before: the session's last use is written at most once a minute, and that
    write is not the page's cost."""
    await client.get(path)
    statements.clear()
    answer = await client.get(path)
    assert answer.status_code == 200, (path, answer.status_code)
    return len(statements)


async def subscription(
    ws: Workspace, url: str = "https://hooks.example.com/in", **fields: Any
) -> int:
    from models.webhooks import subscriptions

    row, _ = await subscriptions.create(ws.id, url, fields.pop("events", "*"), **fields)
    return int(row["id"])


async def delivery(
    ws: Workspace,
    subscription_id: int,
    *,
    status: str = "failed",
    body: str = '{"event": "order.stage_changed", "order_number": "ORD-2026-0001"}',
    response_body: str = "",
    response_headers: str = "{}",
    status_code: int | None = 500,
    error: str | None = None,
) -> int:
    """An event, its delivery to the subscription and one recorded attempt."""
    import uuid

    from models import clock
    from models.tables import WebhookAttempt, WebhookDelivery, WebhookEvent

    event = WebhookEvent(
        workspace=ws.id, event_id=str(uuid.uuid4()), name="order.stage_changed", body=body
    )
    await event.save()
    row = WebhookDelivery(
        workspace=ws.id, event=event.id, subscription=subscription_id, status=status, attempts=1,
        last_status_code=status_code, last_error=error,
    )  # fmt: skip
    await row.save()
    await WebhookAttempt(
        delivery=row.id, number=1, started_at=clock.now(), duration_ms=12, status_code=status_code,
        error=error, response_headers=response_headers, response_body=response_body,
        response_length=len(response_body.encode("utf-8", "surrogateescape")),
    ).save()  # fmt: skip
    return int(row.id)
