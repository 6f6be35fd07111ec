"""``deal`` (in ``minigames.dealer``): open a minigame's packs and deal them into its setup.

Checks run once, up front (game, players, seed); the packs come from the compiled product
cached by ``generator.cache`` and are drawn by the generator's engine; the setup is built by
the pure ``minigames.engine``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from boosterkit.database import Database
from boosterkit.errors import BoosterkitError, NotFoundError
from boosterkit.generator.cache import compiled
from boosterkit.generator.engine import CompiledProduct, open_compiled
from boosterkit.generator.model import Pack
from boosterkit.generator.packs import new_seed
from boosterkit.generator.rng import check_seed
from boosterkit.minigames.catalog import Minigame, get_minigame
from boosterkit.minigames.engine import (
    Setup,
    SetupError,
    check_players,
    run_steps,
)
from boosterkit.minigames.lookup import (
    basic_lands,
    card_facts,
    minigame_cards,
    printed_names,
    product_cards,
    rules_text,
)
from boosterkit.minigames.refusals import Attempt, explain
from boosterkit.minigames.sheets import check_lang

if TYPE_CHECKING:
    from boosterkit.database import DbLike
    from boosterkit.pipeline.db import Connection

__all__ = ["basic_lands", "deal", "default_set", "summary"]


def default_set(con: Connection | None, spec: Minigame, sets: frozenset[str] | None = None) -> str:
    """The first set the game was printed for (its parent set) whose cards are in the database
    (``sets``: the sets holding cards, when already known; else asked of ``con``)."""
    parents = [p.parent for p in spec.printings]
    for code in parents:
        if sets is not None:
            if code in sets:
                return code
        elif con is not None:
            from boosterkit.pipeline.db import scalar  # con is open: duckdb is loaded already

            if scalar(
                con, "SELECT count(*) FROM cards WHERE set_code = ? AND kind = 'card'", [code]
            ):
                return code
    raise NotFoundError(
        f"{spec.name} was printed for {', '.join(parents)}; none of these sets is in the "
        f"database: `boosterkit sync {parents[0]}` loads it, or choose a loaded set with "
        "booster data",
        field="set",
    )


def _open(
    database: Database, spec: Minigame, set_code: str, product: str | None, count: int, seed: int
) -> tuple[list[Pack], str | None, str | None, CompiledProduct]:
    """The packs (seed checked), the product they were opened as, a note when the game's
    product is missing and the set's default product was used instead, and that product."""
    if product is not None:
        cp = compiled(database, set_code, product)
        return open_compiled(cp, seed, 1, count), product, None, cp
    try:
        cp = compiled(database, set_code, spec.product)
        return open_compiled(cp, seed, 1, count), spec.product, None, cp
    except NotFoundError:
        cp = compiled(database, set_code, None)
        packs = open_compiled(cp, seed, 1, count)
        code = packs[0].product if packs else None
        note = (
            f"{set_code} has no {spec.product} booster data in the database; "
            f"dealt {code} packs instead."
        )
        return packs, code, note, cp


def deal(
    db: DbLike,
    game: str,
    players: int,
    set_code: str | None = None,
    product: str | None = None,
    seed: int | None = None,
    strict_backs: bool | None = None,
    lang: str = "en",
) -> Setup:
    """Open the game's packs for ``players`` and deal them into its setup.

    ``db``: a ``boosterkit.database.Database``, or an open connection, a database path
    (opened read-only only if needed), or None for the configured database.
    ``set_code`` None: a set the game was printed for that is in the database. ``product``
    None: the game's product (Set Boosters), else the set's default product with a note.
    ``seed`` None: a random seed (kept in ``Setup.seed``). The packs equal
    ``open_packs(set, product, count, seed)``; the same arguments give the same setup.
    ``strict_backs`` None: true for games whose cards lie face down (catalogue ``face_down``).
    ``lang``: the sheet's language (``en``, ``fr``, ``es``).
    """
    spec = get_minigame(game)
    if not spec.dealable:
        raise BoosterkitError(
            f"{spec.name}: the setup is unknown (status U), so boosterkit will "
            "not guess it; see `boosterkit minigames`"
        )
    check_players(spec, players)
    lang = check_lang(lang)
    if strict_backs is None:
        strict_backs = spec.face_down
    seed = new_seed() if seed is None else check_seed(seed)
    database = Database.of(db)
    with database.session() as con:  # one content key; a connection only if one is needed
        setup = _deal(database, con, spec, players, set_code, product, seed, strict_backs, lang)
    if spec.status.packs == "I" and spec.packs.note:
        setup.notes.insert(0, f"Inferred, not printed on the card: {spec.packs.note}.")
    if spec.setup_status != "C":
        setup.notes.insert(
            0,
            f"The setup of {spec.name} is partly inferred (status "
            f"{spec.setup_status}); check it against the card.",
        )
    return setup


def _deal(
    database: Database,
    con: Connection,
    spec: Minigame,
    players: int,
    set_code: str | None,
    product: str | None,
    seed: int,
    strict_backs: bool,
    lang: str,
) -> Setup:
    """``deal`` after its checks: the packs, the steps, and what the sheet reads, all from
    ``database``'s cache (one look-up of its content, in the session) or else ``con``."""
    minigames = minigame_cards(database)  # cached per database content, like the cards
    given = set_code.strip().lower() if set_code and set_code.strip() else None
    set_code = given or default_set(None, spec, minigames.sets)
    packs, used, note, cp = _open(database, spec, set_code, product, spec.pack_count(players), seed)
    cards = product_cards(database, set_code, used, cp)  # None: the cache keeps nothing
    basics = None
    if spec.adds_external:
        basics = cards.basics if cards else basic_lands(con, set_code)
    try:
        setup = run_steps(
            spec,
            packs,
            players,
            seed,
            set_code=set_code,
            product=used,
            strict_backs=strict_backs,
            basics=basics,
        )
    except SetupError as exc:
        exc.set_code, exc.product = set_code, used
        explain(
            Attempt(database, con, spec, players, seed, strict_backs, basics), set_code, cp, exc
        )
        raise
    setup.lang = lang
    setup.rules_text = rules_text(minigames, spec, lang, set_code)
    setup.facts = card_facts(setup, cards.rows if cards else {}, con)
    setup.names = printed_names(setup, con)
    if note:
        setup.notes.insert(0, note)
    return setup


def summary(setup: Setup) -> dict[str, Any]:
    """A short description of a setup (zone sizes), for logs and listings."""
    return {
        "minigame": setup.minigame,
        "players": setup.players,
        "seed": setup.seed,
        "zones": {z.name: len(z.cards) for z in setup.zones},
    }
