"""Opening packs: ``open_packs`` (a list) and ``iter_packs`` (streamed in batches).

The compiled product comes from the database's cache (``generator.cache.compiled``: kept in
memory and beside the database, rebuilt only when the data changed); the packs are drawn by
the pure engine (``generator.engine``) without touching the database again.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING

from boosterkit.database import Database
from boosterkit.errors import InputError
from boosterkit.generator.cache import compiled, load_product
from boosterkit.generator.engine import CompiledProduct, open_compiled
from boosterkit.generator.model import Pack
from boosterkit.generator.rng import check_seed

if TYPE_CHECKING:
    from boosterkit.database import DbLike

BATCH = 8192  # packs drawn per numpy batch when streaming
#: Cards drawn per batch at most: a product of bigger packs is drawn in fewer packs a batch
#: (8,192 packs of 16 cards; a pack of 1,000 cards: 131 a batch), so memory stays bounded.
BATCH_CARDS = BATCH * 16

__all__ = [
    "BATCH",
    "PackStream",
    "batch_size",
    "draw_packs",
    "iter_packs",
    "load_product",
    "new_seed",
    "open_packs",
    "prepare",
]


def new_seed() -> int:
    """A fresh random seed (from ``secrets``), small enough to type back in."""
    return secrets.randbits(32)


def iter_packs(
    set_code: str,
    product: str | None = None,
    count: int = 1,
    seed: int | None = None,
    db: DbLike = None,
) -> PackStream:
    """Packs 1..``count`` one by one, drawn in batches of ``BATCH`` (for streaming output):
    a ``PackStream``. ``db`` as ``open_packs`` takes it; errors as ``open_packs``, on the
    first pack taken (or ``PackStream.resolve``)."""
    return PackStream(set_code, product, count, seed, Database.of(db))


class PackStream(Iterator[Pack]):
    """``iter_packs``' packs. A writer handed the whole run (no pack taken yet) may draw it
    itself, batch by batch, without a ``Pack`` object per pack (``run``: ``open -f jsonl``)."""

    def __init__(
        self, set_code: str, product: str | None, count: int, seed: int | None, db: Database
    ) -> None:
        self._args = (set_code, product, count, seed, db)
        self._resolved: tuple[CompiledProduct, int] | None = None
        self._packs: Iterator[Pack] | None = None

    def resolve(self) -> tuple[CompiledProduct, int]:
        """The compiled product and the seed (checked, or new): what fails, fails here."""
        if self._resolved is None:
            set_code, product, count, seed, db = self._args
            self._resolved = prepare(set_code, product, count, seed, db)
        return self._resolved

    def run(self) -> tuple[CompiledProduct, int, int] | None:
        """(product, seed, count) of the whole run while no pack was taken, else None."""
        if self._packs is not None:
            return None
        cp, seed = self.resolve()
        return cp, seed, self._args[2]

    def __next__(self) -> Pack:
        if self._packs is None:
            self._packs = self._draw()
        return next(self._packs)

    def _draw(self) -> Iterator[Pack]:
        cp, seed = self.resolve()
        count = self._args[2]
        size = batch_size(cp)
        for start in range(1, count + 1, size):
            batch = open_compiled(cp, seed, start, min(size, count + 1 - start))
            batch.reverse()
            while batch:  # hand each pack over: a consumer that drops it frees it now
                yield batch.pop()


def open_packs(
    set_code: str,
    product: str | None = None,
    count: int = 1,
    seed: int | None = None,
    db: DbLike = None,
) -> list[Pack]:
    """Open ``count`` packs of ``set_code``'s ``product`` (a kind like ``set`` or a code).

    ``product`` None means the set's draft booster (or its only product). Pack *i* (1-based)
    depends only on (``seed``, *i*); ``seed`` None picks a random one, kept in ``Pack.seed``.
    ``db``: a ``boosterkit.database.Database`` (its cache keeps the compiled product), or a
    database path (opened read-only only when the product is not cached already), an open
    DuckDB connection, or None for the configured database. Unknown set or product:
    ``NotFoundError`` listing what exists.
    """
    cp, seed = prepare(set_code, product, count, seed, Database.of(db))
    return draw_packs(cp, seed, count)


def draw_packs(cp: CompiledProduct, seed: int, count: int) -> list[Pack]:
    """Packs 1..``count`` of a compiled product and a checked seed (as ``prepare`` gives
    them), drawn in batches of ``batch_size``."""
    packs: list[Pack] = []
    size = batch_size(cp)
    for start in range(1, count + 1, size):
        packs += open_compiled(cp, seed, start, min(size, count + 1 - start))
    return packs


def batch_size(cp: CompiledProduct) -> int:
    """Packs drawn at once: ``BATCH``, fewer for packs of more than 16 cards (``BATCH_CARDS``)."""
    return max(1, min(BATCH, BATCH_CARDS // max(1, cp.pack_cards)))


def prepare(
    set_code: str,
    product: str | None,
    count: int,
    seed: int | None,
    database: Database,
) -> tuple[CompiledProduct, int]:
    """The compiled product ``open_packs`` would draw ``count`` packs from, and the checked
    (or new) seed, after checking ``count``: what a caller drawing in other processes hands
    them (``generator.parallel``). Errors as ``open_packs``."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise InputError(f"count must be a whole number of packs (0 or more), got {count!r}")
    seed = new_seed() if seed is None else check_seed(seed)
    return compiled(database, set_code, product), seed
