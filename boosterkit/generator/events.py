"""Sealed events beyond one set: mixed pools, chaos packs, duplicate sealed, a league's week.

A pool is a list of packs numbered 1..K, and pack *j* of player *i*'s pool is always pack *j*
of its product under the pool's seed ``pools.pool_seed(seed, i)``, whatever the other packs
are. So ``afr:3,stx:3`` is packs 1-3 of AFR's draft booster and packs 4-6 of STX's; a plain
``--packs 6`` of AFR is ``afr:6``; a league that adds a pack a week leaves the earlier packs
as they were; and "only pack N" prints that pack alone.

- ``packs``: a count (of ``set_code``'s ``product``) or a spec, ``SET[/PRODUCT]:N`` items
  joined by commas (``afr:3,stx:3``, ``afr/set:2,afr:4``); PRODUCT is a booster kind or code
  or a sealed product (``afr/prerelease pack:1``: its packs and promo, numbered in turn).
- ``chaos``: sets each pack's set is drawn from (uniformly, from the pool seed's stream
  ``chaos``), ``product`` (default: each set's draft booster) opened for each.
- ``duplicate``: every player gets player 1's pool (duplicate sealed).
- ``only_pack``: each pool's pack N alone (a league's week N).

The event has the shape ``pools.open_pools`` returns, with ``spec`` (the packs as a spec),
``chaos``, ``duplicate`` and ``only_pack``, and each pool's ``contents`` (its packs in words).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from boosterkit.database import Database
from boosterkit.errors import InputError, NotFoundError
from boosterkit.generator.cache import compiled
from boosterkit.generator.engine import open_compiled
from boosterkit.generator.packs import new_seed
from boosterkit.generator.pools import (
    MAX_PACKS,
    MAX_POOL_PLAYERS,
    add_treatments,
    open_pools,
    pool_cards,
)
from boosterkit.generator.pools import pool_seed as pool_seed
from boosterkit.generator.rng import check_seed
from boosterkit.generator.streams import Rng

if TYPE_CHECKING:
    from boosterkit.database import DbLike
    from boosterkit.generator.model import Pack
    from boosterkit.pipeline.db import Connection

#: Sets a chaos pool draws from at most.
MAX_CHAOS_SETS = 64


@dataclass(frozen=True)
class Source:
    """``count`` packs of ``set``'s ``product`` (None: its default booster)."""

    set: str
    product: str | None
    count: int

    def spec(self) -> str:
        return f"{self.set}{'/' + self.product if self.product else ''}:{self.count}"


@dataclass(frozen=True)
class Event:
    """What every pool of an event is made of (``event_spec`` checks and builds it)."""

    sources: tuple[Source, ...]  # in pack order; chaos: one per pack, set "" (drawn)
    chaos: tuple[str, ...] = ()
    product: str | None = None  # chaos: opened for each drawn set
    duplicate: bool = False
    only_pack: int | None = None

    @property
    def packs(self) -> int:
        return sum(s.count for s in self.sources)

    def spec(self) -> str:
        if self.chaos:
            return str(self.packs)
        return ",".join(s.spec() for s in self.sources)


def _count(text: str, where: str) -> int:
    if not text.strip().isdigit():
        raise InputError(
            f"packs: {where}: {text.strip()!r} is not a number of packs", field="packs"
        )
    return int(text)


def parse_packs(packs: str | int, set_code: str | None, product: str | None) -> tuple[Source, ...]:
    """``packs`` as sources: a count of ``set_code``'s ``product``, or a spec
    ``SET[/PRODUCT]:N,…``. A count needs ``set_code``; a spec takes the place of both."""
    text = str(packs).strip()
    if text.isdigit():
        if not set_code:
            raise InputError(
                "set: give a SET, or a spec of sets with --packs (afr:3,stx:3)", field="set"
            )
        return (Source(set_code.strip().lower(), product, int(text)),)
    sources = []
    for item in text.split(","):
        where, sep, n = item.rpartition(":")
        if not sep or not where.strip():
            raise InputError(
                f"packs: {item.strip()!r} is not SET:N or SET/PRODUCT:N (e.g. afr:3,stx:3)",
                field="packs",
            )
        code, _, named = where.partition("/")
        sources.append(Source(code.strip().lower(), named.strip() or product, _count(n, item)))
    return tuple(sources)


