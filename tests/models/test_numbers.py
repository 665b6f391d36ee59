"""The one reading of whole numbers and percentages (models/numbers.py) and of amounts with a
currency's sign (models/money.py), at their edges."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import money, numbers

SEPARATORS = [",", " ", "\u00a0", "\u2009", "\u202f"]


@given(st.integers(-(10**12) + 1, 10**12 - 1), st.sampled_from(SEPARATORS))
def test_every_whole_number_reads_back_grouped_or_not(number: int, separator: str) -> None:
    assert numbers.whole_number(str(number)) == number
    assert numbers.whole_number(f"{number:,}".replace(",", separator)) == number


@pytest.mark.parametrize(
    "typed",
    [
        "6,00", "6,0000", ",600", "600,", "6,,000", "6,000 000", "6 000,000", "6.000", "6_000",
        "+6", "--6", "6-", "", " ", "six", "1e3", "\u0666", "\uff16", "6\t000", "6\n000",
        "1000000000000", "1,000,000,000,000",
    ],
)  # fmt: skip
def test_anything_else_is_not_a_whole_number(typed: str) -> None:
    assert numbers.whole_number(typed) is None


@pytest.mark.parametrize(
    ("typed", "read"),
    [("17,5", "17.5"), ("17,50", "17.50"), (" 17,5 % ", "17.5"), ("20%", "20"), ("0,5", "0.5"),
     ("1,000", "1,000"), ("17,555", "17,555"), ("17.5", "17.5"), ("abc", "abc"), ("", "")],
)  # fmt: skip
def test_a_percentage_reads_a_decimal_comma_only(typed: str, read: str) -> None:
    assert numbers.percent_text(typed) == read


@pytest.mark.parametrize(
    ("typed", "currency", "cents"),
    [
        ("£12.50", "GBP", 1250), ("12.50 £", "GBP", 1250), ("£ 12.50", "GBP", 1250),
        ("GBP 12.50", "GBP", 1250), ("12.50GBP", "GBP", 1250), ("gbp12,50", "GBP", 1250),
        ("€12,50", "EUR", 1250), ("12,50\u00a0€", "EUR", 1250), ("€1 250,50", "EUR", 125050),
        ("$5", "USD", 500), ("US$5", "USD", 500), ("$5", "CAD", 500), ("C$5", "CAD", 500),
        ("¥1,250.00", "JPY", 125000), ("kr 99,95", "SEK", 9995), ("R$ 10,00", "BRL", 1000),
        ("1 250", "GBP", 125000), ("1\u202f250.5", "GBP", 125050),
    ],
)  # fmt: skip
def test_the_workspace_currencys_sign_or_code_is_read(typed: str, currency: str, cents: int):
    assert money.cents(typed, currency) == cents


@pytest.mark.parametrize(
    ("typed", "currency", "named"),
    [
        ("£12.50", "EUR", "£"), ("12.50 £", "EUR", "£"), ("€12,50", "GBP", "€"),
        ("USD 12.50", "GBP", "USD"), ("usd 12.50", "GBP", "USD"), ("$12.50", "GBP", "$"),
        ("US$12.50", "CAD", "US$"), ("12,50 kr", "EUR", "kr"), ("XYZ 5", "GBP", "XYZ"),
    ],
)  # fmt: skip
def test_another_currencys_sign_is_refused_naming_it(typed: str, currency: str, named: str):
    assert money.cents(typed, currency) is None
    assert money.refusal(typed, currency) == (
        f"{named} is not this workspace's currency ({currency}): type the amount without it, "
        "e.g. 12.50"
    )


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("-£12.50", money.NEGATIVE), ("£-12.50", money.NEGATIVE), ("£1,250", "could be either"),
        ("£", money.REFUSED), ("££12", money.REFUSED), ("12 pounds", money.REFUSED),
        ("£12.50 £", money.REFUSED), ("12 50", money.REFUSED), ("1 25", money.REFUSED),
        ("1 250 000,5", None), ("1 250\u00a0000", money.REFUSED),  # one kind of space
    ],
)  # fmt: skip
def test_what_else_a_sign_comes_with_is_refused_as_without_it(typed: str, words: str | None):
    if words is None:
        assert money.cents(typed, "GBP") == 125_000_050
        return
    assert money.cents(typed, "GBP") is None
    assert words in money.refusal(typed, "GBP")


def test_without_a_currency_no_sign_is_read() -> None:
    assert money.cents("12,50") == 1250
    assert money.cents("£12.50") is None
    assert money.refusal("£12.50") == money.REFUSED
