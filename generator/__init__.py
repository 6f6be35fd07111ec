"""Booster products and seeded packs. ``open_packs`` is the entry point for fixtures.

>>> packs = open_packs("afr", product="set", count=3, seed=7)  # doctest: +SKIP
>>> packs[0].items[0].uid  # doctest: +SKIP
'p1-1'

The product is resolved from the database once (``generator.products.resolve_product``);
the packs are drawn by the pure engine (``generator.engine``) without touching it again.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING, Union

import duckdb

from boosterkit.errors import InputError
from boosterkit.generator.model import Pack, ProductDef

if TYPE_CHECKING:
    from boosterkit.generator.cache import ProductCache

DbArg = Union[str, "os.PathLike[str]", duckdb.DuckDBPyConnection, None]
BATCH = 8192  # packs drawn per numpy batch when streaming

__all__ = ["BATCH", "iter_packs", "load_product", "new_seed", "open_packs"]


def new_seed() -> int:
    """A fresh random seed (from ``secrets``), small enough to type back in."""
    return secrets.randbits(32)


def load_product(set_code: str, product: str | None = None, db: DbArg = None) -> ProductDef:
    """The compiled ``ProductDef`` of ``set_code``/``product`` from the database ``db``.

    ``db`` is an open DuckDB connection, a path (opened read-only) or None for the
    configured database (``boosterkit.config.db_path()``).
    """
    from boosterkit.generator.products import resolve_product

    if isinstance(db, duckdb.DuckDBPyConnection):
        return resolve_product(db, set_code.lower(), product)
    from boosterkit import config
    from boosterkit.pipeline import db as dbmod

    con = dbmod.connect(config.db_path(db), read_only=True)
    try:
        return resolve_product(con, set_code.lower(), product)
    finally:
        con.close()


def iter_packs(
    set_code: str,
    product: str | None = None,
    count: int = 1,
    seed: int | None = None,
    db: DbArg = None,
    *,
    products: ProductCache | None = None,
) -> Iterator[Pack]:
    """Packs 1..``count`` one by one, drawn in batches of ``BATCH`` (for streaming output).

    ``products``: a ``generator.cache.ProductCache`` to take the compiled product from (and
    keep it in), for callers that open packs of the same database again and again.
    """
    from boosterkit.generator import engine

    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise InputError(f"count must be a whole number of packs (0 or more), got {count!r}")
    seed = new_seed() if seed is None else engine.check_seed(seed)
    if products is not None:
        compiled = products.get(set_code, product, db)
    else:
        compiled = engine.compile_product(load_product(set_code, product, db))
    for start in range(1, count + 1, BATCH):
        yield from engine.open_batch(compiled, seed, start, min(BATCH, count + 1 - start))


def open_packs(
    set_code: str,
    product: str | None = None,
    count: int = 1,
    seed: int | None = None,
    db: DbArg = None,
    *,
    products: ProductCache | None = None,
) -> list[Pack]:
    """Open ``count`` packs of ``set_code``'s ``product`` (a kind like ``set`` or a code).

    ``product`` None means the set's draft booster (or its only product). Pack *i* (1-based)
    depends only on (``seed``, *i*); ``seed`` None picks a random one, kept in ``Pack.seed``.
    Unknown set or product: ``NotFoundError`` listing what exists. ``products``: see
    ``iter_packs``.
    """
    return list(iter_packs(set_code, product, count, seed, db, products=products))
