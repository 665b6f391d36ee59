"""The soak (benchmarks/soak.py) once, as a test: PostgreSQL, the real web and worker
processes, two shops under mixed concurrent writes, the worker killed twice and the web once,
then every invariant (no 5xx, 0 deadlocks, stock and money exact, gapless numbers, idempotency
keys used once, exactly the wanted webhook deliveries received intact, duplicates only from
kills, no subscription deactivated).

The `ci` profile (about 60 s of load) unless PRESSLINE_SOAK_PROFILE names another
(`long`: 10 minutes). Skipped without PostgreSQL; a failure with PRESSLINE_REQUIRE_POSTGRES=1.
The soak makes its own database; the test database is not used.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks import soak
from tests.conftest import ADMIN_URL

pytestmark = pytest.mark.slow


@pytest.mark.postgres_only(reason="the soak runs on PostgreSQL only")
async def test_soak_keeps_every_invariant(backend: str, tmp_path: Path):
    name = os.environ.get("PRESSLINE_SOAK_PROFILE", "ci")
    if name not in soak.PROFILES:
        pytest.fail(f"PRESSLINE_SOAK_PROFILE={name!r}: use one of {', '.join(soak.PROFILES)}")
    profile = soak.PROFILES[name]
    result = await soak.run(profile, admin_url=ADMIN_URL, logs=tmp_path)
    assert result.ok, f"invariants failed: {', '.join(result.failed())}\n\n{result.report()}"
