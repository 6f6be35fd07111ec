"""The pure pack engine on hand-built products: structure, determinism and statistics.

Statistical checks use fixed seeds, so they are not flaky; the bounds are stated where they
are used (chi-square at alpha = 0.001 through the Wilson-Hilferty quantile, binomial counts
within 4 standard deviations, i.e. two-sided alpha ~ 6e-5).
"""

from __future__ import annotations

import json
import math
import pickle
from collections import Counter

import numpy as np
import pytest

from boosterkit.errors import InputError
from boosterkit.generator import arrays as tables
from boosterkit.generator import engine, engine_np
from boosterkit.generator.model import (
    CardInfo,
    ExtraOption,
    ExtraSlot,
    Item,
    Pack,
    ProductDef,
    SheetDef,
    VariantDef,
)

Z_ALPHA_001 = 3.0902  # upper 0.001 quantile of the standard normal


def chi2_critical(df: int, z: float = Z_ALPHA_001) -> float:
    """Upper quantile of chi-square(df) (Wilson-Hilferty; within 1 % for df >= 2)."""
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * math.sqrt(a)) ** 3


def chi2(observed: list[float], expected: list[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected))


def within_binomial(hits: int, n: int, p: float, sds: float = 4.0) -> bool:
    return abs(hits - n * p) <= sds * math.sqrt(n * p * (1 - p))


def card(i: int, colors: str = "", rarity: str = "common", **kw) -> CardInfo:
    cols = tuple(colors)
    return CardInfo(f"id-{i}", f"Card {i}", "tst", str(i), rarity, kw.pop("kind", "card"),
                    kw.pop("magic_back", True), type_line=kw.pop("type_line", "Creature"),
                    colors=cols, **kw)  # fmt: skip


def sheet(name: str, cards, weights=None, **flags) -> SheetDef:
    cards = tuple(cards)
    return SheetDef(name, cards, tuple(weights or [1] * len(cards)), **flags)


def product(variants, sheets, extras=()) -> ProductDef:
    vs = tuple(VariantDef(i, w, tuple(slots)) for i, (w, slots) in enumerate(variants))
    return ProductDef("tst-test", "tst", "Test", "draft", "generic", vs,
                      {s.name: s for s in sheets}, tuple(extras))  # fmt: skip


def names(pack: Pack) -> list[str | None]:
    return [i.name for i in pack.items]


COMMONS = [card(i, c) for i, c in enumerate("WWWUUUBBBRRRGGG")] + [card(15), card(16, "WU")]
RARES = [card(100, "W", "rare"), card(101, "U", "mythic")]


def simple() -> ProductDef:
    return product([(1, [("common", 5), ("rare", 1)])],
                   [sheet("common", COMMONS), sheet("rare", RARES, [2, 1])])  # fmt: skip


# --- structure -------------------------------------------------------------------------------


def test_items_carry_the_item_fields_and_uids() -> None:
    pack = engine.open_pack(simple(), seed=5, index=12)
    assert pack.index == 12 and pack.seed == 5 and pack.set == "tst" and pack.product == "tst-test"
    assert [i.uid for i in pack.items] == [f"p12-{k}" for k in range(1, 7)]
    assert all(isinstance(i, Item) for i in pack.items)
    assert [i.slot for i in pack.items] == ["common"] * 5 + ["rare"]
    rare = pack.items[-1]
    assert rare.rarity in ("rare", "mythic") and rare.card_id in ("id-100", "id-101")
    assert rare.magic_back and rare.resolved and not rare.foil


def test_items_are_typed_records_that_pickle() -> None:
    """An ``Item`` is a named record: by keyword, from a prototype in one step, and through
    pickle (the product cache and worker processes) it stays an equal ``Item``."""
    items = engine.open_pack(simple(), seed=5, index=3).items
    back = pickle.loads(pickle.dumps(items))
    assert back == items and all(type(i) is Item for i in back)
    assert [i.to_dict() for i in back] == [i.to_dict() for i in items]
    first = items[0]
    assert Item.from_prototype(first.uid, tuple(first)[1:]) == first
    assert Item(**first._asdict()) == first and first._replace(foil=True).foil is True
    assert first.to_dict()["uid"] == "p3-1" and "external" not in first.to_dict()


