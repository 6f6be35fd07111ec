"""A big card file parsed on two threads (``pipeline.halves``) loads exactly as when read whole.

The cards are ONE's, real where ``../shared`` is, else built (``any_sources``)."""

from __future__ import annotations

import gzip
import json
import re
import threading
import time
from pathlib import Path

import duckdb
import pytest
from test_ingest import snapshot

from boosterkit.errors import InputError
from boosterkit.pipeline import db, halves, ingest, rebuild, sync

pytestmark = pytest.mark.skipif(not halves.supported(), reason="needs os.copy_file_range")


@pytest.fixture(scope="module")
def cards(any_sources) -> list[dict]:
    path = any_sources.scryfall / "cards" / "one.unique-cards.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, cards: list[dict], layout: str) -> Path:
    """``cards`` as a JSON array: pretty-printed, one per line with trailing commas (Scryfall's
    bulk files) or with leading commas."""
    lines = [json.dumps(c, ensure_ascii=False) for c in cards]
    if layout == "pretty":
        text = json.dumps(cards, ensure_ascii=False, indent=2)
    elif layout == "trailing":
        text = "[\n" + ",\n".join(lines) + "\n]\n"
    else:
        text = "[\n" + "\n".join(("," if i else "") + x for i, x in enumerate(lines)) + "\n]\n"
    path.write_text(text, encoding="utf-8")
    return path


LAYOUTS = ("pretty", "trailing", "leading")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cut_is_between_top_level_elements(cards: list[dict], tmp_path: Path, layout: str) -> None:
    path = _write(tmp_path / "c.json", cards, layout)
    end, start = halves.find_cut(path)
    data = path.read_bytes()
    first, second = json.loads(data[:end] + b"]"), json.loads(b"[" + data[start:])
    assert first and second
    assert first + second == cards


def _load(
    tmp_path: Path, path: Path, name: str, monkeypatch, split: bool, direct: bool = True
) -> tuple[dict, str]:
    """Sync ``path`` into a fresh database; return its snapshot and how it was read:
    ``direct`` (the halves straight into the tables), ``staged`` (the halves through the
    staging tables) or ``whole``. ``direct=False`` takes the staged way where it could go
    straight in, as it does for a database that holds cards already."""
    routes = []
    real_direct, real_halves = ingest.load_direct, ingest.load_halves

    def spy_direct(con, parts):
        got = real_direct(con, parts) if direct else _not_direct(con, parts)
        routes.append("direct" if got is not None else "not direct")
        return got

    def spy_halves(con, p, parts):
        counts, faithful = real_halves(con, p, parts)
        routes.append("halves" if faithful else "whole")
        return counts, faithful

    with monkeypatch.context() as m:
        m.setattr(halves, "MIN_BYTES", 0)
        m.setattr(halves, "supported", lambda: split)
        m.setattr(ingest, "load_direct", spy_direct)
        m.setattr(ingest, "load_halves", spy_halves)
        con = db.connect(tmp_path / f"{name}.duckdb")
        summary = sync.sync_file(con, path, cache=tmp_path / f"{name}.cache")
    how = {
        (): "whole",
        ("direct", "halves"): "direct",
        ("not direct", "halves"): "staged",
        ("not direct", "whole"): "whole",
    }
    snap = snapshot(con)
    snap["runs"] = con.execute("SELECT source, status, sets, cards FROM sync_runs").fetchall()
    snap["summary"] = [(k, v) for k, v in summary.items() if k in ("sets", "cards", "shape")]
    return snap, how[tuple(routes)]


def _not_direct(con, parts) -> None:
    """What ``load_direct`` does when it does not load: the transaction rolled back."""
    con.execute("ROLLBACK")


