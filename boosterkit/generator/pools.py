"""Sealed pools and draft pods: each player's K packs, sorted, printable, as deck lists.

Pool *i* (1-based) is packs 1..K of the seed ``rng.pack_key(seed, i)``: it depends only on
(seed, i), so pool 3 of an 8-player event is the same when 3 players are seated. A pool's
cards are the Magic cards of its packs (tokens, art cards, ads are listed apart), grouped
by colour (W, U, B, R, G, multicolour, colourless, lands) and, within a colour, by type
(creature, planeswalker, instant, sorcery, enchantment, artifact, battle, other), then mana
value and name.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from boosterkit.database import Database
from boosterkit.errors import InputError
from boosterkit.formats import POOLS
from boosterkit.generator import rng
from boosterkit.generator.cache import compiled
from boosterkit.generator.decks import BOTH_HALVES as BOTH_HALVES
from boosterkit.generator.decks import arena_deck
from boosterkit.generator.decks import deck_name as deck_name
from boosterkit.generator.engine import open_compiled
from boosterkit.generator.packs import new_seed
from boosterkit.generator.rng import check_seed
from boosterkit.serialize import md_inline, to_json

if TYPE_CHECKING:
    from collections.abc import Mapping

    from boosterkit.database import DbLike
    from boosterkit.pipeline.queries import CardArt

#: Players of one pool event (a sealed flight, a draft pod).
MAX_POOL_PLAYERS = 64
MAX_PACKS = 36
#: The names of the pool formats (``formats.POOLS``).
FORMATS = POOLS.names
COLOR_NAMES = {"W": "White", "U": "Blue", "B": "Black", "R": "Red", "G": "Green"}
SECTIONS = (
    "White",
    "Blue",
    "Black",
    "Red",
    "Green",
    "Multicolour",
    "Colourless",
    "Lands",
    "Unresolved",
)
TYPES = (
    "Creature",
    "Planeswalker",
    "Instant",
    "Sorcery",
    "Enchantment",
    "Artifact",
    "Battle",
    "Land",
)


def pool_seed(seed: int, player: int) -> int:
    """The seed of player ``player``'s packs (1-based) in an event with ``seed``."""
    return rng.pack_key(seed, player)


def _section(item: dict[str, Any]) -> str:
    if not item["resolved"]:
        return "Unresolved"
    if "Land" in (item["type_line"] or "").split("//")[0]:
        return "Lands"
    colors = item["colors"]
    if len(colors) > 1:
        return "Multicolour"
    return COLOR_NAMES.get(colors[0], "Colourless") if colors else "Colourless"


def _type(item: dict[str, Any]) -> str:
    front = (item["type_line"] or "").split("//")[0]
    return next((t for t in TYPES if t in front), "Other")


def _sort_key(e: dict[str, Any]) -> tuple[Any, ...]:
    kind = TYPES.index(e["type"]) if e["type"] in TYPES else len(TYPES)
    return (
        SECTIONS.index(e["section"]),
        kind,
        e["mana_value"] if e["mana_value"] is not None else 99,
        e["name"] or "",
        e["set"],
        e["collector_number"] or "",
        e["foil"],
    )


