"""A big card file parsed on two threads (``pipeline.halves``) loads exactly as when read whole.

The cards are ONE's, built and real (``any_sources``)."""

from __future__ import annotations

import gzip
import json
import re
import threading
import time
from pathlib import Path

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


def _load(tmp_path: Path, path: Path, name: str, monkeypatch, split: bool) -> tuple[dict, bool]:
    """Sync ``path`` into a fresh database; return its snapshot and whether it was split."""
    used = []
    real = ingest.prestage

    def spy(con, p, shape, where, keep=None):
        got = real(con, p, shape, where, keep)
        used.append(got is not None)
        return got

    with monkeypatch.context() as m:
        m.setattr(halves, "MIN_BYTES", 0)
        m.setattr(halves, "supported", lambda: split)
        m.setattr(ingest, "prestage", spy)
        con = db.connect(tmp_path / f"{name}.duckdb")
        sync.sync_file(con, path, cache=tmp_path / f"{name}.cache")
    return snapshot(con), used == [True]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_split_load_equals_whole_load(
    cards: list[dict], tmp_path: Path, monkeypatch, layout: str
) -> None:
    # The same id at both ends, with different names: the first row in the file wins, and
    # its hostile characters (a bidi override, NUL) are cleaned whichever way it was read.
    first = dict(cards[0], name="First \u202eCopy\x00")
    last = dict(cards[0], name="Last Copy")
    path = _write(tmp_path / "c.json", [first, *cards[1:], last], layout)
    split, was_split = _load(tmp_path, path, "split", monkeypatch, split=True)
    whole, _ = _load(tmp_path, path, "whole", monkeypatch, split=False)
    assert was_split
    assert split == whole
    names = {r[2] for r in split["cards"] if r[0] == cards[0]["id"]}
    assert names == {"First Copy"}


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
    split, was_split = _load(tmp_path, path, "split", monkeypatch, split=True)
    whole, _ = _load(tmp_path, path, "whole", monkeypatch, split=False)
    assert not was_split
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


def test_small_or_compressed_files_are_read_whole(cards: list[dict], tmp_path: Path) -> None:
    path = _write(tmp_path / "c.json", cards[:50], "trailing")
    con = db.connect(":memory:")
    assert ingest.prestage(con, path, ingest.detect(con, path), tmp_path) is None  # < MIN_BYTES
    gz = tmp_path / "c.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert ingest.prestage(con, gz, ingest.detect(con, gz), tmp_path) is None


def test_halves_that_cannot_be_written_fall_back(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    def full_disk(*args):
        raise OSError(28, "No space left on device")

    path = _write(tmp_path / "c.json", cards, "trailing")
    monkeypatch.setattr(halves, "_copy", full_disk)
    split, was_split = _load(tmp_path, path, "split", monkeypatch, split=True)
    whole, _ = _load(tmp_path, path, "whole", monkeypatch, split=False)
    assert not was_split
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


def test_an_interrupted_parse_is_recorded_as_failed_and_changes_nothing(
    cards: list[dict], tmp_path: Path, monkeypatch
) -> None:
    path = _write(tmp_path / "c.json", cards, "trailing")
    monkeypatch.setattr(halves, "MIN_BYTES", 0)

    def interrupted(con, source, shape):
        raise KeyboardInterrupt

    monkeypatch.setattr(ingest, "_insert_cards", interrupted)
    con = db.connect(tmp_path / "t.duckdb")
    before = snapshot(con)
    with pytest.raises(KeyboardInterrupt):
        sync.sync_file(con, path, cache=tmp_path / "cache")
    assert snapshot(con) == before
    runs = con.execute("SELECT source, status FROM sync_runs").fetchall()
    assert runs == [("file", "failed")]
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
