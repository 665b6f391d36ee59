"""The soak's clients: mixed writes over the API of two shops, as integrations and staff tools
would send them, racing each other on purpose.

Each client loops until the deadline: create an order of garments in sizes (stock reserved),
edit one (PATCH with If-Match, sometimes two at once from the same read), move one through
production to dispatch (an invoice), pay an invoice in parts, edit a customer, read a list.
Some writes carry an Idempotency-Key and some of those are sent twice (one after the other,
or both at once). Connection errors (the web process killed) are retried until it answers
again; every answer is counted by status, and a 5xx is kept with its request and body.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

EXPECTED_4XX = (409, 412, 422)  # a concurrent write, a stale read, a refusal
RETRY_FOR = 90.0  # seconds a request keeps retrying connection errors (a web restart)
NEXT = {
    "artwork": "print_queue",
    "print_queue": "in_production",
    "in_production": "qc_pack",
    "qc_pack": "dispatched",
}
BACK = {"in_production": "print_queue", "qc_pack": "in_production"}
CARRIERS = ("DPD", "Royal Mail", "UPS")


@dataclass(frozen=True)
class Garment:
    style: str
    colour: str
    sizes: tuple[str, ...]
    scarce: bool = False  # little stock: added to few orders, and some of them run short


@dataclass
class Shop:
    """One workspace as the clients know it."""

    name: str
    tokens: list[str]
    garments: list[Garment]
    customers: list[int] = field(default_factory=list)
    orders: dict[int, str] = field(default_factory=dict)  # open order id -> last stage seen


@dataclass
class Tally:
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    connection_errors: int = 0
    timeouts: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    replayed: int = 0
    key_results: dict[str, set[int]] = field(default_factory=dict)  # key -> record ids

    def classes(self) -> dict[str, int]:
        found: Counter[str] = Counter()
        for status, n in self.statuses.items():
            found[f"{status // 100}xx"] += n
        return dict(sorted(found.items()))

    def idempotency_conflicts(self) -> list[str]:
        return [f"key {k} answered for records {sorted(v)}" for k, v in
                self.key_results.items() if len(v) > 1]  # fmt: skip


def _route(path: str) -> str:
    return re.sub(r"/\d+", "/{id}", path.split("?")[0])


class Client:
    """One integration: its own connection pool and token, one request at a time."""

    def __init__(self, base: str, shop: Shop, token: str, tally: Tally, seed: int) -> None:
        self.shop, self.tally = shop, tally
        self.random = random.Random(seed)
        self.http = httpx.AsyncClient(
            base_url=base + "/api/v1",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=httpx.Timeout(30.0),
        )

    async def close(self) -> None:
        await self.http.aclose()

    async def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> httpx.Response | None:
        """The answer, or None when none came (a timeout, or the web did not come back)."""
        given_up = time.monotonic() + RETRY_FOR
        while True:
            self.tally.requests += 1
            try:
                answer = await self.http.request(method, path, json=body, headers=headers)
            except httpx.TimeoutException as exc:
                self.tally.timeouts.append(f"{method} {_route(path)}: {type(exc).__name__}")
                return None
            except httpx.TransportError:
                self.tally.connection_errors += 1
                if time.monotonic() > given_up:
                    return None
                await asyncio.sleep(0.2)
                continue
            break
        status = answer.status_code
        self.tally.statuses[status] += 1
        if answer.headers.get("Idempotent-Replayed") == "true":
            self.tally.replayed += 1
        if status >= 500:
            request_id = answer.headers.get("X-Request-ID", "?")
            self.tally.server_errors.append(
                f"{method} {path} -> {status} (request {request_id}): {answer.text[:300]}"
            )
        elif status >= 400:
            if status in EXPECTED_4XX:
                message = str(answer.json().get("message", ""))[:90]
                self.tally.refusals[f"{status} {method} {_route(path)}: {_shape(message)}"] += 1
            else:
                self.tally.unexpected.append(f"{method} {path} -> {status}: {answer.text[:200]}")
        return answer

    def _keyed(self, key: str, answer: httpx.Response | None, record_id: int | None) -> None:
        if answer is not None and answer.is_success and record_id is not None:
            self.tally.key_results.setdefault(key, set()).add(record_id)

    async def twice(
        self, method: str, path: str, body: Any, headers: dict[str, str]
    ) -> list[httpx.Response | None]:
        """Send a request, and with some luck the same again: after it, or at the same time."""
        roll = self.random.random()
        if roll < 0.25:
            both = [self.call(method, path, body, headers) for _ in range(2)]
            return list(await asyncio.gather(*both))
        first = await self.call(method, path, body, headers)
        if roll < 0.5:
            return [first, await self.call(method, path, body, headers)]
        return [first]

    # --- actions ------------------------------------------------------------------------------

    async def run(self, deadline: float) -> None:
        actions = (
            (self.create_order, 20),
            (self.edit_order, 18),
            (self.advance_order, 37),
            (self.pay_invoice, 15),
            (self.edit_customer, 5),
            (self.read, 5),
        )
        choices, weights = zip(*actions, strict=True)
        while time.monotonic() < deadline:
            action = self.random.choices(choices, weights)[0]
            await action()

    def _items(self) -> list[dict[str, Any]]:
        plenty = [g for g in self.shop.garments if not g.scarce]
        garments = self.random.sample(plenty, self.random.randint(1, min(3, len(plenty))))
        if self.random.random() < 0.1:
            garments += [g for g in self.shop.garments if g.scarce]
        self.random.shuffle(garments)
        items = []
        for g in garments:
            sizes = self.random.sample(g.sizes, self.random.randint(1, len(g.sizes)))
            item: dict[str, Any] = {
                "style": g.style,
                "colour": g.colour,
                "sizes": {size: self.random.randint(1, 12) for size in sizes},
                "unit_price_cents": self.random.randint(300, 1500),
            }
            if self.random.random() < 0.5:
                item["imprints"] = [
                    {
                        "location": "front",
                        "method": "screen",
                        "colours": self.random.randint(1, 4),
                        "unit_price_cents": 150,
                        "setup_cents": 2500,
                    }
                ]
            items.append(item)
        return items

    async def create_order(self) -> None:
        body: dict[str, Any] = {
            "customer_id": self.random.choice(self.shop.customers),
            "items": self._items(),
        }
        if self.random.random() < 0.3:
            key = f"soak-{uuid.uuid4()}"
            body["notes"] = f"soak key {key}"
            answers = await self.twice("POST", "/orders", body, {"Idempotency-Key": key})
            for answer in answers:
                self._keyed(key, answer, self._id(answer))
        else:
            answers = [await self.call("POST", "/orders", body)]
        for answer in answers:
            if (order_id := self._id(answer)) is not None:
                self.shop.orders[order_id] = "artwork"

    @staticmethod
    def _id(answer: httpx.Response | None, *keys: str) -> int | None:
        if answer is None or not answer.is_success:
            return None
        data = answer.json()
        for key in keys:
            data = data[key]
        return int(data["id"])

    def _open_order(self) -> int | None:
        if not self.shop.orders:
            return None
        return self.random.choice(list(self.shop.orders))

    def _seen(self, order_id: int, answer: httpx.Response | None) -> None:
        if answer is None or answer.status_code != 200:
            return
        stage = answer.json()["stage"]
        if stage in NEXT or stage in BACK:
            self.shop.orders[order_id] = stage
        else:
            self.shop.orders.pop(order_id, None)

    async def edit_order(self) -> None:
        order_id = self._open_order()
        if order_id is None:
            return await self.create_order()
        read = await self.call("GET", f"/orders/{order_id}")
        if read is None or read.status_code != 200:
            return None
        self._seen(order_id, read)
        body: dict[str, Any] = {
            "due_by": f"2027-0{self.random.randint(1, 9)}-1{self.random.randint(0, 9)}"
        }
        if self.random.random() < 0.7:
            body["items"] = self._items()  # refused (422) once the order is in production
        headers = {"If-Match": read.headers["ETag"]} if self.random.random() < 0.9 else {}
        path = f"/orders/{order_id}"
        if self.random.random() < 0.15:  # two edits from one read: one wins, one gets 412
            other = {"due_by": "2027-12-24"}
            answers = list(
                await asyncio.gather(
                    self.call("PATCH", path, body, headers),
                    self.call("PATCH", path, other, headers),
                )
            )
        elif self.random.random() < 0.2:
            headers["Idempotency-Key"] = f"soak-{uuid.uuid4()}"
            answers = await self.twice("PATCH", path, body, headers)
        else:
            answers = [await self.call("PATCH", path, body, headers)]
        for answer in answers:
            self._seen(order_id, answer)
        return None

    async def advance_order(self) -> None:
        order_id = self._open_order()
        if order_id is None:
            return await self.create_order()
        stage = self.shop.orders[order_id]
        to = NEXT[stage]
        if stage in BACK and self.random.random() < 0.1:
            to = BACK[stage]  # rework: stock stays consumed
        body: dict[str, Any] = {"to_stage": to}
        if to == "dispatched":
            body["carrier"] = self.random.choice(CARRIERS)
            body["tracking_number"] = f"TRK{self.random.randint(10**8, 10**9)}"
        path = f"/orders/{order_id}/advance"
        roll = self.random.random()
        if roll < 0.1:  # two identical moves at once: one moves, one is refused
            answers = list(await asyncio.gather(self.call("POST", path, body),
                                                self.call("POST", path, body)))  # fmt: skip
        elif roll < 0.3:
            answers = await self.twice(
                "POST", path, body, {"Idempotency-Key": f"soak-{uuid.uuid4()}"}
            )
        else:
            answers = [await self.call("POST", path, body)]
        for answer in answers:
            self._seen(order_id, answer)
        if all(a is not None and a.status_code == 422 for a in answers):
            self._seen(order_id, await self.call("GET", f"/orders/{order_id}"))
        return None

    async def pay_invoice(self) -> None:
        page = await self.call("GET", "/invoices?status=issued")
        if page is None or page.status_code != 200 or not page.json()["data"]:
            return await self.advance_order()
        invoice = self.random.choice(page.json()["data"])
        balance = int(invoice["balance_cents"])
        roll = self.random.random()
        if roll < 0.4:
            amount = balance
        elif roll < 0.9:
            amount = self.random.randint(1, max(1, balance // 2))
        else:
            amount = balance + 1  # more than the balance: 422
        path = f"/invoices/{invoice['id']}/payments"
        body: dict[str, Any] = {"amount_cents": amount, "method": "bank_transfer"}
        if self.random.random() < 0.5:
            key = f"soak-{uuid.uuid4()}"
            body["reference"] = key
            for answer in await self.twice("POST", path, body, {"Idempotency-Key": key}):
                self._keyed(key, answer, self._id(answer, "payment"))
        elif self.random.random() < 0.2:  # two payments at once for the same balance
            await asyncio.gather(self.call("POST", path, body), self.call("POST", path, body))
        else:
            await self.call("POST", path, body)
        return None

    async def edit_customer(self) -> None:
        customer_id = self.random.choice(self.shop.customers)
        read = await self.call("GET", f"/customers/{customer_id}")
        if read is None or read.status_code != 200:
            return
        body = {"default_carrier": self.random.choice(CARRIERS) + f" {self.random.randint(1, 99)}"}
        headers = {"If-Match": read.headers["ETag"]}
        await self.call("PATCH", f"/customers/{customer_id}", body, headers)

    async def read(self) -> None:
        path = self.random.choice(("/orders", "/inventory", "/events", "/invoices", "/customers"))
        await self.call("GET", path)


def _shape(message: str) -> str:
    """A refusal's message without its numbers, so like refusals count together."""
    return re.sub(r"\d[\d,]*", "N", message)


async def run_clients(
    base: str, shops: list[Shop], *, clients: int, seconds: float, seed: int
) -> Tally:
    tally = Tally()
    deadline = time.monotonic() + seconds
    made = []
    for n in range(clients):
        shop = shops[n % len(shops)]
        token = shop.tokens[(n // len(shops)) % len(shop.tokens)]
        made.append(Client(base, shop, token, tally, seed * 1000 + n))
    try:
        await asyncio.gather(*(client.run(deadline) for client in made))
    finally:
        for client in made:
            await client.close()
    return tally
