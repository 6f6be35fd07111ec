"""One typed model per data shape: the catalogue entry (``minigames.spec``) and the setup file
(``minigames.setupfile``). The JSON Schemas in ``data/`` are generated from them; each setup
op has one step model and one engine function. No ../shared needed."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest
import yaml

from boosterkit.data import DATA_DIR
from boosterkit.errors import InputError
from boosterkit.minigames import engine, schemas, spec
from boosterkit.minigames.catalog import checker
from boosterkit.minigames.setupfile import parse_setup
from boosterkit.serialize import to_json


@pytest.mark.parametrize("name", sorted(schemas.SCHEMAS))
def test_committed_schema_is_the_generated_one(name: str) -> None:
    committed = (DATA_DIR / name).read_text(encoding="utf-8")
    assert committed == schemas.text(name), (
        f"data/{name} is not what the models give: run `python -m boosterkit.minigames.schemas`"
    )


def test_write_reports_only_what_changed(tmp_path) -> None:
    assert sorted(schemas.write(tmp_path)) == sorted(schemas.SCHEMAS)
    assert schemas.write(tmp_path) == []
    (tmp_path / "setup.schema.json").write_text("{}", encoding="utf-8")
    assert schemas.write(tmp_path) == ["setup.schema.json"]
    assert json.loads((tmp_path / "setup.schema.json").read_text())["title"] == (
        "boosterkit minigame setup"
    )


def test_every_step_model_has_one_engine_op_and_the_ops_are_the_steps() -> None:
    assert set(engine.OPS) == set(spec.STEPS) and len(spec.STEPS) == 18
    ops = [next(f.type for f in dataclasses.fields(s) if f.name == "op") for s in spec.STEPS]
    assert spec.OPS == tuple(op.__args__[0] for op in ops)
    assert len(set(spec.OPS)) == 18 and spec.OPS[0] == "open" and spec.OPS[-1] == "roles"


def _game(**changes: Any) -> dict[str, Any]:
    """A minimal catalogue entry (a shared pool dealt into hands)."""
    data: dict[str, Any] = {
        "id": "test-game",
        "name": "Test Game",
        "scryfall_names": [],
        "printings": [{"set": "mtst", "parent": "tst", "number": "1", "status": "C"}],
        "players": {"min": 2, "max": 4},
        "packs": {"per_player": 1},
        "minutes": 5,
        "components": [],
        "setup": {
            "steps": [
                {"op": "open", "which": "all"},
                {"op": "deal", "to": "each_player", "count": "equal", "zone": "hand"},
            ]
        },
        "first_player": {"rule": "random", "text": "Anyone."},
        "win": {"type": "points", "text": "Most cards."},
        "status": dict.fromkeys(spec.keys(spec.StatusParts), "C"),
    }
    data.update(changes)
    return data


def test_a_catalogue_entry_is_typed_and_frozen() -> None:
    game = checker().validate_python(_game())
    assert isinstance(game, spec.Minigame)
    deal = game.steps[1] if game.steps else None
    assert isinstance(deal, spec.Deal) and deal.count == "equal" and deal.filter is None
    assert game.packs.product == "set" and game.pack_count(3) == 3 and game.dealable
    assert game.summary()["packs"] == "1 per player" and game.printed_name("fr") == "Test Game"
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.name = "Other"  # type: ignore[misc]


def _load(tmp_path, data: dict[str, Any]) -> spec.Minigame:
    from boosterkit.minigames.catalog import load_file

    path = tmp_path / f"{data['id']}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return load_file(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"minutes": "5"}, "test-game.yaml.minutes: expected an integer >= 1, got '5'"),
        ({"minutes": True}, "test-game.yaml.minutes: expected an integer >= 1, got True"),
        ({"face_down": 1}, "test-game.yaml.face_down: expected true or false"),
        ({"reads": ["colors", "smell"]}, "test-game.yaml.reads: a list of facts among colors,"),
        ({"name": ""}, "test-game.yaml.name: string should have at least 1 character"),
        ({"colour": "blue"}, "test-game.yaml.colour: unknown key (allowed: id, name,"),
    ],
)
def test_a_catalogue_entry_never_coerces(tmp_path, change: dict, message: str) -> None:
    with pytest.raises(InputError) as exc:
        _load(tmp_path, _game(**change))
    assert str(exc.value).startswith(f"data/minigames/{message}")


def test_an_unknown_key_is_named_before_missing_ones(tmp_path) -> None:
    data = _game()
    del data["win"], data["players"]["max"]
    data["players"]["most"] = 4
    data["setup"]["steps"][1] = {"op": "deal", "face": "down"}
    with pytest.raises(InputError) as exc:
        _load(tmp_path, data)
    assert str(exc.value) == "data/minigames/test-game.yaml.win: missing"  # the top level first
    data["win"] = {"type": "points", "text": "Most cards."}
    with pytest.raises(InputError) as exc:
        _load(tmp_path, data)
    assert str(exc.value).startswith("data/minigames/test-game.yaml.players.most: unknown key")
    data["players"] = {"min": 2, "max": 4}
    with pytest.raises(InputError) as exc:
        _load(tmp_path, data)
    assert str(exc.value).startswith(
        "data/minigames/test-game.yaml.setup.steps[1].face: unknown key (allowed: op, note, "
        "status, to, count, zone, filter, remainder, visibility, face_down)"
    )


def test_only_deal_counts_may_be_words(tmp_path) -> None:
    # "equal" and "even" are what the engine deals; other steps count cards
    data = _game()
    data["setup"]["steps"].insert(
        1, {"op": "select", "who": "first", "count": "equal", "zone": "x"}
    )
    with pytest.raises(
        InputError, match=r"steps\[1\].count: expected an integer >= 1, got 'equal'"
    ):
        _load(tmp_path, data)
    data["setup"]["steps"][1]["count"] = 2
    assert _load(tmp_path, data).steps is not None
    data["setup"]["steps"][2]["count"] = "all"  # never implemented by the engine
    with pytest.raises(InputError, match=r"steps\[2\].count: expected an integer >= 1, got 'all'"):
        _load(tmp_path, data)


def _setup() -> dict[str, Any]:
    item = {
        "uid": "p1-1", "card_id": "c1", "name": "Bear", "set": "tst", "collector_number": "1",
        "rarity": "common", "foil": False, "slot": "common", "kind": "card", "magic_back": True,
        "resolved": True, "type_line": "Creature — Bear", "colors": ["G"], "mana_value": 2.0,
        "layout": "normal",
    }  # fmt: skip
    return {
        "minigame": "roll-for-initiative", "players": 2, "set": "tst", "product": "set",
        "seed": 1, "strict_backs": False,
        "packs": [{"set": "tst", "product": "tst-set", "seed": 1, "index": 1, "variant": 1,
                   "items": [item]}],
        "zones": [{"name": "player-1 hand", "owner": "player-1", "kind": "hand",
                   "visibility": "owner", "cards": [{**item, "tag": "mimic"}]}],
        "rolls": {"player-1": 3, "player-2": 5}, "tiebreaks": {}, "first_player": "player-1",
        "notes": [], "rules": {"source": "x", "text": "y"},
    }  # fmt: skip


def test_a_setup_file_reads_back_exactly_as_written() -> None:
    data = _setup()
    read = parse_setup(data)
    assert read == data and to_json(read) == to_json(data)  # same keys, same order
    data["zones"][0]["cards"][0]["toughness"] = 2  # keys beyond the model are kept
    assert parse_setup(data)["zones"][0]["cards"][0]["toughness"] == 2  # type: ignore[typeddict-item]


def test_a_setup_dealt_by_hand_needs_only_uids() -> None:
    hand = {
        "minigame": "mimic-match",
        "players": 2,
        "packs": [{"items": [{"uid": "p1-1"}, {"uid": "p1-2", "card_id": "c2"}]}],
        "zones": [{"name": "grid", "kind": "grid", "cards": [{"uid": "p1-1"}]}],
    }
    assert parse_setup(hand) == hand


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        (("players",), "2", "setup.players: expected int, got '2'"),
        (("players",), 0, "setup.players: expected at least 1, got 0"),
        (("seed",), -1, "setup.seed: expected an integer from 0 to"),
        (("strict_backs",), 1, "setup.strict_backs: expected bool, got 1"),
        (("zones", 0, "kind"), ["hand"], "setup.zones[0].kind: expected a string"),
        (("packs", 0, "index"), "1", "setup.packs[0].index: expected int, got '1'"),
        # a flag is never coerced: the old reader took a hand-typed "foil": 1 as a foil
        (("packs", 0, "items", 0, "foil"), 1, "setup.packs[0].items[0].foil: expected bool, got 1"),
        (("zones", 0, "cards", 0, "uid"), 7, "setup.zones[0].cards[0]: an item is an object"),
        (("tiebreaks",), {"player-1": ["9"]}, "setup.tiebreaks.player-1[0]: expected int"),
        (("rules",), {"source": "x"}, "setup.rules.text: missing"),
        # keys the old reader did not type: a file with these passed as a valid setup
        (("notes",), 4, "setup.notes: expected a list, got 4"),
        (("rules",), "x", "setup.rules: expected an object, got 'x'"),
        (
            ("packs", 0, "items", 0, "mana_value"),
            "2",
            "setup.packs[0].items[0].mana_value: expected a number",
        ),
    ],
)
def test_a_malformed_setup_is_one_line_naming_the_path(where, value, message: str) -> None:
    data = copy.deepcopy(_setup())
    node: Any = data
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    with pytest.raises(InputError) as exc:
        parse_setup(data)
    assert str(exc.value).startswith(message) and "\n" not in str(exc.value)


def test_the_referee_reads_the_setup_through_the_same_model() -> None:
    from boosterkit.minigames.referee import new_game

    data = _setup()
    data["zones"].append({**data["zones"][0], "name": "player-2 hand", "owner": "player-2"})
    data["zones"][1]["cards"] = [{**data["zones"][0]["cards"][0], "uid": "p1-2"}]
    state = new_game(data)
    assert state.table.players == ("player-1", "player-2") and state.table.seed == 1
    for key, value, message in (
        ("players", 0, "setup.players: expected at least 1, got 0"),
        ("tiebreaks", {"player-1": ["9"]}, "setup.tiebreaks.player-1[0]: expected int"),
        ("first_player", "player-9", "setup: first_player 'player-9' is not a player"),
    ):
        with pytest.raises(InputError, match=message.replace("[", r"\[")):
            new_game({**data, key: value})


def test_a_referee_allows_exactly_the_keys_of_its_move_shapes() -> None:
    from boosterkit.minigames.referee import apply, new_game
    from boosterkit.minigames.referee.moves import MOVES, keys

    data = _setup()
    data["zones"].append({**data["zones"][0], "name": "player-2 hand", "owner": "player-2"})
    data["zones"][1]["cards"] = [{**data["zones"][0]["cards"][0], "uid": "p1-2"}]
    state = new_game(data)
    known = keys(*MOVES["roll-for-initiative"])
    assert known == ("player", "card", "face_down", "effects", "reroll", "die", "roll_off", "dice")
    with pytest.raises(InputError) as exc:
        apply(state, {"player": "player-1", "card": "p1-1", "shiny": True})
    assert str(exc.value) == f"move: unknown field 'shiny' (known: {', '.join(known)})"
    # the published schema has a definition per game, one per kind of move
    moves = schemas.schema("moves.schema.json")
    for game, shapes in MOVES.items():
        kinds = [k["$ref"].rsplit("/", 1)[-1] for k in moves["$defs"][game]["anyOf"]]
        assert kinds == [s.__name__ for s in shapes]
