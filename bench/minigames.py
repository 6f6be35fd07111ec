"""Minigame setup speed: deal, validate and render, against opening the same packs alone.

Builds a database from the shared MTGJSON AFR/MAFR files and the magic-sealed-data export in
a temporary folder, then for a few games, in the same run:

- baseline: ``open_packs(set, product, count, seed, db=con)`` — the packs a setup needs;
- ``deal(con, game, players, …)`` — the same packs plus the setup, end to end;
- ``engine.build_setup`` alone over packs opened beforehand (the engine's own cost);
- ``validate_setup(con, setup.to_dict())`` — re-opening the seeded packs, database look-ups
  and a replay of the steps; cold (as one CLI run: compiling the product is most of it) and
  with a handle's cache (as a long-running caller such as the service would);
- ``render_sheet(setup, "html")``;

and a sweep of every dealable game at every player count it allows (up to its ``limit`` or
``engine.MAX_TABLE_PLAYERS``): the slowest ``deal`` (cold, as one CLI run) per game, which must stay
under 1 s. A deal refused for a card real data lacks (The List) did the same work and counts.

Then the catalogue: reading and checking its 27 files with pydantic (``catalog.load_file``)
against parsing the same YAML alone, in process (median), with the compiled load
(``load_catalogue``: unchanged files come from ``minigames.compiled``) beside it; and a fresh
process that loads one game (``get_minigame``: the model's classes, the compiled game, the
file's hash) against one that only imports the filters and labels (CPU, median of 7).

Prints median milliseconds per setup. Targets: the engine under 10 ms and validation with a
product cache under 50 ms per setup (opening the packs, the generator's part, is the baseline
they compare to; cold validation includes opening the packs again, so it is about that
baseline plus the checks).
Exit status 1 when a target is missed.

    .venv/bin/python bench/minigames.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from common import build_db  # bench/common.py: the script folder is on sys.path

TARGET_ENGINE_MS, TARGET_VALIDATE_MS, TARGET_DEAL_MS = 10.0, 50.0, 1000.0
#: Checking the catalogue may cost at most half of parsing its YAML.
TARGET_CATALOGUE_RATIO = 1.5
CASES = [
    ("roll-for-initiative", 5),
    ("mimic-match", 4),
    ("mini-master", 2),
    ("urzas-blueprints", 8),
    ("base-race", 2),
]


def timed(fn, seeds: list[int]) -> float:
    """Median milliseconds of ``fn(seed)`` over ``seeds``."""
    times = []
    for seed in seeds:
        t = time.perf_counter()
        fn(seed)
        times.append((time.perf_counter() - t) * 1000)
    return sorted(times)[len(times) // 2]


def measure(con, game: str, players: int, rounds: int) -> dict[str, float]:
    """Median ms of each stage for ``game`` at ``players`` on AFR, over the first ``rounds``
    seeds that deal (the bench database lacks The List: some seeds are refused)."""
    from boosterkit.cache import Cache
    from boosterkit.database import Database
    from boosterkit.generator import open_packs
    from boosterkit.minigames import SetupError, deal, render_sheet, validate_setup
    from boosterkit.minigames.catalog import get_minigame
    from boosterkit.minigames.engine import build_setup

    spec = get_minigame(game)
    n, product = spec.pack_count(players), spec.product
    setups = {}
    for s in range(1, 20 * rounds):
        try:
            setups[s] = deal(con, game, players, "afr", seed=s).to_dict()
        except SetupError:
            continue
        if len(setups) == rounds:
            break
    seeds = sorted(setups)
    opened = {s: open_packs("afr", product, n, s, db=con) for s in seeds}
    one = deal(con, game, players, "afr", seed=seeds[0])
    cached = Database.of(con, cache=Cache())
    return {
        "packs": n,
        "open": timed(lambda s: open_packs("afr", product, n, s, db=con), seeds),
        "deal": timed(lambda s: deal(con, game, players, "afr", seed=s), seeds),
        "engine": timed(
            lambda s: build_setup(spec, opened[s], players, s, set_code="afr", product=product),
            seeds,
        ),
        "validate": timed(lambda s: validate_setup(con, setups[s]), seeds),
        "validate_cached": timed(lambda s: validate_setup(cached, setups[s]), seeds),
        "html": timed(lambda s: render_sheet(one, "html"), seeds),
    }


def sweep(con) -> tuple[list[tuple[str, str, float, int, int, int]], float]:
    """Per dealable game: (id, counts, slowest deal ms, at players, deals, refused)."""
    from boosterkit.errors import BoosterkitError
    from boosterkit.minigames import deal, list_minigames
    from boosterkit.minigames.engine import MAX_TABLE_PLAYERS

    rows, worst = [], 0.0
    for g in list_minigames():
        if not g["dealable"]:
            continue
        hi = g["players_max"] or g["players_limit"] or MAX_TABLE_PLAYERS
        slowest, at, refused = 0.0, 0, 0
        for n in range(g["players_min"], hi + 1):
            t = time.perf_counter()
            try:
                deal(con, g["id"], n, "afr", seed=n)
            except BoosterkitError:
                refused += 1
            ms = (time.perf_counter() - t) * 1000
            if ms > slowest:
                slowest, at = ms, n
        rows.append(
            (g["id"], f"{g['players_min']}-{hi}", slowest, at, hi - g["players_min"] + 1, refused)
        )
        worst = max(worst, slowest)
    return rows, worst


def catalogue(rounds: int = 15) -> float:
    """Print the catalogue's load figures; the ratio load / parse."""
    import os
    import subprocess

    import yaml

    from boosterkit.minigames import catalog

    files = sorted(catalog.CATALOGUE_DIR.glob("*.yaml"))

    def parse() -> None:
        for f in files:
            yaml.load(f.read_text(encoding="utf-8"), Loader=catalog._loader())  # noqa: S506

    catalog.checker()  # the model's validator is built once per process
    parsed = timed(lambda _: parse(), list(range(rounds)))
    loaded = timed(lambda _: [catalog.load_file(f) for f in files], list(range(rounds)))
    kept = timed(lambda _: catalog.load_catalogue.__wrapped__(), list(range(rounds)))

    def cpu(code: str) -> float:
        times = []
        for _ in range(7):
            proc = subprocess.Popen([sys.executable, "-c", code])
            _, _, usage = os.wait4(proc.pid, 0)
            times.append((usage.ru_utime + usage.ru_stime) * 1000)
        return sorted(times)[len(times) // 2]

    # the difference is the catalogue's own cost: its model, the compiled game, the hashes
    deps = "import boosterkit.minigames.filters, boosterkit.minigames.labels"
    base = cpu(deps)
    one = cpu(f"{deps}; from boosterkit.minigames.catalog import get_minigame as g; g('base-race')")
    print(
        f"\ncatalogue: load_file of 27 files (checked) {loaded:.2f} ms vs YAML parse alone "
        f"{parsed:.2f} ms: {loaded / parsed:.2f}x (target under {TARGET_CATALOGUE_RATIO}x); "
        f"load_catalogue (compiled) {kept:.2f} ms; "
        f"a fresh process loading one game {one:.0f} ms CPU vs importing what it needs "
        f"{base:.0f} ms (+{one - base:.0f} ms)"
    )
    return loaded / parsed


def main() -> int:
    from boosterkit.pipeline import db

    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=40)
    args = ap.parse_args()
    missed = False
    with tempfile.TemporaryDirectory() as tmp:
        con = db.connect(build_db(Path(tmp)), read_only=True)
        print(
            f"{'game':<22} {'players':>7} {'packs':>5} {'open ms':>8} {'deal ms':>8} "
            f"{'engine ms':>9} {'validate ms':>11} {'cached':>7} {'html ms':>8}"
        )
        for game, players in CASES:
            m = measure(con, game, players, args.rounds)
            print(
                f"{game:<22} {players:>7} {m['packs']:>5} {m['open']:>8.2f} {m['deal']:>8.2f} "
                f"{m['engine']:>9.2f} {m['validate']:>11.2f} {m['validate_cached']:>7.2f} "
                f"{m['html']:>8.2f}"
            )
            missed |= m["engine"] > TARGET_ENGINE_MS or m["validate_cached"] > TARGET_VALIDATE_MS
        rows, worst = sweep(con)
        print(
            f"\n{'game (every allowed count, AFR)':<32} {'players':>8} {'slowest ms':>10} "
            f"{'at':>4} {'deals':>6} {'refused':>7}"
        )
        for game, span, ms, at, n, refused in rows:
            print(f"{game:<32} {span:>8} {ms:>10.1f} {at:>4} {n:>6} {refused:>7}")
        missed |= worst > TARGET_DEAL_MS
        missed |= catalogue() > TARGET_CATALOGUE_RATIO
        print(
            f"slowest deal of any game at any allowed count: {worst:.0f} ms "
            f"(target under {TARGET_DEAL_MS:.0f} ms)"
        )
        con.close()
    print(
        f"targets: engine under {TARGET_ENGINE_MS:.0f} ms, validate (cached) under "
        f"{TARGET_VALIDATE_MS:.0f} ms (medians): " + ("MISSED" if missed else "met")
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
