"""The counter-based generator: reference values, numpy = pure Python, uniformity."""

from __future__ import annotations

import numpy as np

from boosterkit.generator import rng


def test_draw_is_splitmix64() -> None:
    # splitmix64 seeded with 0: published first outputs (Vigna's reference implementation).
    assert rng.draw(0, 0) == 0xE220A8397B1DCDAF
    assert rng.draw(0, 1) == 0x6E789E6AA1B965F4
    assert rng.draw(0, 2) == 0x06C45D188009454F


def test_numpy_matches_python_bit_for_bit() -> None:
    seeds = [0, 1, 42, 2**32 - 1, 2**63 + 12345, rng.SEED_MAX]
    indices = np.array([1, 2, 3, 1000, 2**31, 2**40 + 7], dtype=np.uint64)
    for seed in seeds:
        keys = rng.pack_keys_np(seed, indices)
        assert [int(k) for k in keys] == [rng.pack_key(seed, int(i)) for i in indices]
        for counter in (0, 1, 63, 64 * 1000 + 5, 64 * (1 << 20) + 2):
            got = rng.uniform_np(keys, counter)
            want = [rng.uniform(int(k), counter) for k in keys]
            assert got.tolist() == want
        counters = [0, 1, 63, 64 * 1000 + 5, 64 * (1 << 20) + 2]  # every counter at once
        table = rng.uniforms_np(keys, rng.steps_np(counters))
        assert table.tolist() == [[rng.uniform(int(k), c) for c in counters] for k in keys]


def test_uniform_is_uniform() -> None:
    # 200,000 uniforms from 2,000 pack keys x 100 counters, in 20 bins: chi-square with 19
    # degrees of freedom stays below 43.82 (alpha = 0.001) for a sound generator.
    keys = rng.pack_keys_np(7, np.arange(1, 2001, dtype=np.uint64))
    u = np.concatenate([rng.uniform_np(keys, c) for c in range(100)])
    assert u.min() >= 0.0 and u.max() < 1.0
    observed = np.bincount((u * 20).astype(int), minlength=20)
    expected = len(u) / 20
    assert ((observed - expected) ** 2 / expected).sum() < 43.82


def test_neighbouring_packs_are_uncorrelated() -> None:
    keys = rng.pack_keys_np(1, np.arange(1, 100_001, dtype=np.uint64))
    u = rng.uniform_np(keys, 0)
    # correlation of pack i and i+1 (sd of the estimate is 1/sqrt(n) ~ 0.0032; bound 5 sd)
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.016
