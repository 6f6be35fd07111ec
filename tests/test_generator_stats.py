"""Statistics of packs opened from the real AFR data (sealed-data products, MTGJSON cards).

Each test opens >= 20,000 packs with a fixed seed, so results are reproducible and never
flaky. Bounds: chi-square at alpha = 0.001 (Wilson-Hilferty quantile), binomial counts
within 4 standard deviations (two-sided alpha ~ 6e-5). Expected values come from the
product's own weights and, where Wizards published a rate, are checked against it too.
Counting reads the engine's prototype ids (``draw_batch``) rather than materialising
hundreds of thousands of ``Item`` objects; ``test_cli_open`` and ``test_engine`` check that
the items are exactly those prototypes.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path

import pytest

from boosterkit.generator import engine, load_product
from boosterkit.generator.model import ProductDef

N = 30_000
Z = 3.0902  # upper 0.001 normal quantile


def chi2_critical(df: int) -> float:
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + Z * math.sqrt(a)) ** 3


def within(hits: float, n: int, p: float, sds: float = 4.0) -> bool:
    return abs(hits - n * p) <= sds * math.sqrt(n * p * (1 - p))


@pytest.fixture(scope="module")
def draft(real_db: Path) -> ProductDef:
    return load_product("afr", "draft", real_db)


@pytest.fixture(scope="module")
def set_booster(real_db: Path) -> ProductDef:
    return load_product("afr", "set", real_db)


def open_rows(p: ProductDef, seed: int, n: int = N):
    """(compiled product, variant per pack, prototype rows per pack)."""
    cp = engine.compile_product(p)
    variants, rows = engine.draw_batch(cp, seed, 1, n)
    return cp, variants, rows


def field(cp: engine.CompiledProduct, name: str) -> list:
    k = engine.PROTO_FIELDS.index(name)
    return [t[k] for t in cp.protos]


def test_products_are_the_real_collations(draft: ProductDef, set_booster: ProductDef) -> None:
    assert (draft.code, draft.source) == ("afr-draft", "sealed-data")
    assert (set_booster.code, set_booster.source) == ("afr-set", "sealed-data")
    assert draft.sheets["common_with_showcase"].balance_colors


@pytest.mark.parametrize("which", ["draft", "set_booster"])
def test_variant_frequencies_match_weights(which: str, request) -> None:
    p: ProductDef = request.getfixturevalue(which)
    _, variants, _ = open_rows(p, seed=101)
    seen = Counter(variants)
    total = sum(v.weight for v in p.variants)
    observed = [seen[v.index] for v in p.variants]
    expected = [N * v.weight / total for v in p.variants]
    assert len(p.variants) >= 2
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected))
    assert stat < chi2_critical(len(p.variants) - 1)


def test_mythic_share_of_the_rare_slot(draft: ProductDef) -> None:
    sheet = draft.sheets["rare_mythic_with_showcase"]
    mythic_w = sum(w for c, w in zip(sheet.cards, sheet.weights) if c.rarity == "mythic")
    p_mythic = mythic_w / sheet.total_weight
    assert 1 / 9 < p_mythic < 1 / 6  # rare:mythic 2:1 per card (research §5): about 1 in 8
    cp, _, rows = open_rows(draft, seed=102)
    slot, rarity = field(cp, "slot"), field(cp, "rarity")
    drawn = [rarity[x] for row in rows for x in row if slot[x] == "rare_mythic_with_showcase"]
    assert len(drawn) == N  # exactly one per pack
    assert within(drawn.count("mythic"), N, p_mythic)


def test_draft_foil_rate(draft: ProductDef) -> None:
    foil_sheets = {n for n, s in draft.sheets.items() if s.foil}
    w_foil = sum(v.weight for v in draft.variants if any(s in foil_sheets for s, c in v.slots if c))
    p_foil = w_foil / sum(v.weight for v in draft.variants)
    assert abs(p_foil - 1 / 3) < 1e-9  # a foil replaces a common in 1 pack in 3 (research §5)
    cp, _, rows = open_rows(draft, seed=103)
    foil = field(cp, "foil")
    with_foil = sum(any(foil[x] for x in row) for row in rows)
    assert within(with_foil, N, p_foil)
    assert all(len(row) == 16 for row in rows)  # 15 cards and the token/ad: foil replaces a common


def test_set_booster_minigame_share_and_art_cards(set_booster: ProductDef) -> None:
    cp, _, rows = open_rows(set_booster, seed=104)
    kind, gold, magic_back = field(cp, "kind"), field(cp, "gold_stamped"), field(cp, "magic_back")
    minigames = sum(any(kind[x] == "minigame" for x in row) for row in rows)
    assert within(minigames, N, 0.05)  # a minigame in 5 % of Set Boosters (mtg.wiki)
    arts = [row[0] for row in rows]
    assert all(
        kind[x] == "art_card" and not magic_back[x] for x in arts
    )  # one in every pack, first
    assert within(sum(gold[x] for x in arts), N, 0.05)  # 5 % gold-stamped (Wizards)
    assert all(sum(kind[x] == "art_card" for x in row) == 1 for row in rows)


def test_every_balanced_draft_booster_has_five_colours(draft: ProductDef) -> None:
    cp, _, rows = open_rows(draft, seed=105)
    slot, colors, types = field(cp, "slot"), field(cp, "colors"), field(cp, "type_line")
    for row in rows:
        mono = {colors[x][0] for x in row if slot[x] == "common_with_showcase"
                and len(colors[x]) == 1 and "Land" not in (types[x] or "")}  # fmt: skip
        assert mono == set("WUBRG")


def test_colourless_and_multicolour_commons_at_their_unbalanced_rate(draft: ProductDef) -> None:
    # Same product with the common sheet unbalanced: every card's count must agree
    # (two-sample chi-square over the sheet's cards), and the colourless + multicoloured
    # commons as a group within 4 sd; naive balancing (no correction) would halve them.
    name = "common_with_showcase"
    plain = dataclasses.replace(
        draft,
        sheets={
            **draft.sheets,
            name: dataclasses.replace(draft.sheets[name], balance_colors=False),
        },
    )
    counts = []
    for p, seed in ((draft, 106), (plain, 107)):
        cp, _, rows = open_rows(p, seed, 40_000)
        slot, cid = field(cp, "slot"), field(cp, "card_id")
        counts.append(Counter(cid[x] for row in rows for x in row if slot[x] == name))
    bal, unb = counts
    cards = {c.card_id: c for c in draft.sheets[name].cards}
    assert set(bal) <= set(cards) and set(unb) <= set(cards)
    stat = sum((bal[c] - unb[c]) ** 2 / (bal[c] + unb[c]) for c in cards if bal[c] + unb[c])
    assert stat < chi2_critical(len(cards) - 1)
    others = [
        c for c, info in cards.items() if len(info.colors) != 1 or "Land" in (info.type_line or "")
    ]
    assert len(others) >= 5
    b, u = sum(bal[c] for c in others), sum(unb[c] for c in others)
    assert abs(b - u) <= 4 * math.sqrt(b + u)
    assert u > 0.5 * 40_000  # they are frequent enough for this to be a strong check
