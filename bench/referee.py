"""Referee speed: simulating a game against dealing its setup, per game and policy.

Builds a database from the shared MTGJSON AFR/MAFR files and the magic-sealed-data export in
a temporary folder, then for each refereed game, in the same run:

- baseline: ``deal(db, game, players, "afr", seed=s)`` for K seeds, ``db`` one handle — the
  cost of dealing a setup, as ``simulate`` pays it (the handle's cache shared);
- ``play_out(setup, policy)`` over those K setups — playing each to the end (the referee's
  own cost, including reading the setup);
- ``simulate(...)`` end to end: games per second.

Prints median milliseconds per game over 5 batches and the median ratio play / deal. Target: playing a game costs
less than dealing it (ratio < 1). Exit status 1 when the target is missed.

    .venv/bin/python bench/referee.py [--games 300]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from common import build_db  # bench/common.py: the script folder is on sys.path

CASES = [("roll-for-initiative", 4), ("base-race", 2), ("mimic-match", 3)]
POLICIES = ("random", "greedy")


def measure(
    con, game: str, players: int, policy: str, games: int, rounds: int = 5
) -> dict[str, float]:
    """Median over ``rounds`` batches of ms per game dealing and playing (and their ratio,
    batch by batch: dealing and playing are measured back to back, so a busy machine slows
    both), and simulated games per second."""
    from boosterkit.cache import Cache
    from boosterkit.database import Database
    from boosterkit.minigames import SetupError, deal
    from boosterkit.minigames.referee.common import CardStats
    from boosterkit.minigames.referee.runner import play_out, simulate

    cache, stats = Database.of(con, cache=Cache()), CardStats(con)
    size = max(1, games // rounds)
    seeds: list[int] = []  # seeds whose packs make a setup (not one with a List card in play)
    for s in range(1, 100 * size * rounds):
        try:
            deal(cache, game, players, "afr", seed=s)
        except SetupError:
            continue
        seeds.append(s)
        if len(seeds) == size * rounds:
            break
    deals, plays, ratios = [], [], []
    for r in range(rounds):
        t = time.perf_counter()
        setups = [
            deal(cache, game, players, "afr", seed=s).to_dict()
            for s in seeds[r * size : (r + 1) * size]
        ]
        deals.append((time.perf_counter() - t) * 1000 / size)
        t = time.perf_counter()
        for setup in setups:
            play_out(setup, policy, stats)
        plays.append((time.perf_counter() - t) * 1000 / size)
        ratios.append(plays[-1] / deals[-1])
    t = time.perf_counter()
    simulate(cache, game, players, "afr", seed=1, games=size, policy=policy)
    per_second = size / (time.perf_counter() - t)
    median = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    return {
        "deal": median(deals),
        "play": median(plays),
        "ratio": median(ratios),
        "per_second": per_second,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    from boosterkit.pipeline import db

    with tempfile.TemporaryDirectory() as tmp:
        con = db.connect(build_db(Path(tmp)), read_only=True)
        print(
            f"{'game':<22}{'policy':<8}{'deal ms':>9}{'play ms':>9}{'play/deal':>11}{'games/s':>10}"
        )
        missed = []
        for game, players in CASES:
            for policy in POLICIES:
                m = measure(con, game, players, policy, args.games)
                print(
                    f"{game:<22}{policy:<8}{m['deal']:>9.2f}{m['play']:>9.2f}"
                    f"{m['ratio']:>10.2f}x{m['per_second']:>10.0f}"
                )
                if m["ratio"] >= 1:
                    missed.append(f"{game} ({policy})")
        con.close()
    if missed:
        print(f"target missed (play >= deal): {', '.join(missed)}")
        return 1
    print("target met: simulating a game costs less than dealing it, for every game and policy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
