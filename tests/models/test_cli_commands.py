"""The command line's reads and the commands beside the original set: lists with their
filters, orders and invoices named by number, the API's JSON formats, passwords, trials,
outbox figures and the help text."""

from __future__ import annotations

import datetime as dt
import re

import click
import pytest

import cli
from models import clock
from models.tables import (
    Artwork,
    Invoice,
    Order,
    User,
    WebhookAttempt,
    WebhookDelivery,
    WebhookSubscription,
    Workspace,
)
from tests import factories
from tests.admin.support import log_in
from tests.daemon import support

pytestmark = pytest.mark.usefixtures("backend")

# The API's timestamp form: ISO 8601, whole seconds, with an offset.
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$")
HUMAN_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")
PYTHON_REPR = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00:00")


def refused(run, *fragments: str) -> None:
    assert run.code == 1, (run.out, run.err)
    assert run.out == "" and run.err.startswith("error: ")
    for fragment in fragments:
        assert fragment in run.err, run.err


# --- workspaces ----------------------------------------------------------------------------


async def test_workspace_list_and_end_trial(pressline):
    first = await pressline("workspace create --name Alpha --trial-days 14 --json")
    second = await pressline("workspace create --name Beta --plan premium --json")
    run = await pressline("workspace list --json")
    assert run.code == 0, run.err
    rows = run.data["workspaces"]
    assert [row["id"] for row in rows] == [first.data["id"], second.data["id"]]
    assert rows[0]["effective_plan"] == "premium" and ISO.match(rows[0]["trial_ends_at"])
    human = await pressline("workspace list")
    assert human.out.splitlines()[0].startswith(f"workspace {first.data['id']} 'Alpha'")
    assert HUMAN_TIME.search(human.out) and not PYTHON_REPR.search(human.out)

    before = clock.now()
    ended = await pressline(f"workspace set --id {first.data['id']} --end-trial --json")
    assert ended.code == 0, ended.err
    assert ended.data["effective_plan"] == "starter"
    row = await Workspace.objects().get(Workspace.id == first.data["id"])
    assert before <= row.trial_ends_at <= clock.now()
    refused(
        await pressline(f"workspace set --id {first.data['id']} --end-trial"), "no trial running"
    )
    refused(await pressline(f"workspace set --id {second.data['id']} --end-trial"), "no trial")


# --- users ---------------------------------------------------------------------------------


async def test_user_roles_and_list_by_workspace(pressline):
    ws = (await pressline("workspace create --name Ink --json")).data["id"]
    other = (await pressline("workspace create --name Other --json")).data["id"]
    owner = await pressline(f"user create --workspace {ws} --name Olga --email o@ink.test --json")
    staff = await pressline(f"user create --workspace {ws} --name Al --email a@ink.test --json")
    boss = await pressline(
        f"user create --workspace {ws} --name Bo --email b@ink.test --role owner --json"
    )
    elsewhere = await pressline(
        f"user create --workspace {other} --name Zed --email z@o.test --role staff --json"
    )
    assert [r.data["role"] for r in (owner, staff, boss, elsewhere)] == [
        "owner", "staff", "owner", "staff",
    ]  # fmt: skip
    stored = {row["email"]: row["role"] for row in await User.select(User.email, User.role)}
    assert stored == {"o@ink.test": "owner", "a@ink.test": "staff", "b@ink.test": "owner",
                      "z@o.test": "staff"}  # fmt: skip
    usage = await pressline(f"user create --workspace {ws} --name X --email x@i.test --role boss")
    assert usage.code == 2 and "'boss' is not one of 'owner', 'staff'" in usage.err

    await pressline(f"user deactivate {staff.data['id']}")
    run = await pressline(f"user list --workspace {ws} --json")
    assert run.code == 0, run.err
    users = run.data["users"]
    assert [u["name"] for u in users] == ["Al", "Bo", "Olga"]  # by name
    assert users[0]["is_active"] is False and ISO.match(users[0]["deactivated_at"])
    assert all(ISO.match(u["created_at"]) for u in users)
    everyone = await pressline("user list --json")
    assert [u["email"] for u in everyone.data["users"]][-1] == "z@o.test"
    human = await pressline(f"user list --workspace {ws}")
    assert f"{staff.data['id']}  workspace {ws}  Al <a@ink.test>  staff  deactivated" in human.out
    assert HUMAN_TIME.search(human.out) and not PYTHON_REPR.search(human.out)
    refused(await pressline("user list --workspace 999"), "workspace 999 not found")


