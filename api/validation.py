"""One way in for request bodies and query strings: a strict msgspec decode into the request
Struct, and, only when that fails, one collector that walks the same Struct's constraints
(`msgspec.inspect`) and names every problem at once, in words meant for people.

msgspec stops at the first error and words it for programmers ("Expected `int`, got `str`"),
so its message is never shown: the collector re-reads the input against the Struct instead.
Rules msgspec cannot state live in the Struct too, as `Meta(extra={"rule": ...})` (a date
range, a value refused with a reason, how a query string's text is read); rules between fields
go in the Struct's `__post_init__` (raising `InvalidFields`) or its `rule_errors(path)`
(returning them), and are checked once every field of that Struct is valid on its own, at every
depth, so one answer names every problem. A field a request Struct does not have (an
`Input`) is refused, and so is a parameter a list does not take. docs/api.md lists the
messages.
"""

from __future__ import annotations

import datetime as dt
import re
import typing
from collections.abc import Callable, Collection, Generator, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

import msgspec
from litestar.dto import AbstractDTO, DTOFieldDefinition
from litestar.typing import FieldDefinition
from msgspec import inspect as mi

from api.idempotency import HEADER, key_errors
from models.errors import EMAIL_REFUSED, UNSTORABLE_LINE, UNSTORABLE_TEXT, InvalidFields
from models.field_rules import (
    EMAIL_ADDRESS,
    MULTI_LINE,
    NOT_BLANK,
    ONE_LINE,
    DateBetween,
    Refused,
    RequiredUnless,
)

T = TypeVar("T")

# The patterns the request Structs use (models/field_rules.py), and what each means in words
# (the admin's and the command line's words for the same rule, models/errors.py). A pattern is
# checked piece by piece, and the first piece that fails names what is wrong.
_ONE_LINE = (re.compile(ONE_LINE), UNSTORABLE_LINE)
_NOT_BLANK = (re.compile(r"[^\s\x00-\x1f]"), "must not be blank")
_PATTERN_MEANINGS: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {
    ONE_LINE: (_ONE_LINE,),
    MULTI_LINE: ((re.compile(MULTI_LINE), UNSTORABLE_TEXT),),
    NOT_BLANK: (_ONE_LINE, _NOT_BLANK),
    EMAIL_ADDRESS: (_ONE_LINE, _NOT_BLANK, (re.compile(EMAIL_ADDRESS), EMAIL_REFUSED)),
}
# Page sizes are fixed per list: these parameters are accepted and ignored, not refused.
IGNORED_PARAMETERS = frozenset({"per_page", "page_size", "limit", "size"})
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_INTEGER = re.compile(r"-?[0-9]+")
_DATE_FORMAT = "must be a valid date in the format YYYY-MM-DD"


@dataclass(frozen=True)
class TextFormat:
    """How a query parameter's text becomes its value; `parse` raises ValueError when it
    cannot, and the message says the parameter "must be <described>" (or, when it raises
    `Unreadable`, is that exception's own sentence)."""

    parse: Callable[[str], Any]
    described: str


class Unreadable(ValueError):
    """A TextFormat's refusal worded in full, e.g. naming the unknown parts of a list."""


def _rule(meta: mi.Metadata) -> Any:
    return (meta.extra or {}).get("rule")


