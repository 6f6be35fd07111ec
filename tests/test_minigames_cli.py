"""``boosterkit minigames``, ``deal`` and ``validate``: JSON equals the library, exit codes,
sheets (text snapshots; set BOOSTERKIT_UPDATE_SNAPSHOTS=1 to rewrite them)."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest
from helpers import run_cli as run

from boosterkit.cli.render import to_json
from boosterkit.minigames import deal, list_minigames, render_sheet, validate_setup
from boosterkit.pipeline import db

SNAPSHOTS = Path(__file__).parent / "snapshots"


def test_minigames_json_equals_the_library(capsys) -> None:
    code, out, _ = run(capsys, "minigames", "--json")
    assert (
        code == 0
        and json.loads(out) == list_minigames()
        and out == to_json(list_minigames()) + "\n"
    )
    code, out, _ = run(capsys, "minigames")
    assert code == 0 and len(out.splitlines()) == 2 + 28 + 2  # and the status legend
    assert re.search(
        r"roll-for-initiative\s+Roll for Initiative\s+2\+\s+1, \+1 at 5\+ players", out
    )


def test_the_status_column_is_explained_where_it_is_read(capsys) -> None:
    """C/I/U were explained nowhere a user reads (issue 34): under the table, in --help."""
    for args in (["minigames"], ["minigames", "-f", "text"]):
        code, out, _ = run(capsys, *args)
        legend = out.splitlines()[-1]
        assert code == 0 and legend.startswith("status: C = the setup is confirmed by the rules")
        # every game is dealt by its card (issue 30): no game is listed as unknown any more
        assert "I = partly inferred" in legend and "U = unknown" not in legend
    code, out, _ = run(capsys, "minigames", "-f", "csv")
    assert "status: C" not in out  # data formats stay data
    code, out, _ = run(capsys, "minigames", "--help")
    assert "status C:" in " ".join(out.split()) and "The 28 minigames" in " ".join(out.split())


def test_deal_json_equals_the_library_and_open(capsys, con, built_db: Path) -> None:
    args = [
        "--db",
        str(built_db),
        "deal",
        "roll-for-initiative",
        "--players",
        "5",
        "--set",
        "afr",
        "--seed",
        "2",
        "--format",
        "json",
    ]
    code, out, err = run(capsys, *args)
    lib = deal(con, "roll-for-initiative", 5, "afr", seed=2).to_dict()
    assert code == 0 and err == ""
    assert out == to_json(lib) + "\n"
    # The packs are exactly what `boosterkit open` gives for the same set, product and seed.
    code, opened, _ = run(
        capsys,
        "--db",
        str(built_db),
        "open",
        "afr",
        "--product",
        lib["product"],
        "-n",
        "2",
        "--seed",
        "2",
        "--format",
        "json",
    )
    assert code == 0 and json.loads(opened) == lib["packs"]


def test_deal_prints_a_random_seed_and_writes_files(capsys, tmp_path: Path, built_db: Path) -> None:
    target = tmp_path / "setup.json"
    code, out, err = run(
        capsys,
        "--db",
        str(built_db),
        "deal",
        "booster-blitz",
        "--players",
        "2",
        "--set",
        "znr",
        "--format",
        "json",
        "-o",
        str(target),
    )
    seed_line, wrote = err.splitlines()  # the chosen seed, then what -o wrote
    seed = int(re.fullmatch(r"seed: (\d+) \(repeat with --seed \1\)", seed_line).group(1))
    assert wrote == f"wrote {target} ({target.stat().st_size:,} bytes)"
    assert code == 0 and out == ""
    data = json.loads(target.read_text())
    assert data["seed"] == seed == data["packs"][0]["seed"]
    code, out, _ = run(capsys, "--db", str(built_db), "validate", str(target))
    assert code == 0 and out == f"{target}: valid booster-blitz setup for 2 players\n"


def test_validate_exit_codes_and_json(capsys, tmp_path: Path, con, built_db: Path) -> None:
    data = deal(con, "roll-for-initiative", 5, "afr", seed=2).to_dict()
    data["zones"][1]["cards"].append(data["zones"][2]["cards"].pop())  # a moved card
    bad = tmp_path / "moved.json"
    bad.write_text(json.dumps(data))
    code, out, err = run(capsys, "--db", str(built_db), "validate", str(bad))
    lines = out.splitlines()
    magic = sum(
        1 for p in data["packs"] for i in p["items"] if i["kind"] == "card" or i["magic_back"]
    )
    assert code == 1 and err == ""
    assert lines[0] == f"{bad}: 2 rule violation(s)"
    assert lines[1:] == [
        f"  [zone-count] zone 'player-1 hand': 5 cards; the rules give 4 (equal shares of "
        f"{magic} cards for 5 players)",
        f"  [zone-count] zone 'player-2 hand': 3 cards; the rules give 4 (equal shares of "
        f"{magic} cards for 5 players)",
    ]
    code, out, _ = run(capsys, "--db", str(built_db), "validate", str(bad), "--json")
    assert code == 1 and json.loads(out) == validate_setup(con, data).to_dict()
    assert json.loads(out)["valid"] is False


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "cannot read"),
        (b"", "not valid JSON (line 1, column 1"),
        (b'{"minigame": "roll-for-initiative", "players": 5', "not valid JSON"),
        (b"[1, 2, 3]", "setup: expected a JSON object, got list"),
        (b'{"minigame": "roll-for-initiative"}', "setup.players: missing"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply"),
        (
            b'{"minigame": "roll-for-initiative", "players": 0, "packs": [], "zones": []}',
            "setup.players: expected at least 1, got 0",
        ),
        (
            b'{"minigame": "cyber-simulation", "players": 2, "packs": [], "zones": []}',
            "setup.minigame: unknown minigame 'cyber-simulation' — did you mean cyber-simulacrum?",
        ),
    ],
)
def test_garbage_files_exit_2_with_one_line(
    capsys, tmp_path: Path, built_db: Path, content: bytes, message: str
) -> None:
    f = tmp_path / "garbage.json"
    f.write_bytes(content)
    code, out, err = run(capsys, "--db", str(built_db), "validate", str(f))
    assert code == 2 and out == ""
    assert err.startswith("boosterkit: error: ") and message in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_deal_errors_are_one_line(capsys, built_db: Path) -> None:
    base = ["--db", str(built_db), "deal"]
    cases = [
        # no AFR pack holds the transforming creature the monster must be: no seed deals it
        (
            ["monster-of-the-week", "--players", "1", "--set", "afr"],
            2,
            "so no seed deals it: deal it with `--set mh2` (--set)",
        ),
        # the library says "players: 1 …"; the CLI names its own flag
        (
            ["roil-royale", "--players", "1", "--set", "znr"],
            2,
            "error: --players 1 is out of range for Roil Royale (2–6 players)",
        ),
        (["mimic-match", "--players", "2", "--set", "xyz"], 2, "unknown set 'xyz'"),
        (["vampire-wedding-planner", "--players", "2"], 2, "`boosterkit sync vow` loads it"),
        (
            [
                "roll-for-initiative",
                "--players",
                "3",
                "--set",
                "afr",
                "-o",
                "/nonexistent-dir/sheet.txt",
            ],
            2,
            "-o /nonexistent-dir/sheet.txt: cannot write",
        ),
    ]
    for args, want, message in cases:
        code, out, err = run(capsys, *base, *args, "--seed", "2")
        assert code == want and out == "", (args, err)
        assert len(err.splitlines()) == 1 and message in err, err


def _snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("BOOSTERKIT_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path}: run with BOOSTERKIT_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} changed; rerun with BOOSTERKIT_UPDATE_SNAPSHOTS=1 if intended"
    )


def test_text_sheet_snapshots(capsys, real_db: Path) -> None:
    """The sheets of real AFR packs (the snapshots name real cards)."""
    code, out, _ = run(
        capsys,
        "--db",
        str(real_db),
        "deal",
        "roll-for-initiative",
        "--players",
        "5",
        "--set",
        "afr",
        "--seed",
        "2",
    )
    assert code == 0
    con = db.connect(real_db, read_only=True)
    try:
        assert out == render_sheet(deal(con, "roll-for-initiative", 5, "afr", seed=2), "text")
        mimic = render_sheet(deal(con, "mimic-match", 3, "afr", seed=7), "text")
    finally:
        con.close()
    _snapshot("roll-for-initiative-afr-5p-seed2.txt", out)
    _snapshot("mimic-match-afr-3p-seed7.txt", mimic)
    grid = [line for line in mimic.splitlines() if line.startswith("  |")]
    # the table's face-down grid (positions) and the organizer's (names)
    assert len(grid) == 8 and all(line.count("|") == 5 for line in grid)


def test_markdown_and_html_sheets_have_one_page_per_audience(con) -> None:
    setup = deal(con, "roll-for-initiative", 5, "afr", seed=2)
    md = render_sheet(setup, "md")
    assert md.startswith("# Roll for Initiative — `table`")
    assert md.count("\n# ") == 1 + 5 + 1 - 1  # table, five players, organizer
    page = render_sheet(setup, "html")
    assert page.startswith("<!DOCTYPE html>") and "@page" in page
    audiences = re.findall(r'<section class="page" data-audience="([^"]+)">', page)
    assert audiences == ["table", *[f"player-{i}" for i in range(1, 6)], "organizer"]
    assert "break-before: page" in page
    assert not re.search(r"(src|href)=|url\(|@import", page)  # no external assets
    assert not re.search(r"https?://", page)  # no URL at all
    card = setup.zone("player-1 hand").cards[0]
    assert f'class="r r-{card.rarity[0].upper()}"' in page
    # The table's page names no card of any hand; each player's page only their own.
    sections = dict(re.findall(r'data-audience="([^"]+)">(.*?)</section>', page))
    hands = {z.owner: {c.name for c in z.cards} for z in setup.zones if z.kind == "hand"}
    every = set().union(*hands.values())
    assert not any(
        f"> {n}<" in sections["table"] or f"</span> {n}" in sections["table"] for n in every
    )
    for p, names in hands.items():
        others = every - names
        assert all(html.escape(n) in sections[p] for n in names)
        assert not any(f"</span> {html.escape(n)}" in sections[p] for n in others)
    assert all(html.escape(n) in sections["organizer"] for n in every)


def test_face_down_grids_are_positions_only_on_the_table(con) -> None:
    setup = deal(con, "mimic-match", 3, "afr", seed=7)
    page = render_sheet(setup, "html")
    sections = dict(re.findall(r'data-audience="([^"]+)">(.*?)</section>', page))
    assert set(sections) == {"table", "organizer"}  # nobody owns cards in Mimic Match
    grid = setup.zone("grid")
    assert sections["table"].count("face down</span>") == 16
    assert not any(html.escape(c.name) in sections["table"] for c in grid.cards)
    assert sections["organizer"].count("MIMIC") == 2 == sum(len(z.tags) for z in setup.zones)
    assert all(html.escape(c.name) in sections["organizer"] for c in grid.cards)
    text = render_sheet(setup, "text")
    assert "grid (16 cards, 4 x 4, face down)" in text


def test_base_race_grids_go_to_their_owners(con) -> None:
    setup = deal(con, "base-race", 2, "znr", seed=2)
    md = render_sheet(setup, "md")
    table, p1, p2, organizer = md.split("\n---\n")
    for n, page in ((1, p1), (2, p2)):
        grid = setup.zone(f"player-{n} grid")
        other = setup.zone(f"player-{3 - n} grid")
        assert page.startswith(f"\n# Base Race — player-{n} — `player-{n}`")
        assert all(md_names(c.name) in page for c in grid.cards)
        assert not any(
            md_names(c.name) in page
            for c in other.cards
            if c.name not in {x.name for x in grid.cards}
        )
        # the facts Base Race is played by
        creature = next((c for c in grid.cards if "Creature" in (c.type_line or "")), None)
        if creature is not None:
            assert "toughness" in page
    assert "random arrangement" in table


def md_names(name: str) -> str:
    from boosterkit.minigames.sheets import md_escape

    return md_escape(name)


def test_sheet_labels_in_french_and_spanish(capsys, built_db: Path) -> None:
    base = [
        "--db",
        str(built_db),
        "deal",
        "Lancez les dés pour l'initiative !",
        "--players",
        "3",
        "--set",
        "afr",
        "--seed",
        "2",
    ]
    code, out, _ = run(capsys, *base, "--lang", "fr")
    assert code == 0 and out.startswith("LANCEZ LES DÉS POUR L'INITIATIVE ! [table]")
    assert "Joueurs:" in out and "ORGANISATEUR SEULEMENT" in out
    code, out, _ = run(capsys, *base[:3], "Tirada de iniciativa", *base[4:], "--lang", "es")
    assert code == 0 and "Jugadores:" in out and "SOLO ORGANIZADOR" in out
    code, _, err = run(capsys, *base, "--lang", "de")
    assert code == 2 and "--lang" in err


def test_a_zone_of_one_card_says_card(con) -> None:
    setup = deal(con, "roll-for-initiative", 5, "afr", seed=2)
    aside = setup.zone("set aside")
    aside.cards[:] = aside.cards[:1]  # a rendering test: a zone of exactly one card
    assert "set aside (1 card, out of play)" in render_sheet(setup, "text")
    assert "## set aside \\(1 card, out of play\\)" in render_sheet(setup, "md")
    sheets = "".join(render_sheet(setup, f) for f in ("text", "md", "html"))
    assert not re.search(r"\b1 cards\b", sheets)  # zone headings and notes alike


HOSTILE = [
    "<script>alert(1)</script>",
    "[x](javascript:alert(1))",
    "Evil\n## heading",
    "Nul\x00by\x07te",
    "RTL \u202eevil\u202c",
    '=HYPERLINK("x")',
    "`tick` *b* _i_ |pipe|",
]


@pytest.fixture(scope="module")
def hostile_db(built_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built database with every AFR card renamed to a hostile name (markup, links, a newline that
    would start a heading, NUL and control characters, an RTL override)."""
    import shutil

    path = tmp_path_factory.mktemp("hostile") / "hostile.duckdb"
    shutil.copy(built_db, path)
    rw = db.connect(path)
    try:
        rows = rw.execute("SELECT id FROM cards WHERE set_code = 'afr' ORDER BY id").fetchall()
        rw.executemany(
            "UPDATE cards SET name = ? WHERE id = ?",
            [[f"{HOSTILE[k % len(HOSTILE)]} {k}", r[0]] for k, r in enumerate(rows)],
        )
    finally:
        rw.close()
    return path


