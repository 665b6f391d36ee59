"""GET /api/v1/me: the token's own user, nothing else."""

from tests import factories


async def test_me_returns_exactly_the_tokens_user(client):
    ws, u, auth = await factories.account()
    await factories.user(ws, name="Someone Else", email="else@example.com")

    response = await client.get("/api/v1/me", headers=auth)

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {"id": u.id, "name": u.name, "email": u.email}


async def test_me_follows_the_token_not_the_workspace(client):
    ws, _, _ = await factories.account()
    other = await factories.user(ws, name="Ada Lovelace", email="ada@example.com")

    response = await client.get("/api/v1/me", headers=await factories.headers(other))

    assert response.json() == {"id": other.id, "name": "Ada Lovelace", "email": "ada@example.com"}