def test_variant_frequencies_follow_weights() -> None:
    p = product([(1, [("common", 1)]), (2, [("common", 2)]), (5, [("common", 3)])],
                [sheet("common", COMMONS)])  # fmt: skip
    packs = engine.open_batch(p, seed=11, start=1, count=16_000)
    seen = Counter(pk.variant for pk in packs)
    assert all(len(pk.items) == pk.variant + 1 for pk in packs)
    expected = [16_000 * w / 8 for w in (1, 2, 5)]
    assert chi2([seen[0], seen[1], seen[2]], expected) < chi2_critical(2)


def test_no_card_twice_from_one_sheet() -> None:
    p = product([(1, [("common", 15)])], [sheet("common", COMMONS[:16])])
    for pk in engine.open_batch(p, seed=3, count=2000):
        ids = [i.card_id for i in pk.items]
        assert len(set(ids)) == 15


def test_without_replacement_matches_exact_inclusion_chances() -> None:
    # 3 cards weighted 1:2:3, 2 drawn without replacement. Exact chance card i is drawn:
    # P(first) + sum_j P(j first) * w_i / (W - w_j).
    w = [1, 2, 3]
    p = product([(1, [("s", 2)])], [sheet("s", [card(0), card(1), card(2)], w)])
    n = 30_000
    hits = Counter(i.card_id for pk in engine.open_batch(p, seed=8, count=n) for i in pk.items)
    for i, wi in enumerate(w):
        exact = wi / 6 + sum(wj / 6 * wi / (6 - wj) for j, wj in enumerate(w) if j != i)
        assert within_binomial(hits[f"id-{i}"], n, exact)


def test_nearly_exhausted_sheet_uses_the_exact_fallback() -> None:
    # 24 of 25 cards, one of them heavy: rejection alone would often give up on the last
    # draws; the exact draw from the remaining weights still yields 24 distinct cards.
    cards = [card(i) for i in range(25)]
    p = product([(1, [("s", 24)])], [sheet("s", cards, [40] + [1] * 24)])
    packs = engine.open_batch(p, seed=2, count=500)
    assert all(len({i.card_id for i in pk.items}) == 24 for pk in packs)
    missing = Counter(
        ({c.card_id for c in cards} - {i.card_id for i in pk.items}).pop() for pk in packs
    )
    assert missing["id-0"] < 25  # the heavy card is almost never the one left out


def test_allow_duplicates() -> None:
    p = product([(1, [("s", 6)])], [sheet("s", [card(0), card(1)], allow_duplicates=True)])
    packs = engine.open_batch(p, seed=4, count=200)
    assert all(len(pk.items) == 6 for pk in packs)
    assert sum(len({i.card_id for i in pk.items}) < 6 for pk in packs) == 200


def test_more_draws_than_cards_repeats_only_after_every_card() -> None:
    p = product([(1, [("s", 5)])], [sheet("s", [card(0), card(1), card(2)])])
    for pk in engine.open_batch(p, seed=4, count=200):
        assert len({i.card_id for i in pk.items[:3]}) == 3 and len(pk.items) == 5


def test_fixed_sheet_puts_every_card_once_per_weight_unit() -> None:
    fixed = sheet("deck", [card(0), card(1), card(2)], [1, 2, 1], fixed=True)
    p = product([(1, [("deck", 4), ("rare", 1)])], [fixed, sheet("rare", RARES)])
    for pk in engine.open_batch(p, seed=9, count=50):
        assert [i.card_id for i in pk.items[:4]] == ["id-0", "id-1", "id-1", "id-2"]


def test_foil_sheet_yields_foil_items() -> None:
    p = product([(1, [("common", 3), ("foil", 1)])],
                [sheet("common", COMMONS), sheet("foil", COMMONS, foil=True)])  # fmt: skip
    pk = engine.open_pack(p, seed=1, index=1)
    assert [i.foil for i in pk.items] == [False, False, False, True]
    assert pk.items[-1].slot == "foil"


