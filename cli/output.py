"""How commands answer: a human line by default, one JSON object with `--json`; and the
parameter types every group shares.

JSON uses the API's formats: timestamps as ISO 8601 with offset (`models.statements.iso`),
nested objects as objects. People read timestamps as `2026-11-22 10:15:00 UTC`.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import sys
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

import click
import msgspec

from models import statements
from models.errors import DomainError, InvalidFields

JSON_HELP = "Print one JSON object instead of a human line (also accepted before the command)."


class CommandError(Exception):
    """A refusal the operator can fix (unreadable file, bad setting); exit status 1."""


class Result:
    """What a command prints: `human` for people, `data` (dict or Struct) for `--json`; or,
    `verbatim`, `human` alone either way (a document written to standard output, which is
    already what it is: `pricing export -`)."""

    def __init__(self, human: str, data: Any, *, verbatim: bool = False) -> None:
        self.human = human
        self.data = data
        self.verbatim = verbatim


class Pending:
    """A parsed command, run later on the caller's event loop; `migrates` when the command
    brings the database up to date itself (the others need it migrated first)."""

    def __init__(
        self, call: Callable[[], Awaitable[Result]], as_json: bool, *, migrates: bool = False
    ) -> None:
        self.call = call
        self.as_json = as_json
        self.migrates = migrates


def command(
    group: click.Group | None, name: str, *, migrates: bool = False
) -> Callable[[Callable[..., Any]], click.Command]:
    """An async function `(**options) -> Result` as the command `name` (of `group`, or a
    top-level one); its docstring is the help. Adds `--json` after the command. `migrates`:
    the command migrates the database itself, so it may run on one not migrated yet."""

    def decorate(fn: Callable[..., Awaitable[Result]]) -> click.Command:
        @functools.wraps(fn)
        def callback(json_after: bool, **params: Any) -> Pending:
            root = click.get_current_context().find_root()
            as_json = json_after or bool(root.params.get("json"))
            return Pending(functools.partial(fn, **params), as_json, migrates=migrates)

        option = click.option("--json", "json_after", is_flag=True, help=JSON_HELP)
        if group is None:
            return click.command(name)(option(callback))
        return group.command(name)(option(callback))

    return decorate


# --- printing ------------------------------------------------------------------------------


def _json_default(value: object) -> object:
    if isinstance(value, dt.datetime):
        return statements.iso(value)
    if isinstance(value, dt.date | Decimal):
        return str(value)
    raise TypeError(f"cannot print {type(value).__name__} as JSON")


def to_json(data: Any) -> str:
    plain = msgspec.to_builtins(data, builtin_types=(dt.datetime, dt.date, Decimal))
    return json.dumps(plain, default=_json_default, ensure_ascii=False)


def emit(as_json: bool, result: Result) -> int:
    print(to_json(result.data) if as_json and not result.verbatim else result.human)
    return 0


def fail(as_json: bool, message: str, errors: dict[str, list[str]] | None = None) -> int:
    if as_json:
        body: dict[str, Any] = {"error": message}
        if errors:
            body["errors"] = errors
        print(json.dumps(body, ensure_ascii=False))
    else:
        print(f"error: {message}", file=sys.stderr)
    return 1


def fail_domain(as_json: bool, exc: DomainError) -> int:
    """A refusal from models/: every field problem is shown (one per line for people)."""
    if not isinstance(exc, InvalidFields):
        return fail(as_json, exc.message)
    problems = [f"{field}: {message}" for field, msgs in exc.errors.items() for message in msgs]
    if as_json or len(problems) == 1:
        return fail(as_json, "; ".join(problems), exc.errors)
    return fail(as_json, "\n  ".join([f"{len(problems)} problems:", *problems]))


def moment(value: str | dt.datetime | None) -> str:
    """A timestamp for people: `2026-11-22 10:15:00 UTC` (`-` when there is none)."""
    if value is None or value == "":
        return "-"
    when = dt.datetime.fromisoformat(value) if isinstance(value, str) else value
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return f"{when.astimezone(dt.UTC):%Y-%m-%d %H:%M:%S} UTC"


def money(cents: int, currency: str) -> str:
    return f"{cents / 100:,.2f} {currency}"


# --- parameter types -----------------------------------------------------------------------


class OnOff(click.ParamType):
    name = "on|off"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> bool:
        if isinstance(value, bool):
            return value
        if value not in ("on", "off"):
            self.fail(f"expected on or off, got {value!r}", param, ctx)
        return bool(value == "on")


class Timestamp(click.ParamType):
    """ISO 8601 date-times; without an offset the time is taken as UTC."""

    name = "ISO"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> dt.datetime:
        if isinstance(value, dt.datetime):
            return value
        try:
            parsed = dt.datetime.fromisoformat(value)
        except ValueError:
            self.fail(
                f"expected an ISO 8601 date-time, e.g. 2027-01-31T12:00:00+00:00, got {value!r}",
                param,
                ctx,
            )
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


class DecimalType(click.ParamType):
    name = "DECIMAL"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Decimal:
        if isinstance(value, Decimal):
            return value
        try:
            number = Decimal(value)
        except ArithmeticError:
            self.fail(f"expected a number such as 12.5, got {value!r}", param, ctx)
        if not number.is_finite():
            self.fail(f"expected a number such as 12.5, got {value!r}", param, ctx)
        return number


ON_OFF = OnOff()
TIMESTAMP = Timestamp()
DECIMAL = DecimalType()
