"""Hostile card data from an upstream: names with HTML, markdown, CSV formulas, NUL and other
control characters, RTL overrides and 1 MB, through ``sync --file`` → the database → ``open``
(every format) → ``deal`` (every format) → the organizer page and the API.

Control and invisible characters are removed at ingest (``pipeline.load.clean_sql``), for
Scryfall and MTGJSON alike; CSV cells a spreadsheet would run are neutralised; HTML is
escaped. The built ONE card file is the base (``built_scryfall``): only the names and rules
texts are replaced.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers import run_cli

from boosterkit.pipeline import db as pdb

#: What ingest removes (or turns into a space, for line breaks in names).
INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]"
)
MEGABYTE = "Meganame " + "M" * 1_000_000
csv.field_size_limit(4 * 1024 * 1024)  # Python's reader stops at 128 KiB a cell by default

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "Foo\n## Injected heading",
    "Bar\r\n- injected item",
    '=HYPERLINK("http://evil.example","x")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\tTabbed",
    "NUL\x00byte",
    "Bell\x07 and ESC\x1b[31mred",
    "RTL \u202egnp.exe",
    "Zero\u200bwidth \u2066isolate\u2069",
    "| table | cell |",
    "C1\x85control",
]

#: The names as ingest stores them.
CLEAN = {
    "Foo\n## Injected heading": "Foo ## Injected heading",
    "Bar\r\n- injected item": "Bar - injected item",
    "\tTabbed": " Tabbed",
    "NUL\x00byte": "NULbyte",
    "Bell\x07 and ESC\x1b[31mred": "Bell and ESC[31mred",
    "RTL \u202egnp.exe": "RTL gnp.exe",
    "Zero\u200bwidth \u2066isolate\u2069": "Zerowidth isolate",
    "C1\x85control": "C1control",
}


@pytest.fixture(scope="module")
def hostile_file(built_scryfall: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built ONE cards with hostile names and rules texts; two commons 1 MB long."""
    cards = json.loads((built_scryfall / "cards" / "one.unique-cards.json").read_text())
    commons = [c for c in cards if c.get("rarity") == "common" and "card_faces" not in c]
    for i, card in enumerate(c for c in cards if "card_faces" not in c):
        card["name"] = HOSTILE[i % len(HOSTILE)]
        card["oracle_text"] = "Line one\x00\r\nLine two \u202eevil\n## not a heading"
        card["type_line"] = card.get("type_line", "") + "\x1b[2J"
    for card in commons[:2]:
        card["name"] = MEGABYTE
    path = tmp_path_factory.mktemp("hostile") / "hostile-one.json"
    path.write_text(json.dumps(cards))
    return path


@pytest.fixture(scope="module")
def hostile_db(hostile_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from boosterkit.config import cache_dir
    from boosterkit.pipeline.sync import sync_file

    path = tmp_path_factory.mktemp("hostile_db") / "hostile.duckdb"
    con = pdb.connect(path)
    try:
        sync_file(con, hostile_file, cache=cache_dir(path))
    finally:
        con.close()
    return path


def assert_clean(text: str, where: str) -> None:
    found = INVISIBLE.search(text.replace("\n", ""))
    assert found is None, (where, repr(text[max(0, found.start() - 40) : found.end() + 40]))


def test_ingest_removes_control_and_invisible_characters(hostile_db: Path) -> None:
    con = pdb.connect(hostile_db, read_only=True)
    try:
        names = {r[0] for r in con.execute("SELECT name FROM cards").fetchall()}
        texts = {
            r[0]
            for r in con.execute(
                "SELECT oracle_text FROM cards WHERE oracle_text LIKE 'Line one%'"
            ).fetchall()
        }
        types = con.execute("SELECT count(*) FROM cards WHERE type_line LIKE '%[2J'").fetchone()[0]
    finally:
        con.close()
    assert {CLEAN.get(h, h) for h in HOSTILE} | {MEGABYTE} <= names
    for name in names:
        assert_clean(name, "a card name")
        assert "\n" not in name
    # rules text keeps its line breaks (as LF), loses the NUL and the override
    assert texts == {"Line one\nLine two evil\n## not a heading"}
    assert types > 0  # the ESC is gone, its harmless rest is kept


def test_mtgjson_ingest_cleans_too(built_sources, tmp_path: Path) -> None:
    from boosterkit.pipeline.mtgjson import import_mtgjson

    data = json.loads((built_sources.mtgjson / "AFR.json").read_text())
    cards = data["data"]["cards"]
    for i, card in enumerate(cards[: len(HOSTILE)]):
        card["name"] = HOSTILE[i]
        card["text"] = "One\x00\rTwo\u202e"
    path = tmp_path / "AFR.json"
    path.write_text(json.dumps(data))
    con = pdb.connect(tmp_path / "m.duckdb")
    try:
        import_mtgjson(con, [path])
        names = {
            r[0]
            for r in con.execute(
                "SELECT name FROM cards UNION ALL SELECT name FROM card_faces"
            ).fetchall()
        }
        texts = {
            r[0]
            for r in con.execute(
                "SELECT oracle_text FROM cards WHERE oracle_text LIKE 'One%'"
            ).fetchall()
        }
    finally:
        con.close()
    assert {CLEAN.get(h, h) for h in HOSTILE} <= names
    for name in names:
        assert_clean(name or "", "an MTGJSON card name")
    assert texts == {"One\nTwo"}


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "csv"])
def test_open_in_every_format(hostile_db: Path, capsys, fmt: str) -> None:
    code, out, err = run_cli(
        capsys, "--db", str(hostile_db), "open", "one", "-n", "24", "--seed", "5", "--format", fmt
    )
    assert code == 0, err
    assert_clean(out, f"open --format {fmt}")
    assert "M" * 1_000_000 in out  # the 1 MB name came through whole
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        names = [r["name"] for r in rows]
        assert any(n.startswith("'=HYPERLINK") for n in names)
        for row in rows:
            for value in row.values():
                assert not value.startswith(("=", "+", "-", "@", "\t", "\r")) or re.fullmatch(
                    r"-?\d+(\.\d+)?", value
                ), value
    if fmt == "json":
        names = {i["name"] for p in json.loads(out) for i in p["items"]}
        assert "<script>alert(1)</script>" in names  # data, exactly: escaping is per format


