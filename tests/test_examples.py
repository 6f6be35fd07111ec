"""Every shell example of the README and docs/ says whether it runs offline, and those that do
run here: each page's `<!-- runs -->` blocks in order, as one shell session in a temporary
folder beside a `../shared` link, with `boosterkit` on PATH (the README's with no database:
the bundled sample). A `console` block's shown output is checked (a line `...` stands for any
lines); a `python` block marked so is a test file, run by pytest with the plugin's
`--boosterkit-db` (the session's database; the README's: none, the sample)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT, SHARED, shared_path

FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
MARK = re.compile(r"<!-- (runs|not run: [^>]*\w[^>]*) -->\n$")
SHELL = ("sh", "console")
RUNNABLE_LANGS = (*SHELL, "python")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    body: str
    runs: bool | None  # None: no mark (a failure of the test below)


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        if m.group(1) not in RUNNABLE_LANGS:
            continue
        line = text.count("\n", 0, m.start()) + 1
        mark = MARK.search(text, 0, m.start())
        runs = None if mark is None or mark.end() != m.start() else mark.group(1) == "runs"
        if m.group(1) == "python" and not runs:
            continue  # a Python snippet may be a fragment; only marked ones run
        out.append(Block(path.name, line, m.group(1), m.group(2), runs))
    return out


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_shell_example_says_whether_it_runs() -> None:
    found = [b for p in PAGES for b in blocks(p)]
    unmarked = [f"{b.page}:{b.line}" for b in found if b.runs is None]
    assert not unmarked, (
        f"shell examples without `<!-- runs -->` or `<!-- not run: why -->` before them: {unmarked}"
    )
    assert sum(b.runs for b in found) >= 10, "the examples that run are the test's subject"


def console_steps(body: str) -> list[tuple[str, str]]:
    """`$ command` lines and the output shown under each."""
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
        else:
            raise AssertionError(f"console output before any `$ ` command: {line!r}")
    return [(cmd, "\n".join(out)) for cmd, out in steps]


def matches(shown: str, got: str) -> bool:
    pattern = "\n".join(".*" if line == "..." else re.escape(line) for line in shown.splitlines())
    return re.fullmatch(pattern, got.rstrip("\n"), re.S) is not None


def script(page_blocks: list[Block], outdir: Path) -> tuple[str, list[tuple[str, str, Path]]]:
    lines = ["set -euo pipefail", "trap 'echo \"example failed: $BASH_COMMAND\" >&2' ERR"]
    checks: list[tuple[str, str, Path]] = []
    for b in page_blocks:
        lines.append(f"# {b.page}:{b.line}")
        if b.lang == "sh":
            lines.append(b.body)
            continue
        if b.lang == "python":
            test = f"test_example_{b.line}.py"
            lines += [f"cat > {test} <<'PYTHON'", b.body.rstrip("\n"), "PYTHON"]
            lines.append(
                "python -m pytest -q -p no:cacheprovider --boosterkit-require-db "
                f'${{BOOSTERKIT_DB:+--boosterkit-db "$BOOSTERKIT_DB"}} {test}'
            )
            continue
        for cmd, shown in console_steps(b.body):
            out = outdir / f"{len(checks)}.out"
            lines.append(f"{{ {cmd} ; }} > {out} 2>&1 || true")
            checks.append((cmd, shown, out))
    return "\n".join(lines) + "\n", checks


@pytest.fixture(scope="session")
def examples_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What the pages' examples assume is loaded, made by the commands a user runs."""
    mtgjson = [
        shared_path("mtgjson", f"{c}.json")
        for c in ("AFR", "MAFR", "PLIST", "ZNR", "MZNR", "KHM", "MKHM")
    ]
    db = tmp_path_factory.mktemp("examples") / "examples.duckdb"
    env = {**os.environ, "BOOSTERKIT_DB": str(db)}
    for args in (
        ["import", "mtgjson", *map(str, mtgjson)],
        ["import", "collation", str(shared_path("boosters", "sealed_basic_data.json"))],
        ["sync", "--file", str(shared_path("cards", "one.unique-cards.json"))],
    ):
        subprocess.run([boosterkit(), *args], env=env, check=True, capture_output=True)
    return db


