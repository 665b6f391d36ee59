"""A clean clone built the way a Procfile platform's Python buildpack builds it, then its
Procfile run: the files a push would carry are copied to an empty directory, the buildpack's
one package-manager file is found, a fresh virtualenv installs from it alone, and `release`,
`web` and `worker` run through `bash -c` against a PostgreSQL database made for the test.

It needs PostgreSQL (skipped when unreachable, a failure with PRESSLINE_REQUIRE_POSTGRES=1)
and a package index for pip (its cache makes a repeat fast)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import asyncpg
import httpx
import pytest

from tests.conftest import ADMIN_URL, _admin, _database_url, require_postgres
from tests.deploy.test_files import PACKAGE_MANAGER_FILES
from tests.e2e.test_ratelimit_redis import ROOT, _free_port

pytestmark = pytest.mark.slow
INSTALL_SECONDS = 900
START_SECONDS = 60


@pytest.fixture
async def fresh_database() -> AsyncIterator[str]:
    """An empty PostgreSQL database of this test's own, dropped afterwards."""
    await require_postgres()
    name = f"pressline_deploy_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    await _admin(f'CREATE DATABASE "{name}"')
    try:
        yield _database_url(ADMIN_URL, name)
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pushed_files() -> list[str]:
    """What `git push` would carry if the working tree were committed: tracked files as they
    are now, and new files git does not ignore."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: which files a push carries is unknown")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return sorted({name for name in listed.split("\0") if name and (ROOT / name).is_file()})


def clean_clone(into: Path) -> Path:
    app = into / "app"
    for name in pushed_files():
        target = app / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    return app


def python_for(app: Path) -> str:
    """The interpreter `.python-version` asks for."""
    wanted = (app / ".python-version").read_text(encoding="utf-8").strip()
    if f"{sys.version_info.major}.{sys.version_info.minor}" == wanted:
        return sys.executable
    found = shutil.which(f"python{wanted}")
    if found is None:
        pytest.skip(f"Python {wanted} (.python-version) is not installed here")
    return found


def platform_env(venv: Path, **values: str) -> dict[str, str]:
    """The environment of a dyno: the build's virtualenv first on PATH, and nothing of the
    virtualenv these tests run in (its `pressline` must not stand in for a missing one)."""
    ours = (Path(sys.prefix) / "bin").resolve()
    path = [p for p in os.environ["PATH"].split(os.pathsep) if p and Path(p).resolve() != ours]
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    return {**env, "PATH": os.pathsep.join([str(venv / "bin"), *path]), **values}


def procfile(app: Path) -> dict[str, str]:
    lines = (app / "Procfile").read_text(encoding="utf-8").splitlines()
    return {
        kind.strip(): command.strip()
        for kind, _, command in (line.partition(":") for line in lines if line.strip())
    }


class Dyno:
    """One Procfile line running through `bash -c` in a process group of its own, which is
    how the platform signals it."""

    def __init__(self, command: str, app: Path, env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("wb") as sink:
            self.process = subprocess.Popen(  # noqa: S603 - the Procfile's own line
                [shutil.which("bash") or "/bin/bash", "-c", command],
                cwd=app,
                env=env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def messages(self) -> list[str]:
        return [json.loads(line)["message"] for line in self.output().splitlines()]

    def stop(self, seconds: float = 30) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise


def wait_for(check: Callable[[], bool], seconds: float, dynos: list[Dyno]) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        for dyno in dynos:
            assert dyno.process.poll() is None, dyno.output()
        assert time.monotonic() < deadline, [dyno.output() for dyno in dynos]
        time.sleep(0.2)


def answers(url: str, status: int) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == status
    except httpx.TransportError:
        return False


async def has_tables(url: str) -> bool:
    conn = await asyncpg.connect(url)
    try:
        return bool(await conn.fetchval("SELECT to_regclass('public.orders') IS NOT NULL"))
    finally:
        await conn.close()


def test_a_clean_clone_builds_releases_and_runs_its_procfile(fresh_database: str, tmp_path: Path):
    app = clean_clone(tmp_path)
    found = [name for name in PACKAGE_MANAGER_FILES if (app / name).is_file()]
    assert found == ["requirements.txt"], "the buildpack needs exactly one package manager"

    venv = tmp_path / "venv"
    subprocess.run([python_for(app), "-m", "venv", str(venv)], check=True, timeout=120)  # noqa: S603
    env = platform_env(venv, PIP_DISABLE_PIP_VERSION_CHECK="1")
    install = subprocess.run(  # noqa: S603 - the buildpack's install
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-r", "requirements.txt"],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    assert shutil.which("pressline", path=env["PATH"]) == str(venv / "bin" / "pressline")

    port = _free_port()
    env = platform_env(venv, DATABASE_URL=fresh_database, PORT=str(port), PYTHONUNBUFFERED="1")
    lines = procfile(app)
    assert set(lines) == {"release", "web", "worker"}

    release = subprocess.run(  # noqa: S603 - the Procfile's own line
        [shutil.which("bash") or "/bin/bash", "-c", lines["release"]],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert release.returncode == 0, release.stdout + release.stderr
    assert asyncio.run(has_tables(fresh_database))

    web = Dyno(lines["web"], app, env, tmp_path / "web.log")
    worker = Dyno(lines["worker"], app, env, tmp_path / "worker.log")
    dynos = [web, worker]
    try:
        wait_for(lambda: answers(f"http://127.0.0.1:{port}/api/v1/me", 401), START_SECONDS, dynos)
        wait_for(lambda: "worker started" in worker.messages(), START_SECONDS, dynos)
        time.sleep(1)  # it keeps running: polling the outbox, not exiting
        assert worker.process.poll() is None, worker.output()
        me = httpx.get(f"http://127.0.0.1:{port}/api/v1/me", timeout=5)
        assert me.status_code == 401
        assert me.json()["message"].startswith("Missing bearer token")
    finally:
        exits = [dyno.stop() for dyno in dynos]
    assert exits == [0, 0], [dyno.output() for dyno in dynos]