def test_unresolved_sheet_cards_keep_the_pack_shape() -> None:
    ghost = CardInfo(None, None, "plst", "AFR-1", None, "card", True, resolved=False)
    p = product([(1, [("common", 2), ("the_list", 1)])],
                [sheet("common", COMMONS), sheet("the_list", [ghost])])  # fmt: skip
    item = engine.open_pack(p, seed=1, index=1).items[-1]
    assert item.card_id is None and item.resolved is False and item.set == "plst"
    assert item.collector_number == "AFR-1" and item.slot == "the_list"


# --- extras ----------------------------------------------------------------------------------

TOKENS = tuple(
    CardInfo(f"tok-{i}", f"Token {i}", "ttst", str(i), "common", "token", False) for i in range(4)
)
ARTS = tuple(
    CardInfo(f"art-{i}", f"Art {i}", "atst", str(i), "common", "art_card", False) for i in range(3)
)
AD = CardInfo(None, "Ad card", "tst", None, None, "ad", False)


def extras_product() -> ProductDef:
    art = ExtraSlot("art", (ExtraOption("art_card", "atst", 1, ARTS, gold_stamped_per_mille=50),),
                    position="first")  # fmt: skip
    last = ExtraSlot(
        "epilogue",
        (
            ExtraOption("token", "ttst", 70, TOKENS),
            ExtraOption("ad", None, 25, (AD,)),
            ExtraOption("minigame", "mtst", 5, ()),
        ),
        unless_sheets=("the_list",),
    )
    ghost = CardInfo(None, None, "plst", "X-1", None, "card", True, resolved=False)
    return product(
        [(3, [("common", 3)]), (1, [("common", 3), ("the_list", 1)])],
        [sheet("common", COMMONS), sheet("the_list", [ghost])],
        [art, last],
    )


def test_extras_positions_and_unless_sheets() -> None:
    for pk in engine.open_batch(extras_product(), seed=6, count=400):
        assert pk.items[0].slot == "art" and pk.items[0].kind == "art_card"
        assert not pk.items[0].magic_back and pk.items[0].gold_stamped in (True, False)
        if pk.variant == 1:  # carries The List: no epilogue slot
            assert [i.slot for i in pk.items] == ["art", "common", "common", "common", "the_list"]
        else:
            assert [i.slot for i in pk.items] == ["art", "common", "common", "common", "epilogue"]


def test_extra_option_rates_and_item_shapes() -> None:
    n = 40_000
    packs = [pk for pk in engine.open_batch(extras_product(), seed=12, count=n) if pk.variant == 0]
    last = [pk.items[-1] for pk in packs]
    kinds = Counter(i.kind for i in last)
    m = len(last)
    assert within_binomial(m, n, 0.75)
    assert chi2(
        [kinds["token"], kinds["ad"], kinds["minigame"]], [m * 0.70, m * 0.25, m * 0.05]
    ) < chi2_critical(2)
    ad = next(i for i in last if i.kind == "ad")
    assert ad.card_id is None and ad.name == "Ad card" and ad.resolved
    mg = next(i for i in last if i.kind == "minigame")
    assert (mg.card_id, mg.resolved, mg.set, mg.magic_back) == (None, False, "mtst", False)
    tokens = Counter(i.card_id for i in last if i.kind == "token")
    assert chi2(list(tokens.values()), [kinds["token"] / 4] * 4) < chi2_critical(3)


def test_art_cards_gold_stamped_at_their_rate() -> None:
    n = 20_000
    arts = [pk.items[0] for pk in engine.open_batch(extras_product(), seed=13, count=n)]
    stamped = sum(a.gold_stamped for a in arts)
    assert within_binomial(stamped, n, 0.05)
    assert all(a.to_dict()["gold_stamped"] in (True, False) for a in arts[:10])


