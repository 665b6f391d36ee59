"""`GET /me`: the token's user and workspace, a connectivity check."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get

from api.auth import Principal
from api.openapi import COMMON_RESPONSES
from api.schemas.users import User, user_body


class MeController(Controller):
    path = "/me"
    tags = ["Users"]

    @get(summary="The authenticated user and their workspace", responses=COMMON_RESPONSES)
    async def get_me(self, request: Request[Principal, int, Any]) -> User:
        return user_body(request.user)
