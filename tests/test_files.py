"""Input files: gzip told by content, and one-line errors from every importer alike."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from boosterkit.errors import InputError
from boosterkit.pipeline import ingest
from boosterkit.pipeline.collation import import_collation, read_sealed
from boosterkit.pipeline.files import open_input
from boosterkit.pipeline.mtgjson import import_mtgjson


def test_gzip_is_told_by_its_bytes_not_its_name(built_sources, tmp_path: Path) -> None:
    src = built_sources.sealed
    disguised = tmp_path / "sealed.json"  # gzip content under a plain name
    disguised.write_bytes(gzip.compress(src.read_bytes()))
    with open_input(disguised) as f:
        assert isinstance(f, gzip.GzipFile)
        assert f.read() == src.read_bytes()
    with open_input(src) as f:
        assert not isinstance(f, gzip.GzipFile)
    assert len(read_sealed(disguised)) == len(json.loads(src.read_text(encoding="utf-8")))


def test_a_truncated_gzip_export_is_one_line(built_sources, tmp_path: Path, mem_db) -> None:
    packed = gzip.compress(built_sources.sealed.read_bytes())
    cut = tmp_path / "sealed.json.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError, match=rf"^{cut}: not readable JSON \(") as exc:
        import_collation(mem_db, cut, cache=tmp_path / "cache")
    assert "\n" not in str(exc.value)
    assert mem_db.execute("SELECT count(*) FROM products").fetchone()[0] == 0


@pytest.mark.parametrize(
    "load",
    [
        lambda con, p, cache: import_collation(con, p, cache=cache),
        lambda con, p, cache: import_mtgjson(con, [p], cache=cache),
        lambda con, p, cache: ingest.detect(con, p),
    ],
    ids=["collation", "mtgjson", "scryfall"],
)
def test_missing_file_and_directory_name_the_path(tmp_path: Path, mem_db, load) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(InputError, match=rf"^{missing}: no such file$"):
        load(mem_db, missing, tmp_path / "cache")
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(InputError, match=rf"^{folder}: ") as exc:
        load(mem_db, folder, tmp_path / "cache")
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(
    "load",
    [
        lambda con, p, cache: import_collation(con, p, cache=cache),
        lambda con, p, cache: import_mtgjson(con, [p], cache=cache),
        lambda con, p, cache: ingest.detect(con, p),
    ],
    ids=["collation", "mtgjson", "scryfall"],
)
def test_a_device_is_refused_not_read_forever(tmp_path: Path, mem_db, load) -> None:
    with pytest.raises(InputError, match=r"^/dev/zero: a device, not a file$"):
        load(mem_db, Path("/dev/zero"), tmp_path / "cache")
    assert mem_db.execute("SELECT count(*) FROM products").fetchone()[0] == 0