def boosterkit() -> str:
    exe = Path(sys.executable).parent / "boosterkit"
    if not exe.exists():
        pytest.skip(f"no boosterkit command beside {sys.executable} (pip install -e .)")
    return str(exe)


RUNNABLE = [p for p in PAGES if any(b.runs for b in blocks(p))]


@pytest.fixture(scope="module")
def warm_bin(tmp_path_factory: pytest.TempPathFactory):
    """A folder whose ``boosterkit`` hands each command to a process that has imported the
    command line already (``warm_cli``: a child forked per command, with the command's
    arguments, folder, environment and streams): the pages' ~100 commands each spent
    0.15-0.3 s of CPU starting Python. The console script itself is run by the wheel test
    (``test_wheel.py``) and wherever ``warm_cli`` cannot stand in for it."""
    import warm_cli

    folder = tmp_path_factory.mktemp("warm")
    sock = folder / "boosterkit.sock"
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(folder)}
    server = subprocess.Popen(
        [sys.executable, warm_cli.__file__, str(sock)], env=env, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while not sock.exists():
            assert server.poll() is None, server.stderr.read().decode()
            assert time.monotonic() < deadline, "the warm boosterkit did not start in 60 s"
            time.sleep(0.05)
        script = folder / "bin" / "boosterkit"
        script.parent.mkdir()
        script.write_text(warm_cli.client(sock, Path(boosterkit()), env))
        script.chmod(0o755)
        yield script.parent
    finally:
        server.terminate()
        server.wait(timeout=60)


@pytest.mark.slow
@pytest.mark.real_data
@pytest.mark.parametrize("page", RUNNABLE, ids=[p.name for p in RUNNABLE])
def test_examples_run(
    page: Path, tmp_path: Path, request: pytest.FixtureRequest, warm_bin: Path
) -> None:
    """The README's examples run as a new user's do: with no database, on the bundled
    sample; the other pages' on the database their commands load."""
    db = None if page.name == "README.md" else request.getfixturevalue("examples_db")
    work, home, tmp, out = (tmp_path / d for d in ("work", "home", "tmp", "out"))
    for d in (work, home, tmp, out):
        d.mkdir()
    (tmp_path / "shared").symlink_to(SHARED.resolve())
    bindir = Path(boosterkit()).parent
    path = f"{warm_bin}:{bindir}"
    (work / ".venv" / "bin").mkdir(parents=True)
    (work / ".venv" / "bin" / "activate").write_text(f'export PATH="{path}:$PATH"\n')
    text, checks = script([b for b in blocks(page) if b.runs], out)
    env = {
        "PATH": f"{path}:/usr/bin:/bin",
        "HOME": str(home),  # the user data folder holds no database
        "TMPDIR": str(tmp),
        "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"],  # the run's sample, built once
        "LANG": "C.UTF-8",
        "SCRYFALL_API_URL": "http://127.0.0.1:9/",  # nothing listens: an example never goes out
        "MTGJSON_API_URL": "http://127.0.0.1:9/",
    }
    if db is not None:
        own_db = tmp_path / "db" / db.name
        own_db.parent.mkdir()
        shutil.copy(db, own_db)
        shutil.copytree(db.with_suffix(".cache"), own_db.with_suffix(".cache"))
        env["BOOSTERKIT_DB"] = str(own_db)
    done = subprocess.run(
        ["bash", "-c", text], cwd=work, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"{page.name}: {done.stderr[-3000:]}"
    for cmd, shown, path in checks:
        got = path.read_text(encoding="utf-8")
        assert matches(shown, got), f"{page.name}: `{cmd}` printed\n{got}\nnot\n{shown}"
