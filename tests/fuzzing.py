"""Hypothesis profiles of the fuzz tests, chosen by PRESSLINE_FUZZ_PROFILE.

`ci` (the default): few examples per route, derandomized, so a run is bounded and repeatable
and no example database is written. `long`: a deeper random search, its failing examples kept
in `.hypothesis/` and tried first next time (docs/security.md, "Fuzzing").
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, Phase, settings

# The fuzz tests share one shop between the examples of a test (a function-scoped fixture),
# build large bodies on purpose and run against a database: those checks do not apply.
_SHARED: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
    "print_blob": True,
}
settings.register_profile(
    "ci",
    max_examples=int(os.environ.get("PRESSLINE_FUZZ_EXAMPLES", "12")),
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    **_SHARED,
)
settings.register_profile(
    "long", max_examples=int(os.environ.get("PRESSLINE_FUZZ_EXAMPLES", "300")), **_SHARED
)

NAME = os.environ.get("PRESSLINE_FUZZ_PROFILE", "ci")
FUZZ = settings.get_profile(NAME)
