"""Soak: two shops under mixed concurrent writes on PostgreSQL, through the real web and worker
processes, while the worker is killed twice and the web once; then the outbox is drained and
the invariants are checked.

    python -m benchmarks.soak --profile ci      # about 60 s of load
    python -m benchmarks.soak --profile long    # 10 minutes
    python -m benchmarks.soak --profile smoke   # 12 s (benchmarks/smoke.sh)

Everything runs on 127.0.0.1: a database of its own (`pressline_soak_<pid>`, created afresh,
migrated with `pressline migrate`, dropped at the end unless --keep-database), set up with the
`pressline` commands and the API; `python -m api` and `python -m daemon`; one aiohttp receiver
per webhook subscription, in this process. Prints the figures and every invariant, and exits
1 when one fails (docs/benchmarks.md, "Soak").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from benchmarks import common
from benchmarks.soak_checks import Check, Context, Receiver, check_all
from benchmarks.soak_load import Garment, Shop, Tally, run_clients

PRESSLINE = "import sys; from cli import main; sys.exit(main())"  # the tree's own command
DEADLOCK = re.compile(r"deadlock", re.IGNORECASE)
MAX_IN_FLIGHT = 4  # WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION (its default), passed explicitly
WORKER_ENV = {
    "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",  # the receivers are on 127.0.0.1
    "WEBHOOK_POLL_INTERVAL": "0.2",
    "WEBHOOK_TIMEOUT": "3",
    "WEBHOOK_LEASE": "5",  # attempts cut off by a kill are found within seconds…
    "WEBHOOK_BACKOFF": "1,2,4,8,15",  # …and sent again within the run
    "WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION": str(MAX_IN_FLIGHT),
    "RATE_LIMIT_READ": common.UNLIMITED,
    "RATE_LIMIT_WRITE": common.UNLIMITED,
}
# (style, colour, hex, sizes, on hand, scarce): the scarce one runs short, so some moves to
# production are refused for stock and roll back.
GARMENTS = (
    ("Soak Tee", "Black", "#000000", ("S", "M", "L", "XL", "2XL"), 1_000_000, False),
    ("Soak Tee", "White", "#FFFFFF", ("S", "M", "L", "XL"), 1_000_000, False),
    ("Soak Hoodie", "Navy", "#1F2A44", ("S", "M", "L", "XL", "2XL"), 1_000_000, False),
    ("Soak Cap", "Red", "#C8102E", ("OS",), 60, True),
)
CUSTOMERS = 5
TOKENS = 2  # per shop's owner
# (name, events, scoped to the shop's customer n): one transaction's events reach different sets
SUBSCRIPTIONS = (
    ("all", "*", None),
    ("dispatch-pay", "order.dispatched,invoice.payment_received", None),
    ("issued-stage", "invoice.issued,order.stage_changed", None),
    ("customer-all", "*", 0),
    ("customer-edits", "order.updated,customer.updated", 1),
)


@dataclass(frozen=True)
class Profile:
    name: str
    seconds: float  # of load
    clients: int
    drain: float  # at most this many seconds for the outbox to empty afterwards
    faults: tuple[tuple[float, str], ...] = (
        (0.2, "worker"),
        (0.45, "web"),
        (0.7, "worker"),
    )  # (fraction of the load's time, process killed with SIGKILL and restarted at once)


PROFILES = {
    "ci": Profile("ci", seconds=60, clients=24, drain=120),
    "long": Profile("long", seconds=600, clients=32, drain=300),
    "smoke": Profile("smoke", seconds=12, clients=8, drain=60),  # benchmarks/smoke.sh
}


class Process:
    """The web or the worker, restarted as often as it is killed; a log file per start."""

    def __init__(
        self, kind: str, command: list[str], env: dict[str, str], logs: Path, tree: Path
    ) -> None:
        self.kind, self.command, self.env, self.logs, self.tree = kind, command, env, logs, tree
        self.process: asyncio.subprocess.Process | None = None
        self.log_files: list[Path] = []

    async def start(self, ready: Any) -> float:
        """Start it and wait until `ready(self)` says so; returns the seconds that took."""
        began = time.monotonic()
        log = self.logs / f"{self.kind}-{len(self.log_files) + 1}.log"
        self.log_files.append(log)
        with log.open("wb") as sink:
            self.process = await asyncio.create_subprocess_exec(
                *self.command, cwd=self.tree, env=self.env, stdout=sink, stderr=sink
            )
        async with asyncio.timeout(60):
            while not await ready(self):
                if self.process.returncode is not None:
                    raise RuntimeError(f"{self.kind} exited at start; see {log}")
                await asyncio.sleep(0.1)
        return time.monotonic() - began

    async def kill(self) -> float:
        """SIGKILL; returns the moment it was sent (time.monotonic())."""
        assert self.process is not None
        at = time.monotonic()
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()
        return at

    async def stop(self) -> int | None:
        """SIGTERM and its exit status (None if it had to be killed after 40 s)."""
        if self.process is None or self.process.returncode is not None:
            return None if self.process is None else self.process.returncode
        self.process.terminate()
        try:
            async with asyncio.timeout(40):
                return await self.process.wait()
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            return None

    def deadlock_lines(self) -> int:
        """Log lines that mention a deadlock (a transaction run again after one, or a 500)."""
        return sum(
            len(DEADLOCK.findall(path.read_text(errors="replace"))) for path in self.log_files
        )


async def _worker_ready(worker: Process) -> bool:
    return '"message":"worker started"' in worker.log_files[-1].read_text(errors="replace")


def _web_ready(base: str) -> Any:
    async def ready(_: Process) -> bool:
        try:
            async with httpx.AsyncClient(timeout=2) as client:
                return (await client.get(base + "/health")).status_code == 200
        except httpx.TransportError:
            return False

    return ready


# --- setup -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Commands:
    """`pressline` of the tree served, on the soak's database."""

    tree: Path
    env: dict[str, str]

    async def __call__(self, *args: str) -> Any:
        """One `pressline --json …` command; its JSON answer."""
        command = [sys.executable, "-c", PRESSLINE, "--json", *args]
        process = await asyncio.create_subprocess_exec(
            *command, cwd=self.tree, env=self.env, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"pressline {' '.join(args)}: {err.decode()}{out.decode()}")
        return json.loads(out)