async def test_set_password_from_stdin_then_the_admin_login_works(pressline, client):
    ws = (await pressline("workspace create --name Ink --json")).data["id"]
    user = await pressline(f"user create --workspace {ws} --name Olga --email o@ink.test --json")
    user_id = user.data["id"]
    short = await pressline(f"user set-password {user_id} --password-stdin", input="too short\n")
    refused(short, "password: must be at least 12 characters")
    assert (await log_in(client, "o@ink.test", "too short")).status_code != 303

    password = "a long enough passphrase"
    run = await pressline(f"user set-password {user_id} --password-stdin", input=password + "\n")
    assert run.code == 0, run.err
    assert run.out.strip() == f"password set for user {user_id} <o@ink.test>"
    assert password not in run.out
    answer = await log_in(client, "o@ink.test", password)
    assert answer.status_code == 303 and answer.headers["location"] == "/admin/"
    refused(
        await pressline("user set-password 999 --password-stdin", input=password),
        "user 999 not found",
    )


# --- customers and orders ------------------------------------------------------------------


async def test_customer_list_with_search(pressline):
    ws = await factories.workspace()
    acme = await factories.customer(ws, "Acme Tees")
    await factories.customer(ws, "Brewers Guild")
    await factories.order(ws, acme)
    await factories.customer(await factories.workspace(), "Acme Elsewhere")
    run = await pressline(f"customer list --workspace {ws.id} --json")
    assert run.code == 0, run.err
    assert run.data["total"] == 2
    assert [c["name"] for c in run.data["customers"]] == ["Acme Tees", "Brewers Guild"]
    first = run.data["customers"][0]
    assert (first["orders_count"], first["open_orders"]) == (1, 1)
    assert ISO.match(first["updated_at"])
    found = await pressline(f"customer list --workspace {ws.id} --search acme --json")
    assert [c["id"] for c in found.data["customers"]] == [acme.id]
    human = await pressline(f"customer list --workspace {ws.id} --search ACME")
    assert human.out.splitlines() == [
        f"1 customer(s) in workspace {ws.id}",
        f"  {acme.id}  Acme Tees  (slug {acme.slug})  price list -  orders 1 (1 open)",
    ]
    refused(await pressline("customer list --workspace 999"), "workspace 999 not found")


