"""``validate`` cannot be fooled: each forgery the issue lists is a named violation,
``--exact`` lists what differs from ``deal``, and hypothesis mutations of dealt setups never
crash it nor pass as the original."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from helpers import run_cli as run
from helpers import schema_checked_deal as deal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boosterkit.errors import InputError
from boosterkit.minigames import validate_setup


@pytest.fixture(scope="module")
def setups(con) -> dict[str, dict]:
    """Seeded setups (seed 2: none of their packs holds a List card, which the database lacks)."""
    return {
        "rfi": deal(con, "roll-for-initiative", 5, "afr", seed=2).to_dict(),
        "base": deal(con, "base-race", 2, "znr", seed=2).to_dict(),
        "mimic": deal(con, "mimic-match", 3, "afr", seed=2).to_dict(),
    }


def _rules(con, data: dict, exact: bool = False) -> set[str]:
    return {v.rule for v in validate_setup(con, data, exact=exact).violations}


def _zone(data: dict, name: str) -> dict:
    return next(z for z in data["zones"] if z["name"] == name)


def test_dealt_setups_are_valid_and_exact(con, setups) -> None:
    for data in setups.values():
        assert validate_setup(con, data, exact=True).valid


@pytest.mark.parametrize("index", [0, -1, 3, 1000])
def test_a_pack_index_outside_the_run_is_a_violation(con, setups, index: int) -> None:
    data = copy.deepcopy(setups["rfi"])
    data["packs"][1]["index"] = index
    assert "pack-index" in _rules(con, data)


def test_a_renamed_card_is_caught_in_the_zone_and_in_the_pack(con, setups) -> None:
    data = copy.deepcopy(setups["rfi"])
    card = _zone(data, "player-1 hand")["cards"][0]
    card.update(name="Black Lotus", rarity="mythic", foil=True)
    verdict = validate_setup(con, data)
    mismatch = [v.message for v in verdict.violations if v.rule == "card-mismatch"]
    assert mismatch == [
        f"zone 'player-1 hand': card {card['uid']} differs from the same uid in "
        "pack " + card["uid"][1] + " in name, rarity, foil"
    ]
    data = copy.deepcopy(setups["rfi"])  # the pack item renamed too: the database disagrees
    uid = _zone(data, "player-1 hand")["cards"][0]["uid"]
    for item in [i for p in data["packs"] for i in p["items"]] + _zone(data, "player-1 hand")[
        "cards"
    ]:
        if item["uid"] == uid:
            item["name"] = "Black Lotus"
    assert {"card-data", "pack-contents"} <= _rules(con, data)


def test_a_field_dropped_from_a_zone_card_is_a_mismatch(con, setups) -> None:
    """A zone card without its name (the sheet would print a nameless card) or its colours
    (what Roll for Initiative is played by) is not the pack's card."""
    for field in ("name", "colors", "type_line"):
        data = copy.deepcopy(setups["rfi"])
        card = _zone(data, "player-2 hand")["cards"][0]
        del card[field]
        mismatch = [
            v.message for v in validate_setup(con, data).violations if v.rule == "card-mismatch"
        ]
        assert mismatch == [
            f"zone 'player-2 hand': card {card['uid']} differs from the same "
            f"uid in pack {card['uid'][1]} in {field}"
        ]


def test_a_top_level_seed_other_than_the_packs_is_a_violation(con, setups) -> None:
    data = copy.deepcopy(setups["rfi"])
    data["seed"] = 3
    assert "seed" in _rules(con, data)


@pytest.mark.parametrize("top", ["", "khm", "ZNR", " znr"])
def test_a_top_level_set_other_than_the_packs_is_a_violation(con, setups, top: str) -> None:
    data = {**copy.deepcopy(setups["base"]), "set": top}
    assert _rules(con, data) == {"set"} and "set" in _rules(con, data, exact=True)


