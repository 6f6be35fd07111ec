"""The md5 of every output over a fixed list of commands (issue 35): a refactor of the core
must leave each byte as it was.

Builds the test world (``tests/world.py``: AFR, KHM, ZNR, STX, MH2, their minigame sets and
booster data) and, when ``../shared`` is there, the real AFR database of the other benchmarks;
then runs, on each, ``open`` in every pack format (a few packs: the plain-Python draw; many:
the numpy batches), ``deal`` of every dealable game in every sheet format, ``odds`` (per pack,
per box, a card, simulated) and ``pool`` in every format, each twice: on a cold cache (the
product compiled) and a warm one (read back from ``<db>.cache``). Both runs must print the
same bytes; the script prints one md5 a command (of its exit code, stdout and stderr) and
the md5 of them all.

    .venv/bin/python bench/outputs.py [--out FILE] [--check FILE]

``--out`` writes the list (command, md5) to FILE; ``--check`` compares with such a list and
exits 1 naming every command whose output changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, SHARED, build_db  # bench/common.py: the script folder is on sys.path

BIN = Path(sys.executable).with_name("boosterkit")
PACK_FORMATS = ("text", "json", "jsonl", "csv", "draftmancer", "cubecobra", "parquet", "arrow")
SHEET_FORMATS = ("text", "md", "html", "json")
POOL_FORMATS = (
    "text", "md", "html", "json", "decklist", "arena", "moxfield", "mtgo", "dek",
    "cockatrice", "xmage", "forge", "mtgjson",
)  # fmt: skip
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}


def world_db(folder: Path) -> Path:
    sys.path.insert(0, str(ROOT / "tests"))
    import world  # tests/world.py

    files = world.write(folder / "world")
    return world.build_db(folder / "world.duckdb", files)


def commands(sets: list[str], games: list[dict]) -> list[list[str]]:
    out: list[list[str]] = []
    for s in sets:
        for kind in ("draft", "set", "collector"):
            for n, seed in ((1, 7), (3, 11), (40, 5), (300, 9)):
                for fmt in PACK_FORMATS if n in (3, 40) else ("jsonl",):
                    out.append(
                        ["open", s, "-p", kind, "-n", str(n), "--seed", str(seed), "-f", fmt]
                    )
        for kind in ("draft", "set"):
            out.append(["odds", s, "-p", kind, "-f", "json"])
            out.append(["odds", s, "-p", kind, "--per", "box", "-f", "csv"])
        out.append(["odds", s, "-p", "set", "--simulate", "3000", "--seed", "4", "-f", "json"])
        for fmt in POOL_FORMATS:
            out.append(["pool", s, "-n", "3", "--packs", "3", "--seed", "8", "-f", fmt])
        out.append(["products", s, "--json"])
    for g in games:
        if not g["dealable"]:
            continue
        for fmt in SHEET_FORMATS:
            players = str(max(g["players_min"], min(3, g["players_max"] or 3)))
            out.append(["deal", g["id"], "--players", players, "--seed", "2", "-f", fmt])
    return out


def run(db: Path, argv: list[str], out: Path) -> str:
    """md5 of (exit code, stdout or the file written, stderr) of ``boosterkit --db DB ARGV``."""
    binary = argv[-1] in ("parquet", "arrow")
    target = out / "o.bin"
    args = [str(BIN), "--db", str(db), *argv] + (["-o", str(target)] if binary else [])
    done = subprocess.run(args, capture_output=True, env=ENV, cwd=out)
    body = target.read_bytes() if binary and target.exists() else done.stdout
    stderr = done.stderr.replace(str(target).encode(), b"OUT")
    if binary:
        target.unlink(missing_ok=True)
    return hashlib.md5(b"%d\0%s\0%s" % (done.returncode, body, stderr)).hexdigest()


def measure(db: Path, cmds: list[list[str]], scratch: Path) -> dict[str, str]:
    sums: dict[str, str] = {}
    for argv in cmds:
        sums[" ".join(argv)] = run(db, argv, scratch)
    return sums


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--check", type=Path)
    args = parser.parse_args()
    listing = subprocess.run([str(BIN), "minigames", "--json"], capture_output=True, check=True)
    games = json.loads(listing.stdout)
    results: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        dbs = {"world": (world_db(folder), ["afr", "khm", "znr", "stx", "mh2"])}
        if SHARED.exists():
            (folder / "real").mkdir()
            dbs["real"] = (build_db(folder / "real"), ["afr"])
        scratch = folder / "scratch"
        scratch.mkdir()
        for name, (db, sets) in dbs.items():
            cmds = commands(sets, games)
            shutil.rmtree(Path(f"{db}").with_suffix(".cache"), ignore_errors=True)
            cold = measure(db, cmds, scratch)
            warm = measure(db, cmds, scratch)
            differ = [c for c in cmds if cold[" ".join(c)] != warm[" ".join(c)]]
            if differ:
                print(f"{name}: cold and warm cache differ: {differ}", file=sys.stderr)
                return 1
            results.update({f"{name}: {k}": v for k, v in cold.items()})
    for k, v in results.items():
        print(v, k)
    total = hashlib.md5("".join(f"{k}\0{v}\n" for k, v in results.items()).encode()).hexdigest()
    print(f"{len(results)} commands, md5 of all: {total}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    if args.check:
        want = json.loads(args.check.read_text())
        changed = [k for k in want if results.get(k) != want[k]]
        for k in changed:
            print(f"changed: {k}", file=sys.stderr)
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
