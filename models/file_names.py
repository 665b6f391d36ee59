"""Names of uploaded files as the service keeps and shows them, one rule for
proofs and CSV imports alike."""

from __future__ import annotations

import unicodedata

MAX_FILE_NAME = 200
# Control characters, formatting ones (a right-to-left override disguises an extension),
# lone surrogates (not UTF-8) and line or paragraph separators: never part of a kept name.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_UNSAFE_CHARACTERS = frozenset("/\\\"'")
_MAX_EXTENSION = 10  # a longer tail after the last dot is no extension to keep


def safe_file_name(sent: str, *, blank: str = "file", extensions: tuple[str, ...] = ()) -> str:
    """`sent` with control and formatting characters, slashes and quotes turned into `_`
    (`blank` when nothing is left); when `extensions` (what the file is, by its bytes) are
    given and the name ends in none of them, the first is added; at most MAX_FILE_NAME
    characters, the extension kept. Applying it again changes nothing."""
    name = "".join(
        "_" if c in _UNSAFE_CHARACTERS or unicodedata.category(c) in _UNSAFE_CATEGORIES else c
        for c in sent
    ).strip()
    name = name or blank
    if extensions and not name.lower().endswith(extensions):
        name += extensions[0]
    if len(name) > MAX_FILE_NAME:
        stem, dot, extension = name.rpartition(".")
        kept = dot + extension if stem and len(extension) <= _MAX_EXTENSION else ""
        name = name[: MAX_FILE_NAME - len(kept)].rstrip() + kept
    return name