def test_base_race_grids_keep_one_basic_land_each(con, setups) -> None:
    """Swapping a nonland of player-1's grid with player-2's basic land keeps every count
    and every card's own rule: only the per-owner rule catches it."""
    data = copy.deepcopy(setups["base"])
    g1, g2 = _zone(data, "player-1 grid")["cards"], _zone(data, "player-2 grid")["cards"]
    k2 = next(k for k, c in enumerate(g2) if "Basic" in (c["type_line"] or ""))
    k1 = next(k for k, c in enumerate(g1) if "Land" not in (c["type_line"] or ""))
    g1[k1], g2[k2] = g2[k2], g1[k1]
    verdict = validate_setup(con, data)
    assert {v.rule for v in verdict.violations} == {"owner-rule"}
    assert [v.zone for v in verdict.violations] == ["player-1 grid", "player-2 grid"]


def test_mimic_tags_are_checked(con, setups) -> None:
    data = copy.deepcopy(setups["mimic"])
    tagged = [c for z in data["zones"] for c in z["cards"] if c.get("tag") == "mimic"]
    assert len(tagged) == 2
    del tagged[0]["tag"]
    assert "tag" in _rules(con, data)
    data = copy.deepcopy(setups["mimic"])
    _zone(data, "grid")["cards"][0]["tag"] = "mimic"  # a nonland "mimic"
    assert "tag" in _rules(con, data)
    data = copy.deepcopy(setups["mimic"])  # no mimic tagged: the organizer's page marks none
    for c in tagged:
        c.pop("tag", None)
    for c in (c for z in data["zones"] for c in z["cards"]):
        c.pop("tag", None)
    assert _rules(con, data) == {"tag"}


def test_a_zone_without_its_visibility_is_a_violation(con, setups) -> None:
    # the sheets show a zone by its visibility: a face-down grid without one is not trusted
    data = copy.deepcopy(setups["mimic"])
    del _zone(data, "grid")["visibility"]
    verdict = validate_setup(con, data)
    assert [(v.rule, v.message) for v in verdict.violations] == [
        ("zone-visibility", "zone 'grid': visibility None, the rules make it 'hidden'")
    ]


def test_exact_lists_each_difference_from_deal(con, setups) -> None:
    data = copy.deepcopy(setups["rfi"])
    h1, h2 = _zone(data, "player-1 hand")["cards"], _zone(data, "player-2 hand")["cards"]
    h1[0], h2[0] = h2[0], h1[0]  # legal by the rules, but not what the seed deals
    start = {p: (data["tiebreaks"].get(p) or [v])[-1] for p, v in data["rolls"].items()}
    # no tie with any starting initiative (a re-roll is one), same first player: legal too
    data["rolls"]["player-1"] = next(v for v in range(20, 0, -1) if v not in start.values())
    assert validate_setup(con, data).valid
    verdict = validate_setup(con, data, exact=True)
    exact = [v for v in verdict.violations if v.rule.startswith("exact")]
    assert [v.zone for v in exact if v.rule == "exact-zone"] == ["player-1 hand", "player-2 hand"]
    assert "exact-rolls" in {v.rule for v in exact}
    assert "cards differ from position 1" in exact[0].message


def test_exact_compares_the_notes_the_sheet_prints(con, setups) -> None:
    data = copy.deepcopy(setups["rfi"])
    data["notes"] = [*data["notes"][:-1], "player-1 starts."]  # a forged first-player note
    assert validate_setup(con, data).valid  # the rules hold (notes are words, not rules)…
    assert _rules(con, data, exact=True) == {"exact-notes"}  # … but not what deal wrote


def test_validate_exact_cli(capsys, tmp_path: Path, built_db: Path, setups) -> None:
    data = copy.deepcopy(setups["base"])
    grid = _zone(data, "player-1 grid")["cards"]
    grid[0], grid[1] = grid[1], grid[0]  # the player may rearrange: valid, but not exact
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "--db", str(built_db), "validate", str(path))
    assert code == 0
    code, out, _ = run(capsys, "--db", str(built_db), "validate", str(path), "--exact")
    assert code == 1 and "[exact-zone] zone 'player-1 grid': cards differ from position 1" in out


# --- fuzzing: mutations of dealt setups ----------------------------------------------------

_FIELDS = ("name", "card_id", "rarity", "kind", "foil", "magic_back", "uid", "type_line")
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 30),
    st.text(max_size=12),
    st.sampled_from(["Black Lotus", "card", "token", "mythic", "p1-1", "x1-1"]),
)


