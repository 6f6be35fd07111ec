"""``validate --exact``: a seeded setup must equal what ``deal`` gives for its own arguments
(minigame, players, set, product, seed, strict_backs), zone by zone; every difference is a
violation (for organizers who re-check a printed sheet)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from boosterkit.errors import BoosterkitError
from boosterkit.minigames.catalog import Minigame
from boosterkit.minigames.setupfile import SetupFile, SetupZone
from boosterkit.minigames.validate import Violation

if TYPE_CHECKING:
    from boosterkit.database import Database

#: Zone keys compared besides the cards.
_ZONE_KEYS = ("owner", "kind", "visibility", "rows", "cols")


def compare_exact(database: Database, data: SetupFile, spec: Minigame) -> list[Violation]:
    """The differences between ``data`` and ``deal`` for its arguments, one violation each."""
    from boosterkit.minigames import deal

    if not isinstance(data.get("seed"), int) or not isinstance(data.get("set"), str):
        return [
            Violation(
                "exact",
                "exact: the setup names no seed and set, so there is no "
                "dealt setup to compare it with",
            )
        ]
    notes = data.get("notes") or []
    # a deal without --product whose set lacked the game's product fell back to the set's
    # default product, with this note: deal it the same way
    fell_back = any(" booster data in the database; dealt " in n for n in notes[:2])
    try:
        want = deal(
            database,
            spec.id,
            data["players"],
            data["set"],
            None if fell_back else data.get("product"),
            data["seed"],
            data.get("strict_backs"),
        ).to_dict()
    except BoosterkitError as exc:
        return [Violation("exact", f"exact: `deal` cannot make this setup: {exc}")]
    out: list[Violation] = []
    if data["packs"] != want["packs"]:
        out.append(
            Violation(
                "exact-packs",
                f"packs: differ from the {len(want['packs'])} packs "
                f"{want['set']} {want['product']} seed {want['seed']} opens",
            )
        )
    got = {z["name"]: z for z in data["zones"]}
    for name, z in {z["name"]: z for z in want["zones"]}.items():
        if name not in got:
            out.append(Violation("exact-zone", f"zone {name!r}: missing", zone=name))
            continue
        diff = _zone_diff(got[name], z)
        if diff:
            out.append(Violation("exact-zone", f"zone {name!r}: {diff}", zone=name))
    for name in got:
        if name not in {z["name"] for z in want["zones"]}:
            out.append(
                Violation("exact-zone", f"zone {name!r}: `deal` makes no such zone", zone=name)
            )
    for key in ("rolls", "tiebreaks", "teams", "first_player", "notes"):  # notes: on the sheet
        if (data.get(key) or None) != (want.get(key) or None):
            out.append(
                Violation(
                    f"exact-{key.replace('_', '-')}",
                    f"{key}: {data.get(key)!r:.80}; `deal` gives {want.get(key)!r:.80}",
                )
            )
    return out


def _zone_diff(got: SetupZone, want: SetupZone) -> str:
    parts = [
        f"{k} {got.get(k)!r}, `deal` gives {want.get(k)!r}"
        for k in _ZONE_KEYS
        if got.get(k) != want.get(k)
    ]
    g = [(c.get("uid"), c.get("tag")) for c in got["cards"]]
    w = [(c["uid"], c.get("tag")) for c in want["cards"]]
    if g != w:
        first = next((i for i, (a, b) in enumerate(zip(g, w)) if a != b), min(len(g), len(w)))
        parts.append(
            f"cards differ from position {first + 1} ({len(g)} listed, `deal` gives {len(w)})"
        )
    elif got["cards"] != want["cards"]:
        parts.append("card details differ")
    return "; ".join(parts)
