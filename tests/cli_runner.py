"""Running `pressline` commands in-process in tests: `await pressline("user activate 3")`, or
word by word: `await pressline("webhook", "enable", sub.id)`."""

from __future__ import annotations

import json
import shlex
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from models import cli


class Run:
    """One finished command: exit status, stdout, stderr (and stdout as JSON)."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    @property
    def data(self) -> dict[str, Any]:
        return json.loads(self.out)


@pytest.fixture
def pressline(capsys: pytest.CaptureFixture[str]) -> Callable[..., Awaitable[Run]]:
    """One string is split as a shell would; the command runs on the test loop (`cli.run`)."""

    async def call(*words: object) -> Run:
        if len(words) == 1 and isinstance(words[0], str):
            argv = shlex.split(words[0])
        else:
            argv = [str(word) for word in words]
        code = await cli.run(argv)
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return call
