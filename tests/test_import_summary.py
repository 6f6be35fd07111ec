"""The import summaries say what unresolved references are (cards of sets not loaded yet,
normal) and what can be opened now (issue 23), with plurals that read right."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import run_cli


def test_first_imports_say_what_is_missing_and_what_opens(capsys, built_world, tmp_path) -> None:
    db = str(tmp_path / "t.duckdb")
    code, _, err = run_cli(capsys, "--db", db, "import", "collation", str(built_world.sealed))
    assert code == 0 and "\n" not in err.strip()
    # before any card is loaded: every reference is to a set not loaded, and nothing opens
    assert re.search(
        r"; [\d,]+ card references are to cards of sets not loaded yet \([a-z]+ [\d,]+, ", err
    )
    assert "normal, they resolve when those sets are loaded; fill with: boosterkit sync " in err
    assert err.strip().endswith(
        "; no product opens yet: load its set's cards (`boosterkit import mtgjson FILE…` or "
        "`boosterkit sync SET`)"
    )
    afr = built_world.folder / "AFR.json"
    code, _, err = run_cli(capsys, "--db", db, "import", "mtgjson", str(afr))
    assert code == 0 and err.startswith("imported 2 sets (afr, tafr): ")
    opens = re.search(
        r"; products you can open now: (.*) \((\d+) in all: `boosterkit products SET`\)$",
        err.strip(),
    )
    assert opens, err
    shown = opens.group(1).removesuffix(", …").split(", ")
    assert {"afr-draft", "afr-set", "afr-collector"} <= set(shown)
    assert all(code.startswith("afr") for code in shown)  # only the set whose cards are loaded


def test_one_of_a_thing_is_singular(capsys, built_world, tmp_path: Path) -> None:
    mafr = built_world.folder / "MAFR.json"
    code, _, err = run_cli(
        capsys, "--db", str(tmp_path / "t.duckdb"), "import", "mtgjson", str(mafr)
    )
    assert code == 0 and err.startswith("imported 1 set (mafr): ") and " 0 products" in err
    assert "1 sets" not in err


def test_cards_of_no_known_set_are_said_in_words(capsys, built_world, tmp_path: Path) -> None:
    """MTGJSON sheets naming cards by uuid only, of a file not loaded (STX's Mystical
    Archive): no "(? 6)" but what they are and the sheet they are on, in the import's
    summary and in `products` (issue 34)."""
    db = str(tmp_path / "stx.duckdb")
    code, _, err = run_cli(
        capsys, "--db", db, "import", "mtgjson", str(built_world.folder / "STX.json")
    )
    assert code == 0 and "?" not in err
    assert re.search(
        r"card references are to cards of sets not loaded yet \(\d+ by MTGJSON id only, on "
        r"sheet archive: the MTGJSON file of their set is not loaded\)",
        err,
    ), err
    code, out, _ = run_cli(capsys, "--db", db, "products", "stx")
    assert code == 0 and "?" not in out
    assert re.search(
        r"unresolved: \d+ of \d+ sheet cards \(\d+ by MTGJSON id only, on sheet archive", out
    )
    code, out, _ = run_cli(capsys, "--db", db, "products", "stx", "--json")
    draft = next(p for p in __import__("json").loads(out) if p["code"] == "stx-draft-mtgjson")
    assert draft["unknown_set_sheets"] == ["archive"] and set(draft["unresolved_sets"]) == {"?"}
