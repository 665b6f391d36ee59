"""Real web processes for the abuse suite: `python -m api` (the Procfile's web line) on a free
loopback port, started and killed by the test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
WEB = [sys.executable, "-m", "api", "--host", "127.0.0.1"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Web:
    """One web process; `base` is its address."""

    def __init__(self, env: dict[str, str], log: Path, port: int) -> None:
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        with log.open("ab") as sink:
            self.process = subprocess.Popen(  # noqa: S603 - a fixed command line
                WEB, cwd=ROOT, env={**env, "PORT": str(port)}, stdout=sink, stderr=sink
            )
        self._wait_healthy()

    def _wait_healthy(self, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the web process exited with {self.process.returncode}")
            try:
                if httpx.get(f"{self.base}/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the web process did not answer /health in {seconds} s")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup, as a crash or an OOM kill."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


@contextmanager
def web_process(
    database_url: str, log: Path, port: int | None = None, **settings: str
) -> Iterator[Web]:
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1", **settings}
    env.pop("REDIS_URL", None)
    web = Web(env, log, port or free_port())
    try:
        yield web
    finally:
        web.stop()