async def test_order_list_filters_and_show_in_the_api_format(pressline, client):
    ws, _, auth = await factories.account(plan="premium")
    acme = await factories.customer(ws, "Acme Tees")
    brew = await factories.customer(ws, "Brewers Guild")
    old = await factories.order(ws, acme, created_at=clock.now() - dt.timedelta(days=2))
    new = await factories.order(ws, brew, stage="print_queue")
    done = await factories.order(ws, acme, stage="dispatched")
    await factories.invoice(done)
    run = await pressline(f"order list --workspace {ws.id} --json")
    assert run.code == 0, run.err
    assert run.data["total"] == 3
    assert [o["id"] for o in run.data["orders"]] == [done.id, new.id, old.id]  # newest first
    api = (await client.get("/api/v1/orders", headers=auth)).json()
    assert run.data["orders"] == api["data"]  # the API's own body for each order
    staged = await pressline(f"order list --workspace {ws.id} --stage print_queue --json")
    assert [o["number"] for o in staged.data["orders"]] == [new.number]
    theirs = await pressline(f"order list --workspace {ws.id} --customer {acme.slug} --json")
    assert [o["id"] for o in theirs.data["orders"]] == [done.id, old.id]
    both = await pressline(
        f"order list --workspace {ws.id} --customer {acme.slug} --stage artwork --json"
    )
    assert [o["id"] for o in both.data["orders"]] == [old.id]
    usage = await pressline(f"order list --workspace {ws.id} --stage shipped")
    assert usage.code == 2 and "'shipped' is not one of" in usage.err
    human = await pressline(f"order list --workspace {ws.id} --limit 1")
    lines = human.out.splitlines()
    assert lines[0] == f"3 order(s) in workspace {ws.id}"
    assert lines[1].startswith(f"  {done.id}  {done.number}  dispatched  Acme Tees")
    assert lines[2] == "  … 2 more (raise --limit)"
    assert HUMAN_TIME.search(human.out) and not PYTHON_REPR.search(human.out)

    by_number = await pressline(f"order show {done.number} --json")
    by_id = await pressline(f"order show {done.id} --json")
    detail = (await client.get(f"/api/v1/orders/{done.id}", headers=auth)).json()
    assert by_number.data == by_id.data == detail
    assert ISO.match(by_number.data["created_at"])
    assert ISO.match(by_number.data["stage_history"][0]["at"])
    assert ISO.match(by_number.data["invoices"][0]["issued_at"])
    shown = await pressline(f"order show {done.number.lower()}")
    assert shown.out.startswith(f"order {done.id} {done.number}: dispatched, customer Acme Tees")
    assert "invoice INV-" in shown.out and not PYTHON_REPR.search(shown.out)
    refused(await pressline("order show ORD-1999-9999"), "order ORD-1999-9999 not found")
    refused(await pressline("order show 99999999999"), "not found")
    refused(await pressline("order show tomorrow"), "give an order id or an ORD- number")
    refused(await pressline(f"order list --workspace {ws.id} --limit 0"), "limit: must be")


async def test_orders_and_invoices_by_number_everywhere(pressline):
    ws, other = await factories.workspace(), await factories.workspace()
    mine = await factories.order(ws, await factories.customer(ws))
    theirs = await factories.order(other, await factories.customer(other))
    # Numbers are unique per workspace only: give both orders the same one.
    await Order.update({Order.number: "ORD-2026-0001"}).where(Order.id.is_in([mine.id, theirs.id]))

    ambiguous = await pressline("artwork proof --order ORD-2026-0001")
    refused(ambiguous, f"exists in workspaces {ws.id}, {other.id}", "--workspace")
    run = await pressline(f"artwork proof --order ORD-2026-0001 --workspace {ws.id} --json")
    assert run.code == 0, run.err
    assert (run.data["order_id"], run.data["version"]) == (mine.id, 1)
    approved = await pressline(f"artwork approve --order ord-2026-0001 --workspace {ws.id} --json")
    assert approved.data["status"] == "approved" and ISO.match(approved.data["approved_at"])
    artwork = await Artwork.objects().get(Artwork.order == theirs.id)
    assert artwork.version == 0  # the other workspace's order is untouched
    refused(
        await pressline(f"order cancel --order {mine.id} --workspace {other.id}"),
        f"order {mine.id} not found in workspace {other.id}",
    )
    cancelled = await pressline(f"order cancel --order ORD-2026-0001 --workspace {other.id} --json")
    assert cancelled.code == 0, cancelled.err
    assert cancelled.data == {"order_id": theirs.id, "order_number": "ORD-2026-0001",
                              "stage": "cancelled"}  # fmt: skip
    assert (await Order.objects().get(Order.id == theirs.id)).stage == "cancelled"
    assert (await Order.objects().get(Order.id == mine.id)).stage == "artwork"

    done = await factories.order(ws, await factories.customer(ws), stage="dispatched")
    first, second = await factories.invoice(done), await factories.invoice(done)
    paid = await pressline(f"invoice pay {first.number} --json")
    assert paid.code == 0, paid.err
    assert (paid.data["id"], paid.data["status"], paid.data["order_number"]) == (
        first.id, "paid", done.number,
    )  # fmt: skip
    assert ISO.match(paid.data["paid_at"]) and ISO.match(paid.data["issued_at"])
    by_id = await pressline(f"invoice pay {second.id}")
    assert by_id.out.strip() == f"invoice {second.number} marked paid (invoice.paid queued)"
    statuses = {
        row["id"]: row["status"] for row in await Invoice.select(Invoice.id, Invoice.status)
    }
    assert statuses == {first.id: "paid", second.id: "paid"}
    refused(await pressline("invoice pay ORD-2026-0001"), "give an invoice id or an INV- number")


