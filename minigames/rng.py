"""A counter-based random source that gives the same numbers on every Python version.

Draw ``n`` of stream ``s`` under seed ``k`` is BLAKE2b("k/s/n") read as a 64-bit integer;
``below`` uses rejection sampling so every outcome is exactly equally likely. Python's
``random`` module and ``hash()`` are never used: their outputs may change between versions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
_SPAN = 1 << 64


class Rng:
    """Deterministic draws for one (seed, stream) pair."""

    def __init__(self, seed: int, stream: str) -> None:
        self.seed = seed
        self.stream = stream
        self.counter = 0

    def _next64(self) -> int:
        key = f"{self.seed}/{self.stream}/{self.counter}".encode()
        self.counter += 1
        return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = _SPAN - _SPAN % n
        while True:
            x = self._next64()
            if x < limit:
                return x % n

    def roll(self, faces: int) -> int:
        """A die roll: uniform in ``[1, faces]``."""
        return self.below(faces) + 1

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A uniformly shuffled copy (Fisher–Yates)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def choose(self, items: Sequence[T]) -> T:
        """One element, uniformly."""
        return items[self.below(len(items))]
