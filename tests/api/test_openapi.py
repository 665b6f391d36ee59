"""The served OpenAPI document is accurate: every route and parameter is there, every
documented response schema validates the real responses, errors are documented, and the
interactive docs page is served."""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
from typing import Annotated, Any

import jsonschema_rs
import msgspec
import pytest
from openapi_spec_validator import validate

from api.schemas.events import WEBHOOK_BODIES
from models import artwork, clock
from models.actors import OPERATOR
from models.orders import cancelling
from models.tables import Payment, User, WebhookEvent
from models.webhooks import events as outbox
from tests import factories
from tests.api.order_helpers import Shop, create, order_body, shop
from tests.api.test_events import every_event

LIST_PARAMS = {
    "/api/v1/customers": {"search", "email", "external_ref", "updated_since", "page"},
    "/api/v1/orders": {"stage", "customer", "external_ref", "updated_since", "page"},
    "/api/v1/invoices": {"status", "customer", "order", "updated_since", "page"},
    "/api/v1/inventory": {"search", "low", "updated_since", "page"},
    "/api/v1/events": {"type", "since", "order", "page"},
}


@pytest.fixture
async def openapi(client) -> dict[str, Any]:
    response = await client.get("/schema/openapi.json")
    assert response.status_code == 200
    return response.json()


def _closed(schema: Any) -> Any:
    """A copy where objects with listed properties allow no others, so an undocumented
    field in a response fails validation."""
    schema = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


def _validator(openapi: dict[str, Any], path: str, method: str, status: int) -> Any:
    operation = openapi["paths"][path][method]
    media = operation["responses"][str(status)]["content"]["application/json"]
    root = {**media["schema"], "components": _closed(openapi["components"])}
    return jsonschema_rs.Draft202012Validator(root, validate_formats=True)


def _assert_valid(openapi, path, method, response) -> None:
    validator = _validator(openapi, path, method, response.status_code)
    errors = [str(error) for error in validator.iter_errors(response.json())]
    assert errors == [], (method, path, response.status_code, response.text)


async def test_schema_and_docs_pages_are_served_without_a_token(client, openapi):
    assert openapi["openapi"].startswith("3.1")
    assert openapi["info"]["title"] == "Pressline API"
    for page in ("/schema", "/schema/swagger"):
        response = await client.get(page)
        assert response.status_code == 200, page
        assert response.headers["content-type"].startswith("text/html")
    assert "swagger-ui" in (await client.get("/schema/swagger")).text.lower()


_LINKED = re.compile(r"""\b(?:src|href)\s*=\s*["']([^"']*)["']""", re.IGNORECASE)


async def test_docs_pages_load_everything_from_the_app_itself(client):
    for page in ("/schema", "/schema/swagger"):
        html = (await client.get(page)).text
        urls = _LINKED.findall(html)
        assert len(urls) >= 3, (page, urls)  # stylesheet, scripts, icon
        for url in urls:
            # Same origin: a path on this host; no scheme, no protocol-relative //host.
            assert url.startswith("/") and not url.startswith("//"), (page, url)
            asset = await client.get(url)
            assert asset.status_code == 200, (page, url)
            assert len(asset.content) > 0
        assert "http://" not in html.split("<body", 1)[0]
        assert "https://" not in html.split("<body", 1)[0]
    script = await client.get("/schema/assets/swagger-ui-bundle.js")
    assert script.headers["content-type"].startswith("text/javascript")


async def test_the_document_passes_openapi_spec_validator(openapi):
    validate(openapi)  # raises with the first problem


