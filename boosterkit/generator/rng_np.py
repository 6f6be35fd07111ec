"""The numpy batch versions of ``generator.rng`` (uint64 arithmetic wraps modulo 2^64, as in C).

Kept apart so that drawing a few packs (``generator.small``) never imports numpy; the same
names are reachable as ``generator.rng.uniform_np`` etc.
"""

from __future__ import annotations

from boosterkit.generator._np import np
from boosterkit.generator.rng import _M1, _M2, _TWO_M53, GOLDEN, MASK64, PACK_STRIDE, mix64

_U30, _U27, _U31, _U11 = (np.uint64(s) for s in (30, 27, 31, 11))
_NM1, _NM2 = np.uint64(_M1), np.uint64(_M2)
_NGOLDEN, _NSTRIDE = np.uint64(GOLDEN), np.uint64(PACK_STRIDE)


def mix64_np(z: np.ndarray) -> np.ndarray:
    """``mix64`` on a uint64 array (a new one)."""
    return _mixed(z ^ (z >> _U30))


def _mixed(z: np.ndarray) -> np.ndarray:
    """``mix64`` of the array whose first xor-shift ``z`` holds, computed in ``z``."""
    z *= _NM1
    z ^= z >> _U27
    z *= _NM2
    z ^= z >> _U31
    return z


def pack_keys_np(seed: int, indices: np.ndarray) -> np.ndarray:
    """``pack_key(seed, i)`` for every ``i`` in ``indices`` (uint64)."""
    z = indices.astype(np.uint64) * _NSTRIDE
    z += np.uint64(mix64(seed))
    z ^= z >> _U30
    return _mixed(z)


def uniform_np(keys: np.ndarray, counter: int) -> np.ndarray:
    """``uniform(key, counter)`` for every key (float64 in [0, 1))."""
    z = mix64_np(keys + np.uint64(((counter + 1) * GOLDEN) & MASK64))
    out: np.ndarray = (z >> _U11).astype(np.float64) * _TWO_M53
    return out


def steps_np(counters: list[int]) -> np.ndarray:
    """What ``draw`` adds to a key for each of ``counters`` (uint64): for ``uniforms_np``."""
    return np.array([((c + 1) * GOLDEN) & MASK64 for c in counters], dtype=np.uint64)


def uniforms_np(keys: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """``uniform(key, counter)`` for every key (a row) and counter (a column, given by its
    ``steps_np``): float64 in [0, 1), rows × counters, in one pass."""
    z = keys[:, None] + steps[None, :]
    z ^= z >> _U30
    z = _mixed(z)
    z >>= _U11
    out = z.astype(np.float64)
    out *= _TWO_M53
    return out