# --- outbox --------------------------------------------------------------------------------


async def test_outbox_stats_agree_with_the_database(pressline):
    ws = await support.workspace()
    live = await support.subscription(ws, "http://127.0.0.1:9/a")
    await support.subscription(ws, "http://127.0.0.1:9/b", is_active=False)
    old = clock.now() - dt.timedelta(minutes=30)
    await support.queued(ws, live, 3, created_at=old)
    [sent] = await support.queued(ws, live, status="succeeded")
    for status_code in (200, 500, None):
        await WebhookAttempt(
            delivery=sent.id, number=1, started_at=clock.now() - dt.timedelta(minutes=1),
            duration_ms=5, status_code=status_code,
        ).save()  # fmt: skip
    await WebhookAttempt(
        delivery=sent.id, number=1, started_at=old, duration_ms=5, status_code=500
    ).save()
    run = await pressline("outbox stats --json")
    assert run.code == 0, run.err
    data = run.data
    assert (
        data["pending"]
        == 3
        == await WebhookDelivery.count().where(WebhookDelivery.status == "pending")
    )
    assert 30 * 60 <= data["oldest_pending_age_seconds"] < 31 * 60
    assert (data["attempts_recent"], data["failed_attempts_recent"]) == (3, 2)
    assert (data["active_subscriptions"], data["deactivated_subscriptions"]) == (1, 1)
    assert await WebhookSubscription.count() == 2
    human = await pressline("outbox stats")
    assert human.out.splitlines() == [
        "pending deliveries: 3",
        f"oldest pending: {data['oldest_pending_age_seconds']:.0f} s",
        "attempts in the last 5 min: 3 (2 failed)",
        "subscriptions: 1 active, 1 deactivated or disabled",
    ]


# --- help ----------------------------------------------------------------------------------


def _commands(group: click.Group, path: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


async def test_every_command_and_option_is_described(pressline):
    top = await pressline("--help")
    assert top.code == 0 and "Usage: pressline" in top.out
    for name in cli.app.commands:
        assert f"  {name} " in top.out
    commands = list(_commands(cli.app))
    assert len(commands) >= 30
    for path, command in commands:
        run = await pressline(*path, "--help")
        assert run.code == 0, path
        words = " ".join(run.out.split())
        assert command.help and " ".join(command.help.split()[:8]) in words, path
        for param in command.params:
            if isinstance(param, click.Option):
                assert getattr(param, "help", None), (path, param.name)
                assert param.opts[0] in run.out, (path, param.name)
                assert " ".join(param.help.split()[:4]) in words, (path, param.name)
            else:  # arguments are described in the command's text by their metavar
                metavar = param.make_metavar(click.Context(command))
                assert f"{metavar}:" in (command.help or ""), (path, metavar)
    assert (await pressline("order")).code == 2  # a group without its command: usage
    unknown = await pressline("order shout")
    assert unknown.code == 2 and "No such command 'shout'" in unknown.err
