"""Email addresses as look-ups compare them: ASCII letters in any case, nothing else folded."""

from __future__ import annotations

import pytest

from models import emails
from models.statements import Sql


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("KATE@Example.COM", "kate@example.com"),
        ("kate@example.com", "kate@example.com"),
        ("Jo.Bloggs+Tees@Example.co.uk", "jo.bloggs+tees@example.co.uk"),
    ],
)
def test_ascii_letters_match_in_any_case(typed: str, stored: str) -> None:
    assert emails.same(typed, stored)
    assert emails.key(typed) == stored


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("\u01c5o@example.com", "\u01c6o@example.com"),  # ǅ (title case) is not ǆ
        ("\u01c4O@example.com", "\u01c6o@example.com"),  # nor is Ǆ
        ("stra\u00dfe@example.com", "strasse@example.com"),  # ß is not "ss"
        ("\u212aate@example.com", "kate@example.com"),  # the Kelvin sign is not K
        ("\u0130nfo@example.com", "info@example.com"),  # nor the dotted capital I
        ("\uff2bate@example.com", "kate@example.com"),  # nor a full-width K
    ],
)
def test_nothing_but_ascii_is_folded(typed: str, stored: str) -> None:
    assert not emails.same(typed, stored)
    assert emails.key(typed) == typed.replace("O", "o")  # only A-Z changed


def test_the_statements_fold_ascii_only_on_both_engines() -> None:
    sql = Sql("SELECT 1 FROM users WHERE ASCII_LOWER(u.email) = $1")
    assert sql.postgres == 'SELECT 1 FROM users WHERE lower(u.email COLLATE "C") = $1'
    assert sql.sqlite == "SELECT 1 FROM users WHERE lower(u.email) = ?1"
