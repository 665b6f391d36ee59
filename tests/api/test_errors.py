"""Error shapes through HTTP: 404, 405, 413, 422, and malformed input never a 500."""

from __future__ import annotations

import pytest

from tests import factories


async def test_unknown_route_is_404_with_a_message(client):
    _, _, auth = await factories.account()

    for path in ("/api/v1/nope", "/api/v2/orders", "/nope", "/api/v1/orders/1/lines"):
        response = await client.get(path, headers=auth)
        assert response.status_code == 404, path
        assert response.json() == {"message": "Not found", "code": "not_found", "details": {}}


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/api/v1/orders/1", "GET"),
        ("PUT", "/api/v1/me", "GET"),
        ("PUT", "/api/v1/customers", "POST"),
        ("PATCH", "/api/v1/inventory", "GET"),
        ("DELETE", "/api/v1/customers/1", "GET"),
    ],
)
async def test_wrong_method_is_405_with_allow(client, method, path, allowed):
    _, _, auth = await factories.account()

    response = await client.request(method, path, headers=auth)

    assert response.status_code == 405
    assert response.json() == {
        "message": "Method not allowed",
        "code": "method_not_allowed",
        "details": {},
    }
    assert allowed in response.headers["allow"]


IMPOSSIBLE_IDS = [
    "0",
    "-1",
    "99999999999999999999",
    "2147483648",
    "9" * 400,
    "ORD-2026-0001",
    "1e3",
    "1.0",
    "abc",
    "%20",
    "0x10",
    "%00",
]


@pytest.mark.parametrize("resource", ["orders", "customers"])
async def test_impossible_ids_are_404(client, resource):
    _, _, auth = await factories.account()

    for raw_id in IMPOSSIBLE_IDS:
        response = await client.get(f"/api/v1/{resource}/{raw_id}", headers=auth)
        assert response.status_code == 404, (raw_id, response.text)
        body = response.json()
        assert set(body) == {"message", "code", "details"}, raw_id
        assert (body["code"], body["details"]) == ("not_found", {}), raw_id


async def test_body_over_one_mebibyte_is_413(client):
    _, _, auth = await factories.account()
    body = b'{"customer_id": 1, "notes": "' + b"x" * (2 * 1024 * 1024) + b'"}'

    response = await client.post(
        "/api/v1/orders",
        content=body,
        headers={**auth, "Content-Type": "application/json"},
    )

    assert response.status_code == 413
    assert response.json() == {
        "message": "Request body too large (limit 1 MiB)",
        "code": "body_too_large",
        "details": {},
    }


INVALID_PARAMETERS = [
    ("/api/v1/orders", {"page": "0"}, "page"),
    ("/api/v1/orders", {"stage": "bogus"}, "stage"),
    ("/api/v1/orders", {"updated_since": "yesterday"}, "updated_since"),
    ("/api/v1/customers", {"page": "x"}, "page"),
    ("/api/v1/customers", {"updated_since": "2026-13-01"}, "updated_since"),
    ("/api/v1/inventory", {"low": "maybe"}, "low"),
    ("/api/v1/inventory", {"updated_since": "9999-12-31T23:59:59-23:59"}, "updated_since"),
    ("/api/v1/inventory", {"updated_since": "0001-01-01T00:00:00+01:00"}, "updated_since"),
]


async def test_invalid_parameters_are_422_naming_the_field(client):
    _, _, auth = await factories.account()

    for path, params, field in INVALID_PARAMETERS:
        response = await client.get(path, params=params, headers=auth)
        assert response.status_code == 422, (path, params, response.text)
        body = response.json()
        assert set(body) == {"message", "code", "errors", "details"}
        assert (body["code"], body["details"]) == ("validation_failed", {})
        assert list(body["errors"]) == [field]
        assert all(isinstance(m, str) and m for m in body["errors"][field])
        assert body["message"] == body["errors"][field][0]