@pytest.mark.parametrize("game", ["roll-for-initiative", "mimic-match", "base-race"])
def test_hostile_card_names_cannot_inject_into_any_format(
    capsys, hostile_db: Path, game: str
) -> None:
    players = "3" if game != "base-race" else "2"
    base = [
        "--db",
        str(hostile_db),
        "deal",
        game,
        "--players",
        players,
        "--set",
        "afr",
        "--seed",
        "2",
    ]
    outs = {}
    for fmt in ("text", "md", "html", "json"):
        code, out, err = run(capsys, *base, "--format", fmt)
        assert code == 0, err
        outs[fmt] = out
    names = [c["name"] for z in json.loads(outs["json"])["zones"] for c in z["cards"] if c["name"]]
    assert any("<script>" in n for n in names) and any("\n## heading" in n for n in names)
    for fmt in ("text", "md", "html"):
        out = outs[fmt]
        assert not re.search("[\x00-\x08\x0b-\x1f\u202a-\u202e\u2066-\u2069]", out), fmt
        assert not re.search(r"^\s*(\|\s*)?#+ heading", out, re.M), fmt  # no injected heading
    assert "<script>" not in outs["html"] and "<script>" not in outs["md"]
    assert not re.search(r"(?<!\\)\]\((?!\))", outs["md"])  # no live link
    assert "`tick`" not in outs["md"] and "*b*" not in outs["md"] and "|pipe|" not in outs["md"]
    if any(n.startswith("`tick`") for n in names):
        assert "\\`tick\\` \\*b\\* \\_i\\_ \\|pipe\\|" in outs["md"]
    assert "Evil ## heading" in outs["text"] and "Evil \\#\\# heading" in outs["md"]
    # Parsed as CommonMark (markdown-it, as renderers do): no HTML, no link, no extra heading.
    markdown_it = pytest.importorskip("markdown_it")
    tokens = markdown_it.MarkdownIt("commonmark").parse(outs["md"])
    flat = [t for tok in tokens for t in [tok, *(tok.children or [])]]
    assert not [t for t in flat if t.type in ("html_inline", "html_block", "link_open", "image")]
    h1 = [
        tokens[i + 1].content
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.tag == "h1"
    ]
    assert len(h1) == outs["html"].count('<section class="page"')
    assert not any(
        "heading" in tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"
    )