def event_spec(
    set_code: str | None,
    packs: str | int,
    product: str | None = None,
    *,
    chaos: str | list[str] | None = None,
    duplicate: bool = False,
    only_pack: int | None = None,
) -> Event:
    """The event's pools as an ``Event``, checked (``InputError`` naming the argument)."""
    if chaos:
        sets = chaos.split(",") if isinstance(chaos, str) else list(chaos)
        sets = [s.strip().lower() for s in sets if s.strip()]
        if not sets or len(sets) > MAX_CHAOS_SETS:
            raise InputError(f"chaos: give 1 to {MAX_CHAOS_SETS} set codes", field="chaos")
        n = _count(str(packs), "with chaos, a number of packs")
        sources = tuple(Source("", product, 1) for _ in range(n))
        event = Event(sources, tuple(sets), product, duplicate, only_pack)
    else:
        event = Event(parse_packs(packs, set_code, product), (), product, duplicate, only_pack)
    if not 1 <= event.packs <= MAX_PACKS:
        raise InputError(f"packs: {event.packs} is out of range (1 to {MAX_PACKS})", field="packs")
    if only_pack is not None and not 1 <= only_pack <= MAX_PACKS:  # the pool's: when opened
        raise InputError(
            f"only_pack: {only_pack} is not one of the pool's packs (1 to {MAX_PACKS})",
            field="only_pack",
        )
    return event


def _chaos_sources(event: Event, seed: int) -> list[Source]:
    rng = Rng(seed, "chaos")
    return [
        Source(event.chaos[rng.below(len(event.chaos))], event.product, 1) for _ in event.sources
    ]


def _source_packs(
    database: Database, con: Connection, source: Source, seed: int, start: int
) -> tuple[list[Pack], int]:
    """The packs of one source at positions from ``start``, and how many positions it took
    (a sealed product's loose cards take one more)."""
    try:
        cp = compiled(database, source.set, source.product)
    except NotFoundError as exc:
        from boosterkit.generator.sealed import catalogue, draw_sealed

        row = catalogue(con).find(source.set, source.product) if source.product else None
        if row is None:
            raise NotFoundError(f"packs: {source.spec()}: {exc}", field="packs") from exc
        try:
            opened, _, used = draw_sealed(
                database, con, row, seed, source.count, start, MAX_PACKS - start + 1
            )
        except InputError as exc:
            raise _too_many(source, start) from exc
        return opened, used
    if start + source.count - 1 > MAX_PACKS:
        raise _too_many(source, start)
    return open_compiled(cp, seed, start, source.count), source.count


def _too_many(source: Source, start: int) -> InputError:
    after = f" after its first {start - 1}" if start > 1 else ""
    return InputError(
        f"packs: {source.spec()}: more than the {MAX_PACKS} packs a pool holds{after}",
        field="packs",
    )


def _pool_packs(
    database: Database, con: Connection, event: Event, seed: int
) -> tuple[list[Pack], int]:
    """A pool's packs, and how many places they take (a sealed product's packs and loose
    cards each take one; a pack that cannot be opened keeps its place)."""
    sources = _chaos_sources(event, seed) if event.chaos else list(event.sources)
    packs: list[Pack] = []
    start = 1
    for source in sources:
        opened, used = _source_packs(database, con, source, seed, start)
        packs += opened
        start += used
    if event.only_pack is not None and event.only_pack >= start:
        raise InputError(
            f"only_pack: {event.only_pack} is not one of the pool's packs (1 to {start - 1})",
            field="only_pack",
        )
    return packs, start - 1


