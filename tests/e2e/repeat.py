"""`-p tests.e2e.repeat --repeat N`: every selected test N times in one run (as separate test
ids, so `pytest -n` spreads them over its workers). For proving a test deterministic under
load, e.g. the Redis limit test in docs/benchmarks.md; not loaded by default."""

from __future__ import annotations

import pytest

STEP = "repeat_step"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--repeat", type=int, default=1, help="run each selected test N times")


@pytest.fixture
def repeat_step(request: pytest.FixtureRequest) -> int:
    step: int = request.param
    return step


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    count: int = metafunc.config.getoption("repeat")
    if count > 1:
        metafunc.fixturenames.append(STEP)
        metafunc.parametrize(STEP, range(count), indirect=True, ids=lambda n: f"run{n + 1}")
