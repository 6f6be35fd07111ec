"""``sync SET`` with MTGJSON's booster data: fake Scryfall + fake MTGJSON on 127.0.0.1.

Fixtures (``tests/fixtures/mtgjson_sync``, built by its ``build.py``): a tiny MKM in the real
Scryfall and MTGJSON v5 formats whose Play Booster draws The List (PLST) and Special Guests
(SPG) cards through ``sourceSetCodes``; the set list and the AFR/MAFR files of a world for
the rest: the real one where ``../shared`` is, else the built one (``any_sources``).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from dbcheck import fingerprint
from helpers import UNPACED_CLI
from mtgjson_server import FakeMtgjson
from scryfall_server import FakeScryfall

from boosterkit.errors import FetchError, InputError
from boosterkit.generator import products
from boosterkit.pipeline import db, rebuild, sync
from boosterkit.pipeline.mtgjson import import_mtgjson
from boosterkit.pipeline.mtgjson_client import MtgjsonClient
from boosterkit.pipeline.scryfall.client import ScryfallClient

FIX = ROOT / "tests" / "fixtures" / "mtgjson_sync"


@pytest.fixture(scope="module")
def src(any_sources):
    return any_sources


@pytest.fixture(scope="module")
def scryfall(src):
    with FakeScryfall(root=src.scryfall, extra=(FIX / "scryfall",)) as api:
        yield api


@pytest.fixture(scope="module")
def mtgjson(src):
    with FakeMtgjson(roots=(FIX / "mtgjson", src.mtgjson)) as mj:
        yield mj


def _clients(api: FakeScryfall, mj: FakeMtgjson, **kw) -> dict:
    no_wait = {"sleep": lambda s: None, **kw}
    return {
        "client": ScryfallClient(api.url, **no_wait),
        "mtgjson": MtgjsonClient(mj.url, **no_wait),
    }


def _children(src, code: str) -> list[str]:
    """``code`` and its descendants in the set list, as the sync walks them."""
    sets = json.loads((src.scryfall / "sets" / "sets.json").read_text(encoding="utf-8"))["data"]
    family = [code]
    for parent in family:
        family += [
            s["code"]
            for s in sets
            if s.get("parent_set_code") == parent and s["code"] not in family
        ]
    return family


def _sheet(con, product: str, sheet: str) -> tuple[int, int]:
    return con.execute(
        "SELECT count(*), count(card_id) FROM sheet_cards WHERE product_code = ? "
        "AND sheet_name = ?",
        [product, sheet],
    ).fetchone()


def test_sync_mkm_real_play_booster_cross_set_sheets_then_rebuild(
    src, scryfall, mtgjson, tmp_path: Path
) -> None:
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "t.cache"
    mtgjson.requests.clear()
    s = sync.sync_sets(con, ["MKM"], cache=cache, **_clients(scryfall, mtgjson))
    family = _children(src, "mkm")
    assert s["set_codes"] == family and len(family) > 5
    # one MTGJSON request per synced set, upper-case; only MKM has a file (its tokens are TMKM)
    assert mtgjson.served() == [c.upper() for c in family]
    m = s["mtgjson"]
    assert m["sets"] == ["mkm", "tmkm"] and m["products"] == ["mkm-play-mtgjson"]
    assert m["missing"] == [c for c in family if c not in ("mkm", "tmkm")]  # tmkm: in MKM.json
    assert m["source_sets_missing"] == ["plst", "spg"]
    assert (m["resolved"], m["unresolved"]) == (43, 3)
    assert (
        m["cards"] == 1
    )  # printings only MTGJSON had: the TMKM token (the 15 MKM ones are Scryfall's)
    # cards merged by Scryfall id: 15 MKM printings once, now with MTGJSON's uuid; 1 token
    assert s["cards"] == 15
    assert con.execute("SELECT count(*) FROM cards WHERE set_code = 'mkm'").fetchone()[0] == 15
    assert (
        con.execute(
            "SELECT count(*) FROM cards WHERE set_code = 'tmkm' AND kind = 'token'"
        ).fetchone()[0]
        == 1
    )
    assert con.execute("SELECT count(*) FROM mtgjson_uuids").fetchone()[0] == 16
    assert con.execute("SELECT source, kind, name FROM products").fetchall() == [
        ("mtgjson", "play", "Murders at Karlov Manor Play Booster")
    ]
    weights = con.execute("SELECT weight FROM product_variants ORDER BY variant_index").fetchall()
    assert weights == [(7,), (1,)]  # The List / Special Guests in 1 pack of 8
    assert _sheet(con, "mkm-play-mtgjson", "theList") == (3, 0)
    # the List's cards are MTGJSON uuids of sets not loaded: products names their sync
    (listed,) = products.list_products(con, "mkm")
    assert listed["unresolved_sets"] == {"?": 3}
    assert "boosterkit sync plst" in listed["fill"] and "boosterkit sync spg" in listed["fill"]
    assert _sheet(con, "mkm-play-mtgjson", "common") == (8, 8)
    (run,) = con.execute(
        "SELECT source, target, status, message, cache_files FROM sync_runs"
    ).fetchall()
    assert run[:3] == ("scryfall-set", "mkm", "ok") and run[3].startswith(
        "MTGJSON has no file for "
    )
    (jfile,) = [f for f in run[4] if "/mtgjson-" in f]
    assert jfile.endswith("/mtgjson-MKM.json.gz")
    served = json.loads(gzip.decompress(mtgjson.file_bytes("MKM")))
    assert json.loads(gzip.decompress((cache / jfile).read_bytes())) == served
    assert not list(cache.rglob("*.download")) and not list(cache.rglob("*.part"))

    # the sets the sheets draw from: their sync fills the sheet (MTGJSON's uuids of PLST/SPG)
    s2 = sync.sync_sets(con, ["plst", "spg"], cache=cache, **_clients(scryfall, mtgjson))
    assert s2["mtgjson"]["sets"] == ["plst", "spg"] and s2["mtgjson"]["products"] == []
    assert _sheet(con, "mkm-play-mtgjson", "theList") == (3, 3)
    assert sorted(
        r[0]
        for r in con.execute(
            "SELECT DISTINCT set_code FROM sheet_cards WHERE sheet_name = 'theList'"
        ).fetchall()
    ) == ["plst", "spg"]

    before = fingerprint(con)
    con.execute("DELETE FROM products")
    con.execute("DELETE FROM mtgjson_uuids")
    assert rebuild.rebuild(con, cache)["runs"] == 2
    assert fingerprint(con) == before


@pytest.mark.slow
def test_synced_play_booster_opens_the_list_at_its_rate(scryfall, mtgjson, tmp_path: Path) -> None:
    """20,000 packs of the synced MKM fixture: The List / Special Guests in 1 pack of 8 (the
    variant weights 7:1), a Special Guest in 1 of 17 of those (theList weights 8+8:1).
    Binomial bounds at 5 standard deviations (fixed seed: the outcome is deterministic)."""
    from boosterkit.generator import iter_packs

    path = tmp_path / "t.duckdb"
    con = db.connect(path)
    sync.sync_sets(con, ["mkm", "plst", "spg"], cache=tmp_path / "c", **_clients(scryfall, mtgjson))
    con.close()
    n, listed, guests = 20_000, 0, 0
    for pack in iter_packs("mkm", product="play", count=n, seed=11, db=path):
        extra = [i for i in pack.items if i.slot == "theList"]
        assert len(extra) == (pack.variant == 2) and all(i.resolved and i.card_id for i in extra)
        assert sum(i.slot == "common" for i in pack.items) == (6 if extra else 7)
        listed += bool(extra)
        guests += sum(i.set == "spg" for i in extra)
    p, q = 1 / 8, 1 / 17
    assert abs(listed - n * p) <= 5 * (n * p * (1 - p)) ** 0.5
    assert abs(guests - listed * q) <= 5 * (listed * q * (1 - q)) ** 0.5


def test_sync_replays_exactly_what_import_mtgjson_does(
    src, scryfall, mtgjson, tmp_path: Path
) -> None:
    """AFR: no Scryfall cards in the fake, MTGJSON's AFR and MAFR files: the same rows
    as `import mtgjson` of those files after the same Scryfall load."""
    synced = db.connect(tmp_path / "a.duckdb")
    s = sync.sync_sets(synced, ["afr"], cache=tmp_path / "a.cache", **_clients(scryfall, mtgjson))
    assert s["mtgjson"]["sets"] == ["afr", "mafr", "tafr"]
    assert sorted(s["mtgjson"]["missing"]) == sorted(
        c for c in _children(src, "afr") if c not in ("afr", "mafr", "tafr")
    )
    imported = db.connect(tmp_path / "b.duckdb")
    sync.sync_sets(
        imported,
        ["afr"],
        cache=tmp_path / "b.cache",
        use_mtgjson=False,
        **_clients(scryfall, mtgjson),
    )
    import_mtgjson(imported, [src.mtgjson / "AFR.json", src.mtgjson / "MAFR.json"])
    assert fingerprint(synced) == fingerprint(imported)
    boosters = json.loads((src.mtgjson / "AFR.json").read_text(encoding="utf-8"))["data"]["booster"]
    codes = [r[0] for r in synced.execute("SELECT code FROM products ORDER BY code").fetchall()]
    assert sorted(boosters) == ["arena", "default"] and codes == [
        "afr-arena-mtgjson",
        "afr-draft-mtgjson",
    ]
    assert synced.execute("SELECT count(*) FROM cards WHERE kind = 'minigame'").fetchone()[0] > 0


def test_no_mtgjson_asks_nothing(scryfall, mtgjson, mem_db, tmp_path: Path) -> None:
    mtgjson.requests.clear()
    s = sync.sync_sets(
        mem_db, ["mkm"], cache=tmp_path, use_mtgjson=False, **_clients(scryfall, mtgjson)
    )
    assert s["mtgjson"] == {"skipped": True} and mtgjson.requests == []
    assert mem_db.execute("SELECT count(*) FROM products").fetchone()[0] == 0
    assert s["cards"] == 15


def test_mtgjson_failure_midway_leaves_the_database_as_it_was(scryfall, tmp_path: Path) -> None:
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "t.cache"
    with FakeMtgjson(roots=(FIX / "mtgjson",)) as mj:
        sync.sync_sets(con, ["plst"], cache=cache, **_clients(scryfall, mj))
        before = fingerprint(con, with_runs=True)
        files = sorted(p.relative_to(cache) for p in cache.rglob("*"))
        # Scryfall answers every page, then MTGJSON's MKM file fails on every attempt
        mj.faults[:] = [500] * 3
        with pytest.raises(
            FetchError, match=r"MKM\.json\.gz: HTTP 500 \(gave up after 3 attempts\)"
        ):
            sync.sync_sets(con, ["mkm"], cache=cache, **_clients(scryfall, mj, max_retries=2))
        assert fingerprint(con, with_runs=True) == before
        assert (
            sorted(p.relative_to(cache) for p in cache.rglob("*")) == files
        )  # nothing half-fetched

        # a file that is not MTGJSON fails inside the load: rolled back, a 'failed' run row
        bad = tmp_path / "bad"
        bad.mkdir()
        (bad / "MKM.json").write_text(
            '{"meta": {}, "data": {"code": "MKM", "cards": [{"name": "x"}]}}'
        )
        mj.roots = (bad,)
        with pytest.raises(InputError, match="lacks uuid/name/number/setCode"):
            sync.sync_sets(con, ["mkm"], cache=cache, **_clients(scryfall, mj))
    assert fingerprint(con) == {k: v for k, v in before.items() if k != "sync_runs"}
    assert con.execute("SELECT status FROM sync_runs ORDER BY id").fetchall() == [
        ("ok",),
        ("failed",),
    ]


def _cli(
    args: list[str], dbf: Path, api: FakeScryfall, mj: FakeMtgjson
) -> subprocess.CompletedProcess:
    env = dict(os.environ, SCRYFALL_API_URL=api.url, MTGJSON_API_URL=mj.url, BOOSTERKIT_DB=str(dbf))
    return subprocess.run(
        [*UNPACED_CLI, *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_cli_sync_mtgjson_summary_and_no_mtgjson(src, scryfall, mtgjson, tmp_path: Path) -> None:
    r = _cli(["sync", "mkm", "--json"], tmp_path / "a.duckdb", scryfall, mtgjson)
    assert r.returncode == 0, r.stderr
    (line,) = r.stderr.splitlines()
    missing = ", ".join(c for c in _children(src, "mkm") if c not in ("mkm", "tmkm"))
    assert (
        line.startswith("synced ")
        and (
            f"; MTGJSON: mkm, tmkm (1 product, +1 printing); MTGJSON has no file for {missing}; their sheets also "
            "draw from plst, spg (boosterkit sync plst spg)"
        )
        in line
    )
    assert json.loads(r.stdout)["mtgjson"]["products"] == ["mkm-play-mtgjson"]

    mtgjson.requests.clear()
    r = _cli(["sync", "spg", "--no-mtgjson"], tmp_path / "b.duckdb", scryfall, mtgjson)
    assert r.returncode == 0, r.stderr
    assert r.stderr.rstrip().endswith("; MTGJSON skipped (--no-mtgjson)") and mtgjson.requests == []

    r = _cli(
        ["sync", "--file", str(FIX / "scryfall" / "spg.unique-cards.json"), "--no-mtgjson"],
        tmp_path / "c.duckdb",
        scryfall,
        mtgjson,
    )
    assert (
        r.returncode == 2
        and r.stderr.count("\n") == 1
        and "--no-mtgjson goes with set codes" in r.stderr
    )


def test_mtgjson_url_from_environment(monkeypatch) -> None:
    monkeypatch.setenv("MTGJSON_API_URL", "http://127.0.0.1:9/v5/")
    assert MtgjsonClient().set_url("mkm") == "http://127.0.0.1:9/v5/MKM.json.gz"
    assert (
        MtgjsonClient().set_url("con") == "http://127.0.0.1:9/v5/CON_.json.gz"
    )  # Windows-safe name
    monkeypatch.delenv("MTGJSON_API_URL")
    assert MtgjsonClient().set_url("afr") == "https://mtgjson.com/api/v5/AFR.json.gz"


@pytest.mark.parametrize("base", ["ftp://mirror.example/v5", "mtgjson.com/api/v5"])
def test_unusable_mtgjson_url_names_the_file_url_once(monkeypatch, base: str) -> None:
    from boosterkit.errors import FetchError

    monkeypatch.setenv("MTGJSON_API_URL", base)
    client = MtgjsonClient(sleep=lambda s: None)
    with pytest.raises(FetchError) as info:
        client.set_file("mkm", Path("/nonexistent/MKM.json.gz"))
    msg = str(info.value)
    assert (
        msg.startswith(f"GET {base}/MKM.json.gz: not a usable URL") and f"{base}/{base}" not in msg
    ), msg
    assert msg.endswith("check MTGJSON_API_URL") and "\n" not in msg