async def setup_shop(pressline: Commands, n: int, logs: Path) -> tuple[Shop, int]:
    """A workspace (enterprise: no open-order limit; no artwork approval, so orders move), its
    owner with tokens, and its SKUs; returns the shop and its workspace id."""
    name = f"Soak Shop {'AB'[n]}"
    ws = await pressline(
        "workspace", "create", "--name", name, "--plan", "enterprise",
        "--require-artwork-approval", "off",
    )  # fmt: skip
    user = await pressline(
        "user", "create", "--workspace", str(ws["id"]), "--name", f"Owner {n}",
        "--email", f"owner{n}@soak.test", "--role", "owner",
    )  # fmt: skip
    tokens = [
        (await pressline("token", "create", "--user", str(user["id"]), "--name", f"soak {t}"))[
            "token"
        ]
        for t in range(TOKENS)
    ]
    rows = ["code,style,brand,colour,colour_hex,size,on_hand"]
    garments = []
    for style, colour, hex_, sizes, on_hand, scarce in GARMENTS:
        for size in sizes:
            code = f"{style.split()[1][:3]}-{colour[:3]}-{size}".upper()
            rows.append(f"{code},{style},Soakwear,{colour},{hex_},{size},{on_hand}")
        garments.append(Garment(style, colour, sizes, scarce))
    csv = logs / f"skus-{n}.csv"
    csv.write_text("\n".join(rows) + "\n")
    await pressline("sku", "import", "--workspace", str(ws["id"]), str(csv))
    return Shop(name=name, tokens=tokens, garments=garments), int(ws["id"])


async def add_customers(base: str, shop: Shop) -> None:
    async with httpx.AsyncClient(
        base_url=base + "/api/v1", headers={"Authorization": f"Bearer {shop.tokens[0]}"}
    ) as client:
        for n in range(CUSTOMERS):
            answer = await client.post(
                "/customers",
                json={
                    "name": f"{shop.name} Customer {n}",
                    "payment_terms": ("net_30", "on_receipt", "net_7")[n % 3],
                    "contacts": [{"name": f"Buyer {n}", "email": f"buyer{n}@soak.test"}],
                },
            )
            answer.raise_for_status()
            shop.customers.append(int(answer.json()["id"]))