def test_bad_products_are_one_line_input_errors() -> None:
    with pytest.raises(InputError, match="unknown sheet 'nope'"):
        engine.compile_product(product([(1, [("nope", 1)])], [sheet("common", COMMONS)]))
    with pytest.raises(InputError, match="no pack variant"):
        engine.compile_product(product([(0, [("common", 1)])], [sheet("common", COMMONS)]))
    with pytest.raises(InputError, match="no card with a positive weight"):
        engine.compile_product(product([(1, [("c", 1)])], [sheet("c", COMMONS[:2], [0, 0])]))
    for bad in (-1, 2**64, 1.5, "7", True):
        with pytest.raises(InputError, match="seed must be an integer"):
            engine.open_pack(simple(), bad, 1)


# --- determinism -----------------------------------------------------------------------------


def test_same_seed_same_packs_and_pack_i_depends_only_on_seed_and_i() -> None:
    p = extras_product()
    run = engine.open_batch(p, seed=2024, start=1, count=3000)
    again = engine.open_batch(p, seed=2024, start=1, count=3000)
    assert [x.to_dict() for x in run] == [x.to_dict() for x in again]
    middle = engine.open_batch(p, seed=2024, start=1234, count=10)
    assert [x.to_dict() for x in middle] == [x.to_dict() for x in run[1233:1243]]
    assert engine.open_pack(p, 2024, 1).to_dict() == run[0].to_dict()
    other = engine.open_batch(p, seed=2025, start=1, count=50)
    assert sum(a.to_dict() != b.to_dict() for a, b in zip(other, run)) > 40


def test_a_rebuilt_product_gives_the_same_packs() -> None:
    a = engine.open_batch(simple(), seed=99, count=100)
    b = engine.open_batch(simple(), seed=99, count=100)  # a new, equal ProductDef
    assert [x.to_dict() for x in a] == [x.to_dict() for x in b]


def test_engine_follows_the_documented_counter_layout() -> None:
    # A scalar re-implementation of the documented scheme (engine module docstring): draw d
    # of a pack uses counter 1 + 64 d + r, r = redraw round; variant from counter 0. The
    # vectorised engine must give exactly these packs, so seeds keep their meaning.
    from bisect import bisect_right

    from boosterkit.generator import rng

    p = simple()
    sheets = [("common", 5, [1] * len(COMMONS), COMMONS), ("rare", 1, [2, 1], RARES)]
    for index in (1, 2, 77, 5000):
        key = rng.pack_key(1, index)
        want, d = [], 0
        for _name, count, w, cards in sheets:
            cum = [sum(w[: k + 1]) for k in range(len(w))]
            picked: list[int] = []
            for _ in range(count):
                r = 0
                while True:
                    k = bisect_right(cum, rng.uniform(key, 1 + 64 * d + r) * cum[-1])
                    if k not in picked:
                        break
                    r += 1
                picked.append(k)
                d += 1
            want += [cards[k].card_id for k in picked]
        assert [i.card_id for i in engine.open_pack(p, 1, index).items] == want


def test_lazy_items_and_fast_json_agree_with_the_dataclasses() -> None:
    for pk in engine.open_batch(extras_product(), seed=21, count=50):
        fast = pk.to_dict()
        line = pk.to_json_line()
        assert json.loads(line) == fast
        assert line == json.dumps(fast, ensure_ascii=False)
        assert fast == Pack.to_dict(pk)  # built from the materialised Item objects
        pk.items.append(Item("x", None, "Extra", "tst", None, None, False, "x", "card", True, True))
        assert pk.to_dict()["items"][-1]["name"] == "Extra"  # edits to items are honoured


