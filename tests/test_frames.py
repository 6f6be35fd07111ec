"""Packs as polars DataFrames: ``open -f parquet|arrow`` and ``generator.frames.open_frame``."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import polars as pl
import pytest
from helpers import run_cli as run

from boosterkit.generator import open_packs
from boosterkit.generator.frames import open_frame, packs_frame
from boosterkit.generator.output import CSV_COLUMNS


def test_frame_is_one_row_per_item(built_db: Path) -> None:
    packs = open_packs("afr", "set", 20, 9, db=built_db)
    df = open_frame("afr", "set", 20, 9, db=built_db)
    assert df.columns == list(CSV_COLUMNS)
    assert df.height == sum(len(p.items) for p in packs) == 20 * 14
    assert df["uid"].to_list() == [i.uid for p in packs for i in p.items]
    assert df["colors"].to_list() == [list(i.colors) for p in packs for i in p.items]
    assert df.schema["foil"] == pl.Boolean and df.schema["mana_value"] == pl.Float64
    # per pack: one art card first, as the product says
    firsts = df.group_by("pack", maintain_order=True).first()
    assert set(firsts["kind"]) == {"art_card"}
    assert packs_frame([]).height == 0


@pytest.mark.parametrize("fmt, read", [("parquet", pl.read_parquet), ("arrow", pl.read_ipc)])
def test_open_binary_formats_equal_csv(capsys, built_db: Path, tmp_path: Path, fmt, read) -> None:
    target = tmp_path / f"packs.{fmt}"
    args = ["--db", str(built_db), "open", "afr", "-n", "6", "--seed", "11"]
    code, out, _ = run(capsys, *args, "-f", fmt, "-o", str(target))
    assert code == 0 and out == ""
    df = read(target)
    assert df.equals(open_frame("afr", None, 6, 11, db=built_db))
    _, text, _ = run(capsys, *args, "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert df["name"].fill_null("").to_list() == [r["name"] for r in rows]
    assert df["pack"].to_list() == [int(r["pack"]) for r in rows]
    # same seed, same bytes
    again = tmp_path / f"again.{fmt}"
    run(capsys, *args, "-f", fmt, "-o", str(again))
    assert again.read_bytes() == target.read_bytes()


def test_unwritable_output_is_one_line(capsys, built_db: Path, tmp_path: Path) -> None:
    code, _, err = run(capsys, "--db", str(built_db), "open", "afr", "-f", "parquet",
                       "-o", str(tmp_path / "no" / "dir.parquet"))  # fmt: skip
    assert code == 2 and err.startswith("boosterkit: error: -o ") and len(err.splitlines()) == 1


def test_prototype_path_equals_item_by_item(built_db: Path) -> None:
    """Untouched engine packs are gathered from the product's item prototypes; packs whose
    items were read are converted item by item: both give the same frame."""
    packs = open_packs("afr", "set", 120, 31, db=built_db)
    fast = packs_frame(packs)
    for p in packs:
        assert p.items  # materialise: the item-by-item path from here on
    slow = packs_frame(packs)
    assert fast.equals(slow) and fast.schema == slow.schema and fast.height == 120 * 14
    mixed = open_packs("afr", "draft", 2, 1, db=built_db) + packs[:1]
    assert packs_frame(mixed).height == sum(len(p.items) for p in mixed)
