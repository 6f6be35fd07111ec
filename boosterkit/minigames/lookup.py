"""What a sheet prints beside the dealt cards, and what ``validate`` compares, looked up in the
database: the game's own rules text (from its minigame card when the database holds it), the
facts of each dealt card that the packs do not carry (toughness, loyalty, rules text), and the
card rows ``validate`` checks a setup against.

All of it is read once per database content and kept in its cache with the compiled
products (``Database.cached()``): ``product_cards`` holds the rows of every card a product can
put in a pack and of its set's basic lands, ``minigame_cards`` the minigame cards' texts and
the sets that hold cards. A deal or a validation of cached packs then reads no database; a
card outside those (an id typed into a setup file) is read with one query.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from boosterkit.generator.cache import compiled
from boosterkit.generator.engine import CompiledProduct
from boosterkit.generator.model import CARD_COLUMNS, PROTO_INDEX, CardInfo, Item
from boosterkit.minigames.engine import Setup
from boosterkit.minigames.filters import matches
from boosterkit.minigames.spec import Minigame, Remove
from boosterkit.minigames.translate import printed

if TYPE_CHECKING:
    from boosterkit.database import Database
    from boosterkit.pipeline.db import Connection

#: The facts of a card a sheet prints and a referee reads, which the packs do not carry.
FACTS = ("power", "toughness", "loyalty", "text", "legendary", "watermark")
#: A card row, name → ``cards`` column: the ``CardInfo`` fields (what validate compares with a
#: dealt item, by the item's names), whether it is a basic land, and the ``FACTS``.
COLUMNS: dict[str, str] = {
    **CARD_COLUMNS,
    "is_basic_land": "is_basic_land",
    **dict(
        zip(FACTS, ("power", "toughness", "loyalty", "oracle_text", "is_legendary", "watermark"))
    ),
}


@dataclass(frozen=True, slots=True)
class CardRow:
    """A card as the database holds it: the ``CardInfo`` validate compares with a dealt item
    (by the item's names), whether it is a basic land, and the ``FACTS`` a sheet prints."""

    card: CardInfo
    is_basic_land: bool | None
    power: str | None
    toughness: str | None
    loyalty: str | None
    text: str | None
    legendary: bool | None
    watermark: str | None

    def facts(self) -> dict[str, Any]:
        """The ``FACTS`` by name."""
        return dict(zip(FACTS, _FACTS_OF(self)))


_FACTS_OF = operator.attrgetter(*FACTS)


@dataclass(frozen=True)
class ProductCards:
    """The database's rows of a product's cards and of its set's basic lands (by card id),
    and the basic lands ``deal`` adds from outside the packs (by name)."""

    rows: dict[str, CardRow]
    basics: dict[str, CardInfo]


class MinigameCard(NamedTuple):
    """A minigame card as ``rules_text`` reads it."""

    id: str
    set: str
    number: str | None
    text: str | None
    lang: str | None
    name: str | None
    faces: tuple[str | None, ...]


@dataclass(frozen=True)
class MinigameCards:
    """The minigame cards, and the sets the database holds cards of (kind ``card``)."""

    cards: tuple[MinigameCard, ...]
    sets: frozenset[str]
    #: ``rules_text``'s answers, by game, language and set (worked out once per content)
    texts: dict[tuple[int, str, str | None], tuple[Minigame, dict[str, str]]] = field(
        default_factory=dict, compare=False, repr=False
    )


def card_rows(con: Connection, ids: Iterable[str]) -> dict[str, CardRow]:
    """The rows (``COLUMNS``) of the cards ``ids`` the database holds, in one query."""
    ids = sorted(set(ids))
    if not ids:
        return {}
    rows = con.execute(
        f"SELECT {', '.join(COLUMNS.values())} FROM cards WHERE id IN (SELECT unnest(?::VARCHAR[]))",
        [ids],
    ).fetchall()
    return {r[0]: _row(r) for r in rows}


def _row(values: tuple[Any, ...]) -> CardRow:
    """A ``CardRow`` from the columns of ``COLUMNS``, in order."""
    named = dict(zip(COLUMNS, values))
    info = {k: named.pop(k) for k in CARD_COLUMNS}
    info["colors"] = tuple(info["colors"] or ())
    info["magic_back"] = bool(info["magic_back"])
    return CardRow(CardInfo(**info), **named)


def product_cards(
    database: Database, set_code: str, product: str | None, cp: CompiledProduct | None = None
) -> ProductCards | None:
    """The ``ProductCards`` of ``set_code``'s ``product`` (as ``generator.cache`` resolves
    it), cached with the product; None when the database's cache keeps nothing (one without
    a file: read only what is needed instead). ``cp``: that product when the caller holds
    it. Raises what resolving raises."""
    cache = database.cached()
    if not cache.keeps:
        return None
    if cp is None:
        cp = compiled(database, set_code, product)
    protos = cp.item_fields

    def build(con: Connection) -> ProductCards:

        basics = basic_lands(con, set_code.strip().lower())
        card_id, resolved = PROTO_INDEX["card_id"], PROTO_INDEX["resolved"]
        ids = {f[card_id] for f in protos if f[card_id] and f[resolved]}
        ids |= {b.card_id for b in basics.values() if b.card_id}
        return ProductCards(card_rows(con, ids), basics)

    # keyed by the product's code, so a kind (``set``) and its code (``afr-set``) share it
    return cache.value("cards", ProductCards, build, (set_code, cp.product.code))


def basic_lands(con: Connection, set_code: str) -> dict[str, CardInfo]:
    """One printing of each basic land of ``set_code`` (lowest collector number, non-full-art
    first), for outside additions."""
    rows = con.execute(
        """SELECT name, id, set_code, collector_number FROM cards
           WHERE set_code = ? AND kind = 'card' AND is_basic_land
           QUALIFY row_number() OVER (PARTITION BY name ORDER BY coalesce(full_art, false),
               TRY_CAST(regexp_extract(collector_number, '\\d+') AS INTEGER), collector_number) = 1""",
        [set_code],
    ).fetchall()
    return {
        r[0]: CardInfo(
            card_id=r[1],
            name=r[0],
            set=r[2],
            collector_number=r[3],
            rarity="common",
            kind="card",
            magic_back=True,
            type_line=f"Basic Land — {r[0]}",
        )
        for r in rows
    }


def _minigames(con: Connection) -> MinigameCards:
    cards = con.execute(
        """SELECT id, set_code, collector_number, oracle_text, lang, name FROM cards
           WHERE kind = 'minigame' ORDER BY id"""
    ).fetchall()
    faces: dict[str, list[str]] = {}
    for card_id, text in con.execute(
        """SELECT card_id, oracle_text FROM card_faces WHERE card_id IN
               (SELECT id FROM cards WHERE kind = 'minigame') ORDER BY card_id, face_index"""
    ).fetchall():
        faces.setdefault(card_id, []).append(text)
    sets = con.execute("SELECT DISTINCT set_code FROM cards WHERE kind = 'card'").fetchall()
    return MinigameCards(
        tuple(MinigameCard._make((*c, tuple(faces.get(c[0], ())))) for c in cards),
        frozenset(s[0] for s in sets),
    )


def minigame_cards(database: Database) -> MinigameCards:
    """The database's ``MinigameCards``, cached per database content."""
    return database.cached().value("minigames", MinigameCards, _minigames)


def _null_last(value: Any, wanted: Any) -> int:
    """SQL's ``(value = wanted) DESC`` (NULLs last) as a sort key."""
    return 2 if value is None else 0 if value == wanted else 1


def rules_text(
    minigames: MinigameCards, spec: Minigame, lang: str = "en", set_code: str | None = None
) -> dict[str, str]:
    """``{"source", "text"}``: the minigame card's text (both faces) when the database holds
    one of its printings (in ``lang`` if there is one; else the card as printed in ``lang``
    that boosterkit ships, ``translate.printed``; else English; the printing for
    ``set_code`` first), else the catalogue's setup notes, first-player rule and win."""
    key = (id(spec), lang, set_code)
    kept = minigames.texts.get(key)
    if kept is None or kept[0] is not spec:
        kept = minigames.texts[key] = (spec, _rules_text(minigames, spec, lang, set_code))
    return dict(kept[1])


def _rules_text(
    minigames: MinigameCards, spec: Minigame, lang: str, set_code: str | None
) -> dict[str, str]:
    printings = sorted(spec.printings, key=lambda p: p.parent != set_code)
    sets = [p.set for p in printings]
    names = {n.split(" // ")[0] for n in spec.scryfall_names} or {spec.name}
    rows = sorted(
        (
            c
            for c in minigames.cards
            if c[1] in sets and c[5] is not None and c[5].split(" // ")[0] in names
        ),
        key=lambda c: (
            _null_last(c[4], lang),
            _null_last(c[4], "en"),
            sets.index(c[1]),
            c[2] is None,
            c[2] or "",
        ),
    )
    card = printed(lang, spec.id)
    if card is not None and (not rows or rows[0][4] != lang):  # the database has no such text
        return {"source": f"the card {card['card']}", "text": str(card["text"]).strip()}
    if rows:
        _, set_code, number, text, card_lang, _, face_texts = rows[0]
        faces = [t for t in face_texts if t]
        body = "\n\n".join(faces) if faces else (text or "")
        if body.strip():
            source = f"the card {set_code.upper()} #{number}"
            if (card_lang or "en") != lang:
                source += f" ({card_lang or 'en'}: the database holds no {lang} text)"
            return {"source": source, "text": body.strip()}
    steps = [s.note or (s.reason if isinstance(s, Remove) else None) for s in spec.steps or []]
    lines = [f"Setup: {'; '.join(x for x in steps if x)}."] if any(steps) else []
    lines += [f"First player: {spec.first_player.text}", f"To win: {spec.win.text}"]
    return {
        "source": "the boosterkit catalogue (the database holds none of this game's cards)",
        "text": "\n".join(lines),
    }


def known_rows(
    known: Mapping[str, CardRow], ids: Iterable[str], con: Connection
) -> dict[str, CardRow]:
    """The rows of ``ids``: from ``known`` (kept rows), the others in one query on ``con``
    (a session's connection: opened only when some are not known)."""
    rows = {i: known[i] for i in ids if i in known}
    missing = set(ids) - rows.keys()
    if missing:
        rows.update(card_rows(con, missing))
    return rows


def printed_names(setup: Setup, con: Connection) -> dict[str, dict[str, Any]]:
    """Card id → {"name", "type_line"} of the setup's cards in its language (``card_names``,
    kept from MTGJSON's ``foreignData``); {} for English."""
    if setup.lang == "en":
        return {}
    ids = sorted({c.card_id for z in setup.zones for c in z.cards if c.card_id})
    if not ids:
        return {}
    rows = con.execute(
        "SELECT card_id, name, type_line FROM card_names WHERE lang = ? AND card_id IN "
        "(SELECT unnest(?::VARCHAR[]))",
        [setup.lang, ids],
    ).fetchall()
    return {i: {"name": n, "type_line": t} for i, n, t in rows}


def card_facts(
    setup: Setup, known: Mapping[str, CardRow], con: Connection
) -> Mapping[str, dict[str, Any]]:
    """Per card id of the setup: power, toughness, loyalty, oracle text and legendary, from
    ``known`` (kept rows) or else the database (``CardFacts``: made when read)."""
    ids = {c.card_id for z in setup.zones for c in z.cards if c.card_id}
    missing = [i for i in ids if i not in known]
    return CardFacts(ids, known, card_rows(con, missing) if missing else {})


class CardFacts(Mapping[str, dict[str, Any]]):
    """``CardRow.facts()`` of ``ids`` (in id order) from ``known`` or ``more`` rows, each made
    when first read: what a sheet shows of its cards, which a setup's JSON does not hold."""

    def __init__(
        self, ids: set[str], known: Mapping[str, CardRow], more: Mapping[str, CardRow]
    ) -> None:
        self._asked, self._known, self._more = ids, known, more
        self._made: dict[str, dict[str, Any]] = {}

    def _row(self, card_id: str) -> CardRow | None:
        if card_id not in self._asked:
            return None
        return self._more.get(card_id) or self._known.get(card_id)

    def __getitem__(self, card_id: str) -> dict[str, Any]:
        found = self._made.get(card_id)
        if found is None:
            row = self._row(card_id)
            if row is None:
                raise KeyError(card_id)
            found = self._made[card_id] = row.facts()
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(i for i in self._asked if self._row(i) is not None))

    def __len__(self) -> int:
        return sum(1 for i in self._asked if self._row(i) is not None)


def sets_holding(con: Connection, flt: Any, strict: bool, exclude: str) -> list[str]:
    """The sets (but ``exclude``) with booster data whose cards include one of ``flt``: where
    a game whose step needs such a card can be dealt."""

    rows = con.execute(
        """SELECT DISTINCT set_code, type_line, layout, colors, kind, magic_back FROM cards
           WHERE kind = 'card' AND set_code <> ? AND set_code IN (SELECT set_code FROM products)
           ORDER BY set_code""",
        [exclude],
    ).fetchall()
    found: list[str] = []
    for set_code, type_line, layout, colors, kind, back in rows:
        if set_code in found:
            continue
        item = Item("x", None, None, set_code, None, None, False, "", kind, bool(back), True,
                    type_line, tuple(colors or ()), None, layout)  # fmt: skip
        if matches(item, flt, strict):
            found.append(set_code)
    return found
