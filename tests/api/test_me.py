"""GET /api/v1/me: the token's own user and the settings of its workspace, nothing else."""

from decimal import Decimal

from tests import factories


def _workspace(ws, **shown):
    return {
        "id": ws.id,
        "name": ws.name,
        "currency": "GBP",
        "tax_rate": "20.00",
        "time_zone": "Europe/London",
        "require_artwork_approval": False,
        "prices_include_tax": False,
        **shown,
    }


async def test_me_returns_exactly_the_tokens_user(client):
    ws, u, auth = await factories.account()
    await factories.user(ws, name="Someone Else", email="else@example.com")

    response = await client.get("/api/v1/me", headers=auth)

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {
        "id": u.id,
        "name": u.name,
        "email": u.email,
        "workspace": _workspace(ws),
    }


async def test_me_follows_the_token_not_the_workspace(client):
    ws, _, _ = await factories.account()
    other = await factories.user(ws, name="Ada Lovelace", email="ada@example.com")

    response = await client.get("/api/v1/me", headers=await factories.headers(other))

    assert response.json() == {
        "id": other.id,
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "workspace": _workspace(ws),
    }


async def test_me_shows_the_workspace_settings_as_stored(client):
    ws, _, auth = await factories.account(
        name="Ink & Thread",
        currency="EUR",
        tax_rate=Decimal("7.5"),
        timezone="America/New_York",
        require_artwork_approval=True,
    )
    await factories.account(name="Someone Else's Shop", currency="USD")

    workspace = (await client.get("/api/v1/me", headers=auth)).json()["workspace"]

    assert workspace == {
        "id": ws.id,
        "name": "Ink & Thread",
        "currency": "EUR",
        "tax_rate": "7.50",
        "time_zone": "America/New_York",
        "require_artwork_approval": True,
        "prices_include_tax": False,  # no such setting yet: prices are tax-exclusive
    }


async def test_me_shows_a_zero_tax_rate_with_two_places(client):
    _, _, auth = await factories.account(tax_rate=Decimal("0"))

    workspace = (await client.get("/api/v1/me", headers=auth)).json()["workspace"]

    assert workspace["tax_rate"] == "0.00"