def contents(packs: list[dict[str, Any]]) -> str:
    """A pool's packs in words, in order: ``3 afr-draft + 3 stx-draft``."""
    runs: list[list[Any]] = []
    for p in packs:
        if runs and runs[-1][1] == p["product"]:
            runs[-1][0] += 1
        else:
            runs.append([1, p["product"]])
    return " + ".join(f"{n} {product}" for n, product in runs)


def _pool(event: Event, player: int, seed: int, opened: list[dict[str, Any]]) -> dict[str, Any]:
    words = contents(opened)
    if event.only_pack is not None:
        opened = [p for p in opened if p["index"] == event.only_pack]
        words = f"pack {event.only_pack} of {words}"
    cards, others = pool_cards(opened)
    return {"player": player, "seed": seed, "packs": opened, "cards": cards, "others": others,
            "contents": words}  # fmt: skip


def _check_players(players: int) -> None:
    if (
        isinstance(players, bool)
        or not isinstance(players, int)
        or not 1 <= players <= MAX_POOL_PLAYERS
    ):
        raise InputError(
            f"players: {players!r} is out of range (1 to {MAX_POOL_PLAYERS})", field="players"
        )


def _check_total(max_packs: int | None, players: int, places: int) -> None:
    if max_packs is not None and players * places > max_packs:
        raise InputError(
            f"packs: {players} players × {places} packs is more than the {max_packs} packs "
            "one request opens", field="packs",
        )  # fmt: skip


def open_event(
    event: Event,
    players: int,
    seed: int | None = None,
    db: DbLike = None,
    *,
    max_packs: int | None = None,
) -> dict[str, Any]:
    """Each of ``players`` players' pool of ``event`` (``event_spec``) under ``seed``:
    ``open_pools``' shape, with the event's ``spec``, ``chaos``, ``duplicate``,
    ``only_pack`` and each pool's ``contents``; ``packs_per_player`` counts the places of a
    pool's packs (a sealed product's packs and loose cards each take one). ``max_packs``:
    the most packs every pool together may hold (``InputError`` as soon as they would hold
    more: a sealed product's contents are known once it is read)."""
    _check_players(players)
    seed = new_seed() if seed is None else check_seed(seed)
    database = Database.of(db)
    pools, places = [], 0
    with database.session() as con:
        for player in range(1, players + 1):
            s = pool_seed(seed, 1 if event.duplicate else player)
            packs, used = _pool_packs(database, con, event, s)
            _check_total(max_packs, players, used)
            pools.append(_pool(event, player, s, [p.to_dict() for p in packs]))
            places = max(places, used)
    add_treatments(database, pools)
    first = pools[0]["packs"] or [{"set": "", "product": ""}]
    sets = list(dict.fromkeys(p["set"] for pool in pools for p in pool["packs"]))
    return {
        "set": "+".join(sets) or first[0]["set"],
        "product": " + ".join(dict.fromkeys(p["product"] for pool in pools for p in pool["packs"])),
        "seed": seed,
        "players": players,
        "packs_per_player": places,
        "spec": event.spec(),
        "chaos": list(event.chaos),
        "chaos_product": event.product if event.chaos else None,
        "duplicate": event.duplicate,
        "only_pack": event.only_pack,
        "pools": pools,
    }


def pools_or_event(
    database: Database,
    event: Event,
    players: int,
    seed: int | None,
    *,
    plain: bool,
    max_packs: int | None = None,
) -> dict[str, Any]:
    """What ``pool`` opens: ``open_pools``' value when ``plain`` (a count of one set's
    booster product and nothing else: its JSON as before events), else, or when that
    product is one of the set's sealed products (``pool afr -p "prerelease pack" --packs
    1``), ``open_event``'s."""
    if plain:
        (source,) = event.sources
        try:
            return open_pools(source.set, players, source.count, source.product, seed, db=database)
        except NotFoundError:
            from boosterkit.generator.sealed import find_sealed

            if not source.product or find_sealed(database, source.set, source.product) is None:
                raise
    return open_event(event, players, seed, db=database, max_packs=max_packs)


