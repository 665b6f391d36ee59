"""One benchmark server: uvicorn with the web process's own protocol (api/server.py, httptools
with its bound on request heads), so Pressline and the floor run on the stack that is deployed.

    python -m benchmarks.serve APP PORT
"""

from __future__ import annotations

import sys

import uvicorn

from api.server import HeadLimitedProtocol


def main() -> None:
    app, port = sys.argv[1], int(sys.argv[2])
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        workers=1,
        loop="uvloop",
        http=HeadLimitedProtocol,
        proxy_headers=False,  # as deployed: the app reads the forwarded headers itself
        access_log=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
