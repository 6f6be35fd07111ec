"""Compiled products in the database's cache (``boosterkit.cache``): each product resolved
from the database and compiled once per database content and generator code, because that
costs tens to hundreds of milliseconds and drawing a few packs well under one; kept as JSON
beside the database, the next process draws from it without opening the database (or
importing numpy).

A product asked by kind (``set``) or as the set's default is kept under its code too
(``afr-set``). A product built from other data or other generator code is never served: a
changed card is in the next pack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from boosterkit.cache import source_hash
from boosterkit.database import Database
from boosterkit.generator.engine import CompiledProduct, compile_product
from boosterkit.generator.model import ProductDef

if TYPE_CHECKING:
    from boosterkit.database import DbLike
    from boosterkit.pipeline.db import Connection

__all__ = ["compiled", "compiled_product", "generator_code", "load_product"]


def generator_code() -> str:
    """The hash of the generator's sources: what compiles products (and computes from them)."""
    return source_hash("boosterkit.generator")


def load_product(set_code: str, product: str | None = None, db: DbLike = None) -> ProductDef:
    """The ``ProductDef`` of ``set_code``/``product``, resolved from the database ``db``
    (a ``Database``, a path, a connection, or None for the configured one); always reads it."""
    from boosterkit.generator.products import resolve_product  # startup: as in ``compiled``

    with Database.of(db).read() as con:
        return resolve_product(con, set_code.lower(), product)


def compiled(database: Database, set_code: str, product: str | None) -> CompiledProduct:
    """The compiled product of ``set_code``/``product`` (a kind, a code, or None: the
    default), from ``database``'s cache or compiled now (and kept)."""

    def build(con: Connection) -> CompiledProduct:
        # startup: resolving imports DuckDB and the booster YAML; a kept product needs neither
        from boosterkit.generator.products import resolve_product

        return compile_product(resolve_product(con, set_code.lower(), product))

    return database.cached().value(
        "product",
        CompiledProduct,
        build,
        (set_code.strip(), product),
        code=generator_code(),
        also=lambda cp: (set_code.strip(), cp.product.code),
    )


def compiled_product(
    set_code: str, product: str | None = None, db: DbLike = None
) -> CompiledProduct:
    """``compiled`` for any ``db`` an entry point takes."""
    return compiled(Database.of(db), set_code, product)
