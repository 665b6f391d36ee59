"""What the admin order list's search text (`q`) matches, as SQL over the orders a filter keeps.

A term with at least three letters or digits matches the orders whose number, external
reference or customer's name contains it, ignoring case. On PostgreSQL pg_trgm's GIN indexes
on those three texts (migration 2026-11-26T23:10) find them, so a search reads the orders that
match rather than every order of the workspace; SQLite's LIKE reads the workspace's orders.

A shorter term ("42", "a", "#1") has no trigram for an index to look up, and as a substring it
matches nearly everything, so it asks something narrower: the orders whose external reference
is the term, or whose customer's name starts with it (both ignoring case).

The matches are two disjoint lists, each cheap on its own indexes: the orders of the matching
customers (the (workspace, customer, created_at, id) index answers those without reading the
orders), and the other orders matched by their own texts. The list page counts them and takes
the newest before reading any other column (order_pages.py), so a search costs what its
matches cost, not what the workspace holds, and no plan walks the workspace's orders.
"""

from __future__ import annotations

import enum
import re

from models.filters import contains_ci, contains_pattern, starts_pattern

MIN_CONTAINED = 3  # letters or digits a term needs to be looked for inside the texts (trigrams)


class Search(enum.StrEnum):
    CONTAINS = "contains"  # number, reference or customer name contains the term
    SHORT = "short"  # reference is the term, or customer name starts with it


PLACEHOLDERS = {Search.CONTAINS: 2, Search.SHORT: 2}  # the values `parameters` gives
# A term shaped like (the end of) an order number, ORD-<year>-<sequence>: its sequence digits.
NUMBER_SHAPED = re.compile(r"(?:ord-)?(?:\d{4}-)?(\d{3,})")


def kind(term: str) -> Search:
    """How `term` is looked for: inside the texts, or (fewer than MIN_CONTAINED letters or
    digits, which no trigram index can serve) by the reference and the name's start."""
    letters = sum(1 for char in term if char.isalnum())
    return Search.CONTAINS if letters >= MIN_CONTAINED else Search.SHORT


def parameters(term: str, search: Search) -> list[object]:
    """The values `matching` reads, in its placeholders' order."""
    if search is Search.CONTAINS:
        return [contains_pattern(term), number_lookup(term)]
    return [term.lower(), starts_pattern(term)]


def number_lookup(term: str) -> str:
    """What the number's trigram index is asked for `term`: the term itself, but for a term
    shaped like an order number only its sequence digits. Every number starts `ORD-<year>-`,
    so the trigrams of ORD and of the year are in every order's (or a third of them) and
    reading them cost 40-100 ms at 1,000,000 orders; the whole term is then checked on the
    few orders the digits find."""
    shaped = NUMBER_SHAPED.fullmatch(term.lower())
    return contains_pattern(shaped.group(1)) if shaped else contains_pattern(term)


def matching(condition: str, search: Search, first: int) -> str:
    """The orders that `condition` (over `orders o`, `$1` the workspace) keeps and the term
    matches, as `(id, created_at)` rows, each order once: those of the customers whose name
    matches, then those matched by their own texts whose customer's name does not (two
    disjoint lists: no duplicates to sort out, however many orders match). The term's values
    take placeholders from `$first` (`parameters`)."""
    if search is Search.CONTAINS:
        term, lookup = f"${first}", f"${first + 1}"
        # `|| ''`: the same text, but not the indexed expression, so the index is asked for
        # `lookup` alone (number_lookup) and the whole term is checked on what it finds
        unindexed = "o.number || ''"
        number = f"{contains_ci('o.number', lookup)} AND {contains_ci(unindexed, term)}"
        own = f"(({number}) OR {contains_ci('o.external_ref', term)})"
        name = contains_ci("c.name", term)
    else:
        own = f"LOWER(o.external_ref) = ${first}"
        name = contains_ci("c.name", f"${first + 1}")
    customers = f"SELECT c.id FROM customers c WHERE c.workspace = $1 AND {name}"  # noqa: S608
    return (
        f"SELECT o.id, o.created_at FROM orders o WHERE {condition} AND o.customer IN ({customers})"  # noqa: S608 - constant fragments
        f" UNION ALL SELECT o.id, o.created_at FROM orders o"
        f" WHERE {condition} AND {own} AND o.customer NOT IN ({customers})"
    )