def test_kept_packs_hold_no_items_unless_held_or_changed() -> None:
    """A kept pack builds its items on access and keeps them only while the caller holds the
    list (issue 36: 100,000 kept packs hold no 1.5 million items for the collector to rescan):
    the same list and objects while held; a change pins the list to the pack; pickled or
    copied, the list is a plain one."""
    import copy
    import gc
    import weakref

    pack = engine.open_compiled(engine.compile_product(simple()), 5, 1, 3)[0]
    held = pack.items
    assert pack.items is held and pack.items[0] is held[0]  # held: the same list and items
    built = weakref.ref(held)
    del held
    gc.collect()
    assert built() is None  # not held: not kept (nor its items)
    assert pack._pristine() and [i.uid for i in pack.items] == [f"p1-{k}" for k in range(1, 7)]
    assert (
        type(copy.copy(pack.items)) is list and type(pickle.loads(pickle.dumps(pack.items))) is list
    )
    extra = Item("x", None, "Extra", "tst", None, None, False, "x", "card", True, True)
    pack.items.append(extra)  # a change through a list nobody holds: the pack's now
    assert not pack._pristine() and pack.items[-1] is extra and len(pack.items) == 7
    assert pack.to_dict()["items"][-1]["name"] == "Extra"
    other = engine.open_compiled(engine.compile_product(simple()), 5, 2, 1)[0]
    other.items.sort(key=lambda i: i.uid, reverse=True)
    assert other.items[0].uid == "p2-6" and not other._pristine()
    back = pickle.loads(pickle.dumps([pack, other]))
    assert [p.to_dict() for p in back] == [pack.to_dict(), other.to_dict()]


def test_indented_json_from_fragments_is_to_json() -> None:
    """``write_json`` builds each pack from cached indented item fragments (issue 22): the
    text is ``serialize.to_json`` of the packs, for either way of drawing, names with quotes and
    accents, art cards, a pack whose items were handed out and a plain ``Pack``."""
    import io
    from dataclasses import replace

    from boosterkit.generator.lazy import new_pack
    from boosterkit.generator.output import pack_json, packs_json, write_json
    from boosterkit.serialize import to_json

    odd = sheet("common", [replace(card(i, "WU"[: i % 3]), name=f'Ca"rd é\\{i}') for i in range(8)])
    cp = engine.compile_product(product([(1, [("common", 3)])], [odd]))
    for compiled in (engine.compile_product(extras_product()), cp):
        packs = engine.open_compiled(compiled, 5, 1, 70)
        lite = [p for i in range(1, 71) for p in engine.open_compiled(compiled, 5, i, 1)]
        want = to_json([p.to_dict() for p in packs]) + "\n"
        assert packs_json(packs) == want.encode() == packs_json(lite)  # bytes, UTF-8
        assert all(pack_json(p) == to_json(p.to_dict()) for p in packs)
        for stream in (io.StringIO(), io.TextIOWrapper(io.BytesIO(), encoding="utf-8")):
            assert write_json(packs, stream) == 70  # 70 packs: past one 64 KiB chunk
            stream.flush()
            text = stream.getvalue() if isinstance(stream, io.StringIO) else None
            got = text if text is not None else stream.buffer.getvalue().decode()  # type: ignore[attr-defined]
            assert got == want
    handed = engine.open_compiled(cp, 1, 1, 2)
    handed[0].items.pop()
    assert pack_json(handed[0]) == to_json(Pack.to_dict(handed[0]))
    nothing = new_pack(cp, 1, 3, 1, [])  # a lazy pack of no item
    empty = Pack("tst", "tst-x", 1, 1, 0, [])
    mixed = [handed[0], nothing, empty, handed[1]]
    assert packs_json(mixed) == (to_json([p.to_dict() for p in mixed]) + "\n").encode()
    assert packs_json([]) == b"[]\n"
    out = io.StringIO()
    assert write_json([], out) == 0 and out.getvalue() == "[]\n"


