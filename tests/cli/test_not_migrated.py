"""The installed `pressline` command on a database that is not set up: without DATABASE_URL in a
directory with no database file, on a file or a PostgreSQL database without Pressline's
tables, or one a migration behind. Any command but `migrate` (and `demo`, which migrates)
says to run `pressline migrate` in one line, exits 1, prints no traceback and creates no
file; after `pressline migrate` the same command works."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from models import db
from tests.conftest import ADMIN_URL, _admin, _database_url, require_postgres

PRESSLINE = str(Path(sys.executable).parent / "pressline")
ADVICE = "run `pressline migrate` first"


def run(cwd: Path, *argv: str, database_url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    return subprocess.run(  # noqa: S603 - the installed command, fixed arguments
        [PRESSLINE, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip


def assert_told_to_migrate(
    done: subprocess.CompletedProcess[str], *, as_json: bool = False
) -> None:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    if as_json:
        assert done.stderr == "" and len(done.stdout.splitlines()) == 1, done
        assert ADVICE in done.stdout
    else:
        assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done
        assert done.stderr.startswith("error: ") and ADVICE in done.stderr


def test_without_database_url_or_file(tmp_path: Path) -> None:
    for argv in (["workspace", "list"], ["order", "show", "1"], ["outbox", "stats"]):
        assert_told_to_migrate(run(tmp_path, *argv))
    assert_told_to_migrate(run(tmp_path, "--json", "workspace", "list"), as_json=True)
    assert list(tmp_path.iterdir()) == [], "no database file is made by asking"
    migrated = run(tmp_path, "migrate")
    assert migrated.returncode == 0, migrated.stderr
    assert (tmp_path / "pressline.sqlite3").exists()
    listed = run(tmp_path, "workspace", "list")
    assert listed.returncode == 0 and listed.stdout == "no workspaces\n", listed


def test_a_sqlite_file_without_the_tables_or_a_migration_behind(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shop.sqlite3'}"
    sqlite3.connect(tmp_path / "shop.sqlite3").close()  # an empty file
    assert_told_to_migrate(run(tmp_path, "workspace", "list", database_url=url))
    assert run(tmp_path, "migrate", database_url=url).returncode == 0
    newest = db.newest_migration()
    with sqlite3.connect(tmp_path / "shop.sqlite3") as conn:  # as if its release were new
        row = conn.execute("SELECT * FROM migration WHERE name = ?", (newest,)).fetchone()
        conn.execute("DELETE FROM migration WHERE name = ?", (newest,))
    assert_told_to_migrate(run(tmp_path, "workspace", "list", database_url=url))
    with sqlite3.connect(tmp_path / "shop.sqlite3") as conn:
        conn.execute("INSERT INTO migration VALUES (?, ?, ?, ?)", row)
    assert run(tmp_path, "workspace", "list", database_url=url).returncode == 0


@pytest.fixture
async def empty_postgres() -> AsyncIterator[str]:
    await require_postgres()
    name = f"pressline_test_empty_{uuid.uuid4().hex[:8]}"
    await _admin(f'CREATE DATABASE "{name}"')
    try:
        yield _database_url(ADMIN_URL, name)
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_postgresql_database_without_the_tables(empty_postgres: str, tmp_path: Path) -> None:
    assert_told_to_migrate(run(tmp_path, "workspace", "list", database_url=empty_postgres))
    assert_told_to_migrate(
        run(tmp_path, "--json", "order", "show", "1", database_url=empty_postgres), as_json=True
    )
    assert run(tmp_path, "migrate", database_url=empty_postgres).returncode == 0
    listed = run(tmp_path, "workspace", "list", database_url=empty_postgres)
    assert listed.returncode == 0 and listed.stdout == "no workspaces\n", listed
