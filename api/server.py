"""The web process (`python -m api`, the Procfile's `web`): uvicorn serving `api.app:app`.

It is uvicorn with httptools, as before, plus two things its command line cannot say:
- a request's head (request line and headers) over 16 KiB is refused with 431 and the
  connection closed, before httptools has parsed it: httptools has no limit of its own and
  concatenates the pieces of a long header, so an 80 MB header held one process's event loop
  for seconds;
- SIGTERM stops accepting connections, lets requests in flight finish for up to 25 s (the
  platform kills the process 30 s after SIGTERM) and exits with status 0.

It listens on 127.0.0.1, unless a platform set PORT (`default_host`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
from collections.abc import Mapping
from types import FrameType
from typing import Any

import msgspec
import uvicorn
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from models import logs
from models.errors import ErrorCode
from models.settings import get_settings

MAX_HEAD_BYTES = 16 * 1024
GRACEFUL_SHUTDOWN_SECONDS = 25
APP = "api.app:app"
_TOO_LARGE = msgspec.json.encode(
    {
        "message": f"Request header fields too large (limit {MAX_HEAD_BYTES // 1024} KiB)",
        "code": ErrorCode.HEADERS_TOO_LARGE,
        "details": {},
    }
)


class HeadLimitedProtocol(HttpToolsProtocol):
    """httptools with a bound on each request's head. The bytes received while a head is
    incomplete are counted (the body's are not); a read that would pass the bound is parsed
    only up to it, so the head must end there or the request is refused. The count restarts
    when a request ends, so the start of a request pipelined behind it in the same read goes
    uncounted: such a head may pass the bound by at most that one read's length."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.head_bytes = 0
        self.in_head = True
        self.head_ended = False

    def data_received(self, data: bytes) -> None:
        if not self.in_head:
            super().data_received(data)
            return
        room = MAX_HEAD_BYTES - self.head_bytes
        if len(data) <= room:
            self.head_bytes += len(data)
            super().data_received(data)
            return
        self.head_bytes, self.head_ended = MAX_HEAD_BYTES, False
        super().data_received(data[:room])
        if self.transport.is_closing():  # the parser refused what it had
            return
        if self.head_ended:  # within the bound: the rest is body, or a pipelined request
            self.data_received(data[room:])
        else:
            self.refuse_head()

    def on_headers_complete(self) -> None:
        self.in_head, self.head_bytes, self.head_ended = False, 0, True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self.in_head, self.head_bytes = True, 0
        super().on_message_complete()

    def refuse_head(self) -> None:
        """431 with the API's error body, unless a response on this connection is still being
        written (a pipelined request): then only the close."""
        self.logger.warning("Request head over %d bytes refused.", MAX_HEAD_BYTES)
        if self.cycle is None or self.cycle.response_complete:
            head = [STATUS_LINE[431]]
            for name, value in self.server_state.default_headers:
                head += [name, b": ", value, b"\r\n"]
            head += [
                b"content-type: application/json\r\n",
                b"content-length: %d\r\n" % len(_TOO_LARGE),
                b"connection: close\r\n\r\n",
            ]
            self.transport.write(b"".join(head) + _TOO_LARGE)
        self.transport.close()


def _exit_0(signum: int, frame: FrameType | None) -> None:
    """After uvicorn's graceful stop it raises the signal it caught again, for the handler it
    found; this one makes that an exit with status 0 (the default handler's death by SIGTERM
    reads as a failure), and stops a process signalled before it serves."""
    raise SystemExit(0)


def default_host(environ: Mapping[str, str] = os.environ) -> str:
    """127.0.0.1 (this machine only), or all interfaces when a platform set PORT: its router
    reaches the process from outside. honcho sets PORT too, and HONCHO_PROCESS_NAME: a local
    `honcho start` stays on 127.0.0.1."""
    if environ.get("PORT") and not environ.get("HONCHO_PROCESS_NAME"):
        return "0.0.0.0"  # noqa: S104 - the platform's router must reach it
    return "127.0.0.1"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m api", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--host",
        default=default_host(),
        help="address to listen on (127.0.0.1; 0.0.0.0 when a platform sets PORT)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes sharing the port (1); the platform scales by processes",
    )
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    settings = get_settings()  # an invalid setting stops here: one line on stderr, status 1
    signal.signal(signal.SIGTERM, _exit_0)
    uvicorn.run(
        APP,
        host=args.host,
        port=settings.port,
        http=HeadLimitedProtocol,
        workers=args.workers,  # explicit: uvicorn would otherwise read WEB_CONCURRENCY
        # The forwarded headers are read by the app itself, counting FORWARDED_HOPS from the
        # right (api/forwarded.py); uvicorn's own reading trusts the client-written first entry.
        proxy_headers=False,
        access_log=False,  # it would repeat each request with its query string
        log_config=logs.dict_config(settings.log_level),
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
