"""Amounts as people type them: the one reading of every money field of the
admin, in minor units, exact (integer arithmetic).

Accepted: `1250`, `1250.5`, `1,250.00` (commas between groups of three, with the decimals),
`1 250,50` (spaces between groups of three: a space, a no-break or a thin space), and `12,50`
(a comma followed by one or two final digits is the decimal point). The workspace currency's
symbol or code may come before or after it (`£12.50`, `12.50 £`, `GBP 12.50`, `€12,50`);
another currency's is refused, saying so. Anything else is refused with an example, `1,250`
included: it reads as 1250 to some and 1.25 to others. Digits are ASCII only (Arabic-Indic or
full-width digits are not amounts here)."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

_AMOUNT = re.compile(
    r"(?P<whole>[0-9]{1,15})(?:[.,](?P<part>[0-9]{1,2}))?"  # 1250, 1250.5, 12,50
    r"|(?P<grouped>[0-9]{1,3}(?:,[0-9]{3})+)\.(?P<grouped_part>[0-9]{1,2})"  # 1,250.00
    # 1 250, 1 250.50, 1 250,50: one kind of space throughout
    r"|(?P<spaced>[0-9]{1,3}(?P<space>[ \u00a0\u2009\u202f])[0-9]{3}(?:(?P=space)[0-9]{3})*)"
    r"(?:[.,](?P<spaced_part>[0-9]{1,2}))?",
    re.ASCII,
)
# The signs people write beside an amount, by ISO 4217 code; a currency's code (in any case)
# is its sign too. "$", "kr" and "¥" are several currencies' own: each reads them as its own.
SYMBOLS: dict[str, tuple[str, ...]] = {
    "GBP": ("£",),
    "EUR": ("€",),
    "USD": ("$", "US$"),
    "CAD": ("$", "CA$", "C$"),
    "AUD": ("$", "A$", "AU$"),
    "NZD": ("$", "NZ$"),
    "HKD": ("$", "HK$"),
    "SGD": ("$", "S$"),
    "MXN": ("$", "MX$"),
    "BRL": ("R$",),
    "JPY": ("¥", "￥", "円"),
    "CNY": ("¥", "￥", "元"),
    "INR": ("₹",),
    "KRW": ("₩",),
    "SEK": ("kr",),
    "NOK": ("kr",),
    "DKK": ("kr",),
    "ISK": ("kr",),
    "PLN": ("zł",),
    "CZK": ("Kč",),
    "HUF": ("Ft",),
    "ZAR": ("R",),
    "TRY": ("₺",),
    "ILS": ("₪",),
    "PHP": ("₱",),
    "THB": ("฿",),
    "NGN": ("₦",),
    "UAH": ("₴",),
    "VND": ("₫",),
}
_CODE = re.compile(r"[A-Z]{3}", re.ASCII)
# A sign: what is neither a digit, a separator, a minus nor a space, before or after the amount.
_SIGN = r"(?P<sign>[^\s0-9.,+\-\u2212]+)"
_SIGN_BEFORE = re.compile(rf"{_SIGN}\s*(?P<amount>.*)", re.DOTALL)
_SIGN_AFTER = re.compile(rf"(?P<amount>.*?)\s*{_SIGN}", re.DOTALL)
FOREIGN = (
    "{sign} is not this workspace's currency ({currency}): type the amount without it, e.g. 12.50"
)
REFUSED = (
    "Type an amount with at most two decimals, e.g. 1250, 1250.50, 1,250.50 or 12,50 "
    "(a comma before the last one or two digits is the decimal point)."
)
NEGATIVE = "Type the amount without a minus sign, e.g. 12.50: it cannot be negative here."
_GROUPED = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+", re.ASCII)
AMBIGUOUS = "Type the amount as {whole} (or {typed}.00) or as {small}: {typed} could be either."
GROUPED = "Type the amount as {whole} or {typed}.00, with the decimals after a point."


def _signed(text: str) -> tuple[str, str | None]:
    """`text` without the currency sign written before or after its amount (after a minus
    too: `-£5`), and that sign (None without one)."""
    minus = text[:1] if text.startswith(("-", "\u2212")) else ""
    rest = text[len(minus) :].lstrip()
    for pattern in (_SIGN_BEFORE, _SIGN_AFTER):
        found = pattern.fullmatch(rest)
        if found is not None:
            return minus + found["amount"], found["sign"]
    return text, None


def _ours(sign: str, currency: str) -> bool:
    return sign.upper() == currency.upper() or sign in SYMBOLS.get(currency.upper(), ())


def _theirs(sign: str) -> str | None:
    """`sign` as another currency's is named (`usd` → `USD`), or None if it is no currency's."""
    if sign.upper() in SYMBOLS or _CODE.fullmatch(sign):
        return sign.upper()
    return sign if any(sign in signs for signs in SYMBOLS.values()) else None


def _bare(text: str, currency: str | None) -> str | None:
    """`text` (spaces around it ignored) without the workspace currency's sign, or None
    when it carries another sign."""
    amount, sign = _signed(text.strip())
    if sign is None:
        return amount
    return amount if currency is not None and _ours(sign, currency) else None


def cents(text: str, currency: str | None = None) -> int | None:
    """`text` (surrounding spaces ignored) in minor units, or None when it is not an amount
    written one of the accepted ways, in `currency` (its sign or code may come with it; none
    may without a currency)."""
    bare = _bare(text, currency)
    found = None if bare is None else _AMOUNT.fullmatch(bare)
    if found is None:
        return None
    whole = found["whole"] or (found["grouped"] or "").replace(",", "")
    if found["spaced"]:
        whole = re.sub(r"[ \u00a0\u2009\u202f]", "", found["spaced"])
    part = found["part"] or found["grouped_part"] or found["spaced_part"] or ""
    if len(whole) > 15:  # a grouped amount past any price
        return None
    return int(whole) * 100 + int(part.ljust(2, "0"))


def refusal(text: str, currency: str | None = None) -> str:
    """Why `text` is not an amount in `currency` (`cents` gave None), with an example of
    what to type."""
    sign = _signed(text.strip())[1]
    theirs = None if sign is None else _theirs(sign)
    if sign is not None and currency is not None and not _ours(sign, currency) and theirs:
        return FOREIGN.format(sign=theirs, currency=currency.upper())
    typed = _bare(text, currency) or text.strip()
    if typed.startswith(("-", "\u2212")) and cents(typed[1:]) is not None:
        return NEGATIVE
    if _GROUPED.fullmatch(typed) is None:
        return REFUSED
    whole = typed.replace(",", "")  # 1,250: thousands to some, a decimal comma to others
    head, _, tail = typed.partition(",")
    if "," in tail:
        return GROUPED.format(typed=typed, whole=whole)
    small = f"{head}.{tail.rstrip('0')}" if tail.rstrip("0") else head
    return AMBIGUOUS.format(typed=typed, whole=whole, small=small)


def round_half_up(value: Decimal) -> int:
    """To a whole number of minor units, halves away from zero: every computed amount."""
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def shown(cents: int | None, currency: str) -> str:
    """`123456` GBP → `1,234.56 GBP`: an amount as every page and email shows it (integer
    arithmetic, so exact at any size); — for none."""
    if cents is None:
        return "—"
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100:,}.{abs(cents) % 100:02d} {currency}"
