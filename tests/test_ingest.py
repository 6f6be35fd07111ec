"""Ingest of Scryfall files: every card file, derived columns, bad files; on the real files
where ``../shared`` is, else the built ones (``any_sources``)."""

from __future__ import annotations

import collections
import gzip
import json
import shutil
from pathlib import Path

import pytest

from boosterkit.errors import InputError
from boosterkit.pipeline import db, ingest, rebuild, sync

#: The card files of a Scryfall folder (``test_every_card_file_is_listed`` keeps it complete).
CARD_FILES = (
    "bro.unique-cards.json",
    "ltr.unique-cards.json",
    "mom.unique-cards.json",
    "one.unique-cards.json",
    "single-card.json",
    "woe+wot.unique-cards.json",
)


@pytest.fixture(scope="module")
def root(any_sources) -> Path:
    """The Scryfall folder: real where ``../shared`` is, else built."""
    return any_sources.scryfall


def snapshot(con) -> dict[str, list]:
    """Every row of the data tables, sorted: equal snapshots mean nothing changed."""
    out = {}
    for table in ("sets", "cards", "card_faces"):
        cols = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
        out[table] = con.execute(f"SELECT * FROM {table} ORDER BY {', '.join(cols[:2])}").fetchall()
    return out


def _objects(path: Path) -> list[dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        return data["data"] if data.get("object") == "list" else [data]
    return data


def test_every_card_file_is_listed(root: Path) -> None:
    files = sorted(p.name for p in (root / "cards").glob("*.json") if "rulings" not in p.name)
    assert files == list(CARD_FILES)


@pytest.mark.parametrize("name", CARD_FILES)
def test_ingest_every_card_file(root: Path, tmp_path: Path, name: str) -> None:
    path = root / "cards" / name
    cards = _objects(path)
    con = db.connect(tmp_path / "t.duckdb")
    summary = sync.sync_file(con, path, cache=tmp_path / "cache")
    assert summary["cards"] == len(cards)
    assert con.execute("SELECT count(*) FROM cards").fetchone()[0] == len({c["id"] for c in cards})
    want = collections.Counter(c["rarity"] for c in cards)
    got = dict(con.execute("SELECT rarity, count(*) FROM cards GROUP BY rarity").fetchall())
    assert got == dict(want)
    faces = sum(len(c.get("card_faces", [])) for c in cards)
    assert con.execute("SELECT count(*) FROM card_faces").fetchone()[0] == faces
    # every set named by the cards is known, with the type the cards give it
    for code, set_type in {(c["set"], c["set_type"]) for c in cards}:
        assert con.execute("SELECT set_type FROM sets WHERE code = ?", [code]).fetchone() == (
            set_type,
        )
    # one cached copy, the file as given (a small file is never cut in halves), in the ok run
    files = con.execute("SELECT cache_files FROM sync_runs WHERE status = 'ok'").fetchone()[0]
    assert len(files) == 1 and files[0].endswith(f"-{name}")
    assert (tmp_path / "cache" / files[0]).read_bytes() == path.read_bytes()


def test_values_and_derived_columns(root: Path, mem_db) -> None:
    path = root / "cards" / "mom.unique-cards.json"
    cards = {c["id"]: c for c in _objects(path)}
    with db.transaction(mem_db):
        ingest.load_files(mem_db, [path])
    rows = mem_db.execute(
        "SELECT id, name, set_code, collector_number, mana_value, in_booster, colors, "
        "is_double_faced, magic_back, kind, is_creature, power_num FROM cards"
    ).fetchall()
    assert len(rows) == len(cards)
    for cid, name, set_code, number, mv, booster, colors, dfc, back, kind, creature, pnum in rows:
        c = cards[cid]
        front = (c.get("card_faces") or [c])[0]
        assert (name, set_code, number) == (c["name"], c["set"], c["collector_number"])
        assert mv == c["cmc"] and booster == c["booster"] and kind == "card"
        assert colors == c.get("colors", front.get("colors"))
        assert dfc == (c["layout"] in ("transform", "modal_dfc"))
        assert back == (not dfc)
        assert creature == ("Creature" in front["type_line"])
        if "power" in front and front["power"].isdigit():
            assert pnum == float(front["power"])


def test_kinds_from_layout_and_set_type(root: Path) -> None:
    path = root / "fixtures" / "mtg_ssm" / "cards.json"
    con = db.connect(":memory:")
    with db.transaction(con):
        ingest.load_files(con, [path])
    kinds = dict(
        con.execute("SELECT layout, list(DISTINCT kind) FROM cards GROUP BY layout").fetchall()
    )
    assert kinds["token"] == ["token"]
    assert kinds["planar"] == ["other"] and kinds["scheme"] == ["other"]
    back = dict(
        con.execute("SELECT layout, bool_or(magic_back) FROM cards GROUP BY layout").fetchall()
    )
    assert (
        back["token"] is False and back["reversible_card"] is False and back["transform"] is False
    )
    assert back["normal"] is True


def test_list_object_page_equals_array_of_same_cards(root: Path, tmp_path: Path) -> None:
    page = root / "search" / "one-set-search-page1.json"
    array = tmp_path / "one-page1-array.json.gz"
    with gzip.open(array, "wt", encoding="utf-8") as f:
        json.dump(json.loads(page.read_text(encoding="utf-8"))["data"], f)
    a, b = db.connect(":memory:"), db.connect(":memory:")
    for con, p in ((a, page), (b, array)):
        with db.transaction(con):
            assert ingest.load_files(con, [p])["cards"] == 175
    assert snapshot(a)["cards"] == snapshot(b)["cards"]
    assert snapshot(a)["card_faces"] == snapshot(b)["card_faces"]


def test_set_files(root: Path, mem_db) -> None:
    full = root / "sets" / "sets.json"
    with db.transaction(mem_db):
        counts = ingest.load_files(mem_db, [full, root / "sets" / "set-cmm.json"])
    n = len(json.loads(full.read_text(encoding="utf-8"))["data"])
    assert counts["sets"] == n + 1
    assert mem_db.execute("SELECT count(*) FROM sets").fetchone()[0] == n
    row = mem_db.execute(
        "SELECT set_type, parent_set_code FROM sets WHERE code = 'mclb'"
    ).fetchone()
    assert row == ("minigame", "clb")
    assert mem_db.execute("SELECT count(*) FROM sets WHERE code <> lower(code)").fetchone()[0] == 0


def test_idempotent_and_rebuild_identical(root: Path, tmp_path: Path) -> None:
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "cache"
    for name in (
        "sets/sets.json",
        "cards/woe+wot.unique-cards.json",
        "cards/one.unique-cards.json",
    ):
        sync.sync_file(con, root / name, cache=cache)
    first = snapshot(con)
    sync.sync_file(con, root / "cards" / "woe+wot.unique-cards.json", cache=cache)
    assert snapshot(con) == first
    # minigame / token kinds follow the set list loaded first
    assert (
        con.execute("SELECT count(*) FROM cards WHERE set_code = 'wot' AND in_booster").fetchone()[
            0
        ]
        == 0
    )
    result = rebuild.rebuild(con, cache)
    assert result["runs"] == 4 and result["cards"] == len(first["cards"])
    assert snapshot(con) == first
    statuses = con.execute("SELECT source, status FROM sync_runs ORDER BY id").fetchall()
    assert statuses[-1] == ("rebuild", "ok")


def test_old_gzip_cache_copies_still_rebuild(root: Path, tmp_path: Path) -> None:
    """Earlier releases kept ``sync --file`` copies gzip-compressed (``….json.gz``): a
    rebuild reads them, and the same file synced again reuses that copy."""
    src = tmp_path / "one.json"
    shutil.copy(root / "cards" / "one.unique-cards.json", src)
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "cache"
    sync.sync_file(con, src, cache=cache)
    first = snapshot(con)
    (rel,) = con.execute("SELECT cache_files FROM sync_runs").fetchone()[0]
    plain = cache / rel
    old = plain.with_name(plain.name + ".gz")  # files/<size>-<mtime>-one.json.gz
    old.write_bytes(gzip.compress(plain.read_bytes()))
    plain.unlink()
    con.execute("UPDATE sync_runs SET cache_files = [?]", [rel + ".gz"])
    assert rebuild.rebuild(con, cache)["cards"] == len(first["cards"])
    assert snapshot(con) == first
    sync.sync_file(con, src, cache=cache)  # reuses the old copy: makes no new one
    runs = con.execute("SELECT cache_files FROM sync_runs WHERE source = 'file'").fetchall()
    assert runs == [([rel + ".gz"],)] * 2
    assert sorted(p.name for p in (cache / "files").iterdir()) == [old.name]


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    (p.write_bytes if isinstance(text, bytes) else p.write_text)(text)
    return p


#: Bad files, each made from the Scryfall folder ``r``.
BAD_FILES = {
    "truncated.json": lambda r: (r / "cards" / "one.unique-cards.json").read_text()[:5000],
    "not-json.json": lambda r: "hello, world",
    "empty.json": lambda r: "",
    "number.json": lambda r: "42",
    "rulings.json": lambda r: (r / "cards" / "rulings-single-card.json").read_text(),
    "error.json": lambda r: (r / "errors" / "validation_error-parse-mana.json").read_text(),
    "array-of-sets.json": lambda r: json.dumps(
        json.loads((r / "sets" / "sets-page1.json").read_text())["data"]
    ),
    "card-without-id.json": lambda r: json.dumps(
        [
            {k: v for k, v in c.items() if k != "id"}
            for c in json.loads((r / "cards" / "one.unique-cards.json").read_text())[:3]
        ]
    ),
    "bad-gzip.json.gz": lambda r: b"\x1f\x8b\x08\x00garbage",
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files_give_one_line_and_change_nothing(root: Path, tmp_path: Path, name: str) -> None:
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "cache"
    sync.sync_file(con, root / "cards" / "bro.unique-cards.json", cache=cache)
    before = snapshot(con)
    bad = _write(tmp_path, name, BAD_FILES[name](root))
    with pytest.raises(InputError) as info:
        sync.sync_file(con, bad, cache=cache)
    msg = str(info.value)
    assert str(bad) in msg and "\n" not in msg and len(msg) < 400
    if name == "card-without-id.json":
        assert msg.endswith("card 1 has no id")
    assert snapshot(con) == before
    cached = sorted(p.name for p in (cache / "files").iterdir())
    assert len(cached) == 1 and cached[0].endswith("-bro.unique-cards.json")


def test_missing_file(mem_db, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        sync.sync_file(mem_db, tmp_path / "nope.json", cache=tmp_path)
    with pytest.raises(InputError, match="a directory, not a file"):
        sync.sync_file(mem_db, tmp_path, cache=tmp_path / "c")


@pytest.mark.parametrize("gz", [False, True])
def test_mtgjson_file_points_to_import_mtgjson(
    any_sources, mem_db, tmp_path: Path, gz: bool
) -> None:
    src = any_sources.mtgjson / "MAFR.json"
    path = tmp_path / ("MAFR.json.gz" if gz else "MAFR.json")
    path.write_bytes(gzip.compress(src.read_bytes()) if gz else src.read_bytes())
    with pytest.raises(InputError, match=r"an MTGJSON file .*use `boosterkit import mtgjson`$"):
        sync.sync_file(mem_db, path, cache=tmp_path / "c")
    assert mem_db.execute("SELECT count(*) FROM cards").fetchone()[0] == 0


@pytest.mark.parametrize("gz", [False, True])
def test_sealed_data_export_points_to_import_collation(
    any_sources, mem_db, tmp_path: Path, gz: bool
) -> None:
    src = any_sources.sealed
    path = tmp_path / ("sealed.json.gz" if gz else "sealed.json")
    path.write_bytes(gzip.compress(src.read_bytes()) if gz else src.read_bytes())
    with pytest.raises(
        InputError,
        match=r"magic-sealed-data export.*use `boosterkit import "
        r"collation`$",
    ) as err:
        sync.sync_file(mem_db, path, cache=tmp_path / "c")
    assert str(path) in str(err.value) and "element 1" not in str(err.value)
    assert mem_db.execute("SELECT count(*) FROM cards").fetchone()[0] == 0


def test_gzip_input_and_gzip_without_suffix(root: Path, tmp_path: Path) -> None:
    src = root / "cards" / "ltr.unique-cards.json"
    gz = tmp_path / "ltr.json.gz"
    odd = tmp_path / "ltr-compressed.json"
    gz.write_bytes(gzip.compress(src.read_bytes()))
    shutil.copy(gz, odd)
    counts = []
    for p in (gz, odd):
        con = db.connect(":memory:")
        counts.append(sync.sync_file(con, p, cache=tmp_path / "c")["cards"])
    assert counts == [len(_objects(src))] * 2


def test_same_file_twice_one_cached_copy_and_ndjson(root: Path, tmp_path: Path) -> None:
    src = root / "cards" / "mom.unique-cards.json"
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "cache"
    sync.sync_file(con, src, cache=cache)
    sync.sync_file(con, src, cache=cache)
    files = con.execute("SELECT cache_files FROM sync_runs ORDER BY id").fetchall()
    assert files[0] == files[1] and len(list((cache / "files").iterdir())) == 1
    # newline-delimited card objects (Scryfall's jsonl bulk format) load the same rows
    nd = tmp_path / "mom.jsonl"
    nd.write_text("\n".join(json.dumps(c) for c in _objects(src)) + "\n", encoding="utf-8")
    other = db.connect(":memory:")
    assert sync.sync_file(other, nd, cache=cache)["cards"] == len(_objects(src))
    assert snapshot(other)["cards"] == snapshot(con)["cards"]


def test_a_failed_statement_on_one_thread_raises_its_own_error() -> None:
    # The insert runs inside the load's transaction: when it fails, setting the threads back
    # fails too (the transaction is aborted); the error the caller sees must be the first.
    import duckdb

    from boosterkit.pipeline.load import one_thread

    con = duckdb.connect()
    con.execute("CREATE TABLE t (a INTEGER PRIMARY KEY)")
    con.execute("INSERT INTO t VALUES (1)")
    con.execute("BEGIN")
    with pytest.raises(duckdb.ConstraintException), one_thread(con):
        con.execute("INSERT INTO t VALUES (1)")
    con.execute("ROLLBACK")
    with one_thread(con):
        assert con.execute("SELECT current_setting('threads')").fetchone() == (1,)