async def subscribe(pressline: Commands, shop: Shop, ws: int) -> list[Receiver]:
    receivers = []
    for name, events, scoped in SUBSCRIPTIONS:
        receiver = await Receiver(f"{ws}-{name}").start()
        args = ["webhook", "create", "--workspace", str(ws), "--url", receiver.url]
        args += ["--events", events]
        if scoped is not None:
            args += ["--customer", str(shop.customers[scoped])]
        sub = await pressline(*args)
        receiver.secret, receiver.subscription = sub["secret"], int(sub["id"])
        receivers.append(receiver)
    return receivers


# --- the run ---------------------------------------------------------------------------------


@dataclass
class Result:
    profile: str
    figures: dict[str, Any]
    checks: list[Check]
    logs: str
    faults: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    def failed(self) -> list[str]:
        return [check.name for check in self.checks if not check.ok]

    def report(self) -> str:
        f = self.figures
        stages = ", ".join(f"{k} {v:,}" for k, v in f.get("orders_by_stage", {}).items())
        statuses = ", ".join(f"{k} {v:,}" for k, v in f.get("delivery_statuses", {}).items())
        rows = [
            ("load", f"{f['seconds']:.0f} s, {f['clients']} clients, 2 shops"),
            ("requests", f"{f['requests']:,} ({f['connection_errors']:,} connection errors "
                         "retried)"),
            ("responses", " · ".join(f"{k} {v:,}" for k, v in f["responses"].items())),
            ("4xx", ", ".join(f"{k}: {v:,}" for k, v in f["4xx"].items()) or "none"),
            ("orders", f"{f.get('orders', 0):,} ({stages}); {f.get('order_edits', 0):,} edits, "
                       f"{f['stock_short']:,} moves refused for stock"),
            ("invoices", f"{f.get('invoices', 0):,} ({f.get('invoices_paid', 0):,} paid), "
                         f"{f.get('payments', 0):,} payments"),
            ("events", f"{f.get('events', 0):,}"),
            ("deliveries", f"{f.get('deliveries', 0):,} ({statuses})"),
            ("received", f"{f.get('received', 0):,}"),
            ("duplicates", f"{f.get('duplicates', 0):,} "
                           f"{f.get('duplicates_per_kill') or ''}".rstrip()),
            ("deadlocks", f"{f['deadlocks']} (log lines 'deadlock detected': web "
                          f"{f['deadlock_lines']['web']}, worker {f['deadlock_lines']['worker']})"),
            ("drain", f"{f['drain_seconds']:.1f} s, {f['pending_after_drain']} pending left"),
            ("exits", f"web {f['exit_codes']['web']}, worker {f['exit_codes']['worker']} "
                      "(SIGTERM at the end)"),
        ]  # fmt: skip
        lines = [
            f"Soak ({self.profile}) of {f['tree']} on {f['database']}; logs in {self.logs}",
            f"machine: {f['machine']}",
            "faults: " + "; ".join(self.faults),
            "",
            common.table(["figure", "value"], rows),
            "",
            "invariants:",
        ]
        for check in self.checks:
            lines.append(f"  {'PASS' if check.ok else 'FAIL'}  {check.name}")
            lines += [f"          {detail}" for detail in check.details]
        if f.get("refusals"):
            lines += ["", "refusals, most frequent first:"]
            lines += [f"  {n:6,}  {what}" for what, n in f["refusals"][:12]]
        return "\n".join(lines)


async def deadlocks(admin_url: str, name: str) -> int:
    conn = await asyncpg.connect(admin_url)
    try:
        value = await conn.fetchval(
            "SELECT deadlocks FROM pg_stat_database WHERE datname = $1", name
        )
    finally:
        await conn.close()
    return int(value or 0)


async def backends_gone(admin_url: str, name: str, seconds: float = 15) -> None:
    """Wait for the database's backends to exit: each writes its statistics as it goes."""
    conn = await asyncpg.connect(admin_url)
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            left = await conn.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1", name
            )
            if not left:
                break
            await asyncio.sleep(0.2)
    finally:
        await conn.close()
    await asyncio.sleep(0.5)


