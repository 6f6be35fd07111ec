"""Minigames: the catalogue (data/minigames), the setup engine, sheets and validation.

Library entry points: ``list_minigames()``, ``deal(con, game, players, …) -> Setup``,
``validate_setup(con, data) -> Validation`` and ``render_sheet(setup, fmt) -> str``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from boosterkit.errors import BoosterkitError, NotFoundError
from boosterkit.generator.model import CardInfo, Pack
from boosterkit.minigames.catalog import Minigame, get_minigame, list_minigames
from boosterkit.minigames.engine import Setup, SetupError, Zone, build_setup, check_players
from boosterkit.minigames.lookup import card_facts, rules_text
from boosterkit.minigames.sheets import check_lang, render_sheet
from boosterkit.minigames.validate import Validation, Violation, validate_setup
from boosterkit.pipeline.db import Connection

if TYPE_CHECKING:
    from boosterkit.generator.cache import ProductCache

__all__ = [
    "Setup", "SetupError", "Validation", "Violation", "Zone", "deal", "default_set",
    "list_minigames", "render_sheet", "validate_setup",
]


def default_set(con: Connection, spec: Minigame) -> str:
    """The first set the game was printed for (its parent set) whose cards are in the database."""
    parents = [p["parent"] for p in spec.raw["printings"]]
    for code in parents:
        n = con.execute("SELECT count(*) FROM cards WHERE set_code = ? AND kind = 'card'",
                        [code]).fetchone()[0]
        if n:
            return code
    raise NotFoundError(
        f"{spec.name} was printed for {', '.join(parents)}; none of these sets is in the "
        "database: choose a set (any set with booster data) or import one", field="set"
    )


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
        r[0]: CardInfo(card_id=r[1], name=r[0], set=r[2], collector_number=r[3], rarity="common",
                       kind="card", magic_back=True, type_line=f"Basic Land — {r[0]}")
        for r in rows
    }


def _open(con: Connection, spec: Minigame, set_code: str, product: str | None, count: int,
          seed: int, products: ProductCache | None = None) -> tuple[list[Pack], str | None, str | None]:
    """The packs, the product they were opened as, and a note when the game's product is
    missing and the set's default product was used instead."""
    from boosterkit.generator import open_packs

    if product is not None:
        return open_packs(set_code, product, count, seed, db=con, products=products), product, None
    try:
        return (open_packs(set_code, spec.product, count, seed, db=con, products=products),
                spec.product, None)
    except NotFoundError:
        packs = open_packs(set_code, None, count, seed, db=con, products=products)
        code = packs[0].product if packs else None
        note = (f"{set_code} has no {spec.product} booster data in the database; "
                f"dealt {code} packs instead.")
        return packs, code, note


def deal(
    con: Connection,
    game: str,
    players: int,
    set_code: str | None = None,
    product: str | None = None,
    seed: int | None = None,
    strict_backs: bool | None = None,
    products: ProductCache | None = None,
    lang: str = "en",
) -> Setup:
    """Open the game's packs for ``players`` and deal them into its setup.

    ``set_code`` None: a set the game was printed for that is in the database. ``product``
    None: the game's product (Set Boosters), else the set's default product with a note.
    ``seed`` None: a random seed (kept in ``Setup.seed``). The packs equal
    ``open_packs(set, product, count, seed)``; the same arguments give the same setup.
    ``products``: a ``generator.cache.ProductCache`` for callers that deal repeatedly.
    ``strict_backs`` None: true for games whose cards lie face down (catalogue ``face_down``).
    ``lang``: the sheet's language (``en``, ``fr``, ``es``).
    """
    from boosterkit.generator import new_seed
    from boosterkit.generator.engine import check_seed

    spec = get_minigame(game)
    if spec.steps is None or spec.setup_status == "U":
        raise BoosterkitError(f"{spec.name}: the setup is unknown (status U), so boosterkit will "
                              "not guess it; see `boosterkit minigames`")
    check_players(spec, players)
    lang = check_lang(lang)
    if strict_backs is None:
        strict_backs = spec.face_down
    set_code = set_code.strip().lower() if set_code and set_code.strip() else default_set(con, spec)
    seed = new_seed() if seed is None else check_seed(seed)
    packs, used, note = _open(con, spec, set_code, product, spec.pack_count(players), seed,
                              products)
    needs_basics = any(s["op"] == "add_external" for s in spec.steps)
    setup = build_setup(
        spec, packs, players, seed, set_code=set_code, product=used, strict_backs=strict_backs,
        basics=basic_lands(con, set_code) if needs_basics else None,
    )
    if note:
        setup.notes.insert(0, note)
    if spec.raw["status"]["packs"] == "I" and spec.raw["packs"].get("note"):
        setup.notes.insert(0, f"Inferred, not printed on the card: {spec.raw['packs']['note']}.")
    setup.lang = lang
    setup.rules_text = rules_text(con, spec, lang, set_code)
    setup.facts = card_facts(con, setup)
    if spec.setup_status != "C":
        setup.notes.insert(0, f"The setup of {spec.name} is partly inferred (status "
                              f"{spec.setup_status}); check it against the card.")
    return setup


def summary(setup: Setup) -> dict[str, Any]:
    """A short description of a setup (zone sizes), for logs and listings."""
    return {"minigame": setup.minigame, "players": setup.players, "seed": setup.seed,
            "zones": {z.name: len(z.cards) for z in setup.zones}}
