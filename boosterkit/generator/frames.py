"""Packs as polars DataFrames: one row per item, Parquet and Arrow IPC files.

For notebooks::

    from boosterkit.generator.frames import open_frame
    df = open_frame("afr", product="set", count=1000, seed=7)
    df.group_by("rarity").len()

Columns are ``generator.output.CSV_COLUMNS`` (``pack`` … ``gold_stamped``) with their
natural types (``colors`` a list of strings, booleans as booleans). polars is imported here
only, so the CLI's ``--help`` does not pay for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from boosterkit.formats import FRAMES
from boosterkit.generator import iter_packs
from boosterkit.generator._np import np
from boosterkit.generator.engine import LazyPack
from boosterkit.generator.model import PROTO_FIELDS, Pack
from boosterkit.generator.output import CSV_COLUMNS, ITEM_COLUMNS, PACK_COLUMNS, write_frame

if TYPE_CHECKING:
    import polars as pl

    from boosterkit.database import DbLike

#: The names of the frame formats (``formats.FRAMES``; ``write_frame`` writes them).
FRAME_FORMATS = FRAMES.names

__all__ = ["FRAME_FORMATS", "open_frame", "packs_frame", "rows_frame", "write_frame"]


def _schema() -> dict[str, Any]:
    import polars as pl

    types: dict[str, Any] = {c: pl.Utf8 for c in CSV_COLUMNS}
    types.update(
        {
            "pack": pl.Int64,
            "variant": pl.Int64,
            "seed": pl.UInt64,
            "foil": pl.Boolean,
            "magic_back": pl.Boolean,
            "resolved": pl.Boolean,
            "gold_stamped": pl.Boolean,
            "mana_value": pl.Float64,
            "colors": pl.List(pl.Utf8),
        }
    )
    return types


def _fast_frame(packs: list[Pack]) -> pl.DataFrame | None:
    """The frame of untouched engine packs of one compiled product, built from its item
    prototypes (one row per distinct item, gathered by id) instead of item by item."""
    import polars as pl

    cp = getattr(packs[0], "_compiled", None) if packs else None
    lazy = [p for p in packs if type(p) is LazyPack and p._compiled is cp and p._pristine()]
    if cp is None or len(lazy) != len(packs):
        return None
    schema = _schema()
    fields = PROTO_FIELDS
    protos = pl.DataFrame(
        [{c: t.get(c) for c in fields} for t in cp.templates], schema={c: schema[c] for c in fields}
    )
    lengths = np.fromiter((len(p._protos) for p in lazy), dtype=np.int64, count=len(lazy))
    ids = np.fromiter(
        (x for p in lazy for x in p._protos), dtype=np.int64, count=int(lengths.sum())
    )
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    position = np.arange(len(ids), dtype=np.int64) - starts + 1
    head = pl.DataFrame({
        "pack": np.repeat([p.index for p in packs], lengths),
        "variant": np.repeat([p.variant for p in packs], lengths),
        "set_code": np.repeat([p.set for p in packs], lengths),
        "product": np.repeat([p.product for p in packs], lengths),
        "seed": np.repeat(np.array([p.seed for p in packs], dtype=np.uint64), lengths),
        "position": position,
    })  # fmt: skip
    uid = pl.format("p{}-{}", pl.col("pack"), pl.col("position")).alias("uid")
    frame = pl.concat([head.with_columns(uid).drop("position"), protos[ids]], how="horizontal")
    return frame.cast({c: schema[c] for c in CSV_COLUMNS}).select(CSV_COLUMNS)


def packs_frame(packs: Iterable[Pack]) -> pl.DataFrame:
    """One row per item of ``packs``, columns ``CSV_COLUMNS`` (the same as ``open -f csv``)."""
    import polars as pl

    packs = list(packs)
    fast = _fast_frame(packs)
    if fast is not None:
        return fast
    cols: dict[str, list[Any]] = {c: [] for c in CSV_COLUMNS}
    for pack in packs:
        d = pack.to_dict()
        head = (d["index"], d["variant"], d["set"], d["product"], d["seed"])
        for item in d["items"]:
            for c, v in zip(PACK_COLUMNS, head):
                cols[c].append(v)
            for c in ITEM_COLUMNS:
                cols[c].append(item.get(c))
    return pl.DataFrame(cols, schema=_schema())


def open_frame(
    set_code: str,
    product: str | None = None,
    count: int = 1,
    seed: int | None = None,
    db: DbLike = None,
) -> pl.DataFrame:
    """``open_packs(...)`` as a DataFrame, one row per item."""

    return packs_frame(iter_packs(set_code, product, count, seed, db))


def rows_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """A list of flat dicts (odds rows) as a DataFrame, columns in first-seen order."""
    import polars as pl

    cols: dict[str, None] = {}
    for r in rows:
        cols.update(dict.fromkeys(r))
    return pl.DataFrame([{c: r.get(c) for c in cols} for r in rows], infer_schema_length=None)