def pool_cards(packs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the Magic cards of ``packs`` with counts, sorted; the other objects with counts)."""
    cards: Counter[tuple[Any, ...]] = Counter()
    others: Counter[tuple[Any, ...]] = Counter()
    info: dict[tuple[Any, ...], dict[str, Any]] = {}
    for pack in packs:
        for it in pack["items"]:
            key = (it["name"], it["set"], it["collector_number"], it["foil"], it["kind"])
            if it["kind"] == "card":  # double-faced cards too (no Magic back, still cards)
                cards[key] += 1
                info.setdefault(key, {
                    "name": it["name"], "set": it["set"], "collector_number": it["collector_number"],
                    "foil": it["foil"], "rarity": it["rarity"], "mana_value": it["mana_value"],
                    "colors": it["colors"], "type_line": it["type_line"],
                    "layout": it["layout"], "section": _section(it), "type": _type(it),
                    "card_id": it["card_id"],
                })  # fmt: skip
            else:
                others[key] += 1
    rows = sorted(({"count": n, **info[k]} for k, n in cards.items()), key=_sort_key)
    other_rows = sorted(
        (
            {"count": n, "kind": k[4], "name": k[0], "set": k[1], "collector_number": k[2]}
            for k, n in others.items()
        ),
        key=lambda r: (r["kind"], r["name"] or "", r["set"], r["collector_number"] or ""),
    )
    return rows, other_rows


def _add_treatments(database: Database, pools: list[dict[str, Any]]) -> None:
    """Each card row's ``treatment``: showcase, borderless, extended art (``[]`` for none),
    so the main and the showcase printing of a card are told apart on the sheet;
    ``numbered`` where two rows would still read alike (basic lands' arts): their numbers;
    ``mtgo_id`` and ``mtgo_foil_id``: its MTGO catalogue ids (None where unknown)."""
    from boosterkit.pipeline.queries import card_mtgo_ids, card_treatments

    found = card_treatments(database, (c["card_id"] for p in pools for c in p["cards"]))
    mtgo = card_mtgo_ids(database, (c["card_id"] for p in pools for c in p["cards"]))
    for pool in pools:
        for c in pool["cards"]:
            c["treatment"] = found.get(c["card_id"] or "", [])
            c["mtgo_id"], c["mtgo_foil_id"] = mtgo.get(c["card_id"] or "", (None, None))
        seen = Counter(_label(c) for c in pool["cards"])
        for c in pool["cards"]:  # two printings alike but for their art: their numbers
            c["numbered"] = seen[_label(c)] > 1


def add_treatments(database: Database, pools: list[dict[str, Any]]) -> None:
    """Each card row's treatment, MTGO ids and ``numbered`` (``_add_treatments``)."""
    _add_treatments(database, pools)


def _check(players: int, packs: int) -> None:
    for name, v, hi in (("players", players, MAX_POOL_PLAYERS), ("packs", packs, MAX_PACKS)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
            raise InputError(f"{name}: {v!r} is out of range (1 to {hi})", field=name)


def open_pools(
    set_code: str,
    players: int,
    packs: int,
    product: str | None = None,
    seed: int | None = None,
    db: DbLike = None,
) -> dict[str, Any]:
    """Each of ``players`` players' ``packs`` packs of ``set_code``'s ``product`` (``db`` as
    ``open_packs`` takes it).

    Returns ``{"set", "product", "seed", "players", "packs_per_player", "pools": [{"player",
    "seed", "packs": [Pack.to_dict()…], "cards": [sorted, with counts], "others": […]}]}``.
    """
    _check(players, packs)
    seed = new_seed() if seed is None else check_seed(seed)
    # The product once for the table: pack i of a pool depends only on (pool seed, i).
    database = Database.of(db)
    cp = compiled(database, set_code, product)
    pools: list[dict[str, Any]] = []
    product_code = None
    for i in range(1, players + 1):
        s = pool_seed(seed, i)
        opened = [p.to_dict() for p in open_compiled(cp, s, 1, packs)]
        product_code = opened[0]["product"]
        cards, others = pool_cards(opened)
        pools.append({"player": i, "seed": s, "packs": opened, "cards": cards, "others": others})
    _add_treatments(database, pools)
    return {
        "set": pools[0]["packs"][0]["set"],
        "product": product_code,
        "seed": seed,
        "players": players,
        "packs_per_player": packs,
        "pools": pools,
    }


# --- rendering ------------------------------------------------------------------------------


def _label(e: dict[str, Any]) -> str:
    name = e["name"] or f"(not in the database: {e['set']} {e['collector_number'] or '?'})"
    marks = [*e.get("treatment", []), *(["foil"] if e["foil"] else [])]
    if e.get("numbered"):
        marks.insert(0, f"#{e['collector_number']}")
    return name + (f" ({', '.join(marks)})" if marks else "")


def _grouped(cards: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for e in cards:
        out.setdefault(e["section"], []).append(e)
    return list(out.items())


def _title(data: dict[str, Any], pool: dict[str, Any]) -> str:
    what = pool.get("contents") or f"{data['packs_per_player']} × {data['product']}"
    return f"Player {pool['player']} of {data['players']}: {what} (event seed {data['seed']})"


def _count_line(e: dict[str, Any], escape: Callable[[Any], str] = str) -> str:
    mv = "" if e["mana_value"] is None else f"  {e['mana_value']:g}"
    rarity = escape(f"[{(e['rarity'] or '-')[0].upper()}]")
    return f"{e['count']} {escape(_label(e))}  {rarity} {escape(e['type'])}{mv}"


def pool_text(data: dict[str, Any], pool: dict[str, Any]) -> str:
    """One player's pool as plain text."""
    lines = [_title(data, pool), f"{sum(e['count'] for e in pool['cards'])} cards"]
    for section, cards in _grouped(pool["cards"]):
        lines += ["", f"{section} ({sum(e['count'] for e in cards)})"]
        lines += [f"  {_count_line(e)}" for e in cards]
    if pool["others"]:
        lines += ["", "Not Magic cards (tokens, art cards, ads…)"]
        lines += [f"  {o['count']} {o['name'] or o['kind']} ({o['kind']})" for o in pool["others"]]
    return "\n".join(lines)


def pool_md(data: dict[str, Any], pool: dict[str, Any]) -> str:
    """One player's pool as Markdown."""
    lines = [f"# {_title(data, pool)}"]
    for section, cards in _grouped(pool["cards"]):
        lines += ["", f"## {section} ({sum(e['count'] for e in cards)})", ""]
        lines += [f"- {_count_line(e, md_inline)}" for e in cards]
    return "\n".join(lines)


# Sections flow through three columns: a 6-pack pool (~70 lines) prints on one A4 page.
_CSS = """body{font:10pt/1.3 system-ui,sans-serif;margin:1.5cm}@page{margin:12mm}
@media print{body{margin:0}}
.pool{columns:3;column-gap:5mm;page-break-after:always;break-after:page}
.pool:last-child{page-break-after:auto}h1{font-size:13pt;column-span:all}
h2{font-size:10pt;margin:0 0 .2em;break-after:avoid}ul{margin:0 0 .6em;padding-left:1.2em}
li{break-inside:avoid}small{color:#555}"""


_IMAGES_CSS = """
li.art{display:flex;gap:2mm;align-items:flex-start;padding:.5mm 0}
li.art figure{margin:0;flex:none;width:17mm;font:6pt/1.1 sans-serif;color:#555}
li.art img{display:block;width:17mm;height:23.7mm;border-radius:.8mm;background:#eee}
p.image-credits{font:7pt sans-serif;color:#555}"""
_CREDITS = (
    "Card images from Scryfall (scryfall.com), each credited to its artist. "
    "Card images and artwork © Wizards of the Coast."
)


def _html_item(c: dict[str, Any], images: Mapping[str, CardArt] | None) -> str:
    e = html.escape
    line = (
        f"{c['count']} {e(_label(c))} <small>{e((c['rarity'] or '-')[0].upper())} "
        f"{e(c['type'])}</small>"
    )
    art = images.get(c["card_id"]) if images and c.get("card_id") else None
    if not art:
        return f"<li>{line}</li>"
    credit = f"<figcaption>Illus. {e(art.artist)}</figcaption>" if art.artist else ""
    return (
        f'<li class="art"><figure><img src="{e(art.image, quote=True)}" alt="" '
        f'loading="lazy" width="146" height="204">{credit}</figure><span>{line}</span></li>'
    )


def pool_html(data: dict[str, Any], images: Mapping[str, CardArt] | None = None) -> str:
    """Every pool on its own printed page, in one HTML document (no external assets, except
    with ``images``, card id → ``CardArt`` (``pool_images``): each card's Scryfall image and
    artist credit)."""
    e = html.escape
    pages = []
    for pool in data["pools"]:
        body = [f"<h1>{e(_title(data, pool))}</h1>"]
        for section, cards in _grouped(pool["cards"]):
            items = "".join(_html_item(c, images) for c in cards)
            body.append(f"<h2>{e(section)} ({sum(c['count'] for c in cards)})</h2><ul>{items}</ul>")
        if any("<img " in b for b in body):
            body.append(f'<p class="image-credits">{e(_CREDITS)}</p>')
        pages.append(f'<section class="pool">{"".join(body)}</section>')
    css = _CSS + (_IMAGES_CSS if any("<img " in p for p in pages) else "")
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>'
        f"{e(str(data['product']))} pools — seed {data['seed']}</title><style>{css}</style>"
        f"</head><body>{''.join(pages)}</body></html>\n"
    )


def pool_images(db: DbLike, data: dict[str, Any]) -> dict[str, CardArt]:
    """card id → ``CardArt`` for the pools' cards that have a Scryfall image (``db``: a
    ``Database``, a connection, a database path or None for the configured one)."""
    from boosterkit.pipeline.queries import card_art

    return card_art(
        Database.of(db), (c["card_id"] for pool in data["pools"] for c in pool["cards"])
    )


def decklist(pool: dict[str, Any]) -> str:
    """Arena's import text (``decks.arena_deck``): the pool as the sideboard of an empty deck
    (as Arena hands out a sealed pool before deck building), foils merged with their
    printing, cards not in the database left out, two-part cards by the name Arena imports."""
    return arena_deck(pool)


def render_pool(
    data: dict[str, Any],
    pool: dict[str, Any],
    fmt: str,
    images: Mapping[str, CardArt] | None = None,
) -> str:
    """One player's pool in ``fmt`` (a ``formats.POOLS`` format; ``json``: the event without
    the other pools; ``images``: HTML only)."""
    rendered: str = _text_format(fmt).renderer()(data, images, pool)
    return rendered


def render_pools(
    data: dict[str, Any], fmt: str, images: Mapping[str, CardArt] | None = None
) -> str:
    """Every pool in ``fmt`` as one document (``html``: a page per player, with ``images``
    if given)."""
    rendered: str = _text_format(fmt).renderer()(data, images)
    return rendered


def _text_format(fmt: str) -> Any:
    found = POOLS.get(fmt)
    if found.binary:
        raise InputError(f"format {fmt}: binary, not text (render_bytes writes it)", field="format")
    return found


def render_bytes(
    data: dict[str, Any],
    fmt: str,
    images: Mapping[str, CardArt] | None = None,
    pool: dict[str, Any] | None = None,
    *,
    paper: str = "a4",
) -> bytes:
    """Every pool (or ``pool`` alone) in ``fmt`` as bytes: a binary format (``pdf``,
    ``registration-pdf``) on ``paper``, any other as UTF-8 text."""
    found = POOLS.get(fmt)
    if found.binary:
        rendered: bytes = found.renderer()(data, images, pool, paper=paper)
        return rendered
    text: str = found.renderer()(data, images, pool)
    return text.encode("utf-8")


def _one(data: dict[str, Any], pool: dict[str, Any] | None) -> dict[str, Any]:
    return {**data, "pools": [pool]} if pool is not None else data


# The functions of ``formats.POOLS``: (the event, images, one player's pool or None for all).


def text_pools(
    data: dict[str, Any], images: Mapping[str, CardArt] | None = None, pool: Any = None
) -> str:
    """Plain text, a form feed between players."""
    pools = [pool] if pool is not None else data["pools"]
    return "\n\f\n".join(pool_text(data, p) + "\n" for p in pools)


def md_pools(
    data: dict[str, Any], images: Mapping[str, CardArt] | None = None, pool: Any = None
) -> str:
    """Markdown, a rule between players."""
    pools = [pool] if pool is not None else data["pools"]
    return "\n---\n\n".join(pool_md(data, p) + "\n" for p in pools)


def html_pools(
    data: dict[str, Any], images: Mapping[str, CardArt] | None = None, pool: Any = None
) -> str:
    """A printable HTML document, a page per player (card images with ``images``)."""
    return pool_html(_one(data, pool), images)


def json_pools(
    data: dict[str, Any], images: Mapping[str, CardArt] | None = None, pool: Any = None
) -> str:
    """The event as JSON (``pool``: with that player's pool alone)."""
    return to_json(_one(data, pool)) + "\n"


def decklist_pools(
    data: dict[str, Any], images: Mapping[str, CardArt] | None = None, pool: Any = None
) -> str:
    """Deck-list import text (``decklist``), each player's headed ``// Player N`` when all
    are in one document."""
    if pool is not None:
        return decklist(pool)
    return "\n".join(f"// Player {p['player']}\n{decklist(p)}" for p in data["pools"])


def extension(fmt: str) -> str:
    """The file extension of a pool written in ``fmt`` (``pool -o DIR``)."""
    return POOLS.get(fmt).extension


def pools_pdf(
    data: dict[str, Any],
    images: Mapping[str, CardArt] | None = None,
    pool: dict[str, Any] | None = None,
    *,
    paper: str = "a4",
) -> bytes:
    """The pools as PDF (``boosterkit.pdf``): ``html_pools``' pages, a page per player."""
    from boosterkit.pdf import html_to_pdf

    return html_to_pdf(html_pools(data, None, pool), paper)
