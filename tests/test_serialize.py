"""``serialize.to_json``: indented JSON written by orjson (issue 36) is byte for byte what the
standard library's ``json.dumps(indent=2, ensure_ascii=False)`` wrote, ``json_safe`` included,
whatever the values: floats of every size, strings with every control and raw character,
subclasses of builtins, named tuples, dataclasses, dates, big integers, odd keys."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import math
import random
import struct
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boosterkit.serialize import (
    _default,
    _orjson,
    json_safe,
    json_safe_bytes,
    to_json,
    to_json_bytes,
)


def stdlib(data: Any) -> str:
    """What ``to_json`` wrote before issue 36."""
    return json_safe(json.dumps(data, default=_default, indent=2, ensure_ascii=False))


class Row(NamedTuple):
    a: int
    b: str

    def to_dict(self) -> dict[str, Any]:  # json writes a named tuple as a list, not this
        return {"never": "used"}


@dataclasses.dataclass
class Thing:
    name: str
    weight: float

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "weight": self.weight, "tags": ("x", "y")}


class Text(str):
    pass


class Count(int):
    pass


class Colour(str, enum.Enum):
    W = "W"


def floats(n: int, seed: int) -> list[float]:
    rnd = random.Random(seed)
    out = [0.0, -0.0, 1e-4, 9.99e-5, 1e-5, -3e-6, 1e-10, 1e15, 1e16, -1.5e16, 1e300, 5e-324]
    while len(out) < n:
        x = struct.unpack("d", struct.pack("Q", rnd.getrandbits(64)))[0]
        if math.isfinite(x):
            out.append(x)
        out.append(rnd.random() * 10 ** rnd.randint(-12, 20))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_floats_of_every_size_as_python_writes_them(seed: int) -> None:
    values = floats(3000, seed)
    for chunk in range(0, len(values), 50):
        data = {"values": values[chunk : chunk + 50], "one": {"x": values[chunk]}}
        assert to_json(data) == stdlib(data)
    for x in values[:200]:  # alone, and as a list's last number
        assert to_json(x) == stdlib(x) and to_json([1, x]) == stdlib([1, x])


def test_every_character_as_the_standard_library_with_json_safe() -> None:
    text = "".join(map(chr, range(0x3000))) + "\U0001f600 \u2028\u2029\u200e\u202e\u2066"
    data = {text: [text, {"k": text}], "plain": "Basic Land — Island", "c1": "\x85\x9f"}
    assert to_json(data) == stdlib(data)
    assert to_json_bytes(data) == stdlib(data).encode()
    assert json_safe_bytes("a\u2028b\x7f".encode()) == b"a\\u2028b\\u007f"
    clean = "Lórien — “quoted” …".encode()
    assert json_safe_bytes(clean) is clean


def test_types_the_standard_library_writes_its_own_way() -> None:
    data = {
        "row": Row(1, "x"),  # a list, as json has it
        "rows": [Row(2, "y")],
        "thing": Thing("a", 0.5),  # to_dict, through _default
        "date": dt.date(2026, 1, 2),
        "when": dt.datetime(2026, 1, 2, 3, 4, 5, 6),
        "text": Text("sub"),
        "count": Count(3),
        "colour": Colour.W,
        "set": sorted({1, 2}),
        "tuple": (1, (2, 3), ()),
        "big": 2**64,
        "neg": -(2**63) - 1,
        "u64": 2**64 - 1,
        "empty": {"list": [], "dict": {}},
        "flags": [True, False, None],
    }
    assert to_json(data) == stdlib(data)
    odd_keys = {1: "int key", False: "bool key", None: "none", 2.5: "float key"}
    assert to_json(odd_keys) == stdlib(odd_keys)
    for alone in ("x", 3, None, True, [], {}, 0.5, 1e-7):
        assert to_json(alone) == stdlib(alone)
    with pytest.raises(TypeError, match="not JSON serialisable"):
        to_json({"x": object()})
    assert to_json({"x": "\ud800"}) == stdlib({"x": "\ud800"})  # a lone surrogate, as before


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_any_json_value_as_before(data: Any) -> None:
    assert to_json(data) == stdlib(data)
    assert to_json(data, indent=None) == json_safe(
        json.dumps(data, default=_default, ensure_ascii=False)
    )


def test_a_setup_is_written_from_its_packs_kept_fragments(built_db: Any) -> None:
    """A dealt setup's JSON takes its pack items' indented JSON from the product's kept
    fragments (``Setup.indented_json_parts``), in its packs and its zones, tagged or not: the
    same bytes as the standard library writes of ``to_dict()``, for every dealable game; and
    a setup whose pack lost an item is written from its items."""
    from boosterkit.database import Database
    from boosterkit.minigames import deal, list_minigames

    db = Database(built_db)
    dealt = 0
    for game in list_minigames():
        if not game["dealable"]:
            continue
        players = max(game["players_min"], min(3, game["players_max"] or 3))
        for seed in range(4):
            try:
                setup = deal(db, game["id"], players, seed=seed)
            except Exception:  # noqa: BLE001 (a seed whose packs cannot make the setup)
                continue
            dealt += 1
            assert _orjson(setup) is not None  # the written items, not the standard library
            assert to_json(setup) == stdlib(setup.to_dict()), (game["id"], seed)
            assert to_json_bytes(setup) == stdlib(setup.to_dict()).encode()
    assert dealt >= 40
    skeleton, texts = setup.indented_json_parts()
    tokens = [i for p in skeleton["packs"] for i in p["items"]]
    assert len(texts) == len(tokens) and all(isinstance(t, bytes) for t in texts)
    setup.notes.append("\x000\x00 a NUL and a token's number in a text, \x1b[31m")  # escaped
    assert to_json_bytes(setup) == stdlib(setup.to_dict()).encode()
    setup.packs[0].items.pop()
    assert to_json(setup) == stdlib(setup.to_dict())


def test_tokens_made_by_threads_at_once_keep_their_numbers() -> None:
    """``serialize.written`` grows its tokens under a lock: threads asking for more at once
    (the service's) leave every token *k* written ``NUL k NUL`` and numbered *k*, so a
    setup's texts go back where they stood."""
    import sys
    import threading

    import orjson

    from boosterkit import serialize

    serialize._TOKENS.clear()
    serialize._NUMBERS.clear()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=serialize.written, args=(400 + k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert len(serialize._TOKENS) == len(serialize._NUMBERS) == 407
    for k, (number, token) in enumerate(zip(serialize._NUMBERS, serialize._TOKENS)):
        assert number == b"%d" % k and orjson.dumps(token) == b"\x00%d\x00" % k