class _Collector:
    """Walks one input against a type, noting every problem under its dot path."""

    def __init__(self, noun: str) -> None:
        self.noun = noun  # "field" in bodies, "parameter" in query strings
        self.errors: dict[str, list[str]] = {}
        # Fields a Struct does not have, apart: they never keep its rules from being checked.
        self.unknown: dict[str, list[str]] = {}

    @property
    def found(self) -> dict[str, list[str]]:
        return {**self.errors, **self.unknown}

    def say(self, path: str, sentence: str) -> None:
        self.errors.setdefault(path, []).append(sentence)

    def must(self, path: str, text: str) -> None:
        self.say(path, f"The {path} {self.noun} {text}.")

    def check(self, t: mi.Type, value: Any, path: str, rule: Any = None) -> None:
        if isinstance(t, mi.Metadata):
            self.check(t.type, value, path, _rule(t))
        elif isinstance(t, mi.UnionType):
            if value is None and _nullable(t):
                return
            others = [member for member in t.types if not isinstance(member, mi.NoneType)]
            self.check(others[0], value, path, rule)
        elif isinstance(t, mi.IntType):
            self.integer(t, value, path)
        elif isinstance(t, mi.StrType):
            self.string(t, value, path)
        elif isinstance(t, mi.LiteralType):
            self.choice(t, value, path, rule)
        elif isinstance(t, mi.EnumType):
            self.choice(mi.LiteralType(tuple(member.value for member in t.cls)), value, path, rule)
        elif isinstance(t, mi.DictType):
            self.mapping(t, value, path)
        elif isinstance(t, mi.ListType):
            self.array(t, value, path)
        elif isinstance(t, mi.StructType):
            self.struct(t, value, path)
        elif isinstance(t, mi.DateType):
            self.date(value, path, rule)
        elif isinstance(t, mi.DateTimeType):
            if not isinstance(value, dt.datetime):
                self.must(path, "must be a date-time")
        elif isinstance(t, mi.BoolType) and not isinstance(value, bool):
            self.must(path, "must be true or false")
        # Any other type has no words here; decode_body then answers a generic body error.

    def integer(self, t: mi.IntType, value: Any, path: str) -> None:
        if type(value) is not int:  # JSON true/false decode to bool, an int subclass
            self.must(path, "must be an integer")
        elif t.ge is not None and value < t.ge:
            self.must(path, f"must be at least {t.ge}")
        elif t.gt is not None and value <= t.gt:
            self.must(path, f"must be greater than {t.gt}")
        elif t.le is not None and value > t.le:
            self.must(path, f"must not be greater than {t.le}")
        elif t.lt is not None and value >= t.lt:
            self.must(path, f"must be less than {t.lt}")

    def string(self, t: mi.StrType, value: Any, path: str) -> None:
        if not isinstance(value, str):
            self.must(path, "must be a string")
            return
        if t.max_length is not None and len(value) > t.max_length:
            self.must(path, f"must not be greater than {t.max_length} characters")
        if t.min_length is not None and len(value) < t.min_length:
            self.must(path, f"must be at least {_counted(t.min_length, 'character')}")
        if t.pattern is not None:
            pieces = _PATTERN_MEANINGS.get(t.pattern, ((re.compile(t.pattern), ""),))
            for pattern, meaning in pieces:
                if not pattern.search(value):
                    self.must(path, meaning or f"must match the pattern {t.pattern}")
                    break

    def choice(self, t: mi.LiteralType, value: Any, path: str, rule: Any) -> None:
        if any(type(value) is type(allowed) and value == allowed for allowed in t.values):
            return
        if isinstance(rule, Refused) and isinstance(value, str) and value in rule.reasons:
            self.say(path, rule.reasons[value])
            return
        listed = ", ".join(str(allowed) for allowed in choices(t))
        self.say(path, f"The selected {path} is invalid; use one of: {listed}.")

    def array(self, t: mi.ListType, value: Any, path: str) -> None:
        if not isinstance(value, list):
            self.must(path, "must be an array")
            return
        one = path.rsplit(".", 1)[-1].removesuffix("s")  # "lines" counts lines
        if t.min_length is not None and len(value) < t.min_length:
            self.must(path, f"must have at least {_counted(t.min_length, one)}")
        elif t.max_length is not None and len(value) > t.max_length:
            self.must(path, f"must not have more than {_counted(t.max_length, one)}")
        else:
            for index, item in enumerate(value):
                self.check(t.item_type, item, f"{path}.{index}")

    def mapping(self, t: mi.DictType, value: Any, path: str) -> None:
        """An object of names to values (an item's sizes): each value is checked under
        `{path}.{name}`; a name breaking its rule is reported under that path too."""
        if not isinstance(value, dict):
            self.must(path, "must be an object")
            return
        one = _ENTRY_NAMES.get(path.rsplit(".", 1)[-1], "entry")
        if t.min_length is not None and len(value) < t.min_length:
            self.must(path, f"must have at least {_counted(t.min_length, one)}")
        elif t.max_length is not None and len(value) > t.max_length:
            self.must(path, f"must not have more than {_counted(t.max_length, one)}")
        else:
            for name, item in value.items():
                key = f"{path}.{name}"
                names = _Collector(self.noun)
                names.check(t.key_type, name, key)
                for messages in names.errors.values():
                    for message in messages:
                        self.say(key, message.replace(f"The {key} {self.noun}", "The name"))
                self.check(t.value_type, item, key)

    def struct(self, t: mi.StructType, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            self.must(path, "must be an object")
            return
        before = len(self.errors)
        for field in t.fields:
            key = f"{path}.{field.encode_name}" if path else field.encode_name
            given = value.get(field.encode_name)
            if _required_unless(field.type, value) and given is None:
                self.must(key, "is required")
            elif field.encode_name in value and (given is not None or _nullable(field.type)):
                self.check(field.type, given, key)
            elif field.required:
                self.must(key, "is required")
            elif field.encode_name in value:
                self.check(field.type, None, key)
        if len(self.errors) == before:
            self.rules(t.cls, value, path)
        if t.forbid_unknown_fields:
            known = {field.encode_name for field in t.fields}
            for name in value:
                if name not in known:
                    key = f"{path}.{name}" if path else str(name)
                    self.unknown[key] = [f"{name} is not a field of {_noun(t.cls)}."]

    def rules(self, kind: type[Any], value: dict[str, Any], path: str) -> None:
        """The rules between the fields of a Struct whose every field is valid."""
        prefix = f"{path}." if path else ""
        try:
            decoded = _decoder(kind).decode(_AS_JSON.encode(_known(struct_info(kind), value)))
        except InvalidFields as refused:  # the Struct's __post_init__
            for key, messages in refused.errors.items():
                for message in messages:
                    self.say(prefix + key, message)
            return
        except (msgspec.DecodeError, ValueError):  # a constraint the collector has no words for
            return
        if callable(rule_errors := getattr(decoded, "rule_errors", None)):
            for key, messages in rule_errors(path).items():
                for message in messages:
                    self.say(key, message)

    def date(self, value: Any, path: str, rule: Any) -> None:
        day = value if isinstance(value, dt.date) else _date(value)
        if day is None:
            self.must(path, _DATE_FORMAT)
        elif isinstance(rule, DateBetween) and not rule.earliest <= day <= rule.latest:
            self.must(path, f"must be a date between {rule.earliest} and {rule.latest}")


# What an object's entries are called in messages ("must not have more than 30 sizes").
_ENTRY_NAMES = {"sizes": "size", "size_upcharges_cents": "upcharge"}
_CAMEL_WORD = re.compile(r"[A-Z][a-z]*")
_AS_JSON = msgspec.json.Encoder(decimal_format="number")


def _known(t: mi.Type, value: Any) -> Any:
    """`value` without the fields its Structs do not have, at every depth (already reported)."""
    if isinstance(t, mi.Metadata):
        return _known(t.type, value)
    if isinstance(t, mi.UnionType):
        for member in t.types:
            value = _known(member, value)
        return value
    if isinstance(t, mi.StructType) and isinstance(value, dict):
        fields = {field.encode_name: field.type for field in t.fields}
        return {name: _known(fields[name], item) for name, item in value.items() if name in fields}
    if isinstance(t, mi.ListType) and isinstance(value, list):
        return [_known(t.item_type, item) for item in value]
    if isinstance(t, mi.DictType) and isinstance(value, dict):
        return {name: _known(t.value_type, item) for name, item in value.items()}
    return value


def _noun(kind: type[Any]) -> str:
    """A request Struct's name in words ("OrderLineCreate": "an order line"), unless it says."""
    if noun := getattr(kind, "noun", None):
        return str(noun)
    name = re.sub(r"(Create|Update)$", "", kind.__name__)
    words = " ".join(word.lower() for word in _CAMEL_WORD.findall(name))
    return f"{'an' if words[:1] in set('aeiou') else 'a'} {words}"


def _required_unless(t: mi.Type, value: dict[str, Any]) -> bool:
    """A field whose RequiredUnless rule applies: its other field is missing or empty."""
    for meta in _metadata(t):
        rule = _rule(meta)
        if isinstance(rule, RequiredUnless):
            return not value.get(rule.other)
    return False


def _counted(number: int, one: str) -> str:
    if number == 1:
        return f"{number} {one}"
    return f"{number} {one[:-1]}ies" if one.endswith("y") else f"{number} {one}s"


def _nullable(t: mi.Type) -> bool:
    return isinstance(t, mi.NoneType) or (
        isinstance(t, mi.UnionType) and any(isinstance(m, mi.NoneType) for m in t.types)
    )


def _date(value: Any) -> dt.date | None:
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


# --- request bodies ---------------------------------------------------------------------------

# Floats read as Decimal, so a number too large for a float (1e400) is still a number to
# describe ("must be an integer") rather than a parse failure.
_ANY_JSON = msgspec.json.Decoder(float_hook=Decimal)
_NOT_JSON = {"body": ["The request body is not valid JSON."]}
_NOT_AN_OBJECT = {"body": ["The request body must be a JSON object."]}


R = TypeVar("R")


def _per_type(work: Callable[[type[Any]], R]) -> Callable[[type[Any]], R]:
    """Worked out once per Struct type (functools.cache, typed for classes)."""
    memo: dict[type[Any], R] = {}

    def cached(kind: type[Any]) -> R:
        if kind not in memo:
            memo[kind] = work(kind)
        return memo[kind]

    return cached


@_per_type
def _decoder(kind: type[Any]) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(kind)


@_per_type
def struct_info(kind: type[Any]) -> mi.StructType:
    info = mi.type_info(kind)
    if not isinstance(info, mi.StructType):
        raise TypeError(f"{kind!r} is not a msgspec Struct")
    _remember_literal_order(kind, set())
    return info


# msgspec.inspect sorts a Literal's values; messages list them in the order they were written
# (the stages in production order), found in the annotations.
_LITERAL_ORDER: dict[frozenset[Any], tuple[Any, ...]] = {}


def choices(t: mi.LiteralType) -> tuple[Any, ...]:
    """A Literal's values in the order they were written (of a Struct already inspected)."""
    return _LITERAL_ORDER.get(frozenset(t.values), t.values)


def _remember_literal_order(annotation: Any, seen: set[int]) -> None:
    if id(annotation) in seen:
        return
    seen.add(id(annotation))
    if typing.get_origin(annotation) is typing.Literal:
        values = typing.get_args(annotation)
        _LITERAL_ORDER.setdefault(frozenset(values), values)
        return
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        hints = typing.get_type_hints(annotation, include_extras=True).values()
        for hint in hints:
            _remember_literal_order(hint, seen)
        return
    for arg in typing.get_args(annotation):
        _remember_literal_order(arg, seen)


@_per_type
def _unenforced(kind: type[Any]) -> tuple[tuple[str, mi.Type], ...]:
    """Top-level fields carrying a rule msgspec does not enforce itself (a date range)."""
    found = []
    for field in struct_info(kind).fields:
        for meta in _metadata(field.type):
            if isinstance(_rule(meta), DateBetween):
                found.append((field.name, field.type))
    return tuple(found)


def _metadata(t: mi.Type) -> Iterator[mi.Metadata]:
    if isinstance(t, mi.Metadata):
        yield t
        yield from _metadata(t.type)
    elif isinstance(t, mi.UnionType):
        for member in t.types:
            yield from _metadata(member)


def body_errors(raw: bytes, kind: type[Any]) -> dict[str, list[str]]:
    """Every problem of a body that did not decode into `kind`."""
    try:
        value = _ANY_JSON.decode(raw)
    except (msgspec.DecodeError, ValueError, RecursionError):  # ValueError: bad UTF-8
        return _NOT_JSON
    if not isinstance(value, dict):
        return _NOT_AN_OBJECT
    collector = _Collector("field")
    collector.struct(struct_info(kind), value, "")
    return collector.found or {"body": ["The request body is invalid."]}


def decode_body(raw: bytes, kind: type[T]) -> T:
    """The body as `kind`, decoded once; an empty body counts as `{}`."""
    raw = raw if raw.strip() else b"{}"
    try:
        value: T = _decoder(kind).decode(raw)
    except (msgspec.DecodeError, ValueError, RecursionError):
        raise InvalidFields(body_errors(raw, kind)) from None
    if checks := _unenforced(kind):
        collector = _Collector("field")
        for name, t in checks:
            if (given := getattr(value, name)) is not msgspec.UNSET:
                collector.check(t, given, name)
        if collector.errors:
            raise InvalidFields(collector.errors)
    return value


def decode_request(raw: bytes, kind: type[T], headers: Mapping[str, str]) -> T:
    """A POST body together with its Idempotency-Key header: one 422 names both."""
    key_problems = key_errors(headers.get(HEADER))
    header = {HEADER: key_problems} if key_problems else {}
    try:
        value = decode_body(raw, kind)
    except InvalidFields as invalid:
        raise InvalidFields({**invalid.errors, **header}) from None
    if header:
        raise InvalidFields(header)
    return value


class StrictBody(AbstractDTO[T]):
    """Litestar's `data` for a request Struct, decoded once by `decode_request` (Litestar's
    own decoding is lax: `"5"` would pass as 5). Used as the handler's `dto` with
    `return_dto=None`; the OpenAPI request body is the Struct's own schema."""

    def decode_bytes(self, value: bytes) -> T:
        return decode_request(value, self.model_type, self.asgi_connection.headers)

    def decode_builtins(self, value: dict[str, Any]) -> T:
        raw = msgspec.json.encode(value)
        return decode_request(raw, self.model_type, self.asgi_connection.headers)

    @classmethod
    def create_for_field_definition(
        cls, field_definition: FieldDefinition, handler_id: str, backend_cls: Any = None
    ) -> None:
        """No transfer model to build: the Struct is decoded as it is."""

    @classmethod
    def create_openapi_schema(
        cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any
    ) -> Any:
        return schema_creator.for_field_definition(field_definition)

    @classmethod
    def is_supported_model_type_field(cls, field_definition: FieldDefinition) -> bool:
        return False  # never a return DTO

    @classmethod
    def generate_field_definitions(
        cls, model_type: type[Any]
    ) -> Generator[DTOFieldDefinition, None, None]:
        yield from ()

    @classmethod
    def detect_nested_field(cls, field_definition: FieldDefinition) -> bool:
        return False


# --- query strings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Unread:
    """A parameter whose text could not be read (convert refuses it whatever the type)."""

    sentence: str | None


_UNREADABLE = _Unread(None)


@dataclass(frozen=True)
class _Param:
    name: str
    type: mi.Type
    read: Callable[[str], Any]
    described: str


def _read_integer(text: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise ValueError(text)
    return int(text)


def _as_is(text: str) -> str:
    return text


@_per_type
def _params(kind: type[Any]) -> tuple[_Param, ...]:
    """How each parameter of a query Struct is read from its text, worked out once."""
    params = []
    for field in struct_info(kind).fields:
        formats = [_rule(m) for m in _metadata(field.type) if isinstance(_rule(m), TextFormat)]
        base = _base(field.type)
        if formats:
            read, described = formats[0].parse, formats[0].described
        elif isinstance(base, mi.IntType):
            read, described = _read_integer, "an integer"
        else:
            read, described = _as_is, "text"
        params.append(_Param(field.encode_name, field.type, read, described))
    return tuple(params)


def _base(t: mi.Type) -> mi.Type:
    if isinstance(t, mi.Metadata):
        return _base(t.type)
    if isinstance(t, mi.UnionType):
        return _base(next(m for m in t.types if not isinstance(m, mi.NoneType)))
    return t


def _read(param: _Param, text: str) -> Any:
    try:
        return param.read(text)
    except Unreadable as refused:
        return _Unread(str(refused))
    except (ValueError, OverflowError):
        return _UNREADABLE


def parse_query(query: Mapping[str, str], kind: type[T]) -> T:
    """A list endpoint's query parameters as its query Struct; one 422 names every bad one,
    and every parameter the list does not take (but the ignored page sizes).

    `query` is the request's query parameters (the first value of a repeated one counts)."""
    values = {}
    for param in _params(kind):
        text = query.get(param.name)
        if text is not None:
            values[param.name] = _read(param, text)
    names = [param.name for param in _params(kind)]
    listed = ", ".join(names)
    unknown = {
        name: [f"{name} is not a parameter of this list; it takes: {listed}."]
        for name in query
        if name not in names and name not in IGNORED_PARAMETERS
    }
    return _convert(values, kind, "parameter", unknown)


def parse_form(form: Mapping[str, Any], kind: type[T], *, files: Collection[str]) -> T:
    """The text fields of a multipart form as `kind`, read as query parameters are; one 422
    names every bad one and every part that is neither a field of `kind` nor one of the
    `files` (which the caller reads). A file sent where text belongs cannot be read."""
    values = {}
    for param in _params(kind):
        if param.name in form:
            given = form[param.name]
            values[param.name] = _read(param, given) if isinstance(given, str) else _UNREADABLE
    names = {param.name for param in _params(kind)}
    unknown = {
        name: [f"{name} is not a field of {_noun(kind)}."]
        for name in form
        if name not in names and name not in files
    }
    return _convert(values, kind, "field", unknown)


def _convert(
    values: Mapping[str, Any], kind: type[T], noun: str, unknown: dict[str, list[str]]
) -> T:
    try:
        parsed = msgspec.convert(values, kind)
    except msgspec.ValidationError:
        raise InvalidFields({**text_errors(values, kind, noun), **unknown}) from None
    if unknown:
        raise InvalidFields(unknown)
    return parsed


def text_errors(values: Mapping[str, Any], kind: type[Any], noun: str) -> dict[str, list[str]]:
    collector = _Collector(noun)
    for param in _params(kind):
        if param.name not in values:
            continue
        value = values[param.name]
        if isinstance(value, _Unread):
            if value.sentence:
                collector.say(param.name, value.sentence)
            else:
                collector.must(param.name, f"must be {param.described}")
        else:
            collector.check(param.type, value, param.name)
    return collector.errors or {"request": [f"The request's {noun}s are invalid."]}
