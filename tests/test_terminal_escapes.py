"""No raw control character from an input file reaches a terminal (issue 33 §5): product
and sheet names of a collation export, the name of an MTGJSON ``booster.default``, printed
by ``products``, ``odds``, ``open``, ``pool`` and ``deal`` in every format, on stdout, on
stderr and in ``-o`` files, and by the service. They are written as escapes (``\\x1b]52;…``
in text, ``\\u001b]52;…`` in JSON), as echoed uids and zone names already were.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers import run_cli

from boosterkit.service.app import create_app

OSC52 = "\x1b]52;c;ZXZpbA==\x07"  # a clipboard write
OSC0 = "\x1b]0;pwned\x07"  # a window title
C1 = "\x9b2J"  # the 8-bit CSI: clear the screen
BIDI = "\u202e"  # right-to-left override
#: What a terminal may act on: C0 but tab, newline and form feed (the page break between
#: pools), DEL, C1, bidi and line separators.
RAW = re.compile(
    "[\x00-\x08\x0b\x0d-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


@pytest.fixture(scope="module")
def evil_db(built_world, built_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built database plus ``afr-evil`` (a collation product named with an OSC 52, a
    sheet named with a C1 CSI and a bidi override) and AFR's MTGJSON Draft Booster named
    with an OSC 0, imported as a user would."""
    folder = tmp_path_factory.mktemp("evil")
    path = folder / "evil.duckdb"
    shutil.copy(built_db, path)
    products = json.loads(built_world.sealed.read_text())
    draft = next(p for p in products if p["code"] == "afr")
    evil = {**draft, "code": "afr-evil", "name": f"Evil {OSC52}"}
    renamed = {"common": f"common{C1}{BIDI}"}
    evil["sheets"] = {renamed.get(k, k): v for k, v in draft["sheets"].items()}
    evil["boosters"] = [
        {**b, "sheets": {renamed.get(k, k): n for k, n in b["sheets"].items()}}
        for b in draft["boosters"]
    ]
    (folder / "evil.json").write_text(json.dumps([evil]))
    afr = json.loads((built_world.folder / "AFR.json").read_text())
    afr["data"]["booster"]["default"]["name"] = f"Osc {OSC0} title"
    (folder / "AFR.json").write_text(json.dumps(afr))
    from boosterkit.pipeline import db
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    con = db.connect(path)
    try:
        import_collation(con, folder / "evil.json")
        import_mtgjson(con, [folder / "AFR.json"])
    finally:
        con.close()
    return path


def _clean(text: str) -> None:
    found = RAW.search(text)
    assert found is None, (
        f"raw {found.group()!r} at {found.start()}: {text[max(0, found.start() - 80) : found.start() + 40]!r}"
    )


