"""Named random streams (the minigames', a sealed product's choices, chaos packs), built on the
generator's counter-based splitmix64.

A stream key is derived once from (seed, stream name) with ``generator.rng.mix64``; draw
``n`` of the stream is ``generator.rng.draw(key, n)``. ``below`` uses rejection sampling so
every outcome is exactly equally likely. Python's ``random`` module and ``hash()`` are never
used: their outputs may change between versions.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TypeVar

from boosterkit.generator.rng import _M1, _M2, GOLDEN, MASK64, PACK_STRIDE, draw, mix64

T = TypeVar("T")
_SPAN = 1 << 64


def stream_key(seed: int, stream: str) -> int:
    """The 64-bit key of stream ``stream`` under ``seed``: the name's UTF-8 bytes folded
    8 at a time through ``mix64``, then its length (so names never collide by padding)."""
    key = mix64(seed)
    words, size = _words(stream)
    for word in words:
        key = mix64((key ^ word) + PACK_STRIDE)
    return mix64(key + size * PACK_STRIDE) & MASK64


@functools.lru_cache(maxsize=1024)
def _words(stream: str) -> tuple[tuple[int, ...], int]:
    """``stream``'s UTF-8 bytes as little-endian 8-byte words, and their count of bytes."""
    data = stream.encode("utf-8")
    words = tuple(int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data), 8))
    return words, len(data)


class Rng:
    """Deterministic draws for one (seed, stream) pair."""

    def __init__(self, seed: int, stream: str) -> None:
        self.seed = seed
        self.stream = stream
        self.key = stream_key(seed, stream)
        self.counter = 0

    def _next64(self) -> int:
        x = draw(self.key, self.counter)
        self.counter += 1
        return x

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
        """A uniformly shuffled copy (Fisher–Yates): ``below(i + 1)`` for each ``i`` from the
        end, its draws written out (a shuffle of a pack's cards takes dozens)."""
        out = list(items)
        key, counter = self.key, self.counter
        for i in range(len(out) - 1, 0, -1):
            limit = _SPAN - _SPAN % (i + 1)
            while True:
                z = (key + (counter + 1) * GOLDEN) & MASK64  # draw(key, counter)
                z = ((z ^ (z >> 30)) * _M1) & MASK64
                z = ((z ^ (z >> 27)) * _M2) & MASK64
                z ^= z >> 31
                counter += 1
                if z < limit:
                    break
            j = z % (i + 1)
            out[i], out[j] = out[j], out[i]
        self.counter = counter
        return out

    def choose(self, items: Sequence[T]) -> T:
        """One element, uniformly."""
        return items[self.below(len(items))]
