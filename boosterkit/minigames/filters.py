"""Card filters the setup steps use: a closed set of terms over an item's attributes.

A filter is a term, or a list of terms (any may match). A term joins atoms with ``+``
(all must match): ``nonland+colored``. "No Magic back" (``nmb``) means ``magic_back`` is
false and ``kind`` is not ``card`` (tokens, art cards, ads, minigame cards); with strict
backs it also covers double-faced Magic cards.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from boosterkit.generator.model import Item

DOUBLE_FACED_LAYOUTS = frozenset(
    ("transform", "modal_dfc", "meld", "double_faced_token", "reversible_card", "battle")
)


def _front(item: Item) -> str:
    return (item.type_line or "").split(" // ")[0]


def is_nmb(item: Item, strict: bool = False) -> bool:
    """True for an item without a Magic back (strict: double-faced Magic cards too)."""
    if item.external:
        return False
    if not item.magic_back and item.kind != "card":
        return True
    return strict and not item.magic_back


def _is_magic(item: Item) -> bool:
    return item.kind == "card"


def _words(item: Item) -> set[str]:
    return set(_front(item).replace("—", " ").split())


ATOMS: dict[str, Callable[[Item], bool]] = {
    "any": lambda i: True,
    "land": lambda i: _is_magic(i) and "Land" in _words(i),
    "basic_land": lambda i: _is_magic(i) and {"Basic", "Land"} <= _words(i),
    "nonland": lambda i: _is_magic(i) and "Land" not in _words(i),
    "creature": lambda i: _is_magic(i) and "Creature" in _words(i),
    "noncreature": lambda i: _is_magic(i) and "Creature" not in _words(i),
    "planeswalker": lambda i: _is_magic(i) and "Planeswalker" in _words(i),
    "double_faced": lambda i: _is_magic(i) and (i.layout or "") in DOUBLE_FACED_LAYOUTS,
    "transform": lambda i: _is_magic(i) and i.layout == "transform",
    "single_faced": lambda i: _is_magic(i) and (i.layout or "") not in DOUBLE_FACED_LAYOUTS,
    "colorless": lambda i: _is_magic(i) and not i.colors,
    "colored": lambda i: _is_magic(i) and bool(i.colors),
    "token": lambda i: i.kind in ("token", "emblem"),
    "art_card": lambda i: i.kind == "art_card",
    "ad": lambda i: i.kind == "ad",
    "minigame": lambda i: i.kind == "minigame",
    "foil": lambda i: i.foil,
    "external": lambda i: i.external,
}
#: Atoms that match only cards without a Magic back: a filter of these alone may take such
#: cards back after a removal (``nonmagic_filter``).
NONMAGIC_ATOMS = ("token", "art_card", "ad", "minigame", "nmb")
#: Atoms that depend on the strict-backs option.
STRICT_ATOMS = ("nmb", "magic")
TERMS = tuple(ATOMS) + STRICT_ATOMS


def nonmagic_filter(flt: str | list[str]) -> bool:
    """Whether every term of ``flt`` asks for cards without a Magic back (an art card, a
    token…): only such a filter may put back a card removed for having none."""
    terms = flt if isinstance(flt, list) else [flt]
    return all(any(a in NONMAGIC_ATOMS for a in t.split("+")) for t in terms)


def filter_problem(flt: Any) -> str | None:
    """What is wrong with ``flt`` (not a term or a list of known terms), else None."""
    terms = flt if isinstance(flt, list) else [flt]
    if not terms or not all(isinstance(t, str) and t for t in terms):
        return f"a filter is a term or a list of terms, got {flt!r}"
    for term in terms:
        for atom in term.split("+"):
            if atom not in TERMS:
                return f"unknown filter term {atom!r} (known: {', '.join(TERMS)})"
    return None


def _atom(atom: str, strict: bool) -> Callable[[Item], bool]:
    if atom == "nmb":
        return (lambda i: is_nmb(i, True)) if strict else is_nmb
    if atom == "magic":
        return lambda i: not is_nmb(i, strict)
    return ATOMS[atom]


@functools.lru_cache(maxsize=256)
def _predicate(terms: tuple[str, ...], strict: bool) -> Callable[[Item], bool]:
    alternatives = [[_atom(a, strict) for a in t.split("+")] for t in terms]
    if len(alternatives) == 1 and len(alternatives[0]) == 1:
        return alternatives[0][0]
    return lambda i: any(all(f(i) for f in atoms) for atoms in alternatives)


def predicate(flt: str | list[str] | None, strict: bool = False) -> Callable[[Item], bool]:
    """``matches`` for ``flt`` as one function of an item (made once per filter)."""
    if flt is None:
        return _any
    return _predicate(tuple(flt) if isinstance(flt, list) else (flt,), strict)


def _any(item: Item) -> bool:
    return True


def matches(item: Item, flt: str | list[str] | None, strict: bool = False) -> bool:
    """Whether ``item`` passes ``flt`` (None passes everything)."""
    return predicate(flt, strict)(item)


def describe(flt: str | list[str] | None, count: int | None = None) -> str:
    """Human words for a filter: ``[land, nmb]`` → ``lands or cards without a Magic back``.

    ``count=1`` gives the singular (``card without a Magic back``) for "1 …" phrases.
    """
    terms = tuple(flt) if isinstance(flt, list) else flt
    return _describe(terms, count == 1)


@functools.lru_cache(maxsize=256)
def _describe(flt: str | tuple[str, ...] | None, singular: bool) -> str:
    words = {
        "nmb": "cards without a Magic back",
        "magic": "Magic cards",
        "land": "lands",
        "basic_land": "basic lands",
        "nonland": "nonland cards",
        "colored": "coloured",
        "double_faced": "double-faced cards",
        "transform": "transforming double-faced",
        "art_card": "art cards",
        "token": "tokens",
        "ad": "ad cards",
        "minigame": "minigame cards",
        "creature": "creatures",
        "noncreature": "noncreature cards",
        "planeswalker": "planeswalkers",
        "single_faced": "single-faced",
        "any": "any card",
        "colorless": "colourless",
        "foil": "foil",
    }
    if flt is None:
        return "any card"
    terms = flt if isinstance(flt, tuple) else (flt,)
    adjectives = ("colored", "colorless", "single_faced", "foil", "transform")

    def term(t: str) -> str:  # adjectives first: "coloured nonland cards"
        atoms = t.split("+")
        backed = "magic" in atoms and len(atoms) > 1  # "land+magic": lands with a Magic back
        atoms = sorted(
            (a for a in atoms if not backed or a != "magic"), key=lambda a: a not in adjectives
        )
        return " ".join(words.get(a, a) for a in atoms) + (" with a Magic back" if backed else "")

    text = " or ".join(term(t) for t in terms)
    return _SINGULAR.sub(r"\1", text) if singular else text


_SINGULAR = re.compile(r"\b(card|land|token|creature|planeswalker)s\b")