COMMANDS = [
    ("products", "afr"),
    ("products", "afr", "-f", "text"),
    ("products", "afr", "-f", "json"),
    ("products", "afr", "-f", "jsonl"),
    ("products", "afr", "-f", "csv"),
    ("odds", "afr", "-p", "afr-evil"),
    ("odds", "afr", "-p", "afr-evil", "-f", "text"),
    ("odds", "afr", "-p", "afr-evil", "-f", "json"),
    ("odds", "afr", "-p", "afr-draft-mtgjson"),
    ("open", "afr", "-p", "afr-evil", "-n", "2"),
    ("open", "afr", "-p", "afr-evil", "-n", "2", "-f", "json"),
    ("open", "afr", "-p", "afr-evil", "-n", "2", "-f", "jsonl"),
    ("open", "afr", "-p", "afr-evil", "-n", "2", "-f", "csv"),
    ("pool", "afr", "-p", "afr-evil", "--players", "2", "--packs", "1"),
    ("pool", "afr", "-p", "afr-evil", "--players", "2", "--packs", "1", "-f", "md"),
    ("pool", "afr", "-p", "afr-evil", "--players", "2", "--packs", "1", "-f", "html"),
    ("pool", "afr", "-p", "afr-evil", "--players", "2", "--packs", "1", "-f", "json"),
    ("deal", "mimic-match", "--players", "2", "--set", "afr", "-p", "afr-evil"),
    ("deal", "mimic-match", "--players", "2", "--set", "afr", "-p", "afr-evil", "-f", "html"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_names_from_files_reach_no_terminal_raw(
    capsys, evil_db: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """``products`` and ``odds`` printed the product name raw: the terminal wrote 'evil'
    to the clipboard (OSC 52), or retitled its window (OSC 0)."""
    seeded = ("--seed", "1") if command[0] in ("open", "pool", "deal") else ()
    code, out, err = run_cli(capsys, "--db", str(evil_db), *command, *seeded)
    assert code == 0, err
    _clean(out)
    _clean(err)
    if command[0] != "pool":  # -o FILE holds what stdout showed
        target = tmp_path / "out"
        args = [*command, *seeded, "-o", str(target)]
        assert run_cli(capsys, "--db", str(evil_db), *args)[0] == 0
        assert target.read_text(encoding="utf-8") == out
    shown = re.sub(r"\\u00([0-9a-f]{2})", r"\\x\1", out)  # JSON's escapes as Python's
    if "evil" in " ".join(command) and command[0] in ("products", "odds"):
        assert "Evil \\x1b]52;c;ZXZpbA==\\x07" in shown  # shown, escaped
    if "afr-draft-mtgjson" in command:
        assert "Osc \\x1b]0;pwned\\x07 title" in shown


def test_a_parallel_run_writes_no_raw_control_either(evil_db: Path) -> None:
    """``open --jobs 2`` writes from its workers straight to standard output's descriptor."""
    import subprocess
    import sys

    from boosterkit.generator import parallel

    n = str(2 * parallel.BLOCK + 3)
    for fmt in ("text", "csv", "json", "jsonl"):
        args = [sys.executable, "-m", "boosterkit.cli", "--db", str(evil_db), "open", "afr",
                "-p", "afr-evil", "-n", n, "-f", fmt, "--seed", "1"]  # fmt: skip
        one = subprocess.run(args, capture_output=True, timeout=300)
        two = subprocess.run([*args, "--jobs", "2"], capture_output=True, timeout=300)
        assert one.returncode == two.returncode == 0, two.stderr
        _clean(two.stdout.decode())
        assert one.stdout == two.stdout, fmt


def test_the_service_writes_no_raw_control(evil_db: Path, capsys) -> None:
    with TestClient(create_app(evil_db), base_url="http://127.0.0.1") as client:
        answers = {
            "products": client.get("/sets/afr/products"),
            "packs": client.post("/packs", json={"set": "afr", "product": "afr-evil", "seed": 1}),
            "pool": client.post("/pool", json={"set": "afr", "product": "afr-evil",
                                               "players": 2, "packs": 1, "seed": 1,
                                               "format": "text"}),
            "sheet": client.get("/sheet", params={"minigame": "mimic-match", "players": 2,
                                                  "set": "afr", "product": "afr-evil",
                                                  "seed": 1}),
        }  # fmt: skip
    for name, answer in answers.items():
        assert answer.status_code == 200, (name, answer.text)
        _clean(answer.text)
        json_answer = answer.headers["content-type"].startswith("application/json")
        if json_answer:
            json.loads(answer.text)  # still valid JSON
    code, cli, _ = run_cli(capsys, "--db", str(evil_db), "pool", "afr", "-p", "afr-evil",
                           "--players", "2", "--packs", "1", "--seed", "1")  # fmt: skip
    assert code == 0 and cli == answers["pool"].text  # byte-identical to the CLI's
    products = answers["products"].json()
    assert any(p["name"] == f"Evil {OSC52}" for p in products)  # the data itself unchanged


def test_an_unknown_command_with_a_control_character_is_escaped(capsys) -> None:
    code, out, err = run_cli(capsys, f"opn{OSC52}")
    assert code == 2 and out == ""
    _clean(err)
    assert "\\x1b]52" in err
