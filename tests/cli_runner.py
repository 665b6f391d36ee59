"""Running `pressline` commands in-process in tests: `await pressline("user activate 3")`, or
word by word: `await pressline("webhook", "enable", sub.id)`; `input=` is the command's
standard input."""

from __future__ import annotations

import io
import json
import shlex
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import cli


class Run:
    """One finished command: exit status, stdout, stderr (and stdout as JSON)."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    @property
    def data(self) -> dict[str, Any]:
        return json.loads(self.out)


@pytest.fixture
def pressline(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Awaitable[Run]]:
    """One string is split as a shell would; the command runs on the test loop (`cli.run`),
    so it shares the web app's PostgreSQL pool."""

    async def call(*words: object, input: str = "") -> Run:
        if len(words) == 1 and isinstance(words[0], str):
            argv = shlex.split(words[0])
        else:
            argv = [str(word) for word in words]
        with monkeypatch.context() as patch:
            patch.setattr(sys, "stdin", io.StringIO(input))
            code = await cli.run(argv)
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return call
