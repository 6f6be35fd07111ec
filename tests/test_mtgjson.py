"""MTGJSON import: counts against the files, face merging, products, errors, replay; on the
real files where ``../shared`` is, else the built ones (``any_data``)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import REAL_MTGJSON, shared_path

from boosterkit.errors import InputError
from boosterkit.pipeline import db
from boosterkit.pipeline.mtgjson import import_mtgjson
from boosterkit.pipeline.rebuild import rebuild

BOOSTER_SETS = ("AFR", "KHM", "ZNR", "STX", "MH2")


@pytest.fixture(scope="module")
def src(any_data):
    """The world: its MTGJSON files, Scryfall folder, export and database."""
    return any_data


def _file(src, code: str) -> Path:
    return src.mtgjson / f"{code}.json"


def _data(src, code: str) -> dict:
    return json.loads(_file(src, code).read_text(encoding="utf-8"))["data"]


def _ids_by_set(entries: list[dict]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for e in entries:
        out[e["setCode"].lower()].add(e["identifiers"]["scryfallId"])
    return out


@pytest.fixture
def imported(src):
    con = db.connect(src.db, read_only=True)
    yield con
    con.close()


@pytest.mark.parametrize("code", REAL_MTGJSON)
def test_printing_counts_match_the_file(src, imported, code):
    data = _data(src, code)
    expected = _ids_by_set(data.get("cards", []) + data.get("tokens", []))
    for set_code, ids in expected.items():
        got = {
            r[0]
            for r in imported.execute(
                "SELECT id FROM cards WHERE set_code = ?", [set_code]
            ).fetchall()
        }
        assert got == ids, set_code


@pytest.mark.parametrize("code", BOOSTER_SETS)
def test_tokens_land_in_their_token_set(src, imported, code):
    data = _data(src, code)
    tokens = _ids_by_set(data["tokens"])
    assert list(tokens) == [f"t{code.lower()}"]
    rows = imported.execute(
        "SELECT kind, magic_back, count(*) FROM cards WHERE set_code = ? GROUP BY ALL",
        [f"t{code.lower()}"],
    ).fetchall()
    assert sum(n for _, _, n in rows) == len(tokens[f"t{code.lower()}"])
    assert {k for k, _, _ in rows} <= {"token", "emblem"} and not any(b for _, b, _ in rows)
    emblems = {t["identifiers"]["scryfallId"] for t in data["tokens"] if t["layout"] == "emblem"}
    assert sum(n for k, _, n in rows if k == "emblem") == len(emblems)
    assert imported.execute(
        "SELECT set_type, parent_set_code FROM sets WHERE code = ?", [f"t{code.lower()}"]
    ).fetchone() == ("token", code.lower())


@pytest.mark.parametrize("code", [c for c in REAL_MTGJSON if c.startswith("M") and c != "MH2"])
def test_minigame_sets_are_minigames(src, imported, code):
    data = _data(src, code)
    assert data["type"] == "funny"  # what MTGJSON says; we must not keep it
    ids = {t["identifiers"]["scryfallId"] for t in data["tokens"]}
    rows = imported.execute(
        "SELECT kind, magic_back, count(*) FROM cards WHERE set_code = ? GROUP BY ALL",
        [code.lower()],
    ).fetchall()
    assert rows == [("minigame", False, len(ids))]
    assert imported.execute(
        "SELECT set_type, parent_set_code FROM sets WHERE code = ?", [code.lower()]
    ).fetchone() == ("minigame", code[1:].lower())


def test_substitute_token_set_is_not_a_minigame(src, mem_db):
    data = _data(src, "SKHM")
    import_mtgjson(mem_db, [_file(src, "SKHM")])
    kinds = mem_db.execute("SELECT DISTINCT kind FROM cards WHERE set_code = 'skhm'").fetchall()
    assert kinds == [("token",)]
    assert mem_db.execute("SELECT count(*) FROM cards").fetchone()[0] == len(
        {t["identifiers"]["scryfallId"] for t in data["tokens"]}
    )


@pytest.mark.parametrize("code", ["KHM", "ZNR", "STX", "MH2", "MAFR"])
def test_faces_are_merged_into_one_printing(src, imported, code):
    data = _data(src, code)
    groups: dict[str, list[dict]] = defaultdict(list)
    for e in data.get("cards", []) + data.get("tokens", []):
        if e.get("side"):
            groups[e["identifiers"]["scryfallId"]].append(e)
    assert groups, "the file has multi-face printings"
    for sid, entries in groups.items():
        entries.sort(key=lambda e: e["side"])
        faces = imported.execute(
            "SELECT name, type_line FROM card_faces WHERE card_id = ? ORDER BY face_index", [sid]
        ).fetchall()
        assert faces == [(e.get("faceName"), e.get("type")) for e in entries]
        name, layout, df, back = imported.execute(
            "SELECT name, layout, is_double_faced, magic_back FROM cards WHERE id = ?", [sid]
        ).fetchone()
        assert name == entries[0]["name"] and layout == entries[0]["layout"]
        two_sided = layout in ("modal_dfc", "transform", "double_faced_token")
        assert df == two_sided
        assert back == (not two_sided and code != "MAFR")  # split cards keep a Magic back
        uuids = imported.execute(
            "SELECT uuid FROM mtgjson_uuids WHERE card_id = ?", [sid]
        ).fetchall()
        assert {u for (u,) in uuids} == {e["uuid"] for e in entries}


@pytest.mark.parametrize("code", BOOSTER_SETS)
def test_booster_products_match_the_source(src, imported, code):
    booster = _data(src, code)["booster"]
    uuid_to_id = {e["uuid"]: e["identifiers"]["scryfallId"] for e in _data(src, code)["cards"]}
    for name, cfg in booster.items():
        pcode = f"{code.lower()}-{'draft' if name == 'default' else name}-mtgjson"
        variants = imported.execute(
            "SELECT weight FROM product_variants WHERE product_code = ? ORDER BY variant_index",
            [pcode],
        ).fetchall()
        assert [w for (w,) in variants] == [b["weight"] for b in cfg["boosters"]]
        for i, b in enumerate(cfg["boosters"], start=1):
            slots = imported.execute(
                "SELECT sheet_name, count FROM variant_slots WHERE product_code = ? "
                "AND variant_index = ?",
                [pcode, i],
            ).fetchall()
            assert dict(slots) == b["contents"]
        for sname, sheet in cfg["sheets"].items():
            total, foil = imported.execute(
                "SELECT total_weight, foil FROM sheets WHERE product_code = ? AND sheet_name = ?",
                [pcode, sname],
            ).fetchone()
            assert (total, foil) == (sheet["totalWeight"], sheet["foil"])
            rows = imported.execute(
                "SELECT ref, weight, card_id FROM sheet_cards WHERE product_code = ? "
                "AND sheet_name = ?",
                [pcode, sname],
            ).fetchall()
            assert {r: w for r, w, _ in rows} == sheet["cards"]
            for ref, _, cid in rows:
                assert cid == uuid_to_id.get(ref)  # cards of other sets (STA) stay unresolved


def test_unresolved_references_are_reported(src, mem_db):
    data = _data(src, "STX")
    own = {e["uuid"] for e in data["cards"] + data["tokens"]}
    foreign = [
        u
        for cfg in data["booster"].values()
        for s in cfg["sheets"].values()
        for u in s["cards"]
        if u not in own
    ]
    summary = import_mtgjson(mem_db, [_file(src, "STX")])
    assert foreign and summary["unresolved"] == len(foreign)
    assert summary["resolved"] + summary["unresolved"] == summary["sheet_cards"]
    assert summary["unresolved_examples"] and all(
        e.split()[-1] in foreign for e in summary["unresolved_examples"]
    )
    stored = mem_db.execute("SELECT count(*) FROM sheet_cards WHERE card_id IS NULL").fetchone()[0]
    assert stored == len(foreign)  # kept, never dropped


def _counts(con) -> dict[str, int]:
    tables = (
        "sets",
        "cards",
        "card_faces",
        "mtgjson_uuids",
        "products",
        "product_variants",
        "variant_slots",
        "sheets",
        "sheet_cards",
    )
    return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


def test_reimport_is_idempotent(src, mem_db):
    files = [_file(src, "AFR"), _file(src, "MAFR")]
    first = import_mtgjson(mem_db, files)
    before = _counts(mem_db)
    snapshot = mem_db.execute("SELECT * FROM cards ORDER BY id").fetchall()
    second = import_mtgjson(mem_db, files)
    assert first == second and _counts(mem_db) == before
    assert mem_db.execute("SELECT * FROM cards ORDER BY id").fetchall() == snapshot
    assert mem_db.execute("SELECT status, count(*) FROM sync_runs GROUP BY 1").fetchall() == [
        ("ok", 2)
    ]


def test_scryfall_values_win(src, mem_db, tmp_path):
    from boosterkit.pipeline.sync import sync_file

    single = src.scryfall / "cards" / "single-card.json"  # a card of MH2 (real: Urza's Saga)
    card = json.loads(single.read_text())
    sync_file(mem_db, single, cache=tmp_path)
    mem_db.execute("UPDATE cards SET name = 'from scryfall' WHERE id = ?", [card["id"]])
    set_before = mem_db.execute("SELECT * FROM sets WHERE code = 'mh2'").fetchall()
    import_mtgjson(mem_db, [_file(src, "MH2")])
    assert mem_db.execute(
        "SELECT name, source FROM cards WHERE id = ?", [card["id"]]
    ).fetchone() == ("from scryfall", "scryfall")
    assert mem_db.execute("SELECT * FROM sets WHERE code = 'mh2'").fetchall() == set_before
    assert (
        mem_db.execute("SELECT count(*) FROM cards WHERE id = ?", [card["id"]]).fetchone()[0] == 1
    )


def test_scryfall_after_mtgjson_replaces_the_row(src, mem_db, tmp_path):
    from boosterkit.pipeline.sync import sync_file

    single = src.scryfall / "cards" / "single-card.json"  # a card of MH2 (real: Urza's Saga)
    card_id = json.loads(single.read_text())["id"]
    alone = db.connect(":memory:")
    sync_file(alone, single, cache=tmp_path / "a")
    scryfall_row = alone.execute("SELECT * FROM cards WHERE id = ?", [card_id]).fetchone()
    import_mtgjson(mem_db, [_file(src, "MH2")])
    n = mem_db.execute("SELECT count(*) FROM cards").fetchone()[0]
    mtgjson_row = mem_db.execute("SELECT * FROM cards WHERE id = ?", [card_id]).fetchone()
    assert (
        mtgjson_row != scryfall_row
    )  # source, and e.g. MTGJSON's curly apostrophe in the type line
    sync_file(mem_db, single, cache=tmp_path / "b")
    assert mem_db.execute("SELECT count(*) FROM cards").fetchone()[0] == n  # still one row
    assert mem_db.execute("SELECT * FROM cards WHERE id = ?", [card_id]).fetchone() == scryfall_row
    import_mtgjson(mem_db, [_file(src, "MH2")])  # and MTGJSON again keeps it
    assert mem_db.execute("SELECT * FROM cards WHERE id = ?", [card_id]).fetchone() == scryfall_row


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not an MTGJSON v5 file"),
        ('{"meta": {}, "data": [1]}', "not an MTGJSON v5 file"),
        ('{"meta": {}, "data": {"name": "x"}}', "no 'code'"),
        ('{"meta": {}, "data": {"code": "X", "cards": [{"name": "a"}]}}', r"cards\[0\] lacks uuid"),
    ],
)
def test_malformed_files_fail_cleanly(src, mem_db, tmp_path, content, message):
    bad = _write(tmp_path / "bad.json", content)
    good = _file(src, "MAFR")
    with pytest.raises(InputError, match=message) as err:
        import_mtgjson(mem_db, [good, bad])
    assert str(bad) in str(err.value) and "\n" not in str(err.value)
    assert mem_db.execute("SELECT count(*) FROM cards").fetchone()[0] == 0  # nothing half-written
    assert mem_db.execute("SELECT count(*) FROM sets").fetchone()[0] == 0


@pytest.mark.parametrize("which", ["sealed", "scryfall cards"])
def test_a_json_list_points_to_sync_file_and_import_collation(mem_db, src, which):
    path = src.sealed if which == "sealed" else src.scryfall / "cards" / "one.unique-cards.json"
    with pytest.raises(
        InputError,
        match=r"a JSON list, not an MTGJSON v5 file .*"
        r"`boosterkit sync --file`.*`boosterkit import collation`$",
    ):
        import_mtgjson(mem_db, [path])
    assert mem_db.execute("SELECT count(*) FROM cards").fetchone()[0] == 0


def test_truncated_gzip_fails_cleanly(src, mem_db, tmp_path):
    raw = gzip.compress(_file(src, "MAFR").read_bytes())
    bad = tmp_path / "MAFR.json.gz"
    bad.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(InputError):
        import_mtgjson(mem_db, [bad])
    assert mem_db.execute("SELECT count(*) FROM cards").fetchone()[0] == 0


def _all_printings(src, tmp_path: Path, codes: list[str]) -> Path:
    out = tmp_path / "AllPrintings.json.gz"
    with gzip.open(out, "wt", encoding="utf-8") as f:
        f.write('{"meta": {"version": "5.2.0"}, "data": {')
        for i, c in enumerate(codes):
            f.write(("," if i else "") + json.dumps(c) + ":" + json.dumps(_data(src, c)))
        f.write("}}")
    return out


def test_all_printings_streams_and_filters(src, tmp_path):
    allp = _all_printings(src, tmp_path, ["AFR", "MAFR", "KHM"])
    a = db.connect(":memory:")
    b = db.connect(":memory:")
    whole = import_mtgjson(a, [allp])
    import_mtgjson(b, [_file(src, c) for c in ("AFR", "MAFR", "KHM")])
    assert _counts(a) == _counts(b)
    assert whole["sets"] == ["afr", "khm", "mafr", "tafr", "tkhm"]
    c = db.connect(":memory:")
    only = import_mtgjson(c, [allp], sets=["mafr"])
    assert only["sets"] == ["mafr"] and only["minigames"] == 5


def test_a_set_code_not_in_the_files_is_an_error(src, tmp_path):
    allp = _all_printings(src, tmp_path, ["AFR", "MAFR", "KHM"])
    con = db.connect(":memory:")
    with pytest.raises(
        InputError,
        match=r"^sets: ZZZ not in .*AllPrintings\.json\.gz "
        r"\(sets there: AFR, KHM, MAFR\)$",
    ) as err:
        import_mtgjson(con, [allp], sets=["afr", "zzz"])  # afr is there: a typo must not pass
    assert err.value.field == "sets"
    assert con.execute("SELECT count(*) FROM cards").fetchone()[0] == 0  # nothing half-written
    set_file = _file(src, "AFR")
    with pytest.raises(InputError, match=r"^sets: KHM not in .*AFR\.json \(sets there: AFR\)$"):
        import_mtgjson(con, [set_file], sets=["KHM"])
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "boosterkit.cli",
            "--db",
            str(tmp_path / "cli.duckdb"),
            "import",
            "mtgjson",
            str(allp),
            "--set",
            "afr",
            "--set",
            "zzz",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.startswith("boosterkit: error: --set ZZZ not in ")
        and proc.stderr.count("\n") == 1
    )


def test_cached_files_replay_on_rebuild(src, db_file, tmp_path):
    cache = tmp_path / "cache"
    con = db.connect(db_file)
    import_mtgjson(con, [_file(src, "AFR"), _file(src, "MAFR")], cache=cache)
    before = _counts(con)
    files = con.execute("SELECT cache_files FROM sync_runs WHERE source = 'mtgjson'").fetchone()[0]
    assert len(files) == 2 and all((cache / f).exists() for f in files)
    rebuild(con, cache)
    assert _counts(con) == before
    con.close()


def test_cli_json_equals_library(src, tmp_path):
    files = [str(_file(src, "MAFR")), str(_file(src, "MKHM"))]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "boosterkit.cli",
            "--db",
            str(tmp_path / "cli.duckdb"),
            "import",
            "mtgjson",
            *files,
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "10 minigame cards" in proc.stderr
    con = db.connect(":memory:")
    assert json.loads(proc.stdout) == import_mtgjson(con, files)


def test_cli_bad_file_is_one_line_exit_2(tmp_path):
    bad = _write(tmp_path / "x.json", "[]")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "boosterkit.cli",
            "--db",
            str(tmp_path / "cli.duckdb"),
            "import",
            "mtgjson",
            str(bad),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("boosterkit: error: ") and proc.stderr.count("\n") == 1


def _foreign(entries: list[dict]) -> dict[tuple[str, str], tuple[str, str | None]]:
    """(card id, fr|es) → (name, type) of the file's first face with foreignData."""
    langs = {"French": "fr", "Spanish": "es"}
    out: dict[tuple[str, str], tuple[str, str | None]] = {}
    for e in entries:
        for f in e.get("foreignData") or ():
            key = (e["identifiers"]["scryfallId"], langs.get(f["language"], ""))
            if key[1] and key not in out:
                out[key] = (f["name"], f.get("type"))
    return out