def pool_args(data: dict[str, Any], player: int | None = None) -> list[str]:
    """The ``boosterkit pool`` arguments that make this event's pools again (with ``player``:
    the ``pool check`` arguments naming that player's pool)."""
    if data.get("spec") is None:  # a plain pool of one set's product
        args = [data["set"], "--packs", str(data["packs_per_player"]), "--product", data["product"]]
    elif data.get("chaos"):
        args = ["--chaos", ",".join(data["chaos"]), "--packs", data["spec"]]
    else:
        args = ["--packs", data["spec"]]
    if data.get("chaos") and data.get("chaos_product"):
        args += ["--product", data["chaos_product"]]
    if data.get("duplicate"):
        args.append("--duplicate")
    args += ["--seed", str(data["seed"])]
    return args + (["--player", str(player)] if player is not None else [])


#: ``pool_args``' options → the keys ``parse_pool_args`` gives (a flag: True).
_OPTIONS = {"--packs": "packs", "--product": "product", "-p": "product", "--chaos": "chaos",
            "--seed": "seed", "--player": "player", "--duplicate": "duplicate"}  # fmt: skip


def parse_pool_args(words: list[str]) -> dict[str, Any]:
    """``pool_args``' words (a deck file's ``// boosterkit pool check DECK …`` line) as
    ``{"set", "packs", "product", "chaos", "duplicate", "seed", "player"}`` (those given)."""
    out: dict[str, Any] = {}
    it = iter(words)
    for word in it:
        key = _OPTIONS.get(word.split("=", 1)[0])
        if key is None:
            if word.startswith("-"):
                raise InputError(f"pool arguments: unknown option {word!r}", field="arguments")
            out["set"] = word
        elif key == "duplicate":
            out[key] = True
        else:
            value = word.split("=", 1)[1] if "=" in word else next(it, None)
            if value is None:
                raise InputError(f"pool arguments: {word} needs a value", field="arguments")
            out[key] = value
    for key in ("seed", "player"):
        if key in out:
            out[key] = _count(str(out[key]), f"--{key}")
    return out


def player_pool(args: dict[str, Any], db: DbLike = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the event, player N's pool) for ``parse_pool_args``' keys: the pool a deck was
    built from. ``seed`` and ``player`` are needed; the packs default to 6 of ``set``."""
    missing = [k for k in ("seed", "player") if args.get(k) is None]
    if missing or not (args.get("set") or args.get("packs") or args.get("chaos")):
        raise InputError(
            "which pool? give --seed, --player and SET or --packs (as on the registration "
            "sheet), or begin the deck file with its `// boosterkit pool check DECK …` line",
            field="pool",
        )
    player = args["player"]
    if not 1 <= player <= MAX_POOL_PLAYERS:
        raise InputError(
            f"player: {player} is out of range (1 to {MAX_POOL_PLAYERS})", field="player"
        )
    event = event_spec(args.get("set"), args.get("packs") or "6", args.get("product"),
                       chaos=args.get("chaos"), duplicate=bool(args.get("duplicate")))  # fmt: skip
    seed = check_seed(args["seed"])
    database = Database.of(db)
    with database.session() as con:
        s = pool_seed(seed, 1 if event.duplicate else player)
        packs, places = _pool_packs(database, con, event, s)
        pool = _pool(event, player, s, [p.to_dict() for p in packs])
    add_treatments(database, [pool])
    data = {"set": args.get("set") or "", "product": "", "seed": seed, "players": player,
            "packs_per_player": places, "spec": event.spec(), "chaos": list(event.chaos),
            "chaos_product": event.product if event.chaos else None,
            "duplicate": event.duplicate, "only_pack": None, "pools": [pool]}  # fmt: skip
    return data, pool
