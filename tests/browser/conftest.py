"""Browser tests: Debian's Chromium driven by Playwright against a real web process and a real
worker. Skipped, with the reason, where Chromium or Playwright is missing (like PostgreSQL);
with PRESSLINE_REQUIRE_BROWSER=1 (CI) a missing browser is a failure instead.

Each test ends with a screenshot of its last page in $PRESSLINE_SCREENSHOTS (default
tests/browser/screenshots)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.receiver import ThreadedReceiver

CHROMIUM = os.environ.get("PRESSLINE_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("PRESSLINE_SCREENSHOTS", Path(__file__).parent / "screenshots"))
# axe-core, kept beside the tests (tests/browser/vendor/README.md).
AXE = Path(os.environ.get("PRESSLINE_AXE_JS", Path(__file__).parent / "vendor/axe.min.js"))
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None  # type: ignore[assignment]


def _missing() -> str | None:
    if sync_playwright is None:
        return "Playwright is not installed (pip install -r requirements-dev.lock)"
    if not Path(CHROMIUM).exists():
        return f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)"
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = _missing()
    if reason is None:
        return
    if os.environ.get("PRESSLINE_REQUIRE_BROWSER", "") == "1":  # CI: a missing browser fails
        raise pytest.UsageError(f"{reason} and PRESSLINE_REQUIRE_BROWSER=1")
    for item in items:
        if "tests/browser" in str(item.path):
            item.add_marker(pytest.mark.skip(reason=reason))


class Seen:
    """What the page did that it must not: dialogs (alert) and script errors."""

    def __init__(self) -> None:
        self.dialogs: list[str] = []
        self.errors: list[str] = []


@pytest.fixture
def page(request: pytest.FixtureRequest) -> Iterator[Page]:
    """Chromium with one desktop-sized window; its last page is saved as a screenshot.

    Playwright's sync API runs an event loop on this thread while it is open, so it starts
    here and stops before any later asynchronous fixture runs: list `page` last among a
    test's arguments, after the fixtures that write rows (their set-up must come first)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        context = browser.new_context(viewport=DESKTOP)
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        tab = context.new_page()
        seen = Seen()
        tab.on("dialog", lambda dialog: (seen.dialogs.append(dialog.message), dialog.dismiss()))
        tab.on("pageerror", lambda error: seen.errors.append(str(error)))
        try:
            yield tab
        finally:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            name = request.node.name.replace("[", "-").replace("]", "")
            tab.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
            browser.close()
    assert seen.dialogs == [], f"a script ran: {seen.dialogs}"
    assert seen.errors == [], f"script errors: {seen.errors}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Stack:
    """The web process and the worker, on the test database."""

    def __init__(self, url: str, port: int, processes: list[subprocess.Popen[bytes]]) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.url, self.processes = url, processes

    def api(self, method: str, path: str, token: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(
            method, self.base + path, headers={"Authorization": f"Bearer {token}"}, timeout=10,
            **kwargs,
        )  # fmt: skip


def run_stack(backend: str, tmp_path: Path, env: dict[str, str], port: int) -> Iterator[Stack]:
    """The web process on `port` and the worker, with `env` over the environment; yields once
    the web answers /health, and stops both after."""
    env = {**os.environ, "DATABASE_URL": backend, **env}
    log = (tmp_path / "processes.log").open("wb")
    commands = [
        [sys.executable, "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1",
         "--port", str(port), "--no-access-log"],
        [sys.executable, "-m", "daemon"],
    ]  # fmt: skip
    processes = [
        subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)  # noqa: S603
        for command in commands
    ]
    try:
        wait_healthy(f"http://127.0.0.1:{port}", processes[0], tmp_path / "processes.log")
        yield Stack(backend, port, processes)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
        log.close()


def wait_healthy(base: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    """Until the web process at `base` answers /health (30 s), or its log when it died."""
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError(log_path.read_text(errors="replace"))
        time.sleep(0.2)


@pytest.fixture
def stack(backend: str, tmp_path: Path) -> Iterator[Stack]:
    env = {
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",
        "WEBHOOK_BACKOFF": "1",
        "WEBHOOK_POLL_INTERVAL": "0.2",
        "WEBHOOK_TIMEOUT": "3",
        "WEBHOOK_LEASE": "10",
        "LOG_LEVEL": "WARNING",
    }
    yield from run_stack(backend, tmp_path, env, _free_port())


@pytest.fixture
def receiver() -> Iterator[ThreadedReceiver]:
    running = ThreadedReceiver().start()
    yield running
    running.stop()


def axe(page: Page) -> None:
    """No serious or critical axe-core violation on the page as it is now, once what the
    page does after typing has settled: the running total posts 300 ms after the last key,
    and a region htmx is swapping is faded meanwhile (its colours are not the page's)."""
    busy = "!!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
    page.wait_for_timeout(400)
    for _ in range(50):  # polled from here: the admin's CSP refuses wait_for_function's eval
        if not page.evaluate(busy):
            break
        page.wait_for_timeout(100)
    # Evaluated through the DevTools protocol: the admin's CSP refuses inline scripts.
    page.evaluate(AXE.read_text() + "\n;window.axe = axe; true")
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    bad = [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert bad == [], f"{page.url}: {bad}"


class WebProcess:
    """One more web process on a stack's database, as a second server behind a load balancer
    would be; it can be stopped and started again on the same port."""

    def __init__(self, url: str, log_path: Path, env: dict[str, str]) -> None:
        self.url, self.log_path = url, log_path
        self.env = {**os.environ, "DATABASE_URL": url, **env}
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1",
                   "--port", str(self.port), "--no-access-log"]  # fmt: skip
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(  # noqa: S603 - our own server
                command, cwd=ROOT, env=self.env, stdout=log, stderr=log
            )
        wait_healthy(self.base, self.process, self.log_path)

    def stop(self) -> float:
        """SIGTERM, as a platform stops a process; returns the seconds it took to exit."""
        if self.process is None:
            return 0.0
        began = time.monotonic()
        self.process.terminate()
        self.process.wait(timeout=30)
        self.process = None
        return time.monotonic() - began


@pytest.fixture
def second_web(stack: Stack, tmp_path: Path) -> Iterator[WebProcess]:
    """A second web process on `stack`'s database."""
    web = WebProcess(stack.url, tmp_path / "second-web.log", {"LOG_LEVEL": "WARNING"})
    web.start()
    yield web
    web.stop()
