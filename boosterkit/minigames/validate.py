"""Validate a setup JSON against its game's rules, re-deriving everything from the spec and
the database; flags in the file (kind, magic_back, external…) are never trusted.

The packs' items are looked up by ``card_id``; the game's steps are replayed over those
packs (``engine.run_steps``), which gives the zones the rules make, their kinds, shapes,
sizes and the rules for what each may hold. The file's zones are compared with that.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from boosterkit.database import Database
from boosterkit.errors import BoosterkitError, InputError, NotFoundError, escape_controls
from boosterkit.generator import open_packs
from boosterkit.generator.cache import compiled
from boosterkit.generator.model import PROTO_FIELDS, Item, Pack
from boosterkit.minigames.catalog import Minigame, get_minigame
from boosterkit.minigames.engine import BASIC_NAMES, Setup, Zone, check_players, run_steps
from boosterkit.minigames.filters import describe, is_nmb, matches
from boosterkit.minigames.lookup import CardRow, known_rows, product_cards
from boosterkit.minigames.ops import SetupError
from boosterkit.minigames.refusals import never_served
from boosterkit.minigames.setupfile import (
    SetupFile,
    SetupItem,
    SetupPack,
    SetupZone,
    parse_setup,
)
from boosterkit.minigames.spec import AddBack, Layout
from boosterkit.minigames.validate_seats import check_chosen, check_roles, check_rolls
from boosterkit.pipeline.db import Connection

if TYPE_CHECKING:
    from boosterkit.database import DbLike


@dataclass(frozen=True)
class Violation:
    """One broken rule: where (zone, card) and which rule, in one line."""

    rule: str
    message: str
    zone: str | None = None
    card: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """As JSON, every text escaped (a zone name or uid from the file may hold a
        terminal's control characters)."""
        zone, card = (escape_controls(x) if x is not None else None for x in (self.zone, self.card))
        return {"zone": zone, "card": card, "rule": self.rule, "message": str(self)}

    def __str__(self) -> str:
        return escape_controls(self.message)


@dataclass
class Validation:
    """The verdict on a setup: ``valid`` and the list of violations."""

    violations: list[Violation] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        return {"valid": self.valid, "violations": [v.to_dict() for v in self.violations]}


def _malformed(where: str, msg: str) -> InputError:
    return InputError(f"{where}: {msg}")


def _lookup(
    database: Database, con: Connection, ids: set[str], data: SetupFile
) -> dict[str, CardRow]:
    """The database's rows of ``ids``: those of the products the packs name from the rows
    cached with each product (read once per database content), the others in one query."""
    known: dict[str, CardRow] = {}
    named = {(p.get("set"), p.get("product")) for p in data["packs"] if p.get("seed") is not None}
    for set_code, product in sorted((s, q) for s, q in named if s is not None and q is not None):
        try:
            cards = product_cards(database, set_code, product)
        except BoosterkitError:  # a product that cannot be opened is reported by the re-open
            continue
        known.update(cards.rows if cards is not None else {})
    return known_rows(known, ids, con)


def _item(d: SetupItem, db: dict[str, CardRow], external: bool) -> Item:
    """An Item whose rules attributes come from the database (or are safe defaults)."""
    found = db.get(d.get("card_id") or "")
    row = found.card if found is not None else None
    # Without a card_id (ads, unresolved sheet cards) the kind is all there is to go on;
    # magic_back is then derived from it, never read from the file.
    kind = row.kind if row else str(d.get("kind") or "other")
    if external and not row:  # an outside basic land named but not identified
        kind = "card" if d.get("name") in BASIC_NAMES else "other"
    name = row.name if row else d.get("name")
    type_line = (
        row.type_line if row else (f"Basic Land — {name}" if external and kind == "card" else None)
    )
    return Item(
        uid=d["uid"],
        card_id=d.get("card_id"),
        name=name,
        set=row.set if row else str(d.get("set") or ""),
        collector_number=row.collector_number if row else d.get("collector_number"),
        rarity=row.rarity if row else d.get("rarity"),
        foil=bool(d.get("foil")),
        slot=str(d.get("slot") or ""),
        kind=kind or "other",
        magic_back=row.magic_back if row else kind == "card",
        resolved=row is not None,
        type_line=type_line,
        colors=row.colors if row else (),
        mana_value=row.mana_value if row else None,
        layout=row.layout if row else None,
        external=external,
    )


#: Item fields a pack item must share with the database's card of the same card_id (a card
#: row names them as the item does: ``lookup.COLUMNS``).
_DB_FIELDS = ("name", "set", "collector_number", "kind", "magic_back", "type_line")
#: Item fields a zone's card must share with the pack item of the same uid: all but where it
#: was drawn from (``slot``) and the art cards' stamp.
_ITEM_FIELDS = tuple(f for f in PROTO_FIELDS if f not in ("slot", "gold_stamped"))


def _db_value(row: CardRow, col: str) -> Any:
    return getattr(row.card, col)


def _label(item: Item | SetupItem) -> str:
    uid = item.uid if isinstance(item, Item) else item.get("uid")
    name = item.name if isinstance(item, Item) else item.get("name")
    return f"{uid} ({name})" if name else str(uid)


class _Check:
    """State of one validation run."""

    def __init__(
        self, database: Database, con: Connection, data: SetupFile, spec: Minigame
    ) -> None:
        self.database, self.con, self.data, self.spec = database, con, data, spec
        self.out: list[Violation] = []
        strict = data.get("strict_backs")
        self.strict = spec.face_down if strict is None else bool(strict)

    def add(
        self, rule: str, message: str, zone: str | None = None, card: str | None = None
    ) -> None:
        self.out.append(Violation(rule, message, zone, card))

    def packs(self) -> tuple[list[Pack], dict[str, Item], dict[str, int]]:
        raw = [it for p in self.data["packs"] for it in p["items"]]
        raw += [c for z in self.data["zones"] for c in z["cards"]]
        db = _lookup(
            self.database, self.con, {cid for it in raw if (cid := it.get("card_id"))}, self.data
        )
        for it in raw:
            if it.get("card_id") and it["card_id"] not in db:
                self.add(
                    "card-unknown",
                    f"card {_label(it)}: card_id {it['card_id']} is not in the database",
                    card=it["uid"],
                )
        for it in (it for p in self.data["packs"] for it in p["items"]):
            row, given = db.get(it.get("card_id") or ""), cast("Mapping[str, Any]", it)
            diff = [k for k in _DB_FIELDS if row and k in it and given[k] != _db_value(row, k)]
            if diff and row:
                self.add(
                    "card-data",
                    f"card {_label(it)}: {', '.join(diff)} differ from the "
                    f"database's card {it['card_id']} ({row.card.name})",
                    card=it["uid"],
                )
        packs, by_uid, pack_of = [], {}, {}
        self.listed: dict[str, SetupItem] = {}
        for n, p in enumerate(self.data["packs"], 1):
            items = []
            for d in p["items"]:
                if d["uid"] in by_uid:
                    self.add(
                        "card-duplicated",
                        f"packs: uid {d['uid']} appears in more than one pack item",
                        card=d["uid"],
                    )
                item = _item(d, db, external=False)
                by_uid[d["uid"]], pack_of[d["uid"]] = item, n
                self.listed[d["uid"]] = d
                items.append(item)
            packs.append(
                Pack(
                    set=str(p.get("set", "")),
                    product=str(p.get("product", "")),
                    seed=int(p.get("seed") or 0),
                    index=n,
                    variant=int(p.get("variant") or 0),
                    items=items,
                )
            )
        self.db = db
        return packs, by_uid, pack_of


def validate_setup(db: DbLike, data: Any, exact: bool = False) -> Validation:
    """Check a setup (the parsed JSON) against its game's rules and the database.

    ``db``: a ``boosterkit.database.Database``, or an open connection, a database path or
    None for the configured database (read only for what is not cached). Malformed input
    raises ``InputError``; rule violations are returned, one per problem.
    ``exact``: a seeded setup must also equal what ``deal`` gives for its arguments, zone
    by zone.
    """
    database = Database.of(db)
    database.require()  # a missing file is an error, whatever the setup needs
    with database.session() as con:  # one content key; a connection only if one is needed
        return _validate(database, con, data, exact)


def _validate(database: Database, con: Connection, given: Any, exact: bool) -> Validation:
    data = parse_setup(given)
    try:
        spec = get_minigame(data["minigame"])
    except NotFoundError as exc:
        raise _malformed("setup.minigame", str(exc)) from exc
    if not spec.dealable:
        raise _malformed(
            "setup.minigame",
            f"the setup of {spec.name} is unknown (status U), so boosterkit cannot check it",
        )
    c = _Check(database, con, data, spec)
    players = data["players"]
    try:
        check_players(spec, players)
    except InputError:
        c.add("players", f"players: {spec.name} is not for {players} players")
        return Validation(c.out)
    packs, by_uid, pack_of = c.packs()
    need = spec.pack_count(players)
    if len(packs) != need:
        c.add(
            "pack-count",
            f"packs: {len(packs)} listed; {spec.name} at {players} players uses {need}",
        )
        return Validation(c.out)
    _check_reopened(c)
    first = data.get("first_player")
    if exact:
        from boosterkit.minigames.exact import compare_exact  # it imports this module

        c.out += compare_exact(database, data, spec)
    try:
        expected = run_steps(
            spec,
            packs,
            players,
            data.get("seed") or 0,  # checked above
            set_code=data.get("set") or "",
            product=data.get("product"),
            strict_backs=c.strict,
            first=first if isinstance(first, str) else None,
            refuse_unknown=False,
            chosen=data.get("chosen"),
        )
    except BoosterkitError as exc:
        _never_served(c, exc)
        c.add("setup", f"setup: the listed packs cannot make this game's setup: {exc}")
        return Validation(c.out)
    _compare_zones(c, expected, by_uid, pack_of)
    _check_face_down(c, expected, by_uid)
    check_roles(c)
    check_chosen(c, expected)
    _check_owner_rules(c, by_uid)
    _check_tags(c, by_uid)
    check_rolls(c, expected)
    return Validation(c.out)


def _never_served(c: _Check, exc: BoosterkitError) -> None:
    """A replay refused because no pack of the file's product can hold what a step needs:
    the same input error ``deal`` gives for it (no seed, no hand deal can make it)."""

    set_code, product = c.data.get("set"), c.data.get("product")
    if not isinstance(exc, SetupError) or not set_code or not product:
        return
    try:
        cp = compiled(c.database, set_code, product)
    except BoosterkitError:
        return
    err = never_served(c.spec, exc, cp, c.strict, c.con, set_code)
    if err is not None:
        raise err from exc


def _check_face_down(c: _Check, exp: Setup, by_uid: dict[str, Item]) -> None:
    """No card without a Magic back lies face down, in any game: its back would show what it
    is (with strict backs, a double-faced card's back is another face)."""

    down = {z.name for z in exp.zones if z.face_down}
    for z in c.data["zones"]:
        for d in z["cards"] if z["name"] in down else []:
            item = by_uid.get(d["uid"])
            if item is not None and is_nmb(item, c.strict):
                c.add(
                    "face-down",
                    f"zone {z['name']!r}: card {_label(item)} lies face down but has no Magic "
                    "back (its back shows what it is)",
                    zone=z["name"],
                    card=d["uid"],
                )


def _zone_items(c: _Check, name: str, by_uid: dict[str, Item]) -> list[Item]:
    return [
        by_uid[d["uid"]]
        for z in c.data["zones"]
        if z["name"] == name
        for d in z["cards"]
        if d["uid"] in by_uid
    ]


def _check_owner_rules(c: _Check, by_uid: dict[str, Item]) -> None:
    """The catalogue's per-owner rules, e.g. Base Race: each grid holds exactly one basic land."""

    for rule in c.spec.owner_rules:
        for p in (f"player-{i}" for i in range(1, c.data["players"] + 1)):
            name = f"{p} {rule.zone}"
            n = sum(matches(i, rule.filter, c.strict) for i in _zone_items(c, name, by_uid))
            if n != rule.count:
                c.add(
                    "owner-rule",
                    f"zone {name!r}: {n} {describe(rule.filter, n)}; {rule.text} ({rule.count})",
                    zone=name,
                )


def _check_tags(c: _Check, by_uid: dict[str, Item]) -> None:
    """Tagged cards (Mimic Match's mimics): as many as the step puts back, of its filter."""

    want = {s.tag: s for s in c.spec.steps or [] if isinstance(s, AddBack)}
    got: dict[str, list[str]] = {}
    for z in c.data["zones"]:
        for d in z["cards"]:
            tag = d.get("tag")
            if tag is not None:
                got.setdefault(tag, []).append(d["uid"])
    for tag, uids in got.items():
        step = want.get(tag)
        if step is None:
            c.add("tag", f"tag {tag!r}: {c.spec.name} tags no cards {tag!r}", card=uids[0])
            continue
        for uid in uids:
            item = by_uid.get(uid)
            if item is None or not matches(item, step.filter, c.strict):
                c.add(
                    "tag",
                    f"card {uid}: tagged {tag!r} but not one of the {describe(step.filter)}",
                    card=uid,
                )
    _check_held(c, got)
    for tag, step in want.items():  # none tagged too: the sheets and the referee read tags
        if len(got.get(tag, ())) != step.count:
            c.add(
                "tag",
                f"tag {tag!r}: {len(got.get(tag, ()))} cards tagged; the rules put back "
                f"{step.count}",
            )


def _check_held(c: _Check, tagged: dict[str, list[str]]) -> None:
    """A layout that ``holds`` a tag (Foraging Squirrels' grid, the squirrel) has its
    tagged cards in it."""
    for step in c.spec.steps or []:
        if not isinstance(step, Layout) or not step.holds:
            continue
        owners = [f"player-{i}" for i in range(1, c.data["players"] + 1)]
        names = [f"{p} {step.zone}" for p in owners] if step.per == "player" else [step.zone]
        inside = {d["uid"] for z in c.data["zones"] if z["name"] in names for d in z["cards"]}
        for uid in tagged.get(step.holds, []):
            if uid not in inside:
                c.add(
                    "tag",
                    f"card {uid}: the {step.holds} is not in the {step.zone}; the card "
                    f"always has it there",
                    card=uid,
                )


_Seeded = dict[tuple[str, str, int], list[tuple[int, SetupPack, int]]]


def _seeded_packs(c: _Check) -> _Seeded:
    """The packs that name a seed, by (set, product, seed): (position, pack, index) each; a
    seeded pack without its set and product, or with an index outside 1..packs, is a
    violation instead."""
    groups: _Seeded = {}
    count = len(c.data["packs"])
    for n, p in enumerate(c.data["packs"], 1):
        set_code, product, seed, index = (
            p.get("set"),
            p.get("product"),
            p.get("seed"),
            p.get("index"),
        )
        if seed is None:
            continue
        if set_code is None or product is None:
            c.add(
                "pack-index",
                f"pack {n}: names seed {seed} but not its set and product, so "
                "it cannot be opened again",
            )
        elif not isinstance(index, int) or not 1 <= index <= count:
            c.add(
                "pack-index",
                f"pack {n}: index {index!r} is outside 1–{count} (the packs of "
                "a setup are packs 1… of one seeded run)",
            )
        else:
            groups.setdefault((set_code, product, seed), []).append((n, p, index))
    return groups


def _check_reopened(c: _Check) -> None:
    """Packs that name their set, product and seed are opened again from the database and
    must hold exactly those items (so nothing in a pack is taken on trust), whatever their
    index; an index outside 1..packs is a violation, as is a top-level seed or set that is
    not the packs'. Packs without a seed (opened by hand and typed in) are checked by card id."""

    groups = _seeded_packs(c)
    seeds = {k[2] for k in groups}
    top = c.data.get("seed")
    if seeds and top not in seeds:
        c.add(
            "seed",
            f"seed: {top!r} at the top, but the packs were opened with seed "
            f"{', '.join(map(str, sorted(seeds)))}",
        )
    sets = {k[0] for k in groups}
    if sets and c.data.get("set") not in sets:  # the sheet prints the top-level set
        c.add(
            "set",
            f"set: {c.data.get('set')!r} at the top, but the packs are "
            f"{', '.join(map(repr, sorted(sets)))}",
        )
    for (set_code, product, seed), listed in groups.items():
        indexes = [index for _, _, index in listed]
        for i in sorted({i for i in indexes if indexes.count(i) > 1}):
            c.add(
                "pack-index",
                f"packs: {set_code} {product} seed {seed} pack {i} is listed "
                f"{indexes.count(i)} times",
            )
        try:
            fresh = open_packs(set_code, product, max(indexes), seed, db=c.database)
        except BoosterkitError as exc:
            c.add(
                "pack-contents",
                f"packs: {set_code} {product} seed {seed} cannot be opened "
                f"again from the database: {exc}",
            )
            continue
        for n, p, index in listed:
            _compare_pack(c, n, p, index, fresh[index - 1].to_dict(), f"{product} seed {seed}")


def _compare_pack(
    c: _Check, n: int, listed: SetupPack, index: int, fresh: dict[str, Any], what: str
) -> None:
    items, want = listed["items"], fresh["items"]
    where = f"pack {n} ({what}, pack {index})"
    if len(items) != len(want):
        c.add("pack-contents", f"{where}: {len(items)} items listed; the seed opens {len(want)}")
        return
    for d, w in zip(items, want):
        given = cast("Mapping[str, Any]", d)
        diff = sorted(k for k in given if k in w and given[k] != w[k])
        if diff:
            c.add(
                "pack-contents",
                f"{where}: item {_label(d)} differs from what the seed opens "
                f"({_label(w)}) in {', '.join(diff)}",
                card=d["uid"],
            )
            return


def _compare_zones(c: _Check, exp: Setup, by_uid: dict[str, Item], pack_of: dict[str, int]) -> None:
    want = {z.name: z for z in exp.zones}
    seen: dict[str, str] = {}
    names = [z["name"] for z in c.data["zones"]]
    for name in want:
        if name not in names:
            c.add(
                "zone-missing",
                f"zone {name!r}: missing; the rules make it ({len(want[name].cards)} cards)",
                zone=name,
            )
    for z in c.data["zones"]:
        name = z["name"]
        if name not in want:
            c.add(
                "zone-unknown",
                f"zone {name!r}: not a zone of {c.spec.name} (its zones: {', '.join(want)})",
                zone=name,
            )
            continue
        if names.count(name) > 1 and seen.get(f"zone:{name}"):
            c.add("zone-duplicated", f"zone {name!r}: listed twice", zone=name)
        seen[f"zone:{name}"] = name
        _compare_zone(c, z, want[name], exp, by_uid, pack_of, seen)
    for uid, item in by_uid.items():
        if uid not in seen:
            c.add(
                "card-missing",
                f"card {_label(item)} from pack {pack_of[uid]} is in no zone",
                card=uid,
            )


def _compare_zone(
    c: _Check,
    z: SetupZone,
    w: Zone,
    exp: Setup,
    by_uid: dict[str, Item],
    pack_of: dict[str, int],
    seen: dict[str, str],
) -> None:
    """Add the violations of setup zone ``z`` against the zone ``w`` the rules make: its
    fields, its grid, its card count, each of its cards and its outside additions."""
    name = z["name"]
    _check_zone_fields(c, z, w)
    _check_grid(c, z, w)
    if len(z["cards"]) != len(w.cards):
        why = exp.expect.get(name)
        c.add(
            "zone-count",
            f"zone {name!r}: {len(z['cards'])} cards; the rules give "
            f"{len(w.cards)}" + (f" ({why})" if why else ""),
            zone=name,
        )
    externals: Counter[str] = Counter()
    for d in z["cards"]:
        _check_card(c, d, name, exp, by_uid, pack_of, seen, externals)
    want_ext = Counter(i.name for i in w.cards if i.external)
    if externals != want_ext:
        c.add(
            "external",
            f"zone {name!r}: outside additions {dict(externals) or 'none'}; the "
            f"rules add {dict(want_ext) or 'none'}",
            zone=name,
        )


def _check_zone_fields(c: _Check, z: SetupZone, w: Zone) -> None:
    """Add a violation for each of ``z``'s kind, visibility and owner that is not ``w``'s."""
    name = z["name"]
    if z.get("kind") != w.kind:
        c.add(
            "zone-kind",
            f"zone {name!r}: kind {z.get('kind')!r}, the rules make a {w.kind!r}",
            zone=name,
        )
    if z.get("visibility") != w.visibility:  # missing too: the sheets hide by it
        c.add(
            "zone-visibility",
            f"zone {name!r}: visibility {z.get('visibility')!r}, the rules "
            f"make it {w.visibility!r}",
            zone=name,
        )
    if z.get("owner") != w.owner:
        c.add(
            "zone-owner",
            f"zone {name!r}: owner {z.get('owner')!r}, should be {w.owner!r}",
            zone=name,
        )


def _check_grid(c: _Check, z: SetupZone, w: Zone) -> None:
    """Add a violation if ``w`` is a grid and ``z`` is not one of its shape, or its cards
    do not fill it."""
    if w.kind != "grid":
        return
    name = z["name"]
    shape = (z.get("rows"), z.get("cols"))
    if shape != (w.rows, w.cols):
        c.add(
            "grid-shape",
            f"zone {name!r}: a {shape[1]}x{shape[0]} grid (cols x rows); the "
            f"rules need {w.cols}x{w.rows}",
            zone=name,
        )
    elif len(z["cards"]) != (w.rows or 0) * (w.cols or 0):
        c.add(
            "grid-shape",
            f"zone {name!r}: {len(z['cards'])} cards do not fill a {w.cols}x{w.rows} grid",
            zone=name,
        )


def _check_card(
    c: _Check,
    d: SetupItem,
    name: str,
    exp: Setup,
    by_uid: dict[str, Item],
    pack_of: dict[str, int],
    seen: dict[str, str],
    externals: Counter[str],
) -> None:
    uid = d["uid"]
    if uid in seen:
        c.add(
            "card-duplicated",
            f"zone {name!r}: card {_label(d)} appears more than once (also in {seen[uid]!r})",
            zone=name,
            card=uid,
        )
        return
    seen[uid] = name
    item = by_uid.get(uid)
    if item is None:
        if not c.spec.adds_external:
            c.add(
                "card-foreign",
                f"zone {name!r}: card {_label(d)} is not from the listed packs",
                zone=name,
                card=uid,
            )
            return
        item = _item(d, c.db, external=True)
        externals[item.name or "?"] += 1
    else:
        listed = c.listed[uid]
        # a field dropped on one side differs too (the sheet prints the zone's card)
        diff = [k for k in _ITEM_FIELDS if (k in d or k in listed) and d.get(k) != listed.get(k)]
        if (d.get("card_id") or None) != (listed.get("card_id") or None) and "card_id" not in diff:
            diff.insert(0, "card_id")
        if diff:
            c.add(
                "card-mismatch",
                f"zone {name!r}: card {uid} differs from the same uid in pack "
                f"{pack_of[uid]} in {', '.join(diff)}",
                zone=name,
                card=uid,
            )
    reasons = [r.check(item, pack_of, c.strict) for r in exp.rules.get(name, [])]
    if reasons and all(reasons):
        c.add(
            "card-not-allowed",
            f"zone {name!r}: card {_label(item)} {reasons[0]}",
            zone=name,
            card=uid,
        )