def _hostile(cards: list[dict]) -> list[dict]:
    """``cards`` with hostile characters (a bidi override, NUL, a line break) in a name and
    in a face's text, which every way of reading must clean alike."""
    out = [dict(cards[0], name="First \u202eCopy\x00"), *cards[1:]]
    i = next((i for i, c in enumerate(out) if c.get("card_faces")), 1)
    two = [{"object": "card_face", "name": n, "type_line": "Creature"} for n in ("A", "B")]
    faces = [dict(f) for f in out[i].get("card_faces") or two]
    faces[0]["name"] = "Face\nOne\u2066"
    out[i] = dict(out[i], card_faces=faces, artist="An\tArtist")  # a card cleaned, with faces
    # cards of sets no database has yet, whose type decides the cards' kind
    for j, (code, kind) in enumerate((("tone", "token"), ("mone", "minigame")), start=2):
        name = f"{code} \u202ecards"
        out[j] = dict(out[j], set=code, set_name=name, set_type=kind, set_id=code)
    out[4] = dict(out[4], set="no/set")  # not a set code: never loaded
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_split_load_equals_whole_load(
    cards: list[dict], tmp_path: Path, monkeypatch, layout: str
) -> None:
    # Straight into an empty database, and through the staging tables (a database that
    # holds cards): the same tables as the file read whole, hostile text cleaned alike.
    path = _write(tmp_path / "c.json", _hostile(cards), layout)
    direct, how_direct = _load(tmp_path, path, "direct", monkeypatch, split=True)
    staged, how_staged = _load(tmp_path, path, "staged", monkeypatch, split=True, direct=False)
    whole, how_whole = _load(tmp_path, path, "whole", monkeypatch, split=False)
    assert (how_direct, how_staged, how_whole) == ("direct", "staged", "whole")
    assert direct == staged == whole
    assert len(direct["cards"]) == len(cards) - 1
    assert cards[4]["id"] not in {r[0] for r in direct["cards"]}
    names = {r[2] for r in direct["cards"] if r[0] == cards[0]["id"]}
    assert names == {"First Copy"}
    assert any(r[2] == "Face One" for r in direct["card_faces"])
    kinds = {r[0]: r for r in direct["cards"]}
    assert "token" in kinds[cards[2]["id"]] and "minigame" in kinds[cards[3]["id"]]
    assert {("tone", "tone cards"), ("mone", "mone cards")} <= {r[:2] for r in direct["sets"]}
    assert direct["runs"] == [("file", "ok", len({c["set"] for c in cards}) + 2, len(cards) - 1)]