async def drain(url: str, seconds: float) -> tuple[float, int]:
    """Wait until no delivery of an active subscription is pending (at most `seconds`)."""
    began = time.monotonic()
    conn = await asyncpg.connect(url)
    try:
        while True:
            pending = await conn.fetchval(
                "SELECT count(*) FROM webhook_deliveries d JOIN webhook_subscriptions s"
                " ON s.id = d.subscription WHERE d.status = 'pending' AND s.is_active"
            )
            waited = time.monotonic() - began
            if not pending or waited > seconds:
                return waited, int(pending)
            await asyncio.sleep(0.5)
    finally:
        await conn.close()


async def inject_faults(
    profile: Profile, began: float, web: Process, worker: Process, base: str, ctx: Context,
    faults: list[str],
) -> None:  # fmt: skip
    for fraction, target in profile.faults:
        await asyncio.sleep(max(0.0, began + fraction * profile.seconds - time.monotonic()))
        process = worker if target == "worker" else web
        at = await process.kill()
        if target == "worker":
            ctx.worker_kills.append(at)
        back = await process.start(_worker_ready if target == "worker" else _web_ready(base))
        faults.append(f"{at - began:.1f} s {target} killed, back in {back:.1f} s")


def describe_tree(tree: Path) -> str:
    """The commit served, and how many files of the code differ from it (others may be
    editing the checkout while the soak runs)."""

    def git(*args: str) -> str:
        command = ["git", *args]
        done = subprocess.run(command, cwd=tree, capture_output=True, check=True, text=True)  # noqa: S603
        return done.stdout

    try:
        head = git("rev-parse", "--short", "HEAD").strip()
        changed = git("status", "--porcelain", "--", "api", "models", "daemon", "cli")
    except (OSError, subprocess.CalledProcessError):
        return f"{tree} (not a git checkout)"
    files = len(changed.splitlines())
    return head + (f" with {files} files of the code changed" if files else "")


def child_env(url: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("WEBHOOK_", "RATE_LIMIT_", "REDIS_URL", "PORT", "HONCHO"))
    }
    return {**env, "DATABASE_URL": url, "PYTHONUNBUFFERED": "1", **WORKER_ENV}