def test_json_lines_from_encoded_fragments_are_to_json_lines() -> None:
    """``write_jsonl`` writes UTF-8 bytes joined from encoded item fragments (issue 22): each
    line is ``serialize.to_json(pack, indent=None)``, to a text stream, to a UTF-8 file's
    buffer and through a Latin-1 stream alike, in chunks of any size."""
    import io
    from dataclasses import replace

    from boosterkit.generator.output import write_jsonl
    from boosterkit.serialize import to_json

    odd = sheet("common", [replace(card(i), name=f'Ca"rd é%d\\{i}') for i in range(8)])
    cp = engine.compile_product(product([(1, [("common", 3)])], [odd]))
    packs = engine.open_compiled(cp, 9, 1, 40) + engine.open_compiled(
        engine.compile_product(extras_product()), 9, 1, 40
    )
    packs[3].items.pop()  # handed out and changed: written from its items
    packs.append(Pack("tst", "tst-x", 1, 99, 0, []))
    want = "".join(to_json(p.to_dict(), indent=None) + "\n" for p in packs)
    text = io.StringIO()
    assert write_jsonl(packs, text, chunk=1000) == len(packs) and text.getvalue() == want
    raw = io.BytesIO()
    utf8 = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    utf8.write("x")  # text written before the packs stays before them
    write_jsonl(packs, utf8)
    utf8.flush()
    assert raw.getvalue() == ("x" + want).encode()
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1", newline="")
    write_jsonl(packs[:1], latin)  # not UTF-8: written as text, encoded by the stream
    latin.flush()
    assert latin.buffer.getvalue() == want.splitlines(keepends=True)[0].encode("latin-1")


# --- colour balance --------------------------------------------------------------------------

# Uneven colours, colourless and multicoloured commons, a land and uneven weights: the
# correction must keep every card at its unbalanced rate, not just the colour totals.
SPEC = "W" * 8 + "U" * 5 + "B" * 6 + "R" * 7 + "G" * 6
BAL_CARDS = (
    [card(i, c) for i, c in enumerate(SPEC)]
    + [card(100 + i) for i in range(4)]
    + [card(200 + i, "BG") for i in range(4)]
    + [card(300, "G", type_line="Land")]
)
BAL_WEIGHTS = [1 + (i % 3 == 0) for i in range(len(BAL_CARDS))]


def balance_product(balanced: bool) -> ProductDef:
    s = sheet("common", BAL_CARDS, BAL_WEIGHTS, balance_colors=balanced)
    return product([(2, [("common", 10)]), (1, [("common", 9), ("foil", 1)])],
                   [s, sheet("foil", COMMONS, foil=True)])  # fmt: skip


def common_draws(p, seed: int, n: int) -> list[list[tuple]]:
    """Per pack, the (card_id, colors, type_line) of its commons, read from the engine's
    prototype ids (materialising 600,000 Item objects would dominate the test's time)."""
    cp = p if isinstance(p, engine.CompiledProduct) else engine.compile_product(p)
    f = engine.PROTO_FIELDS
    cid, col, typ, slot = (f.index(x) for x in ("card_id", "colors", "type_line", "slot"))
    protos = [(t[cid], t[col], t[typ]) if t[slot] == "common" else None for t in cp.protos]
    _, rows = engine.draw_batch(cp, seed, 1, n)
    return [[protos[x] for x in row if protos[x]] for row in rows]


def per_card_counts(p, seed: int, n: int) -> np.ndarray:
    ids = Counter(c[0] for pack in common_draws(p, seed, n) for c in pack)
    return np.array([ids[c.card_id] for c in BAL_CARDS], dtype=float)


def test_balanced_packs_have_every_colour() -> None:
    def colours(pack: list[tuple]) -> set[str]:
        return {c[1][0] for c in pack if len(c[1]) == 1 and "Land" not in c[2]}

    assert all(colours(pk) == set("WUBRG") for pk in common_draws(balance_product(True), 31, 5000))
    plain = common_draws(balance_product(False), 31, 5000)
    assert sum(colours(pk) < set("WUBRG") for pk in plain) > 1000  # unbalanced: often missing


def test_balance_keeps_every_cards_rate() -> None:
    # Each card's count over 60,000 packs with and without balancing: two-sample chi-square
    # over the 42 cards (df = 41), plus the colourless + multicolour group as one binomial.
    n = 60_000
    bal = per_card_counts(balance_product(True), seed=41, n=n)
    plain = per_card_counts(balance_product(False), seed=43, n=n)
    stat = (((bal - plain) ** 2) / (bal + plain)).sum()
    assert stat < chi2_critical(len(BAL_CARDS) - 1)
    others = [k for k, c in enumerate(BAL_CARDS) if len(c.colors) != 1 or c.type_line == "Land"]
    b, p = bal[others].sum(), plain[others].sum()
    assert abs(b - p) <= 4 * math.sqrt(b + p)


