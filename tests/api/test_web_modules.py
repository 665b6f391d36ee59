"""What a web process loads: the API path must not carry the CLI's migration tooling or the
OpenAPI example generators (docs/benchmarks.md, "Memory of the web process")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Loaded only by Piccolo's engine lookup (migration tooling) or by generated OpenAPI examples.
NOT_ON_THE_API_PATH = ("black", "click", "pathspec", "polyfactory", "faker")

STARTED = """
import asyncio, sys
from api.app import app

async def main():
    async with app.lifespan():
        app.openapi_schema.to_schema()
asyncio.run(main())
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_a_started_web_process_loads_neither_migration_tooling_nor_example_generators(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'web.sqlite3'}"}
    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", STARTED], cwd=ROOT, env=env, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    loaded = set(done.stdout.decode().split())
    assert "litestar" in loaded and "asyncpg" in loaded  # the listing is the real one
    assert loaded.isdisjoint(NOT_ON_THE_API_PATH), sorted(loaded & set(NOT_ON_THE_API_PATH))
