"""Bearer-token auth through HTTP, in the check order 401 → 403 → 422 (docs/api.md §2.2 and §5)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from models import clock
from models.tables import ApiToken, User, Workspace
from models.tokens import digest
from tests import factories

MISSING = "Missing bearer token: send 'Authorization: Bearer <token>'"
MALFORMED = "Malformed Authorization header: expected 'Bearer <token>'"
PLAN_REFUSED = re.compile(
    r"^The workspace's plan \((starter|standard)\) does not include API access"
)


def _assert_401(response, message):
    assert response.status_code == 401, response.text
    assert response.json() == {"message": message, "code": "unauthenticated", "details": {}}
    assert response.headers["www-authenticate"] == "Bearer"


async def _revoke(auth):
    token = auth["Authorization"].removeprefix("Bearer ")
    await ApiToken.update({ApiToken.revoked_at: clock.now()}).where(
        ApiToken.digest == digest(token)
    )


async def _deactivate(u):
    await User.update({User.is_active: False, User.deactivated_at: clock.now()}).where(
        User.id == u.id
    )


async def test_missing_header_is_401(client):
    _assert_401(await client.get("/api/v1/me"), MISSING)


async def test_malformed_header_is_401(client):
    for header in (
        "Bearer",
        "Bearer    ",
        "Token abc",
        "Basic dXNlcjpwYXNz",
        "plk_abc",
        "Bearerplk_x",
    ):
        response = await client.get("/api/v1/me", headers={"Authorization": header})
        _assert_401(response, MALFORMED)


async def test_unknown_token_is_401(client):
    for token in (b"plk_nope", b"x", b"plk_" + b"A" * 5000, b"Bearer plk_x", b"plk_\xe9\xff"):
        response = await client.get("/api/v1/me", headers={"Authorization": b"Bearer " + token})
        _assert_401(response, "Invalid token")


async def test_scheme_is_case_insensitive(client):
    _, u, _ = await factories.account()
    token = await factories.token(u)

    response = await client.get("/api/v1/me", headers={"Authorization": f"bearer {token}"})

    assert response.status_code == 200


async def test_token_format(client):
    _, u, _ = await factories.account()
    token = await factories.token(u)
    stored = await ApiToken.select().where(ApiToken.user == u.id).first()

    assert re.fullmatch(r"plk_[A-Za-z0-9_-]{43}", token)  # 256 random bits
    assert token not in str(stored)


async def test_expired_token_is_401(client):
    _, u, _ = await factories.account()
    expired = await factories.headers(u, expires_at=clock.now() - dt.timedelta(seconds=1))

    _assert_401(await client.get("/api/v1/me", headers=expired), "Token expired")


async def test_token_valid_until_its_expiry(client):
    _, u, _ = await factories.account()
    soon = await factories.headers(u, expires_at=clock.now() + dt.timedelta(minutes=1))

    assert (await client.get("/api/v1/me", headers=soon)).status_code == 200


async def test_default_lifetime_is_365_days(client):
    _, u, _ = await factories.account()
    await factories.token(u)
    row = await ApiToken.select(ApiToken.created_at, ApiToken.expires_at).first()

    assert row["expires_at"] - row["created_at"] == pytest.approx(
        dt.timedelta(days=365), abs=dt.timedelta(seconds=1)
    )


async def test_revocation_takes_effect_on_the_next_request(client):
    _, _, auth = await factories.account()
    assert (await client.get("/api/v1/me", headers=auth)).status_code == 200

    await _revoke(auth)

    _assert_401(await client.get("/api/v1/me", headers=auth), "Token revoked")


async def test_revoking_one_token_leaves_the_users_others(client):
    _, u, auth = await factories.account()
    other = await factories.headers(u)

    await _revoke(auth)

    assert (await client.get("/api/v1/me", headers=other)).status_code == 200


async def test_deactivated_user_is_403_at_once_and_back_when_reactivated(client):
    _, u, auth = await factories.account()
    assert (await client.get("/api/v1/me", headers=auth)).status_code == 200

    await _deactivate(u)
    refused = await client.get("/api/v1/me", headers=auth)
    await User.update({User.is_active: True}).where(User.id == u.id)
    back = await client.get("/api/v1/me", headers=auth)

    assert refused.status_code == 403
    assert refused.json() == {"message": "User is deactivated", "code": "forbidden", "details": {}}
    assert back.status_code == 200


@pytest.mark.parametrize("plan", ["starter", "standard"])
async def test_plans_without_api_are_422(client, plan):
    _, _, auth = await factories.account(plan=plan)

    response = await client.get("/api/v1/me", headers=auth)

    assert response.status_code == 422
    body = response.json()
    assert PLAN_REFUSED.match(body["message"]) and f"({plan})" in body["message"]
    assert body["errors"] == {}


@pytest.mark.parametrize("plan", ["premium", "enterprise"])
async def test_plans_with_api_are_allowed(client, plan):
    _, _, auth = await factories.account(plan=plan)

    assert (await client.get("/api/v1/me", headers=auth)).status_code == 200


TRIALS = [
    # paid plan, days until the trial ends (negative: ended), status
    ("starter", 7, 200),  # an active trial counts as premium
    ("standard", 1, 200),
    ("starter", -1, 422),  # ended: back to the paid plan
    ("standard", -30, 422),
    ("enterprise", -1, 200),  # an ended trial never lowers a paid plan
    ("premium", -1, 200),
]


async def test_trials(client):
    for plan, trial_days, status in TRIALS:
        ends = clock.now() + dt.timedelta(days=trial_days)
        _, _, auth = await factories.account(plan=plan, trial_ends_at=ends)
        response = await client.get("/api/v1/me", headers=auth)
        assert response.status_code == status, (plan, trial_days)


async def test_downgrade_stops_existing_tokens_at_once(client):
    ws, _, auth = await factories.account(plan="premium")
    assert (await client.get("/api/v1/me", headers=auth)).status_code == 200

    await Workspace.update({Workspace.plan: "standard"}).where(Workspace.id == ws.id)

    assert (await client.get("/api/v1/me", headers=auth)).status_code == 422


# --- check order -----------------------------------------------------------------------------


async def test_deactivated_user_on_a_plan_without_api_is_403_not_422(client):
    _, u, auth = await factories.account(plan="starter")
    await _deactivate(u)

    assert (await client.get("/api/v1/me", headers=auth)).status_code == 403


async def test_revoked_token_of_a_deactivated_user_is_401(client):
    _, u, auth = await factories.account(plan="starter")
    await _deactivate(u)
    await _revoke(auth)

    _assert_401(await client.get("/api/v1/me", headers=auth), "Token revoked")


async def test_expired_token_of_a_deactivated_user_is_401(client):
    _, u, _ = await factories.account(plan="starter")
    expired = await factories.headers(u, expires_at=clock.now() - dt.timedelta(days=1))
    await _deactivate(u)

    _assert_401(await client.get("/api/v1/me", headers=expired), "Token expired")


async def test_revoked_and_expired_token_says_revoked(client):
    _, u, _ = await factories.account()
    auth = await factories.headers(u, expires_at=clock.now() - dt.timedelta(days=1))
    await _revoke(auth)

    _assert_401(await client.get("/api/v1/me", headers=auth), "Token revoked")


async def test_auth_comes_before_parameter_validation(client):
    response = await client.get("/api/v1/orders", params={"page": "0", "stage": "bogus"})

    _assert_401(response, MISSING)


async def test_auth_comes_before_not_found(client):
    _, u, auth = await factories.account(plan="standard")

    assert (await client.get("/api/v1/orders/999999")).status_code == 401
    assert (await client.get("/api/v1/orders/999999", headers=auth)).status_code == 422
    await _deactivate(u)
    assert (await client.get("/api/v1/orders/999999", headers=auth)).status_code == 403


async def test_every_api_route_requires_a_token(client, app):
    _, _, _ = await factories.account()
    checked = 0
    for route in app.routes:
        if not route.path.startswith("/api/v1"):
            continue
        for method in sorted(set(route.methods) - {"OPTIONS", "HEAD"}):
            path = re.sub(r"\{[^}]+\}", "1", route.path)
            response = await client.request(method, path, json={})
            assert response.status_code == 401, (method, path, response.text)
            assert response.headers["www-authenticate"] == "Bearer"
            checked += 1
    assert checked >= 6
