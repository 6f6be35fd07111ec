"""A counter-based random generator: every number is a pure function of (seed, pack, counter).

Pack *i* of a run uses the key ``pack_key(seed, i)``; its *j*-th random number is
``mix64(key + (j + 1) * GOLDEN)``, the splitmix64 output function applied to a Weyl
sequence. Nothing depends on Python's ``random`` module or ``hash()``, so the same seed
gives the same packs on every platform and Python version, and pack *i* never depends on
how many packs were opened before it. Numpy versions (``*_np``) compute the same values for
whole batches; ``tests/test_engine_rng.py`` checks they agree bit for bit.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

from boosterkit.errors import InputError

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15  # splitmix64 increment (2^64 / golden ratio, odd)
PACK_STRIDE = 0xD1B54A32D192ED03  # a second odd constant, so pack keys and draws differ
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_TWO_M53 = 1.0 / (1 << 53)

SEED_MAX = MASK64


def mix64(z: int) -> int:
    """The splitmix64 finaliser on a 64-bit integer."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


def pack_key(seed: int, index: int) -> int:
    """The key of pack ``index`` (1-based) in a run with ``seed``."""
    return mix64(mix64(seed) + index * PACK_STRIDE)


def draw(key: int, counter: int) -> int:
    """The ``counter``-th 64-bit random number of a pack."""
    return mix64(key + (counter + 1) * GOLDEN)


def uniform(key: int, counter: int) -> float:
    """The ``counter``-th uniform float in [0, 1) of a pack (53 random bits):
    ``(draw(key, counter) >> 11) * 2**-53``, written out (a pack draws dozens)."""
    z = (key + (counter + 1) * GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return ((z ^ (z >> 31)) >> 11) * _TWO_M53


def check_seed(seed: Any) -> int:
    """``seed`` if it is an integer (numpy's too) from 0 to 2^64-1, else ``InputError``."""
    if type(seed) is int and 0 <= seed <= SEED_MAX:  # the usual case, without the ABC's check
        return seed
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= int(seed) <= SEED_MAX:
        raise InputError(f"seed must be an integer from 0 to {SEED_MAX}, got {seed!r}")
    return int(seed)


# --- numpy batch versions: in ``generator.rng_np`` (imported on first use) ----------------

_NUMPY = ("mix64_np", "pack_keys_np", "steps_np", "uniform_np", "uniforms_np")


def __getattr__(name: str) -> Any:
    if name in _NUMPY:
        from boosterkit.generator import rng_np

        value = getattr(rng_np, name)
        globals()[name] = value  # later look-ups are plain attribute reads
        return value
    raise AttributeError(f"module 'boosterkit.generator.rng' has no attribute {name!r}")