async def test_parameter_messages_name_the_parameter(client):
    _, _, auth = await factories.account()
    stages = "artwork, print_queue, in_production, qc_pack, dispatched, cancelled"
    expected = {
        ("page", "0"): "The page parameter must be at least 1.",
        ("page", "-3"): "The page parameter must be at least 1.",
        ("page", "abc"): "The page parameter must be an integer.",
        ("page", "1.5"): "The page parameter must be an integer.",
        ("page", "2147483648"): "The page parameter must not be greater than 2147483647.",
        ("stage", "x"): f"The selected stage is invalid; use one of: {stages}.",
    }

    for (name, value), message in expected.items():
        response = await client.get("/api/v1/orders", params={name: value}, headers=auth)
        assert response.json() == {
            "message": message,
            "code": "validation_failed",
            "errors": {name: [message]},
            "details": {},
        }, value


async def test_several_invalid_parameters_are_all_reported(client):
    _, _, auth = await factories.account()

    response = await client.get(
        "/api/v1/orders", params={"page": "0", "stage": "bogus"}, headers=auth
    )

    body = response.json()
    assert response.status_code == 422
    assert set(body["errors"]) == {"page", "stage"}
    assert body["message"].endswith("(and 1 more error)")


UPDATED_SINCE = "The updated_since parameter must be an ISO 8601 date-time."
PAGE = "The page parameter must be at least 1."
EVERY_BAD_PARAMETER = [
    (
        "/api/v1/inventory",
        "low=maybe&page=0",
        {"low": ["The selected low is invalid; use one of: true, false, 1, 0."], "page": [PAGE]},
    ),
    (
        "/api/v1/inventory",
        "search=tee&low=yes&updated_since=soon&page=x",
        {
            "low": ["The selected low is invalid; use one of: true, false, 1, 0."],
            "updated_since": [UPDATED_SINCE],
            "page": ["The page parameter must be an integer."],
        },
    ),
    (
        "/api/v1/orders",
        "stage=shipped&customer=acme&updated_since=2026-02-30&page=-1",
        {
            "stage": [
                "The selected stage is invalid; use one of: artwork, print_queue, "
                "in_production, qc_pack, dispatched, cancelled."
            ],
            "updated_since": [UPDATED_SINCE],
            "page": [PAGE],
        },
    ),
    (
        "/api/v1/customers",
        "search=a&updated_since=yesterday&page=2147483648",
        {
            "updated_since": [UPDATED_SINCE],
            "page": ["The page parameter must not be greater than 2147483647."],
        },
    ),
]


@pytest.mark.parametrize(("path", "query", "errors"), EVERY_BAD_PARAMETER)
async def test_every_bad_parameter_of_a_list_is_named_in_one_422(client, path, query, errors):
    _, _, auth = await factories.account()

    response = await client.get(f"{path}?{query}", headers=auth)

    assert response.status_code == 422, response.text
    assert response.json()["errors"] == errors
    first = next(iter(errors.values()))[0]
    more = sum(len(messages) for messages in errors.values()) - 1
    assert response.json()["message"] == f"{first} (and {more} more error{'s' * (more > 1)})"


MALFORMED_QUERIES = [
    "search=%00",
    "search=%ff%fe",
    "search=" + "%25" * 3000,
    "search=" + "%E2%82%AC" * 2000,
    "customer=%00",
    "updated_since=%00",
    "updated_since=2026-01-01T00:00:00%00",
    "updated_since=2026-01-01T25:00:00",
    "updated_since=-1",
    "page=1&page=x",
    "%ff=1",
    "stage=%ff",
    "low=%00",
    "updated_since=2026-03-01T10:30:00%2B99:00",
]


@pytest.mark.parametrize("path", ["/api/v1/orders", "/api/v1/customers", "/api/v1/inventory"])
async def test_malformed_query_strings_never_give_a_500(client, path):
    _, _, auth = await factories.account()

    for query in MALFORMED_QUERIES:
        response = await client.get(f"{path}?{query}", headers=auth)
        assert response.status_code in (200, 422), (query, response.text)
        if response.status_code == 422:
            assert response.json()["errors"], query