def test_uncorrected_balancing_would_fail_the_rate_check() -> None:
    # The check above has power: seeding WUBRG and then drawing from the plain weights
    # (no correction) leaves the colourless + multicolour commons far below their rate.
    n = 60_000
    plain = per_card_counts(balance_product(False), seed=43, n=n)
    p = balance_product(True)
    from dataclasses import replace

    cp = engine.compile_product(p)
    naive_sheets = tuple(
        replace(s, corrected=tuple((n, s.weights, s.cum) for n, _, _ in s.corrected))  # naive
        if s.name == "common" else s
        for s in cp.sheets
    )  # fmt: skip
    cp = replace(cp, sheets=naive_sheets, memo={})
    naive = per_card_counts(cp, seed=41, n=n)
    others = [k for k, c in enumerate(BAL_CARDS) if len(c.colors) != 1 or c.type_line == "Land"]
    assert naive[others].sum() < 0.85 * plain[others].sum()


def _shapes_product() -> ProductDef:
    """Variants whose packs differ in shape: a fixed card first in one and a draw first in
    the other (their columns read other uniforms), packs of three lengths, weights with an
    exact table and without (the fractions after colour seeds, a total past
    ``LOOKUP_MAX``)."""
    fixed = sheet("deck", [card(50)], fixed=True)
    balanced = sheet("bal", BAL_CARDS, BAL_WEIGHTS, balance_colors=True)
    big = sheet("big", RARES + [card(102, "B", "rare")], [40_001, 30_000, 1])
    return product(
        [(2, [("deck", 1), ("common", 3), ("rare", 1)]), (1, [("common", 3), ("bal", 7)]),
         (1, [("big", 1)])],
        [fixed, balanced, big, sheet("common", COMMONS), sheet("rare", RARES, [2, 1])],
    )  # fmt: skip


def _drawn_as_one_by_one(cp: engine.CompiledProduct, seed: int, count: int) -> None:
    chosen, rows = engine_np.draw_rows(cp, seed, 1, count)
    for n, (v, row) in enumerate(zip(chosen.tolist(), rows.tolist()), 1):
        index, protos = engine.draw_pack(cp, seed, n)
        assert index == cp.variants[v].index and protos == row[: len(protos)]
        assert set(row[len(protos) :]) <= {-1}


def test_variants_whose_columns_differ_draw_as_one_pack_at_a_time() -> None:
    """A batch of a few packs is drawn at once (``arrays.Fused``) even where the variants'
    packs differ in shape (``_shapes_product``): each pack as ``draw_pack`` draws it."""
    cp = engine.compile_product(_shapes_product())
    fz = tables.arrays(cp).fused
    assert fz is not None and fz.shared is None and fz.scales is not None and fz.unsure.any()
    assert len(set(tables.arrays(cp).plan.widths)) == 3
    for seed in (1, 2**64 - 1):
        _drawn_as_one_by_one(cp, seed, 200)


def test_a_bucket_that_holds_a_cards_end_is_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bucket of ``u * total`` in which a card's range ends is searched in the column's
    weights (as ``draw_pack`` picks): with every bucket taken for such a one (but the one
    entry the fixed cards and extra slots read), the packs are the same."""
    from dataclasses import replace

    cp = engine.compile_product(_shapes_product())
    arr = tables.arrays(cp)
    unsure = np.ones_like(arr.fused.unsure)
    unsure[0] = False  # the table of one entry: fixed cards, extra slots, past a pack's end
    monkeypatch.setitem(cp.memo, "arrays", replace(arr, fused=replace(arr.fused, unsure=unsure)))
    for seed in (3, 2**63):
        _drawn_as_one_by_one(cp, seed, 120)
