"""An order or invoice named on the command line by something no record can be called (more
digits than Python converts, longer than any number) is a one-line "not found", exit status 1,
never a traceback."""

from __future__ import annotations

import pytest

from tests import factories

pytestmark = pytest.mark.usefixtures("backend")

DIGITS = "1" * 4301  # past Python's int conversion limit (4,300 digits)


@pytest.mark.parametrize(
    ("command", "refs"),
    [
        ("order show {}", [DIGITS, "ORD-" + "9" * 40]),
        ("order cancel --order {}", [DIGITS, "ORD-" + "9" * 40]),
        ("artwork approve --order {}", [DIGITS, "ORD-" + "9" * 40]),
        ("invoice pay {}", [DIGITS, "INV-" + "9" * 40]),
    ],
)
async def test_a_ref_no_record_can_have_is_not_found(
    pressline, command: str, refs: list[str]
) -> None:
    ws = await factories.workspace()
    for ref in refs:
        run = await pressline(f"{command.format(ref)} --workspace {ws.id}")
        assert run.code == 1, (ref[:50], run.out, run.err)
        assert "not found" in run.err and len(run.err.splitlines()) == 1, run.err