@st.composite
def mutations(draw, setups: dict) -> tuple[dict, str]:
    """A dealt setup with one change that makes it a different setup."""
    key = draw(st.sampled_from(sorted(setups)))
    data = copy.deepcopy(setups[key])
    kind = draw(
        st.sampled_from(["item", "unset", "move", "drop", "dup", "pack", "top", "roll", "zone"])
    )
    zones = [z for z in data["zones"] if z["cards"]]
    z = draw(st.sampled_from(zones))
    k = draw(st.integers(0, len(z["cards"]) - 1))
    if kind == "item":
        field, value = draw(st.sampled_from(_FIELDS)), draw(_VALUES)
        if z["cards"][k].get(field) == value:
            value = f"{value}!"
        z["cards"][k][field] = value
    elif kind == "unset":
        z["cards"][k].pop(draw(st.sampled_from(_FIELDS)), None)
    elif kind == "move":
        other = draw(st.sampled_from([o for o in zones if o is not z]))
        other["cards"].insert(draw(st.integers(0, len(other["cards"]))), z["cards"].pop(k))
    elif kind == "drop":
        z["cards"].pop(k)
    elif kind == "dup":
        z["cards"].append(copy.deepcopy(z["cards"][k]))
    elif kind == "pack":
        p = draw(st.sampled_from(data["packs"]))
        field = draw(st.sampled_from(["index", "seed", "set", "product", "items"]))
        p[field] = draw(_VALUES) if field != "items" else p["items"][:-1]
    elif kind == "top":
        # (not strict_backs: flipped on packs without a double-faced card, it is the same setup)
        field = draw(st.sampled_from(["seed", "players", "minigame", "set"]))
        data[field] = draw(_VALUES)
    elif kind == "roll":
        data["rolls"] = {
            **data["rolls"],
            draw(st.sampled_from(["player-1", "player-9"])): draw(st.integers(-2, 25)),
        }
        data["first_player"] = draw(st.sampled_from(["player-1", "player-2", None]))
    else:
        z[draw(st.sampled_from(["name", "owner", "kind", "rows", "visibility"]))] = draw(_VALUES)
    return data, key


@settings(
    max_examples=int(os.environ.get("BOOSTERKIT_FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_fuzzed_setups_never_crash_and_no_forgery_passes(con, setups, data) -> None:
    mutated, key = data.draw(mutations(setups))
    if not _diff(setups[key], mutated):  # e.g. a null added where the key was absent
        return
    try:
        verdict = validate_setup(con, mutated, exact=True)
    except InputError as exc:  # malformed: one line naming where
        assert "\n" not in str(exc) and str(exc).startswith("setup")
        return
    assert not verdict.valid, (key, _diff(setups[key], mutated))


def _diff(a: object, b: object, path: str = "") -> list[str]:
    """Where two JSON values differ (for failure messages)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [
            d
            for k in sorted(set(a) | set(b), key=str)
            for d in _diff(a.get(k), b.get(k), f"{path}.{k}")
        ]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r:.60} -> {b!r:.60}"]


def test_http_validate_names_the_same_forgeries(built_db: Path, setups) -> None:
    """Over HTTP (``POST /validate``, ``?exact=true``) the verdicts are the library's."""
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    renamed = copy.deepcopy(setups["rfi"])
    renamed["packs"][0]["index"] = 0
    renamed["seed"] = 3
    moved = copy.deepcopy(setups["base"])
    grid = _zone(moved, "player-1 grid")["cards"]
    grid[0], grid[1] = grid[1], grid[0]
    with TestClient(create_app(built_db), base_url="http://127.0.0.1") as client:
        got = client.post("/validate", json=renamed).json()
        assert not got["valid"]
        assert {"pack-index", "seed"} <= {v["rule"] for v in got["violations"]}
        assert client.post("/validate", json=moved).json()["valid"] is True
        exact = client.post("/validate", params={"exact": "true"}, json=moved).json()
        assert [v["rule"] for v in exact["violations"]] == ["exact-zone"]
