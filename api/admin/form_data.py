"""The one reader of posted forms (the admin's CSRF check and handlers, the proof page): text
that is not UTF-8 is a 400, never a 500 and never silently replaced.

Litestar's own reading fails the server on a multipart part without a filename whose bytes are
not UTF-8 (or that names a charset Python does not know), and reads an urlencoded body's bad
percent-escapes as U+FFFD, so a form's text could be changed without anyone seeing it. Here an
urlencoded body is read strictly, a multipart one by Litestar with its decoding failures
refused, and what was read is kept where `request.form()` finds it, so every later reader of
the same request (the handler after the CSRF check) gets the same fields without a second parse.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from urllib.parse import parse_qsl

from litestar import Request
from litestar.datastructures import FormMultiDict
from litestar.enums import RequestEncodingType
from litestar.exceptions import ClientException
from litestar.utils.empty import value_or_default
from litestar.utils.scope.state import ScopeState

NOT_UTF8 = "The form could not be read: its text is not UTF-8. Reload the page and send it again."
# Fields of an urlencoded form: the largest order form fits (50 garments of 30 sizes with
# their upcharges and 10 imprints of 10 fields: about 8,300; or 500 lines of 4 fields), and a
# body of a million `a&` does not become a million strings.
MAX_FIELDS = 10_000
TOO_MANY = f"The form has more than {MAX_FIELDS} fields."


async def read_form(request: Request[Any, Any, Any]) -> FormMultiDict:
    """The request's form fields (empty for other content types); raises a 400
    `ClientException` when the form's text is not UTF-8."""
    state = ScopeState.from_scope(request.scope)
    if value_or_default(state.form, None) is None:
        content_type, _ = request.content_type
        if content_type == RequestEncodingType.URL_ENCODED:
            state.form = _url_encoded(await request.body())
        elif content_type == RequestEncodingType.MULTI_PART:
            try:
                return await request.form()
            except (UnicodeDecodeError, LookupError):  # LookupError: an unknown charset
                raise ClientException(NOT_UTF8) from None
    return await request.form()


def _url_encoded(body: bytes) -> dict[str, Any]:
    """Fields as Litestar keeps them (a list for a repeated name), decoded strictly."""
    try:
        pairs = parse_qsl(
            body.decode("utf-8"),
            keep_blank_values=True,
            encoding="utf-8",
            errors="strict",
            max_num_fields=MAX_FIELDS,
            separator="&",
        )
    except UnicodeDecodeError:
        raise ClientException(NOT_UTF8) from None
    except ValueError:  # more than MAX_FIELDS
        raise ClientException(TOO_MANY) from None
    fields: defaultdict[str, list[str]] = defaultdict(list)
    for name, value in pairs:
        fields[name].append(value)
    return {name: values if len(values) > 1 else values[0] for name, values in fields.items()}
