"""URLs as people and logs see them: the password inside one is never shown.

A webhook target may carry credentials (`https://user:password@hooks.example/x`, sent as
basic auth), and so may DATABASE_URL. Everything that displays or logs such a URL (the admin,
the command line, the worker's and web's logs, configuration errors) shows `masked_url(url)`;
only the delivery itself reads the stored URL.
"""

from __future__ import annotations

MASK = "****"


def _password_span(url: str) -> tuple[int, int] | None:
    """Where the password of `url` is, found the way `urllib.parse.urlsplit` finds it (the
    authority after `//` up to the first `/`, `?` or `#`; the user info before its last `@`;
    the password after the user info's first `:`), without parsing the rest, so a URL too
    malformed to parse is masked all the same."""
    start = url.find("//")
    if start < 0:
        return None
    start += 2
    end = len(url)
    for stop in "/?#":
        found = url.find(stop, start)
        if 0 <= found < end:
            end = found
    at = url.rfind("@", start, end)
    colon = url.find(":", start, at) if at >= 0 else -1
    return None if colon < 0 else (colon + 1, at)


def masked_url(url: str) -> str:
    """`url` with its password replaced by `****`; otherwise unchanged (masking a masked URL
    changes nothing)."""
    span = _password_span(url)
    return url if span is None else f"{url[: span[0]]}{MASK}{url[span[1] :]}"


def password(url: str) -> str | None:
    """The password written in `url` (as written, not decoded), or None."""
    span = _password_span(url)
    return None if span is None else url[span[0] : span[1]]
