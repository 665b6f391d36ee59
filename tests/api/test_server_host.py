"""Where the web process listens: 127.0.0.1, unless a platform set PORT (README, quick start)."""

from __future__ import annotations

import pytest

from api.server import default_host


@pytest.mark.parametrize(
    ("environ", "host"),
    [
        ({}, "127.0.0.1"),  # python -m api on a laptop
        ({"PORT": ""}, "127.0.0.1"),  # an empty variable counts as unset
        ({"PORT": "5000"}, "0.0.0.0"),  # noqa: S104 - a platform: its router must reach it
        ({"PORT": "8000", "HONCHO_PROCESS_NAME": "web.1"}, "127.0.0.1"),  # the quick start
    ],
)
def test_the_default_address(environ: dict[str, str], host: str) -> None:
    assert default_host(environ) == host