async def test_every_response_header_has_a_schema(openapi):
    for path, item in openapi["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                for name, header in response.get("headers", {}).items():
                    assert "schema" in header, (method, path, status, name)
    created = openapi["paths"]["/api/v1/orders"]["post"]["responses"]["201"]["headers"]
    assert created["Location"]["schema"] == {"type": "string", "format": "uri"}
    assert created["Idempotent-Replayed"]["schema"]["enum"] == ["true"]


async def test_component_names_are_readable(openapi):
    names = set(openapi["components"]["schemas"])
    assert {"Order", "OrderPage", "CustomerRowPage", "SkuPage", "Event", "EventPage"} <= names
    assert all(re.fullmatch(r"[A-Z][A-Za-z]+", name) for name in names), sorted(names)
    text = json.dumps(openapi)
    for ref in re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', text):
        assert ref in names, ref
    listed = openapi["paths"]["/api/v1/orders"]["get"]["responses"]["200"]
    assert listed["content"]["application/json"]["schema"]["$ref"].endswith("/OrderPage")


async def test_the_422_body_requires_errors(openapi):
    body = openapi["components"]["schemas"]["ValidationErrorBody"]

    assert set(body["required"]) == {"message", "code", "errors", "details"}


async def test_every_api_route_is_documented_with_its_parameters(app, openapi):
    for route in app.routes:
        if not route.path.startswith("/api/v1"):
            continue
        item = openapi["paths"].get(route.path_format)
        assert item is not None, route.path_format
        for method in set(route.methods) - {"OPTIONS", "HEAD"}:
            operation = item[method.lower()]
            params = {(p["name"], p["in"]): p for p in operation.get("parameters", [])}
            for name in route.path_parameters:
                assert params[(name, "path")]["required"] is True
                expected = "string" if name == "event_id" else "integer"
                assert params[(name, "path")]["schema"]["type"] == expected
            if method == "GET" and route.path_format in LIST_PARAMS:
                query = {name for name, where in params if where == "query"}
                assert query == LIST_PARAMS[route.path_format]


async def test_list_parameters_document_their_rules(openapi):
    orders = {p["name"]: p for p in openapi["paths"]["/api/v1/orders"]["get"]["parameters"]}
    inventory = {p["name"]: p for p in openapi["paths"]["/api/v1/inventory"]["get"]["parameters"]}

    assert set(orders["stage"]["schema"]["enum"]) - {None} == {
        "artwork",
        "print_queue",
        "in_production",
        "qc_pack",
        "dispatched",
        "cancelled",
    }
    assert orders["page"]["schema"]["minimum"] == 1
    assert set(inventory["low"]["schema"]["enum"]) == {"true", "false", "1", "0"}
    assert orders["updated_since"]["schema"]["format"] == "date-time"


async def test_error_responses_are_documented_on_every_api_operation(openapi):
    for path, item in openapi["paths"].items():
        if not path.startswith("/api/v1"):
            continue
        for method, operation in item.items():
            responses = operation["responses"]
            assert "400" not in responses, (method, path)
            expected = {"401", "403", "422", "429"} | ({"404"} if "{" in path else set())
            assert expected <= set(responses), (method, path)
            for status in expected:
                ref = responses[status]["content"]["application/json"]["schema"]["$ref"]
                body = "ValidationErrorBody" if status == "422" else "ErrorBody"
                assert ref == f"#/components/schemas/{body}", (method, path, status)


async def test_me_invoice_ids_customer_rows_and_the_order_filter_are_documented(openapi):
    schemas = openapi["components"]["schemas"]
    invoices = {p["name"]: p for p in openapi["paths"]["/api/v1/invoices"]["get"]["parameters"]}

    assert schemas["User"]["properties"]["workspace"] == {"$ref": "#/components/schemas/Workspace"}
    assert set(schemas["Workspace"]["required"]) == {
        "id",
        "name",
        "currency",
        "tax_rate",
        "time_zone",
        "require_artwork_approval",
        "prices_include_tax",
    }
    assert schemas["Workspace"]["properties"]["tax_rate"]["pattern"] == r"^-?\d+\.\d{2}$"
    assert "id" in schemas["Invoice"]["required"]  # the order detail's invoices
    assert {"external_ref", "email"} <= set(schemas["CustomerRow"]["required"])
    order = invoices["order"]
    assert (order["required"], order["schema"]["type"]) == (False, "integer")
    assert (order["schema"]["minimum"], order["schema"]["maximum"]) == (1, 2**31 - 1)


async def test_due_by_is_documented_with_the_workspace_offset(openapi):
    due_by = openapi["components"]["schemas"]["Order"]["properties"]["due_by"]

    assert "workspace" in due_by["description"]


# Every operation's id, as a generated client names its function.
OPERATION_IDS = {
    ("get", "/health"): "getHealth",
    ("get", "/api/v1/me"): "getMe",
    ("get", "/api/v1/customers"): "listCustomers",
    ("post", "/api/v1/customers"): "createCustomer",
    ("get", "/api/v1/customers/{customer_id}"): "getCustomer",
    ("patch", "/api/v1/customers/{customer_id}"): "updateCustomer",
    ("post", "/api/v1/customers/{customer_id}/contacts"): "createCustomerContact",
    ("patch", "/api/v1/customers/{customer_id}/contacts/{contact_id}"): "updateCustomerContact",
    ("delete", "/api/v1/customers/{customer_id}/contacts/{contact_id}"): "deleteCustomerContact",
    ("post", "/api/v1/customers/{customer_id}/addresses"): "createCustomerAddress",
    ("patch", "/api/v1/customers/{customer_id}/addresses/{address_id}"): "updateCustomerAddress",
    ("delete", "/api/v1/customers/{customer_id}/addresses/{address_id}"): "deleteCustomerAddress",
    ("get", "/api/v1/orders"): "listOrders",
    ("post", "/api/v1/orders"): "createOrder",
    ("get", "/api/v1/orders/{order_id}"): "getOrder",
    ("patch", "/api/v1/orders/{order_id}"): "updateOrder",
    ("post", "/api/v1/orders/{order_id}/advance"): "advanceOrder",
    ("get", "/api/v1/invoices"): "listInvoices",
    ("get", "/api/v1/invoices/{invoice_id}"): "getInvoice",
    ("post", "/api/v1/invoices/{invoice_id}/payments"): "createPayment",
    ("post", "/api/v1/payments/{payment_id}/void"): "voidPayment",
    ("get", "/api/v1/inventory"): "listInventory",
    ("get", "/api/v1/events"): "listEvents",
    ("get", "/api/v1/events/{event_id}"): "getEvent",
}
CAMEL_CASE = re.compile(r"[a-z]+(?:[A-Z][a-z0-9]*)*")


async def test_operation_ids_are_unique_camel_case_names(openapi):
    ids = {
        (method, path): operation["operationId"]
        for path, item in openapi["paths"].items()
        for method, operation in item.items()
    }
    webhook_ids = [item["post"]["operationId"] for item in openapi["webhooks"].values()]

    assert {key: ids.get(key) for key in OPERATION_IDS} == OPERATION_IDS
    assert [i for i in ids.values() if not CAMEL_CASE.fullmatch(i)] == []  # later routes too
    assert [i for i in webhook_ids if not CAMEL_CASE.fullmatch(i)] == []
    assert "orderStageChanged" in webhook_ids
    every_id = [*ids.values(), *webhook_ids]
    assert len(set(every_id)) == len(every_id)


def test_a_route_without_an_id_of_its_own_is_named_after_its_handler():
    from litestar import Litestar, delete, patch, post
    from litestar.params import FromPath

    from api.openapi import OPENAPI_CONFIG

    @post("/orders/{order_id:int}/artwork/approve")
    async def approve_artwork(order_id: FromPath[int]) -> None: ...

    @post("/orders/{order_id:int}/proofs")
    async def add_proof(order_id: FromPath[int]) -> None: ...

    @patch("/orders/{order_id:int}/proofs/{version:int}")
    async def edit_proof(order_id: FromPath[int], version: FromPath[int]) -> None: ...

    @delete("/orders/{order_id:int}/proofs/{version:int}", operation_id="withdrawProof")
    async def remove_proof(order_id: FromPath[int], version: FromPath[int]) -> None: ...

    handlers = [approve_artwork, add_proof, edit_proof, remove_proof]
    paths = Litestar(handlers, openapi_config=OPENAPI_CONFIG).openapi_schema.to_schema()["paths"]

    assert paths["/orders/{order_id}/artwork/approve"]["post"]["operationId"] == "approveArtwork"
    assert paths["/orders/{order_id}/proofs"]["post"]["operationId"] == "createProof"
    version = paths["/orders/{order_id}/proofs/{version}"]
    assert version["patch"]["operationId"] == "updateProof"
    assert version["delete"]["operationId"] == "withdrawProof"  # its own, as given


def _strings(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The string forms a property may take: itself, or its non-null branches."""
    branches = schema.get("oneOf", schema.get("anyOf", [schema]))
    return [branch for branch in branches if branch.get("type") != "null"]


# Properties that hold a timestamp, by name: `*_at`, a due date, a history entry's `at`.
_TIMESTAMP = re.compile(r".*_at|at|due_by")


async def test_every_timestamp_is_a_typed_date_time_null_or_not(openapi):
    schemas = openapi["components"]["schemas"]
    seen = []
    for name, body in schemas.items():
        for prop, schema in body.get("properties", {}).items():
            if not _TIMESTAMP.fullmatch(prop):
                continue
            seen.append(f"{name}.{prop}")
            request = name.endswith(("Create", "Update"))
            expected = "date" if request and prop == "due_by" else "date-time"
            if "oneOf" in schema or "anyOf" in schema:  # the format is in the branch
                assert "format" not in schema, (name, prop)
            assert [(s.get("type"), s.get("format")) for s in _strings(schema)] == [
                ("string", expected)
            ], (name, prop, schema)
    assert {"Order.due_by", "OrderDetail.dispatched_at", "Artwork.approved_at"} <= set(seen)
    assert {"InvoiceSummary.due_at", "InvoiceDetail.paid_at", "OrderCreate.due_by"} <= set(seen)
    due_by = schemas["OrderDetail"]["properties"]["due_by"]
    assert due_by["oneOf"] == [{"type": "string", "format": "date-time"}, {"type": "null"}]


async def test_no_format_is_left_beside_a_one_of(openapi):
    found = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if "format" in node and ("oneOf" in node or "anyOf" in node):
                found.append(where)
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}/{index}")

    walk(openapi, "")
    assert found == []


def _refs(node: Any) -> set[str]:
    text = json.dumps(node)
    return set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', text))


def _closure(schemas: dict[str, Any], names: set[str]) -> set[str]:
    found: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(_refs(schemas[name]))
    return found


# Keys a response may leave out: a line's item_id is present only on lines made from an item.
SOMETIMES_ABSENT = {("OrderLine", "item_id")}


async def test_every_key_a_response_always_has_is_required(openapi):
    schemas = openapi["components"]["schemas"]
    operations = [op for item in openapi["paths"].values() for op in item.values()]
    sent = _closure(
        schemas, _refs([op["responses"] for op in operations]) | _refs(openapi["webhooks"])
    )
    received = _closure(
        schemas, _refs([[op.get("requestBody"), op.get("parameters")] for op in operations])
    )

    assert {"Order", "OrderDetail", "Artwork", "Item", "ShipTo", "EventPage"} <= sent
    for name in sent:
        body = schemas[name]
        if "properties" not in body:
            continue
        optional = set(body["properties"]) - set(body.get("required", []))
        assert optional == {key for owner, key in SOMETIMES_ABSENT if owner == name}, name
    assert {"items", "revision", "ship_to"} <= set(schemas["OrderDetail"]["required"])
    assert {"approved_by", "proofs"} <= set(schemas["Artwork"]["required"])
    # Requests keep their defaults optional; the address both use is two components.
    assert "ShipTo" not in received and "ShipToInput" not in sent
    assert set(schemas["ShipToInput"]["required"]) == {"line1", "city", "country"}
    assert set(schemas["ShipTo"]["required"]) == set(schemas["ShipTo"]["properties"])
    create = schemas["OrderCreate"]
    assert create["properties"]["ship_to"]["oneOf"][0] == {
        "$ref": "#/components/schemas/ShipToInput"
    }
    assert "due_by" not in create.get("required", [])
    detail = schemas["OrderDetail"]["properties"]["ship_to"]
    assert detail["oneOf"][0] == {"$ref": "#/components/schemas/ShipTo"}


class _Address(msgspec.Struct, kw_only=True):
    line1: str
    line2: str = ""


class _Sent(msgspec.Struct, kw_only=True, omit_defaults=True):
    address: _Address
    note: str | None = None  # left out when None


class _Received(msgspec.Struct, kw_only=True):
    address: _Address
    count: int = 1
    label: str | msgspec.UnsetType = msgspec.UNSET


class _Kept(msgspec.Struct, kw_only=True):
    address: _Address
    when: int = 0


def _document(*handlers: Any) -> dict[str, Any]:
    from litestar import Litestar

    from api.openapi import OPENAPI_CONFIG, StructSchemas, require_what_is_always_sent

    structs = StructSchemas()
    app = Litestar(list(handlers), openapi_config=OPENAPI_CONFIG, plugins=[structs])
    require_what_is_always_sent(app.openapi_schema, structs)
    return app.openapi_schema.to_schema()


def test_responses_require_what_every_encoding_has_and_requests_keep_their_defaults():
    from litestar import post
    from litestar.params import Body

    @post("/things")
    async def make_thing(data: Annotated[_Received, Body()]) -> _Sent: ...

    schemas = _document(make_thing)["components"]["schemas"]

    assert schemas["_Sent"]["required"] == ["address"]  # omit_defaults may leave `note` out
    assert schemas["_Received"]["required"] == ["address"]
    assert schemas["_Address"]["required"] == ["line1", "line2"]
    assert schemas["_AddressInput"]["required"] == ["line1"]
    assert schemas["_Sent"]["properties"]["address"] == {"$ref": "#/components/schemas/_Address"}
    assert schemas["_Received"]["properties"]["address"] == {
        "$ref": "#/components/schemas/_AddressInput"
    }


def test_a_body_both_ways_that_embeds_a_split_one_is_split_too():
    from litestar import post
    from litestar.params import Body

    @post("/kept")
    async def keep(data: Annotated[_Kept, Body()]) -> _Kept: ...

    @post("/things")
    async def make_thing(data: Annotated[_Received, Body()]) -> _Sent: ...

    schemas = _document(keep, make_thing)["components"]["schemas"]

    assert schemas["_Kept"]["required"] == ["address", "when"]
    assert schemas["_KeptInput"]["required"] == ["address"]
    assert schemas["_Kept"]["properties"]["address"] == {"$ref": "#/components/schemas/_Address"}
    assert schemas["_KeptInput"]["properties"]["address"] == {
        "$ref": "#/components/schemas/_AddressInput"
    }
    assert schemas["_Received"]["properties"]["address"] == {
        "$ref": "#/components/schemas/_AddressInput"
    }


async def _data() -> tuple[dict[str, str], dict[str, int]]:
    ws, _, auth = await factories.account()
    pl = await factories.price_list(ws)
    c = await factories.customer(ws, price_list=pl.id)
    bare = await factories.customer(ws)
    await factories.contact(c, is_primary=True)
    tee = await factories.sku(ws, on_hand=1)
    await factories.sku(ws, discontinued=True)
    o = await factories.order(
        ws, c, line_skus=[tee.id], due_by=clock.now(), dispatched_at=clock.now(), carrier="DPD"
    )
    await factories.stage_change(o, "artwork", "dispatched", clock.now())
    await factories.invoice(o, status="paid")
    await factories.set_artwork(o, status="approved", version=2, approved_at=clock.now())
    plain = await factories.order(ws, bare, artwork=False)
    return auth, {"customer": c.id, "bare": bare.id, "order": o.id, "plain": plain.id}


async def test_real_responses_validate_against_their_documented_schemas(client, openapi):
    auth, ids = await _data()
    requests = [
        ("/api/v1/me", "/api/v1/me", {}),
        ("/api/v1/customers", "/api/v1/customers", {}),
        ("/api/v1/customers", "/api/v1/customers", {"page": "9"}),
        ("/api/v1/customers/{customer_id}", f"/api/v1/customers/{ids['customer']}", {}),
        ("/api/v1/customers/{customer_id}", f"/api/v1/customers/{ids['bare']}", {}),
        ("/api/v1/orders", "/api/v1/orders", {}),
        ("/api/v1/orders/{order_id}", f"/api/v1/orders/{ids['order']}", {}),
        ("/api/v1/orders/{order_id}", f"/api/v1/orders/{ids['plain']}", {}),
        ("/api/v1/inventory", "/api/v1/inventory", {}),
        ("/api/v1/inventory", "/api/v1/inventory", {"low": "1"}),
        ("/api/v1/invoices", "/api/v1/invoices", {"order": str(ids["order"])}),
    ]
    for template, url, params in requests:
        response = await client.get(url, params=params, headers=auth)
        assert response.status_code == 200, (url, response.text)
        _assert_valid(openapi, template, "get", response)


async def test_write_responses_validate_against_their_documented_schemas(client, openapi):
    auth, ids = await _data()
    body = {
        "customer_id": ids["customer"],
        "lines": [{"description": "Front print", "quantity": 2, "unit_price_cents": 500}],
        "due_by": "2026-12-01",
    }

    created = await client.post("/api/v1/orders", json=body, headers=auth)
    assert created.status_code == 201, created.text
    _assert_valid(openapi, "/api/v1/orders", "post", created)
    advanced = await client.post(
        f"/api/v1/orders/{created.json()['id']}/advance",
        json={"to_stage": "print_queue"},
        headers=auth,
    )
    assert advanced.status_code == 200, advanced.text
    _assert_valid(openapi, "/api/v1/orders/{order_id}/advance", "post", advanced)


async def test_error_bodies_validate_against_their_documented_schemas(client, openapi):
    _, u, auth = await factories.account()
    _, _, starter = await factories.account(plan="starter")
    detail = "/api/v1/orders/{order_id}"
    expired = await factories.headers(u, expires_at=clock.now() - dt.timedelta(seconds=1))

    cases = [
        (detail, await client.get("/api/v1/orders/1"), 401),
        (detail, await client.get("/api/v1/orders/1", headers=expired), 401),
        (detail, await client.get("/api/v1/orders/1", headers=auth), 404),
        (detail, await client.get("/api/v1/orders/1", headers=starter), 422),
        ("/api/v1/orders", await client.get("/api/v1/orders?stage=x", headers=auth), 422),
        ("/api/v1/inventory", await client.get("/api/v1/inventory?low=x", headers=auth), 422),
    ]
    await User.update({User.is_active: False}).where(User.id == u.id)
    cases.append((detail, await client.get("/api/v1/orders/1", headers=auth), 403))

    for template, response, status in cases:
        assert response.status_code == status, response.text
        _assert_valid(openapi, template, "get", response)


async def test_rate_limited_body_validates(client, openapi):
    ws, _, _ = await factories.account()
    auth = await factories.caller(ws)
    response = None
    for _ in range(200):
        response = await client.get("/api/v1/me", headers=auth)
        if response.status_code == 429:
            break
    assert response is not None and response.status_code == 429
    assert re.fullmatch(r"\d+", response.headers["retry-after"])
    _assert_valid(openapi, "/api/v1/me", "get", response)


def _component_validator(openapi: dict[str, Any], name: str) -> Any:
    root = {"$ref": f"#/components/schemas/{name}", "components": _closed(openapi["components"])}
    return jsonschema_rs.Draft202012Validator(root, validate_formats=True)


async def test_webhooks_describe_the_five_events_with_headers_and_bodies(openapi):
    webhooks = openapi["webhooks"]

    assert set(webhooks) == {*outbox.EVENT_NAMES, "webhook.test"}
    for name, item in webhooks.items():
        operation = item["post"]
        headers = {p["name"]: p for p in operation["parameters"] if p["in"] == "header"}
        assert set(headers) == {
            "X-SVC-Event",
            "X-SVC-Signature",
            "X-SVC-Delivery",
            "X-SVC-Workspace",
            "X-SVC-Attempt",
            "User-Agent",
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
            "X-SVC-Signature-Previous",
        }
        assert not headers["X-SVC-Signature-Previous"]["required"]  # during a rotation only
        assert headers["X-SVC-Event"]["schema"]["const"] == name
        assert headers["webhook-id"]["schema"]["pattern"] == "^dlv_[a-z2-7]{26,}$"
        assert headers["X-SVC-Delivery"]["schema"]["pattern"] == "^dlv_[a-z2-7]{26,}$"
        media = operation["requestBody"]["content"]["application/json"]
        component = media["schema"]["$ref"].rsplit("/", 1)[1]
        [example] = media["examples"].values()
        errors = list(_component_validator(openapi, component).iter_errors(example["value"]))
        assert errors == [], (name, errors)
        assert example["value"]["event"] == name
        assert "2XX" in operation["responses"]


async def every_other_event(client: Any, s: Shop) -> None:
    """The events `every_event` does not cause: an order edited, its proof answered with a
    request for changes, then cancelled; a customer created, then renamed; the invoice's
    payment voided."""
    created = await create(client, s.auth, order_body(s.customer.id))
    order_id = created.json()["id"]
    await artwork.send_proof(workspace_id=s.ws.id, order_id=order_id)
    await artwork.request_changes(workspace_id=s.ws.id, order_id=order_id, comment="Bigger logo")
    edited = await client.patch(
        f"/api/v1/orders/{order_id}", json={"notes": "Rush"}, headers=s.auth
    )
    assert edited.status_code == 200, edited.text
    await cancelling.cancel_order(workspace_id=s.ws.id, order_id=order_id, actor=OPERATOR)
    made = await client.post("/api/v1/customers", json={"name": "Storefront Buyer"}, headers=s.auth)
    assert made.status_code == 201, made.text
    renamed = await client.patch(
        f"/api/v1/customers/{made.json()['id']}", json={"name": "Buyer Ltd"}, headers=s.auth
    )
    assert renamed.status_code == 200, renamed.text
    payment = await Payment.objects().where(Payment.workspace == s.ws.id).first()
    assert payment is not None
    voided = await client.post(
        f"/api/v1/payments/{payment.id}/void", json={"reason": "Refunded"}, headers=s.auth
    )
    assert voided.status_code == 200, voided.text


async def test_real_webhook_bodies_match_their_documented_schemas_key_for_key(client, openapi):
    s = await shop()
    await every_event(client, s)
    await every_other_event(client, s)
    events = await WebhookEvent.select(WebhookEvent.name, WebhookEvent.body)
    assert {event["name"] for event in events} == set(outbox.EVENT_NAMES)

    for event in events:
        body = json.loads(event["body"])
        struct = WEBHOOK_BODIES[event["name"]]
        ref = openapi["webhooks"][event["name"]]["post"]["requestBody"]["content"][
            "application/json"
        ]["schema"]["$ref"]
        validator = _component_validator(openapi, ref.rsplit("/", 1)[1])
        assert [str(e) for e in validator.iter_errors(body)] == [], event["body"]
        assert list(body) == ["event", *(f.encode_name for f in msgspec.structs.fields(struct))]
        feed_data = openapi["components"]["schemas"]["Event"]["properties"]["data"]
        assert feed_data["discriminator"]["mapping"][event["name"]] == ref


async def test_event_responses_validate_against_their_documented_schemas(client, openapi):
    s = await shop()
    await every_event(client, s)
    [last] = (
        await WebhookEvent.select(WebhookEvent.event_id)
        .order_by(WebhookEvent.id, ascending=False)
        .limit(1)
    )
    detail = "/api/v1/events/{event_id}"
    cases = [
        ("/api/v1/events", await client.get("/api/v1/events", headers=s.auth), 200),
        (
            "/api/v1/events",
            await client.get("/api/v1/events?type=invoice.paid&page=3", headers=s.auth),
            200,
        ),
        (detail, await client.get(f"/api/v1/events/{last['event_id']}", headers=s.auth), 200),
        (detail, await client.get("/api/v1/events/nope", headers=s.auth), 404),
        (
            "/api/v1/events",
            await client.get("/api/v1/events?type=x&page=0", headers=s.auth),
            422,
        ),
    ]
    for template, response, status in cases:
        assert response.status_code == status, response.text
        _assert_valid(openapi, template, "get", response)
