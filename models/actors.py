"""Who did something: a staff member in the admin, an API token, or an operator at a shell.

Stage history and stock movements record an Actor so every change can be explained.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec


class ActorKind(StrEnum):
    USER = "user"  # a staff member, in the admin
    TOKEN = "token"  # noqa: S105  an integration, through the API
    OPERATOR = "operator"  # `pressline` at a shell, or the demo


class Actor(msgspec.Struct, frozen=True):
    kind: ActorKind
    user_id: int | None = None  # the staff member, or the token's owner
    token_id: int | None = None

    @classmethod
    def user(cls, user_id: int) -> Actor:
        return cls(ActorKind.USER, user_id=user_id)

    @classmethod
    def token(cls, token_id: int, user_id: int) -> Actor:
        return cls(ActorKind.TOKEN, user_id=user_id, token_id=token_id)


OPERATOR = Actor(ActorKind.OPERATOR)