async def run(
    profile: Profile,
    *,
    admin_url: str = common.ADMIN_URL,
    logs: Path | None = None,
    seed: int = 1,
    keep_database: bool = False,
    tree: Path = common.ROOT,
) -> Result:
    """One soak; `tree` is the checkout whose web, worker and commands run (this one, or
    another unpacked beside it to compare)."""
    name = f"pressline_soak_{os.getpid()}"
    url = admin_url.rsplit("/", 1)[0] + "/" + name
    logs = logs or Path(tempfile.mkdtemp(prefix="pressline-soak-"))
    logs.mkdir(parents=True, exist_ok=True)
    admin = await asyncpg.connect(admin_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    env = child_env(url)
    pressline = Commands(tree, env)
    port = common.free_port()
    base = f"http://127.0.0.1:{port}"
    web = Process("web", [sys.executable, "-m", "api", "--host", "127.0.0.1"],
                  {**env, "PORT": str(port), "LOG_LEVEL": "WARNING"}, logs, tree)  # fmt: skip
    worker = Process("worker", [sys.executable, "-m", "daemon"],
                     {**env, "LOG_LEVEL": "INFO"}, logs, tree)  # fmt: skip
    receivers: list[Receiver] = []
    faults: list[str] = []
    try:
        deadlocks_before = await deadlocks(admin_url, name)
        await pressline("migrate")
        made = await asyncio.gather(*(setup_shop(pressline, n, logs) for n in range(2)))
        await web.start(_web_ready(base))
        await worker.start(_worker_ready)
        for shop, ws in made:
            await add_customers(base, shop)
            receivers += await subscribe(pressline, shop, ws)
        conn = await asyncpg.connect(url)
        watermark = int(await conn.fetchval("SELECT coalesce(max(id), 0) FROM webhook_events"))
        await conn.close()
        ctx = Context(
            watermark=watermark,
            receivers={r.subscription: r for r in receivers},
            worker_kills=[],
            max_in_flight=MAX_IN_FLIGHT,
        )

        began = time.monotonic()
        shops = [shop for shop, _ in made]
        async with asyncio.TaskGroup() as group:  # a fault that fails stops the clients too
            load = group.create_task(
                run_clients(base, shops, clients=profile.clients, seconds=profile.seconds,
                            seed=seed)
            )  # fmt: skip
            group.create_task(inject_faults(profile, began, web, worker, base, ctx, faults))
        tally = load.result()
        seconds = time.monotonic() - began
        drained, pending = await drain(url, profile.drain)
        exits = {"web": await web.stop(), "worker": await worker.stop()}
        await backends_gone(admin_url, name)
        found = await deadlocks(admin_url, name) - deadlocks_before
        ctx.figures.update(
            _load_figures(tally),
            database=name,
            tree=describe_tree(tree),
            machine=common.machine(),
            seconds=seconds,
            clients=profile.clients,
            deadlocks=found,
            deadlock_lines={
                "web": web.deadlock_lines(),
                "worker": worker.deadlock_lines(),
            },
            drain_seconds=drained,
            pending_after_drain=pending,
            exit_codes=exits,
            faults=faults,
        )
        client_checks = [
            _check("no 5xx", tally.server_errors),
            _check("every request answered (no timeout)", tally.timeouts),
            _check("no 4xx but 409, 412 and 422", tally.unexpected),
            _check("0 deadlocks", [f"{found} in pg_stat_database"] if found else []),
            _check("outbox drained", [f"{pending} pending after {drained:.0f} s"] if pending
                   else []),
        ]  # fmt: skip
        checks = await check_all(
            url,
            ctx,
            client_checks=client_checks,
            idempotency_conflicts=tally.idempotency_conflicts(),
        )
        return Result(profile.name, ctx.figures, checks, str(logs), faults)
    finally:
        for process in (web, worker):
            if process.process is not None and process.process.returncode is None:
                process.process.kill()
                await process.process.wait()
        for receiver in receivers:
            await receiver.stop()
        if not keep_database:
            with contextlib.suppress(OSError, asyncpg.PostgresError):
                await _drop(admin_url, name)


async def _drop(admin_url: str, name: str) -> None:
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


def _check(name: str, problems: list[str]) -> Check:
    shown = problems[:5] + ([f"… and {len(problems) - 5} more"] if len(problems) > 5 else [])
    return Check(name, not problems, shown)


def _load_figures(tally: Tally) -> dict[str, Any]:
    four = {str(k): v for k, v in sorted(tally.statuses.items()) if 400 <= k < 500}
    return {
        "requests": tally.requests,
        "connection_errors": tally.connection_errors,
        "responses": tally.classes(),
        "4xx": four,
        "replayed": tally.replayed,
        "refusals": tally.refusals.most_common(),
        "stock_short": sum(n for what, n in tally.refusals.items() if "Not enough stock" in what),
    }


def main() -> None:
    common.require_module_run(__package__, "soak")
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci")
    parser.add_argument("--seed", type=int, default=1, help="the clients' random choices")
    parser.add_argument("--logs", type=Path, help="directory for the processes' logs")
    parser.add_argument("--json", type=Path, help="also write the figures and checks here")
    parser.add_argument("--keep-database", action="store_true", help="do not drop it at the end")
    parser.add_argument(
        "--tree",
        type=Path,
        default=common.ROOT,
        help="run another checkout's web, worker and commands (e.g. an older commit unpacked "
        "with git archive), with this harness",
    )
    args = parser.parse_args()
    if not asyncio.run(common.pg_reachable()):
        if args.profile == "smoke":  # as every smoke run: PostgreSQL when the server answers
            print(f"note: PostgreSQL not reachable at {common.ADMIN_URL}; no soak")
            return
        sys.exit(f"PostgreSQL not reachable at {common.ADMIN_URL}: the soak runs on it only")
    result = asyncio.run(
        run(PROFILES[args.profile], logs=args.logs, seed=args.seed,
            keep_database=args.keep_database, tree=args.tree.resolve())
    )  # fmt: skip
    print(result.report())
    if args.json:
        data = {"figures": result.figures, "checks": [asdict(c) for c in result.checks]}
        args.json.write_text(json.dumps(data, indent=2, default=str))
    if not result.ok:
        print(f"\nFAILED: {', '.join(result.failed())}")
        sys.exit(1)
    print("\nall invariants hold")


if __name__ == "__main__":
    main()