def test_straight_in_after_a_sets_file_uses_its_set_rows(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    # A set row that is already there decides the kind, as in the staged way, even when it
    # has no set type (the card's own "token" then counts for nothing).
    path = _write(tmp_path / "c.json", _hostile(cards), "trailing")
    sets = tmp_path / "sets.json"
    tone = {"object": "set", "code": "tone", "name": "Tokens", "set_type": None}
    sets.write_text(json.dumps({"object": "list", "data": [tone]}), encoding="utf-8")
    snaps = {}
    for name, split in (("split", True), ("whole", False)):
        con = db.connect(tmp_path / f"{name}.duckdb")
        sync.sync_file(con, sets, cache=tmp_path / f"{name}.cache")
        con.close()
        snaps[name] = _load(tmp_path, path, name, monkeypatch, split=split)
    (split_snap, how), (whole_snap, _) = snaps["split"], snaps["whole"]
    assert how == "direct"
    assert split_snap["cards"] == whole_snap["cards"] and split_snap["sets"] == whole_snap["sets"]
    row = next(r for r in split_snap["cards"] if r[0] == cards[2]["id"])
    assert "token" not in row and "card" in row
    assert ("tone", "Tokens") in {r[:2] for r in split_snap["sets"]}


def test_an_id_twice_is_staged_from_the_halves_and_the_first_row_wins(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    # The same id at both ends, with different names: straight in, the second would break
    # the primary key; staged, the first row in the file wins.
    first = dict(cards[0], name="First Copy")
    last = dict(cards[0], name="Last Copy")
    path = _write(tmp_path / "c.json", [first, *cards[1:], last], "trailing")
    split, how = _load(tmp_path, path, "split", monkeypatch, split=True)
    whole, _ = _load(tmp_path, path, "whole", monkeypatch, split=False)
    assert how == "staged"
    assert split == whole
    names = {r[2] for r in split["cards"] if r[0] == cards[0]["id"]}
    assert names == {"First Copy"}


def test_a_database_with_cards_is_loaded_through_the_staging_tables(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    path = _write(tmp_path / "c.json", cards, "trailing")
    renamed = _write(tmp_path / "old.json", [dict(cards[5], name="Old Name")], "trailing")
    snaps = []
    for name, split in (("split", True), ("whole", False)):
        con = db.connect(tmp_path / f"{name}.duckdb")
        sync.sync_file(con, renamed, cache=tmp_path / f"{name}.cache")
        con.close()
        snaps.append(_load(tmp_path, path, name, monkeypatch, split=split))
    (split_snap, how), (whole_snap, _) = snaps
    assert how == "staged"
    assert split_snap == whole_snap
    assert {r[2] for r in split_snap["cards"] if r[0] == cards[5]["id"]} == {cards[5]["name"]}


def test_the_halves_are_the_cache_copy_and_rebuild_the_same(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    path = _write(tmp_path / "c.json", cards, "trailing")
    monkeypatch.setattr(halves, "MIN_BYTES", 0)
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "cache"
    # a lone half that a sync killed while it moved them is replaced, not trusted
    st = path.stat()
    lone = cache / "files" / f"{st.st_size}-{st.st_mtime_ns}-c.json.1-of-2"
    lone.parent.mkdir(parents=True)
    lone.write_text("[]", encoding="utf-8")
    sync.sync_file(con, path, cache=cache)
    first = snapshot(con)
    (files,) = con.execute("SELECT cache_files FROM sync_runs").fetchone()
    assert [f.rsplit(".", 1)[1] for f in files] == ["1-of-2", "2-of-2"]
    parts = [json.loads((cache / f).read_bytes()) for f in files]
    assert parts[0] and parts[1] and parts[0] + parts[1] == cards
    assert not list(cache.glob("halves-*"))  # moved out of their temporary folder
    assert sorted(p.name for p in (cache / "files").iterdir()) == [f[6:] for f in files]
    assert rebuild.rebuild(con, cache)["cards"] == len(first["cards"])
    assert snapshot(con) == first
    sync.sync_file(con, path, cache=cache)  # the same file again reuses its halves
    runs = con.execute("SELECT cache_files FROM sync_runs WHERE source = 'file'").fetchall()
    assert runs == [(files,), (files,)]
    assert len(list((cache / "files").iterdir())) == 2


def test_a_load_that_fails_after_the_parse_keeps_no_halves(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    nameless = {k: v for k, v in cards[-1].items() if k != "name"}
    path = _write(tmp_path / "c.json", [*cards[:-1], nameless], "trailing")
    monkeypatch.setattr(halves, "MIN_BYTES", 0)
    con = db.connect(tmp_path / "t.duckdb")
    before = snapshot(con)
    with pytest.raises(InputError, match=f"card {len(cards)} has no name$"):
        sync.sync_file(con, path, cache=tmp_path / "cache")
    assert snapshot(con) == before
    assert not list((tmp_path / "cache").rglob("files/*"))  # the halves it kept are gone


def test_a_wrong_cut_falls_back_to_reading_whole(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    path = _write(tmp_path / "c.json", cards, "pretty")
    data = path.read_bytes()
    # a boundary between two faces or parts of one card: nested, not top-level
    m = re.compile(rb"\},\n {4,}\{").search(data, len(data) // 2)
    monkeypatch.setattr(halves, "find_cut", lambda p: (m.start() + 1, m.end() - 1))
    split, how = _load(tmp_path, path, "split", monkeypatch, split=True)
    whole, _ = _load(tmp_path, path, "whole", monkeypatch, split=False)
    assert how == "whole"
    assert split == whole
    assert not [t for t in threading.enumerate() if t.name.startswith("halves")]
    assert not list((tmp_path / "split.cache").glob("halves-*"))


def test_malformed_second_half_gives_the_usual_error(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    path = _write(tmp_path / "c.json", cards, "trailing")
    text = path.read_text(encoding="utf-8")
    cut = len(text) * 3 // 4
    path.write_text(text[:cut] + '"oops":' + text[cut:], encoding="utf-8")
    monkeypatch.setattr(halves, "MIN_BYTES", 0)
    con = db.connect(tmp_path / "t.duckdb")
    before = snapshot(con)
    with pytest.raises(InputError) as err:
        sync.sync_file(con, path, cache=tmp_path / "cache")
    message = str(err.value)
    assert message.startswith(f"{path}: not a valid Scryfall JSON file")
    assert "first.json" not in message and "second.json" not in message
    assert "\n" not in message
    assert snapshot(con) == before
    assert not list((tmp_path / "cache").glob("halves-*"))  # the halves are gone


def test_small_or_compressed_files_are_read_whole(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    path = _write(tmp_path / "c.json", cards[:50], "trailing")
    gz = tmp_path / "c.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    con = db.connect(":memory:")
    assert ingest.detect(con, path) == ingest.SPLIT and path.stat().st_size < halves.MIN_BYTES
    assert ingest.detect(con, gz) != ingest.SPLIT
    for p in (path, gz):  # not cut, whatever the size
        monkeypatch.setattr(halves, "supported", lambda: True)
        snap, how = _load(tmp_path, p, p.name.replace(".", "-"), monkeypatch, split=True)
        assert how == "whole" if p == gz else how == "direct"
        assert len(snap["cards"]) == 50
    with halves.halves(path, tmp_path / "cache") as parts:
        assert parts is None  # < MIN_BYTES


def test_halves_that_cannot_be_written_fall_back(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    def full_disk(*args):
        raise OSError(28, "No space left on device")

    path = _write(tmp_path / "c.json", cards, "trailing")
    monkeypatch.setattr(halves, "_copy", full_disk)
    split, how = _load(tmp_path, path, "split", monkeypatch, split=True)
    whole, _ = _load(tmp_path, path, "whole", monkeypatch, split=False)
    assert how == "whole"
    assert split == whole
    assert not list((tmp_path / "split.cache").glob("halves-*"))


def test_halves_a_killed_sync_left_are_removed_by_the_next(any_sources, tmp_path: Path) -> None:
    left = tmp_path / "cache" / "halves-x1y2.part"
    left.mkdir(parents=True)
    (left / "first.json").write_text("[", encoding="utf-8")
    con = db.connect(tmp_path / "t.duckdb")
    single = any_sources.scryfall / "cards" / "single-card.json"
    sync.sync_file(con, single, cache=tmp_path / "cache")
    assert not left.exists()
    assert con.execute("SELECT count(*) FROM cards").fetchone()[0] == 1


@pytest.mark.parametrize(
    ("where", "interrupt"),
    [
        ("one_row", KeyboardInterrupt),  # the statement that loads straight in
        ("one_row", RuntimeError),  # what DuckDB raises for Ctrl-C during a statement
        ("one_row", duckdb.IOException),  # a full disk: not a file to read another way
        ("_insert_cards", KeyboardInterrupt),  # the staged way
    ],
)
def test_an_interrupted_parse_is_recorded_as_failed_and_changes_nothing(
    cards: list[dict], tmp_path: Path, monkeypatch, where: str, interrupt: type[BaseException]
) -> None:
    path = _write(tmp_path / "c.json", cards, "trailing")
    monkeypatch.setattr(halves, "MIN_BYTES", 0)

    staged = []

    def interrupted(*args):
        raise interrupt("Query interrupted")

    monkeypatch.setattr(ingest, where, interrupted)
    if where == "_insert_cards":
        monkeypatch.setattr(ingest, "load_direct", _not_direct)
    else:
        monkeypatch.setattr(ingest, "prestage", lambda *args: staged.append(1))
    con = db.connect(tmp_path / "t.duckdb")
    before = snapshot(con)
    with pytest.raises(interrupt):
        sync.sync_file(con, path, cache=tmp_path / "cache")
    assert snapshot(con) == before
    runs = con.execute("SELECT source, status, message FROM sync_runs").fetchall()
    assert [r[:2] for r in runs] == [("file", "failed")]
    assert "Query interrupted" in (runs[0][2] or type(interrupt()).__name__)
    assert not staged  # not read again
    assert not list((tmp_path / "cache").glob("halves-*"))
    assert not list((tmp_path / "cache").rglob("files/*"))  # no copy of a load that did not happen


def test_an_interrupted_copy_stops_within_a_step(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    path = _write(tmp_path / "c.json", cards, "trailing")
    monkeypatch.setattr(halves, "MIN_BYTES", 0)
    monkeypatch.setattr(halves, "_STEP", 4096)
    steps = []
    real = halves.os.copy_file_range

    def counted(*args):
        steps.append(1)
        time.sleep(0.002)  # slow steps, so that the copies are still running when Ctrl-C comes
        return real(*args)

    def interrupted_wait(futures):
        while len(steps) < 4:
            time.sleep(0.001)
        raise KeyboardInterrupt  # Ctrl-C reaching the main thread while it waits

    monkeypatch.setattr(halves.os, "copy_file_range", counted)
    monkeypatch.setattr(halves, "wait", interrupted_wait)
    with pytest.raises(KeyboardInterrupt):
        with halves.halves(path, tmp_path / "cache"):
            pass
    assert len(steps) < path.stat().st_size // 4096 // 2  # both stopped long before the end
    assert not [t for t in threading.enumerate() if t.name.startswith("halves")]
    assert not list((tmp_path / "cache").glob("halves-*"))
