"""The minigame catalogue: one YAML file per game under ``data/minigames/``, checked on load.

Every file follows one declarative schema (also published as ``data/minigame.schema.json``).
Unknown keys, unknown setup ops and unknown filter terms fail with the file and the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from boosterkit.data import DATA_DIR
from boosterkit.errors import InputError, NotFoundError
from boosterkit.minigames.filters import check_filter
from boosterkit.minigames.labels import LANGS

CATALOGUE_DIR = DATA_DIR / "minigames"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~10x faster, same result
STATUSES = ("C", "I", "U")
STATUS_PARTS = (
    "printings",
    "players",
    "packs",
    "minutes",
    "components",
    "setup",
    "first_player",
    "win",
)

#: Zone kinds a setup may hold.
ZONE_KINDS = (
    "hand",
    "grid",
    "row",
    "deck",
    "pile",
    "removed",
    "set_aside",
    "selected",
    "discard",
    "scatter",
)

#: op → {argument: required?}. The closed vocabulary of setup steps.
OPS: dict[str, dict[str, bool]] = {
    "open": {"which": True, "pack": False},
    "remove": {"filter": True, "reason": True, "to": False},
    "reserve": {"filter": True, "count": True, "zone": True},
    "add_back": {"filter": True, "count": True, "tag": True},
    "add_external": {"item": True, "per_type": True},
    "shuffle": {},
    "combine": {},
    "deal": {"to": True, "count": True, "zone": True, "filter": False, "remainder": False},
    "select": {"who": True, "count": True, "zone": True, "filter": False, "method": False},
    "layout": {
        "shape": True,
        "zone": True,
        "per": True,
        "rows": False,
        "cols": False,
        "count": False,
        "from": False,
    },
    "piles": {"count": True, "size": True, "per": True, "zone": True},
    "split": {"piles": True},
    "flip": {"count": True, "zone": True},
    "place": {"zone": True, "kind": True, "per": True},
    "roll": {"die": True, "ties": True},
}

_ENUMS: dict[tuple[str, str], tuple[Any, ...]] = {
    ("open", "which"): ("all", "own", "pack"),
    ("remove", "to"): ("removed", "set_aside"),
    ("add_external", "item"): ("basic_lands",),
    ("deal", "to"): ("each_player", "others"),
    ("deal", "remainder"): ("pool", "set_aside"),
    ("select", "who"): ("each_player", "first", "shared", "each_team"),
    ("select", "method"): ("random", "choice", "choice_unseen"),
    ("layout", "shape"): ("grid", "row", "scatter"),
    ("layout", "per"): ("player", "shared"),
    ("layout", "from"): ("pool", "hand"),
    ("piles", "per"): ("player", "shared"),
    ("place", "per"): ("player", "shared", "others", "first"),
    ("place", "kind"): ZONE_KINDS,
    ("roll", "ties"): ("reroll", "keep"),
    ("layout", "arrangement"): ("random",),
}
#: Ops that make zones: each may say who sees them (else ``engine.default_visibility``).
_ZONE_OPS = ("reserve", "deal", "select", "layout", "piles", "split", "flip", "place")
VISIBILITIES = ("public", "owner", "hidden")
#: Facts a game is played by (``reads``: printed on the player's own cards); a card the
#: database lacks may not be dealt into play where any but rarity and foil is read.
FACTS = (
    "colors",
    "mana_value",
    "card_type",
    "toughness",
    "loyalty",
    "legendary",
    "name",
    "text",
    "rarity",
    "foil",
)
#: Keys of ``reminders``: what a card of each colour does in the game.
REMINDER_KEYS = ("W", "U", "B", "R", "G", "colorless", "multicolor", "face_down")

_TOP: dict[str, bool] = {
    "id": True,
    "name": True,
    "scryfall_names": True,
    "printings": True,
    "players": True,
    "packs": True,
    "minutes": True,
    "components": True,
    "setup": True,
    "first_player": True,
    "win": True,
    "status": True,
    "roles": False,
    "summary": False,
    "notes": False,
    "printed_names": False,
    "face_down": False,
    "reads": False,
    "reminders": False,
    "owner_rules": False,
}
_FIRST_PLAYER_RULES = ("random", "lowest_roll", "highest_roll", "first_to_finish", "choice", "none")
_PRODUCTS = ("set", "draft", "play", "collector", "beyond")


@dataclass(frozen=True)
class Minigame:
    """One catalogue entry, as loaded (``raw`` keeps the checked YAML mapping)."""

    id: str
    name: str
    raw: dict[str, Any]

    @property
    def steps(self) -> list[dict[str, Any]] | None:
        setup = self.raw["setup"]
        return None if setup is None else setup["steps"]

    @property
    def setup_status(self) -> str:
        return self.raw["status"]["setup"]

    @property
    def dealable(self) -> bool:
        """Whether boosterkit deals it: its setup is known (status C or I, with steps)."""
        return self.steps is not None and self.setup_status != "U"

    @property
    def adds_external(self) -> bool:
        """Whether its setup adds cards from outside the packs (basic lands)."""
        return any(s.get("op") == "add_external" for s in self.steps or [])

    @property
    def players_min(self) -> int | None:
        return self.raw["players"]["min"]

    @property
    def players_max(self) -> int | None:
        return self.raw["players"]["max"]

    @property
    def product(self) -> str:
        return self.raw["packs"].get("product", "set")

    @property
    def win(self) -> str:
        return self.raw["win"]["text"]

    @property
    def face_down(self) -> bool:
        """Its cards lie face down: double-faced cards are removed by default."""
        return bool(self.raw.get("face_down", False))

    def printed_name(self, lang: str = "en") -> str:
        """The name printed on the card in ``lang`` (English when not known)."""
        return (self.raw.get("printed_names") or {}).get(lang, self.name)

    def pack_count(self, players: int) -> int:
        """Packs to open for ``players``: per player or total, plus extra packs at N players."""
        packs = self.raw["packs"]
        n = packs.get("per_player", 0) * players + packs.get("total", 0)
        for extra in packs.get("extra", []):
            if players >= extra["at_players"]:
                n += extra["packs"]
        return n

    def summary(self) -> dict[str, Any]:
        """The row ``boosterkit minigames`` prints."""
        packs = self.raw["packs"]
        return {
            "id": self.id,
            "name": self.name,
            "players_min": self.players_min,
            "players_max": self.players_max,
            "packs": _packs_text(packs),
            "product": self.product,
            "minutes": self.raw["minutes"],
            "printings": [
                f"{p['set']}#{p['number']}" if p.get("number") else p["set"]
                for p in self.raw["printings"]
            ],
            # the booster sets it was printed for: the sets a deal uses by default
            "sets": list(dict.fromkeys(p["parent"] for p in self.raw["printings"])),
            "status": self.setup_status,
            "dealable": self.dealable,
            "printed_names": {"en": self.name, **(self.raw.get("printed_names") or {})},
            "players_limit": (self.raw["players"].get("limit") or {}).get("max"),
            "face_down": self.face_down,
        }


def _packs_text(packs: dict[str, Any]) -> str | None:
    if "per_player" in packs:
        text = f"{packs['per_player']} per player"
    elif "total" in packs:
        text = f"{packs['total']}"
    else:
        return None
    for extra in packs.get("extra", []):
        text += f", +{extra['packs']} at {extra['at_players']}+ players"
    return text


def _fail(where: str, msg: str) -> InputError:
    return InputError(f"{where}: {msg}")


def _keys(obj: Any, allowed: dict[str, bool], where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise _fail(where, f"expected a mapping, got {type(obj).__name__}")
    for key in obj:
        if key not in allowed:
            raise _fail(f"{where}.{key}", f"unknown key (allowed: {', '.join(allowed)})")
    for key, required in allowed.items():
        if required and key not in obj:
            raise _fail(f"{where}.{key}", "missing")
    return obj


def _int(value: Any, where: str, *, minimum: int = 0, nullable: bool = False) -> None:
    if value is None and nullable:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise _fail(where, f"expected an integer >= {minimum}, got {value!r}")


def check_step(step: Any, where: str) -> None:
    """Check one setup step: a known op, its known arguments, enum values and filters."""
    if not isinstance(step, dict) or "op" not in step:
        raise _fail(where, "a step is a mapping with an 'op'")
    op = step["op"]
    if op not in OPS:
        raise _fail(f"{where}.op", f"unknown op {op!r} (known: {', '.join(OPS)})")
    args = {"op": True, "note": False, "status": False, **OPS[op]}
    if op in _ZONE_OPS:
        args["visibility"] = False
        args["face_down"] = False
    if op == "layout":
        args["arrangement"] = False
    _keys(step, args, where)
    for arg, value in step.items():
        allowed = _ENUMS.get((op, arg))
        if allowed is not None and value not in allowed:
            raise _fail(f"{where}.{arg}", f"{value!r} is not one of {', '.join(map(str, allowed))}")
        if arg == "filter":
            check_filter(value, f"{where}.filter")
        if arg in ("rows", "cols", "per_type", "die", "pack"):
            _int(value, f"{where}.{arg}", minimum=1)
        if arg == "count" and value not in ("equal", "even", "all"):
            _int(value, f"{where}.{arg}", minimum=1)
        if arg == "status" and value not in STATUSES:
            raise _fail(f"{where}.status", f"{value!r} is not C, I or U")
        if arg == "face_down" and not isinstance(value, bool):
            raise _fail(f"{where}.face_down", "expected true or false")
        if arg == "visibility" and value not in VISIBILITIES:
            raise _fail(f"{where}.visibility", f"{value!r} is not one of {', '.join(VISIBILITIES)}")
    if op == "split":
        if not isinstance(step["piles"], list) or not step["piles"]:
            raise _fail(f"{where}.piles", "expected a non-empty list")
        for i, pile in enumerate(step["piles"]):
            _keys(pile, {"zone": True, "filter": True}, f"{where}.piles[{i}]")
            check_filter(pile["filter"], f"{where}.piles[{i}].filter")
    if op == "layout" and step["shape"] == "grid" and not ("rows" in step and "cols" in step):
        raise _fail(where, "a grid layout needs rows and cols")
    if op == "layout" and step["shape"] == "row" and "count" not in step:
        raise _fail(where, "a row layout needs count")


def check_minigame(data: Any, where: str) -> None:
    """Check a whole catalogue entry; raise ``InputError`` naming the file and key."""
    _keys(data, _TOP, where)
    _keys(
        data["players"],
        {"min": True, "max": True, "teams": False, "limit": False},
        f"{where}.players",
    )
    if "limit" in data["players"]:
        limit = _keys(
            data["players"]["limit"], {"max": True, "why": True}, f"{where}.players.limit"
        )
        _int(limit["max"], f"{where}.players.limit.max", minimum=1)
    _check_extras(data, where)
    _int(data["players"]["min"], f"{where}.players.min", minimum=1, nullable=True)
    _int(data["players"]["max"], f"{where}.players.max", minimum=1, nullable=True)
    _check_packs(data["packs"], f"{where}.packs")
    _int(data["minutes"], f"{where}.minutes", minimum=1, nullable=True)
    for i, p in enumerate(data["printings"] or []):
        _keys(
            p,
            {"set": True, "parent": True, "number": True, "status": True},
            f"{where}.printings[{i}]",
        )
    for i, c in enumerate(data["components"] or []):
        _keys(c, {"item": True, "per": True, "qty": True}, f"{where}.components[{i}]")
    _keys(data["status"], dict.fromkeys(STATUS_PARTS, True), f"{where}.status")
    for part, value in data["status"].items():
        if value not in STATUSES:
            raise _fail(f"{where}.status.{part}", f"{value!r} is not C, I or U")
    fp = _keys(
        data["first_player"], {"rule": True, "text": True, "role": False}, f"{where}.first_player"
    )
    if fp["rule"] not in _FIRST_PLAYER_RULES:
        raise _fail(
            f"{where}.first_player.rule",
            f"{fp['rule']!r} is not one of {', '.join(_FIRST_PLAYER_RULES)}",
        )
    _keys(data["win"], {"text": True, "type": True}, f"{where}.win")
    if data["setup"] is None:
        return
    setup = _keys(data["setup"], {"steps": True}, f"{where}.setup")
    if not isinstance(setup["steps"], list) or not setup["steps"]:
        raise _fail(f"{where}.setup.steps", "expected a non-empty list")
    for i, step in enumerate(setup["steps"]):
        check_step(step, f"{where}.setup.steps[{i}]")


def _check_extras(data: dict[str, Any], where: str) -> None:
    """The optional keys for sheets and checks: printed names, face_down, reads, reminders,
    owner_rules."""
    names = data.get("printed_names", {})
    if not isinstance(names, dict) or any(
        k not in LANGS or not isinstance(v, str) or not v for k, v in names.items()
    ):
        raise _fail(f"{where}.printed_names", f"a mapping of {', '.join(LANGS)} to names")
    if not isinstance(data.get("face_down", False), bool):
        raise _fail(f"{where}.face_down", "expected true or false")
    reads = data.get("reads", [])
    if not isinstance(reads, list) or any(r not in FACTS for r in reads):
        raise _fail(f"{where}.reads", f"a list of facts among {', '.join(FACTS)}")
    reminders = data.get("reminders", {})
    if not isinstance(reminders, dict) or any(
        k not in REMINDER_KEYS or not isinstance(v, str) for k, v in reminders.items()
    ):
        raise _fail(f"{where}.reminders", f"a mapping of {', '.join(REMINDER_KEYS)} to text")
    for i, rule in enumerate(data.get("owner_rules", [])):
        rule = _keys(
            rule,
            {"zone": True, "filter": True, "count": True, "text": True},
            f"{where}.owner_rules[{i}]",
        )
        check_filter(rule["filter"], f"{where}.owner_rules[{i}].filter")
        _int(rule["count"], f"{where}.owner_rules[{i}].count")


def _check_packs(packs: Any, where: str) -> None:
    _keys(
        packs,
        {"per_player": False, "total": False, "extra": False, "product": False, "note": False},
        where,
    )
    for key in ("per_player", "total"):
        if key in packs:
            _int(packs[key], f"{where}.{key}", minimum=1, nullable=True)
    if packs.get("product", "set") not in _PRODUCTS:
        raise _fail(
            f"{where}.product", f"{packs['product']!r} is not one of {', '.join(_PRODUCTS)}"
        )
    for i, extra in enumerate(packs.get("extra", [])):
        _keys(extra, {"at_players": True, "packs": True}, f"{where}.extra[{i}]")


def load_file(path: Path) -> Minigame:
    """Load and check one catalogue file."""
    where = f"data/minigames/{path.name}"
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)  # noqa: S506 (safe)
    except yaml.YAMLError as exc:
        raise _fail(where, f"not valid YAML: {exc}") from exc
    check_minigame(data, where)
    if data["id"] != path.stem:
        raise _fail(f"{where}.id", f"{data['id']!r} must equal the file name {path.stem!r}")
    return Minigame(id=data["id"], name=data["name"], raw=data)


@lru_cache(maxsize=4)
def load_catalogue(directory: Path = CATALOGUE_DIR) -> dict[str, Minigame]:
    """Every catalogue entry by id, in name order."""
    games = [load_file(p) for p in sorted(directory.glob("*.yaml"))]
    return {g.id: g for g in sorted(games, key=lambda g: g.name.lower())}


@lru_cache(maxsize=64)
def _load_one(path: Path) -> Minigame:
    return load_file(path)


def get_minigame(game: str) -> Minigame:
    """The entry for ``game`` (an id or a printed name, any case), else ``NotFoundError``.

    An id reads only its own file (a command dealing one game parses one file, not 27)."""
    key = game.strip().lower().replace(" ", "-").replace("'", "").replace(".", "")
    if re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", key) and (CATALOGUE_DIR / f"{key}.yaml").is_file():
        return _load_one(CATALOGUE_DIR / f"{key}.yaml")
    catalogue = load_catalogue()
    if key in catalogue:
        return catalogue[key]
    wanted = _fold(game)
    for g in catalogue.values():
        names = [g.name, *(g.raw.get("printed_names") or {}).values(), *g.raw["scryfall_names"]]
        if wanted and any(_fold(n) == wanted or _fold(n.split(" // ")[0]) == wanted for n in names):
            return g
    from boosterkit.suggest import unknown

    spellings = [
        (name, g.id)
        for g in catalogue.values()
        for name in (g.id, g.name, *(g.raw.get("printed_names") or {}).values())
    ]
    message = unknown("minigame", game, spellings, "all games: `boosterkit minigames`")
    raise NotFoundError(message)


def _fold(name: str) -> str:
    """A name for matching: no accents, case, punctuation or spacing ("Lancez les dés pour
    l'initiative !" = "lancez les des pour l initiative")."""
    import unicodedata

    flat = unicodedata.normalize("NFKD", name.casefold())
    flat = "".join(ch if ch.isalnum() else " " for ch in flat if not unicodedata.combining(ch))
    return " ".join(flat.replace("’", " ").split())


def list_minigames() -> list[dict[str, Any]]:
    """The catalogue: id, name, players, packs, product, minutes, printings and setup status."""
    return [g.summary() for g in load_catalogue().values()]
