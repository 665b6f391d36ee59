"""A client generated from the OpenAPI document by openapi-python-client, as an integrator
would make one: it builds without a warning, imports, types every timestamp as a datetime,
and its models read the real answers of the web process (uvicorn, `python -m api`) to the
last key. The client is generated once for the module."""

from __future__ import annotations

import datetime as dt
import importlib
import json
import subprocess
import sys
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from models import clock
from tests import factories
from tests.e2e.test_web_server import start_web, stop

PACKAGE = "pressline_client"


@dataclass
class Generated:
    document: dict[str, Any]
    output: str  # what the generator printed
    client: types.ModuleType


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Generated]:
    """The document as /schema/openapi.json serves it (building it needs no database), and
    the client package generated from it, imported."""
    from litestar.serialization import encode_json

    from api.app import create_app

    root = tmp_path_factory.mktemp("client")
    document = root / "openapi.json"
    document.write_bytes(encode_json(create_app().openapi_schema.to_schema()))
    run = subprocess.run(  # noqa: S603 - a fixed command from the venv
        [
            str(Path(sys.executable).with_name("openapi-python-client")),
            "generate",
            "--path",
            str(document),
            "--output-path",
            str(root / PACKAGE),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if run.returncode != 0:
        pytest.fail(f"openapi-python-client failed:\n{run.stdout}{run.stderr}")
    sys.path.insert(0, str(root))
    try:
        client = importlib.import_module(PACKAGE)
        importlib.import_module(f"{PACKAGE}.models")
        yield Generated(json.loads(document.read_bytes()), run.stdout + run.stderr, client)
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name.partition(".")[0] == PACKAGE]:
            del sys.modules[name]


def _api(generated: Generated, module: str) -> Any:
    """A module of the generated client's operations, e.g. `orders.get_order`."""
    return importlib.import_module(f"{PACKAGE}.api.{module}")


def _hints(generated: Generated, model: str) -> dict[str, Any]:
    """A generated model's field types, resolved (its modules import each other only while
    type checking, so every model is given as a name)."""
    models = generated.client.models
    return typing.get_type_hints(getattr(models, model), localns=vars(models))


def test_the_client_builds_without_a_warning(generated):
    assert "warning" not in generated.output.lower(), generated.output
    for module in ("event_page", "order_page", "order_stage_changed", "validation_error_body"):
        importlib.import_module(f"{PACKAGE}.models.{module}")
    _api(generated, "orders.get_order")


def test_an_orders_timestamps_are_datetimes(generated):
    for model in ("Order", "OrderDetail"):
        hints = _hints(generated, model)
        assert hints["due_by"] == dt.datetime | None, model
        assert hints["dispatched_at"] == dt.datetime | None, model
        assert hints["created_at"] is dt.datetime, model
        assert hints["updated_at"] is dt.datetime, model
    assert _hints(generated, "Artwork")["approved_at"] == dt.datetime | None
    assert _hints(generated, "InvoiceSummary")["due_at"] == dt.datetime | None
    unset = generated.client.types.Unset
    assert _hints(generated, "OrderCreate")["due_by"] == dt.date | None | unset  # a date


def test_every_date_time_of_the_document_is_a_datetime_in_the_client(generated):
    checked = []
    for name, body in generated.document["components"]["schemas"].items():
        for prop, schema in body.get("properties", {}).items():
            forms = schema.get("oneOf", [schema])
            if not any(form.get("format") == "date-time" for form in forms):
                continue
            hint = _hints(generated, name)[prop]
            assert dt.datetime in (typing.get_args(hint) or (hint,)), (name, prop, hint)
            checked.append(f"{name}.{prop}")
    assert {"OrderDetail.due_by", "Event.occurred_at", "StageHistoryEntry.at"} <= set(checked)


def _token(auth: dict[str, str]) -> str:
    return auth["Authorization"].removeprefix("Bearer ")


@pytest.mark.slow  # starts the web process
async def test_real_answers_of_the_web_process_read_with_the_generated_models(
    generated, backend, tmp_path
):
    ws, _, auth = await factories.account()
    customer = await factories.customer(ws)
    now = clock.now().replace(microsecond=0)
    order = await factories.order(ws, customer, due_by=now, dispatched_at=now, carrier="DPD")
    await factories.invoice(order, status="paid")
    await factories.set_artwork(order, status="approved", version=1, approved_at=now)
    models = generated.client.models
    web = start_web(tmp_path / "web.log", DATABASE_URL=backend)
    try:
        with generated.client.AuthenticatedClient(
            base_url=web.base, token=_token(auth), raise_on_unexpected_status=True
        ) as client:
            read = _api(generated, "orders.get_order").sync_detailed(order.id, client=client)
            created = _api(generated, "orders.create_order").sync_detailed(
                client=client,
                body=models.OrderCreate(
                    customer_id=customer.id,
                    lines=[
                        models.OrderLineCreate(
                            description="Front print", quantity=2, unit_price_cents=500
                        )
                    ],
                    due_by=dt.date(2026, 12, 1),
                    ship_to=models.ShipToInput(line1="1 High St", city="Leeds", country="GB"),
                ),
            )
    finally:
        stop(web.process)

    assert read.status_code == 200, read.content
    detail, raw = read.parsed, json.loads(read.content)
    assert isinstance(detail, models.OrderDetail)
    assert detail.due_by == dt.datetime.fromisoformat(raw["due_by"])
    assert detail.dispatched_at == dt.datetime.fromisoformat(raw["dispatched_at"])
    assert detail.dispatched_at.tzinfo is not None
    assert isinstance(detail.artwork.approved_at, dt.datetime)
    assert isinstance(detail.invoices[0].paid_at, dt.datetime)
    assert detail.to_dict() == raw  # every key read, none left over, timestamps as sent
    assert created.status_code == 201, created.content
    new = created.parsed
    assert isinstance(new, models.OrderDetail)
    assert isinstance(new.due_by, dt.datetime) and new.due_by.date() == dt.date(2026, 12, 1)
    assert new.dispatched_at is None
    assert (new.ship_to.line1, new.ship_to.line2) == ("1 High St", "")  # every key, defaults too
    assert new.to_dict() == json.loads(created.content)
