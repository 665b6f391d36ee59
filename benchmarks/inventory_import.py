"""The SKU CSV import at its documented limit (5 MiB, docs/admin.md): the time of
`models.catalogue.import_skus`, the function the admin's upload and `pressline sku import`
call (every row checked, the workspace's codes looked up, the SKUs and their first stock
movements inserted in one transaction), on a throwaway SQLite file and PostgreSQL database.

Rows are typical ones (`TEE-000001-BLK-M,Classic Tee,Gildan,Black,#000000,M,120,10`, about 60
bytes), so 5 MiB is the largest number of SKUs one upload can bring.

    python -m benchmarks.inventory_import               # 5 MiB, SQLite and PostgreSQL
    python -m benchmarks.inventory_import --mib 1
    python -m benchmarks.inventory_import --smoke       # 50 KiB
"""

from __future__ import annotations

import argparse
import asyncio
import io
import subprocess
import sys
import time

from benchmarks import common

HEADER = "code,style,brand,colour,colour_hex,size,on_hand,reorder_point\n"


def csv_lines(size: int) -> list[str]:
    """Typical rows up to `size` bytes in all."""
    rows, total, n = [HEADER], len(HEADER), 0
    while True:
        n += 1
        row = f"TEE-{n:06d}-BLK-M,Classic Tee,Gildan,Black,#000000,M,120,10\n"
        if total + len(row) > size:
            break
        rows.append(row)
        total += len(row)
    return io.StringIO("".join(rows), newline="").readlines()


async def measure(url: str, size: int) -> None:
    """One import into a new workspace of the database at `url` (run in a child process)."""
    from models import accounts, catalogue, db

    db.bind(db.engine_from_url(url))
    await db.migrate()
    await db.start()
    try:
        ws = await accounts.create_workspace(name="Import benchmark")
        lines = csv_lines(size)
        began = time.perf_counter()
        ids = await catalogue.import_skus(ws.id, lines)
        seconds = time.perf_counter() - began
    finally:
        await db.stop()
    assert len(ids) == len(lines) - 1, (len(ids), len(lines))
    print(
        f"{common.kind(url):8} {size / 1024 / 1024:5.2f} MiB  {len(ids):7,} SKUs  "
        f"{seconds:6.2f} s  {len(ids) / seconds:8,.0f} SKUs/s",
        flush=True,
    )


async def run(backends: list[str], size: int) -> None:
    for backend in backends:
        async with common.throwaway(backend, "import") as url:
            command = [sys.executable, "-m", "benchmarks.inventory_import", "--url", url]
            command += ["--bytes", str(size)]
            # Blocking on purpose: the child (our own script) runs alone while this waits.
            subprocess.run(command, check=True, cwd=common.ROOT)  # noqa: S603, ASYNC221


def main() -> None:
    common.require_module_run(__package__, "inventory_import")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=float, default=5.0, help="file size in MiB (default 5)")
    parser.add_argument("--smoke", action="store_true", help="a 50 KiB file, seconds long")
    parser.add_argument("--url", help=argparse.SUPPRESS)  # the child process's database
    parser.add_argument("--bytes", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.url:
        asyncio.run(measure(args.url, args.bytes))
        return
    size = 50 * 1024 if args.smoke else int(args.mib * 1024 * 1024)
    print(common.machine())
    asyncio.run(run(asyncio.run(common.smoke_backends()), size))


if __name__ == "__main__":
    main()