@pytest.mark.parametrize("code", BOOSTER_SETS)
def test_foreign_names_are_kept_as_the_file_gives_them(src, imported, code):
    """``card_names`` holds every French and Spanish name of the file's printings, with the
    printed type line (real AFR: 396 French names of its 420 printings)."""
    data = _data(src, code)
    expected = _foreign(data["cards"])
    rows = imported.execute(
        "SELECT card_id, lang, name, type_line FROM card_names WHERE card_id IN "
        "(SELECT unnest(?::VARCHAR[]))",
        [sorted({e["identifiers"]["scryfallId"] for e in data["cards"]})],
    ).fetchall()
    assert {(i, lang): (n, t) for i, lang, n, t in rows} == expected
    if code == "AFR" and expected:  # the real file
        assert sum(lang == "fr" for _, lang in expected) == 396


def test_foreign_names_of_one_file_and_a_reimport(mem_db, tmp_path):
    """A card's name in each sheet language, "A // B" for two faces; a reimport of a file
    without them leaves none behind."""
    import builders as b

    from boosterkit.minigames.labels import LANGS
    from boosterkit.pipeline.mtgjson_transform import NAME_LANGS

    assert NAME_LANGS == tuple(x for x in LANGS if x != "en")
    one = b.printing("zzz", 1, "Arborea Pegasus", "common", "W", 2, "Creature — Pegasus")
    two = b.modal("zzz", 2, b.Face("Up", "Sorcery"), b.Face("Down", "Land"), 3)
    data = b.mtgjson_file("ZZZ", "Fixture", "2024-01-01", [one, two])
    fr = {"language": "French", "name": "Pégase d'Arborée", "type": "Créature : pégase"}
    es = {"language": "Spanish", "name": "Pegaso de Arbórea", "type": "Criatura — Pegaso"}
    de = {"language": "German", "name": "Arborea-Pegasus", "type": "Kreatur — Pegasus"}
    data["data"]["cards"][0]["foreignData"] = [de, fr, es]
    for entry in data["data"]["cards"][1:]:  # each face carries the whole card's name
        entry["foreignData"] = [{"language": "French", "name": "Haut // Bas", "type": "Rituel"}]
    path = tmp_path / "ZZZ.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    import_mtgjson(mem_db, [path])
    rows = mem_db.execute("SELECT card_id, lang, name, type_line FROM card_names ORDER BY ALL")
    assert sorted(rows.fetchall()) == sorted(
        [
            (one.id, "es", "Pegaso de Arbórea", "Criatura — Pegaso"),
            (one.id, "fr", "Pégase d'Arborée", "Créature : pégase"),
            (two.id, "fr", "Haut // Bas", "Rituel"),
        ]
    )
    for entry in data["data"]["cards"]:
        entry.pop("foreignData")
    path.write_text(json.dumps(data), encoding="utf-8")
    import_mtgjson(mem_db, [path])
    assert mem_db.execute("SELECT count(*) FROM card_names").fetchone() == (0,)