def test_open_csv_raw_keeps_the_cells_as_they_are(hostile_db: Path, capsys) -> None:
    code, out, _ = run_cli(
        capsys,
        "--db",
        str(hostile_db),
        "open",
        "one",
        "-n",
        "24",
        "--seed",
        "5",
        "--format",
        "csv",
        "--csv-raw",
    )
    assert code == 0
    names = [r["name"] for r in csv.DictReader(io.StringIO(out))]
    assert '=HYPERLINK("http://evil.example","x")' in names
    assert not any(n.startswith("'") for n in names)


@pytest.mark.parametrize("fmt", ["text", "md", "html", "json"])
def test_deal_in_every_format(hostile_db: Path, capsys, fmt: str) -> None:
    code, out, err = run_cli(
        capsys,
        "--db",
        str(hostile_db),
        "deal",
        "roll-for-initiative",
        "--players",
        "4",
        "--set",
        "one",
        "--seed",
        "3",
        "--format",
        fmt,
    )
    assert code == 0, err
    assert_clean(out, f"deal --format {fmt}")
    lines = out.splitlines()
    assert not any(line.lstrip().startswith("## Injected") for line in lines)
    if fmt == "html":
        assert "<script>alert" not in out and "<img src=x" not in out
    if fmt == "json":
        setup = json.loads(out)
        names = {i["name"] for z in setup["zones"] for i in z["cards"]}
        assert names & {CLEAN.get(h, h) for h in HOSTILE}


def test_organizer_page_and_api(hostile_db: Path) -> None:
    from boosterkit.service.app import create_app

    with TestClient(create_app(hostile_db), base_url="http://127.0.0.1") as client:
        sheet = client.get(
            "/sheet",
            params={"minigame": "roll-for-initiative", "players": 4, "set": "one", "seed": 3},
        )
        packs = client.post("/packs", json={"set": "one", "count": 24, "seed": 5})
        page = client.get("/")
        sets = client.get("/sets")
    assert sheet.status_code == 200 and packs.status_code == 200 and page.status_code == 200
    assert "<script>alert" not in sheet.text and "<img src=x" not in sheet.text
    assert "&lt;script&gt;" in sheet.text or "&lt;img" in sheet.text or "HYPERLINK" in sheet.text
    for response in (sheet, packs, sets):
        assert_clean(response.text, response.request.url.path)
    assert "M" * 1_000_000 in packs.text


@pytest.mark.parametrize("fmt", ["text", "md", "html", "decklist"])
def test_pool_in_every_format(hostile_db: Path, capsys, fmt: str) -> None:
    """Sealed pools print card names too: Markdown escapes them as the sheets do (no raw
    HTML, no link), HTML escapes them, text and deck lists keep them as plain text."""
    code, out, err = run_cli(
        capsys,
        "--db",
        str(hostile_db),
        "pool",
        "one",
        "--players",
        "2",
        "--packs",
        "6",
        "--seed",
        "7",
        "--format",
        fmt,
    )
    assert code == 0, err
    assert_clean(out.replace("\f", ""), f"pool --format {fmt}")  # a form feed between players
    if fmt in ("md", "html"):
        assert "<script>" not in out and "<img src=x" not in out
    if fmt == "md":
        assert "&lt;script" in out
        assert "](javascript:" not in out and "[click]" not in out
        assert not any(
            line.lstrip().startswith(("## Injected", "| table")) for line in out.splitlines()
        )
    if fmt in ("text", "decklist"):
        assert "<script>alert(1)</script>" in out  # plain text: the name exactly
