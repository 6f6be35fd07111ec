"""A big card file parsed on two threads (``pipeline.halves``) loads exactly as when read whole."""

from __future__ import annotations

import gzip
import json
import re
import threading
from pathlib import Path

import pytest
from conftest import shared_path
from test_ingest import snapshot

from boosterkit.errors import InputError
from boosterkit.pipeline import db, halves, ingest, sync

pytestmark = pytest.mark.skipif(not halves.supported(), reason="needs os.copy_file_range")

CARDS = json.loads(shared_path("cards", "one.unique-cards.json").read_text(encoding="utf-8"))


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
def test_cut_is_between_top_level_elements(tmp_path: Path, layout: str) -> None:
    path = _write(tmp_path / "c.json", CARDS, layout)
    end, start = halves.find_cut(path)
    data = path.read_bytes()
    first, second = json.loads(data[:end] + b"]"), json.loads(b"[" + data[start:])
    assert first and second
    assert first + second == CARDS


def _load(tmp_path: Path, path: Path, name: str, monkeypatch, split: bool) -> tuple[dict, bool]:
    """Sync ``path`` into a fresh database; return its snapshot and whether it was split."""
    used = []
    real = ingest.prestage

    def spy(con, p, shape, where):
        used.append(real(con, p, shape, where))
        return used[-1]

    with monkeypatch.context() as m:
        m.setattr(halves, "MIN_BYTES", 0)
        m.setattr(halves, "supported", lambda: split)
        m.setattr(ingest, "prestage", spy)
        con = db.connect(tmp_path / f"{name}.duckdb")
        sync.sync_file(con, path, cache=tmp_path / f"{name}.cache")
    return snapshot(con), used == [True]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_split_load_equals_whole_load(tmp_path: Path, monkeypatch, layout: str) -> None:
    # The same id at both ends, with different names: the first row in the file wins, and
    # its hostile characters (a bidi override, NUL) are cleaned whichever way it was read.
    first = dict(CARDS[0], name="First \u202eCopy\x00")
    last = dict(CARDS[0], name="Last Copy")
    path = _write(tmp_path / "c.json", [first, *CARDS[1:], last], layout)
    split, was_split = _load(tmp_path, path, "split", monkeypatch, split=True)
    whole, _ = _load(tmp_path, path, "whole", monkeypatch, split=False)
    assert was_split
    assert split == whole
    names = {r[2] for r in split["cards"] if r[0] == CARDS[0]["id"]}
    assert names == {"First Copy"}


def test_a_wrong_cut_falls_back_to_reading_whole(tmp_path: Path, monkeypatch) -> None:
    path = _write(tmp_path / "c.json", CARDS, "pretty")
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


def test_malformed_second_half_gives_the_usual_error(tmp_path: Path, monkeypatch) -> None:
    path = _write(tmp_path / "c.json", CARDS, "trailing")
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


def test_small_or_compressed_files_are_read_whole(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.json", CARDS[:50], "trailing")
    con = db.connect(":memory:")
    assert not ingest.prestage(con, path, ingest.detect(con, path), tmp_path)  # < MIN_BYTES
    gz = tmp_path / "c.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert not ingest.prestage(con, gz, ingest.detect(con, gz), tmp_path)


def test_halves_that_cannot_be_written_fall_back(tmp_path: Path, monkeypatch) -> None:
    def full_disk(*args):
        raise OSError(28, "No space left on device")

    path = _write(tmp_path / "c.json", CARDS, "trailing")
    monkeypatch.setattr(halves, "_copy", full_disk)
    split, was_split = _load(tmp_path, path, "split", monkeypatch, split=True)
    whole, _ = _load(tmp_path, path, "whole", monkeypatch, split=False)
    assert not was_split
    assert split == whole
    assert not list((tmp_path / "split.cache").glob("halves-*"))


def test_halves_a_killed_sync_left_are_removed_by_the_next(tmp_path: Path) -> None:
    left = tmp_path / "cache" / "halves-x1y2.part"
    left.mkdir(parents=True)
    (left / "first.json").write_text("[", encoding="utf-8")
    con = db.connect(tmp_path / "t.duckdb")
    sync.sync_file(con, shared_path("cards", "single-card.json"), cache=tmp_path / "cache")
    assert not left.exists()
    assert con.execute("SELECT count(*) FROM cards").fetchone()[0] == 1


def test_bulk_download_is_loaded_in_halves_and_kept_compressed(tmp_path: Path, monkeypatch) -> None:
    from test_sync import _client, _fake

    def load(name: str, split: bool) -> tuple[dict, list[bool], bytes]:
        used: list[bool] = []
        real = ingest.prestage

        def spy(con, p, shape, where):
            used.append(real(con, p, shape, where))
            return used[-1]

        # sent uncompressed (a gzip transfer is kept as sent, and read whole by DuckDB)
        with monkeypatch.context() as m, _fake(gzip_bulk=False) as api:
            m.setattr(halves, "MIN_BYTES", 0)
            m.setattr(halves, "supported", lambda: split)
            m.setattr(ingest, "prestage", spy)
            cards = [c for v in api.cards.values() for c in v]
            # Scryfall's bulk files hold one card per line
            plain = _write(tmp_path / f"{name}.json", cards, "trailing").read_bytes()
            api.bulk_file = lambda: plain
            con = db.connect(tmp_path / f"{name}.duckdb")
            summary = sync.sync_bulk(
                con, "default_cards", cache=tmp_path / f"{name}.cache", client=_client(api)
            )
        assert summary["cards"] == len(cards)
        (cached,) = (tmp_path / f"{name}.cache").glob("bulk/*")
        assert gzip.decompress(cached.read_bytes()) == plain
        assert not list((tmp_path / f"{name}.cache").rglob("*.download"))
        return snapshot(con), used, plain

    split, used, _ = load("split", True)
    whole, _, _ = load("whole", False)
    assert used == [True]
    assert split == whole