MINIGAMES_2025 = ("MMID", "MNEO", "MSNC", "MCLB", "MDMU", "MBRO", "MONE", "MLTR", "MACR")


def test_a_bare_set_object_is_read_like_a_wrapped_one(mem_db, tmp_path):
    """The minigame sets of ``minigames-2025/`` are set objects without ``{"meta", "data"}``:
    every minigame card of each is imported, the same as from the wrapped shape."""
    folder = shared_path("mtgjson", "minigames-2025")
    files = [folder / f"{code}.json" for code in MINIGAMES_2025]
    import_mtgjson(mem_db, files)
    for f in files:
        data = json.loads(f.read_text(encoding="utf-8"))
        assert "data" not in data and "meta" in data  # the bare shape
        ids = {t["identifiers"]["scryfallId"] for t in data["tokens"]}
        got = mem_db.execute(
            "SELECT count(*), bool_and(kind = 'minigame') FROM cards WHERE set_code = ?",
            [data["code"].lower()],
        ).fetchone()
        assert got == (len(ids), True), f.name
    wrapped = tmp_path / "MLTR.json"
    bare = json.loads((folder / "MLTR.json").read_text(encoding="utf-8"))
    wrapped.write_text(json.dumps({"meta": bare.pop("meta"), "data": bare}), encoding="utf-8")
    before = _counts(mem_db)
    import_mtgjson(mem_db, [wrapped])  # the same set wrapped: nothing new
    assert _counts(mem_db) == before
