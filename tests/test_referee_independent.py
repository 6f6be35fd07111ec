"""The referee agrees with an independent one (issue 30): simulated games of Roll for
Initiative, Base Race and Mimic Match, logged, replayed by ``independent_referee`` (written
from the cards and the documented rulings by the issue-30 audit, importing nothing of
boosterkit), give the same winner, scores, dice, ending and turns."""

from __future__ import annotations

from pathlib import Path

import independent_referee
import pytest

from boosterkit.minigames.referee.runner import simulate

#: (game, players): every refereed game at its smallest and a larger table.
TABLES = [("roll-for-initiative", 2), ("roll-for-initiative", 5), ("roll-for-initiative", 12),
          ("base-race", 2), ("mimic-match", 2), ("mimic-match", 4)]  # fmt: skip


@pytest.mark.parametrize(("game", "players"), TABLES, ids=[f"{g}-{n}" for g, n in TABLES])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_the_referee_agrees_with_an_independent_one(
    real_db: Path, real_con, tmp_path: Path, game: str, players: int, policy: str
) -> None:
    independent_referee.use(real_con)
    replayed = 0
    for k, set_code in enumerate(("afr", "znr", "khm")):
        folder = tmp_path / set_code
        # Draft Boosters hold no List card (not in the shared files): every setup deals
        stats = simulate(real_db, game, players, set_code, "draft", seed=3000 + 7 * k + players,
                         games=25, policy=policy, log_dir=folder)  # fmt: skip
        games, disagreements = independent_referee.replay_folder(folder)
        assert not disagreements, disagreements[:3]
        assert games == stats["dealt"] > 0
        replayed += games
    assert replayed >= 40
