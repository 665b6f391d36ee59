"""How commands answer: a human line by default, one JSON object with `--json`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


class CommandError(Exception):
    """A refusal the operator can fix (unknown id, bad value); exit status 1."""


class Result:
    def __init__(self, human: str, data: dict[str, Any]) -> None:
        self.human = human
        self.data = data


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", dest="json_after", action="store_true", help="print JSON")


def emit(args: argparse.Namespace, result: Result) -> int:
    if args.json:
        print(json.dumps(result.data, default=str))
    else:
        print(result.human)
    return 0


def fail(args: argparse.Namespace, message: str) -> int:
    if args.json:
        print(json.dumps({"error": message}))
    else:
        print(f"error: {message}", file=sys.stderr)
    return 1
