"""What the benchmark scripts share: where the real data is, and a database built from it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "scryfall"


def build_db(folder: Path) -> Path:
    """A database with AFR, its minigames and the sealed-data products, in ``folder``."""
    from boosterkit.pipeline import db
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    path = folder / "bench.duckdb"
    con = db.connect(path)
    import_mtgjson(con, [SHARED / "mtgjson" / f"{c}.json" for c in ("AFR", "MAFR")])
    import_collation(con, SHARED / "boosters" / "sealed_basic_data.json")
    con.close()
    return path
