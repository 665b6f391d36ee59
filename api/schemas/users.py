"""The authenticated user (`GET /me`)."""

from api.schemas.common import Schema


class User(Schema):
    id: int
    name: str
    email: str
