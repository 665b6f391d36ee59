"""How commands answer: a human line by default, one JSON object with `--json`."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from typing import Any

from models.errors import DomainError, InvalidFields


class CommandError(Exception):
    """A refusal the operator can fix (unknown id, bad value); exit status 1."""


class Result:
    def __init__(self, human: str, data: dict[str, Any]) -> None:
        self.human = human
        self.data = data


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", dest="json_after", action="store_true", help="print JSON")


def on_off(value: str) -> bool:
    """argparse type for `on|off` switches."""
    if value not in ("on", "off"):
        raise argparse.ArgumentTypeError("expected on or off")
    return value == "on"


def timestamp(value: str) -> dt.datetime:
    """argparse type for ISO 8601 date-times; without an offset the time is taken as UTC."""
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            "expected an ISO 8601 date-time, e.g. 2027-01-31T12:00:00+00:00"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def emit(args: argparse.Namespace, result: Result) -> int:
    if args.json:
        print(json.dumps(result.data, default=str, ensure_ascii=False))
    else:
        print(result.human)
    return 0


def fail(args: argparse.Namespace, message: str, errors: dict[str, list[str]] | None = None) -> int:
    if args.json:
        body: dict[str, Any] = {"error": message}
        if errors:
            body["errors"] = errors
        print(json.dumps(body, ensure_ascii=False))
    else:
        print(f"error: {message}", file=sys.stderr)
    return 1


def fail_domain(args: argparse.Namespace, exc: DomainError) -> int:
    """A refusal from models/: every field problem is shown (one per line for people)."""
    if not isinstance(exc, InvalidFields):
        return fail(args, exc.message)
    problems = [f"{field}: {message}" for field, msgs in exc.errors.items() for message in msgs]
    if args.json or len(problems) == 1:
        return fail(args, "; ".join(problems), exc.errors)
    return fail(args, "\n  ".join([f"{len(problems)} problems:", *problems]))
