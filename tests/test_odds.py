"""``generator.odds`` and ``boosterkit odds``: exact figures by hand, then against simulation."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from helpers import run_cli as run

from boosterkit.errors import InputError, NotFoundError
from boosterkit.generator.engine import arrays, compile_product
from boosterkit.generator.model import (
    CardInfo,
    ExtraOption,
    ExtraSlot,
    ProductDef,
    SheetDef,
    VariantDef,
)  # fmt: skip
from boosterkit.generator.odds import (
    _successive,
    odds,
    per_unit,
    product_odds,
    race_inclusion,
    sheet_odds,
)  # fmt: skip


def _card(name: str, rarity: str, kind: str = "card", set_code: str = "tst") -> CardInfo:
    return CardInfo(f"id-{name}", name, set_code, name, rarity, kind, kind == "card")


A, B, C = _card("A", "rare"), _card("B", "common"), _card("C", "common")
D, E = _card("D", "rare"), _card("E", "common")
F, G = _card("F", "uncommon"), _card("G", "uncommon")
T1, T2 = _card("T1", "common", "token", "ttst"), _card("T2", "common", "token", "ttst")

#: Variant 1 (weight 3): 2 of main without repeats, 1 foil, 2 of dup with repeats.
#: Variant 2 (weight 1): 1 of main and the token/ad slot (skipped where the foil is drawn).
SMALL = ProductDef(
    code="tst-draft", set_code="tst", name="Test Draft", kind="draft", source="generic",
    variants=(VariantDef(1, 3, (("main", 2), ("foil", 1), ("dup", 2))),
              VariantDef(2, 1, (("main", 1),))),
    sheets={"main": SheetDef("main", (A, B, C), (3, 1, 1)),
            "foil": SheetDef("foil", (D, E), (1, 1), foil=True),
            "dup": SheetDef("dup", (F, G), (1, 3), allow_duplicates=True)},
    extras=(ExtraSlot("token_ad", (ExtraOption("token", "ttst", 1, (T1, T2)),
                                   ExtraOption("ad", None, 3)), unless_sheets=("foil",)),),
)  # fmt: skip


def _by(rows, **want):
    [row] = [r for r in rows if all(r[k] == v for k, v in want.items())]
    return row


def test_small_product_by_hand() -> None:
    cards, groups = product_odds(compile_product(SMALL))
    # main, 2 draws without repeats from weights 3,1,1: P(A) = 3/5 + 2·(1/5)(3/4) = 0.9,
    # P(B) = 1/5 + (3/5)(1/2) + (1/5)(1/4) = 0.55; one draw: 0.6 and 0.2.
    a = _by(cards, name="A")
    assert a["chance"] == pytest.approx(0.75 * 0.9 + 0.25 * 0.6) and a["method"] == "exact"
    assert a["expected"] == pytest.approx(0.825)
    assert _by(cards, name="B")["chance"] == pytest.approx(0.75 * 0.55 + 0.25 * 0.2)
    # dup: two independent draws, P(F) = 1/4 each, only in variant 1.
    f = _by(cards, name="F")
    assert f["expected"] == pytest.approx(0.75 * 0.5)
    assert f["chance"] == pytest.approx(0.75 * (1 - (3 / 4) ** 2))
    # foil sheet: 1 of 2, variant 1 only.
    assert _by(cards, name="D", foil=True)["chance"] == pytest.approx(0.375)
    # the extra slot is skipped in variant 1 (it draws the foil sheet): 1/4 · 1/4 · 1/2.
    assert _by(cards, name="T1")["chance"] == pytest.approx(1 / 32)
    assert _by(cards, kind="ad")["chance"] == pytest.approx(0.25 * 0.75)
    # groups: at least one common = 1 in variant 1 (2 of A, B, C always hold B or C), 0.4 in 2.
    common = _by(groups, group="common", foil=False)
    assert common["chance"] == pytest.approx(0.75 + 0.25 * 0.4)
    assert common["expected"] == pytest.approx(0.75 * 1.1 + 0.25 * 0.4)
    assert _by(groups, group="rare", foil=False)["chance"] == pytest.approx(0.825)
    assert _by(groups, group="rare", foil=True)["chance"] == pytest.approx(0.375)
    unc = _by(groups, group="uncommon", foil=False)
    assert unc["chance"] == pytest.approx(0.75) and unc["expected"] == pytest.approx(1.5)
    assert _by(groups, group="token", foil=False)["chance"] == pytest.approx(1 / 16)
    assert all(r["method"] == "exact" for r in cards + groups)
    # a box of 10 independent packs
    box = _by(per_unit(cards, 10), name="A")
    assert box["chance"] == pytest.approx(1 - 0.175**10) and box["expected"] == pytest.approx(8.25)


def test_small_product_variance_by_hand() -> None:
    """The variance of each count per pack, from the same model (issue 18): what
    ``--simulate`` measures deviations in."""
    cards, groups = product_odds(compile_product(SMALL))
    # A: 0 or 1 copy, chance 0.825 over both variants
    assert _by(cards, name="A")["variance"] == pytest.approx(0.825 * 0.175)
    # F: two independent draws at 1/4 in variant 1 (weight 3/4), none in variant 2
    e2 = 0.75 * (2 * 0.25 * 0.75 + 0.5**2)
    assert _by(cards, name="F")["variance"] == pytest.approx(e2 - 0.375**2)
    # uncommons: always 2 in variant 1, 0 in variant 2
    assert _by(groups, group="uncommon", foil=False)["variance"] == pytest.approx(3 - 1.5**2)
    # commons: variant 1 draws 2 of A, B, C (A in 9 of 10: 1 common, else 2); variant 2 one
    # card, a common 2 in 5
    e2 = 0.75 * (0.9 * 1 + 0.1 * 4) + 0.25 * 0.4
    common = _by(groups, group="common", foil=False)
    assert common["variance"] == pytest.approx(e2 - common["expected"] ** 2)
    assert _by(groups, group="token", foil=False)["variance"] == pytest.approx(1 / 16 * 15 / 16)


def test_simulated_deviations_use_the_exact_variance(real_db: Path) -> None:
    """`odds afr -p draft --simulate 20000` (issue 18): every |z| < 5 over the 1,500 figures
    (z_expected and z_chance of every row). With the sample's own variance a card expected
    7 times and seen once had z = -6.1; from the exact variance it is about -2.3."""
    data = odds("afr", "draft", db=real_db, simulate=20_000, seed=0)
    rows = data["cards"] + data["groups"]
    zs = [r[k] for r in rows for k in ("z_expected", "z_chance")]
    assert len(zs) >= 1500 and None not in zs
    assert max(abs(z) for z in zs) < 5
    assert 0.8 < sum(z * z for z in zs) / len(zs) < 1.2
    assert not any("variance" in r for r in rows)  # internal: not one of the odds' fields
    rare = _by(data["cards"], name="The Deck of Many Things", foil=False)
    e, n = rare["expected"], 20_000  # 0/1 a pack: z of the count is that of the chance
    assert rare["z_expected"] == pytest.approx(
        (rare["observed_expected"] - e) / math.sqrt(e * (1 - e) / n), abs=2e-3
    )


def _brute(weights, n):
    """Inclusion chances of n successive draws without repeats, by enumerating orders."""
    total = [0.0] * len(weights)
    for order in itertools.permutations(range(len(weights)), n):
        p, left = 1.0, sum(weights)
        for i in order:
            p *= weights[i] / left
            left -= weights[i]
        for i in order:
            total[i] += p
    return total


def test_class_programme_equals_enumeration() -> None:
    weights = (5, 5, 3, 2, 2, 1, 1)
    cards = tuple(_card(str(i), "rare" if w < 3 else "common") for i, w in enumerate(weights))
    product = ProductDef(
        "x",
        "tst",
        "x",
        "draft",
        "generic",
        (VariantDef(1, 1, (("s", 3),)),),
        {"s": SheetDef("s", cards, weights)},
    )
    sheet = arrays(compile_product(product)).sheets[0]
    groups = [("rare" if w < 3 else "common", False) for w in weights]
    got = sheet_odds(sheet, 3, groups)
    assert got.exact
    assert got.present.tolist() == pytest.approx(_brute(weights, 3), abs=1e-12)
    # no rare among 3 draws: enumerate the orders of the three commons
    none_rare = sum(
        math.prod(weights[i] / (sum(weights) - sum(weights[j] for j in o[:k]))
                  for k, i in enumerate(o))
        for o in itertools.permutations([0, 1, 2], 3))  # fmt: skip
    assert got.none[("rare", False)] == pytest.approx(none_rare, abs=1e-12)


def test_balanced_sheet_equals_enumeration() -> None:
    """Two colours seeded, then n - 2 draws by the corrected weights from the cards left:
    every (seed pair, order of later draws) enumerated."""

    def mono(name, colour, cost=1.0):
        return CardInfo(
            f"id-{name}",
            name,
            "tst",
            name,
            "common",
            "card",
            True,
            "Creature",
            (colour,) if colour else (),
            cost,
        )

    cards = (
        mono("w1", "W"),
        mono("w2", "W"),
        mono("u1", "U"),
        mono("u2", "U"),
        mono("u3", "U"),
        mono("x1", None),
        mono("x2", None),
    )
    weights = (1, 2, 1, 1, 3, 2, 1)
    for n in (3, 4):
        product = ProductDef(
            "x",
            "tst",
            "x",
            "draft",
            "generic",
            (VariantDef(1, 1, (("s", n),)),),
            {"s": SheetDef("s", cards, weights, balance_colors=True)},
        )
        sheet = arrays(compile_product(product)).sheets[0]
        got = sheet_odds(sheet, n, [("common", False)] * len(cards))
        cw = sheet.corrected[n][0].tolist()
        seed_p = {}
        for cum, local in sheet.balance:
            w = [cum[0]] + [cum[k] - cum[k - 1] for k in range(1, len(cum))]
            seed_p.update({int(j): wk / cum[-1] for j, wk in zip(local, w)})
        (_, whites), (_, blues) = sheet.balance
        want = [0.0] * len(cards)
        for a in whites.tolist():
            for b in blues.tolist():
                rest = [j for j in range(len(cards)) if j not in (a, b)]
                for order in itertools.permutations(rest, n - 2):
                    p, left = seed_p[a] * seed_p[b], sum(cw[j] for j in rest)
                    for j in order:
                        p *= cw[j] / left
                        left -= cw[j]
                    for j in (a, b, *order):
                        want[j] += p
        assert got.method == "integral" and got.present.tolist() == pytest.approx(want, abs=1e-12)


def test_race_integral_equals_the_exact_programme(built_db: Path) -> None:
    from boosterkit.generator import load_product

    cp = compile_product(load_product("afr", "draft", built_db))
    sheet = next(s for s in arrays(cp).sheets if s.name == "common")
    w, none = sheet.weights, [0.0] * len(sheet.weights)
    dp = _successive(w, 10, [("common", False)] * len(w)).present
    race = [race_inclusion(w, 10, [], np.array(none), i) for i in range(len(w))]
    assert race == pytest.approx(dp.tolist(), abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("product", ["draft", "set"])
def test_exact_odds_match_100000_packs(real_db: Path, product: str) -> None:
    """z of each figure: |z| < 5 everywhere, and the mean z² near 1 (a chi-square over the
    card rows divided by its degrees of freedom; ±0.3 is about 5 of its standard errors),
    for the exact rows and the colour-balanced commons (integral) alike."""
    data = odds("afr", product, db=real_db, simulate=100_000, seed=2024)
    assert data["simulation"] == {"packs": 100_000, "seed": 2024, "units": 100_000}
    for rows in (data["groups"], data["cards"]):
        zs = [r["z_chance"] for r in rows if 0 < r["chance"] < 1]
        assert zs and max(abs(z) for z in zs) < 5
    assert {r["method"] for r in data["cards"] + data["groups"]} <= {"exact", "integral"}
    for method in ("exact", "integral"):
        zs = [r["z_chance"] for r in data["cards"] if r["method"] == method and 0 < r["chance"] < 1]
        if method == "integral" and product == "set":
            assert not zs  # AFR Set Boosters have no balanced sheet
            continue
        assert len(zs) > 100
        assert 0.7 < sum(z * z for z in zs) / len(zs) < 1.3, method
    # per box: figures for 30 packs, observed over 100,000 // 30 boxes
    box = odds("afr", product, "box", db=real_db, box_size=30, simulate=30_000, seed=5)
    mythic = _by(box["groups"], group="mythic", foil=False)
    assert abs(mythic["z_chance"]) < 5 and box["simulation"]["units"] == 1000


def test_cli_json_equals_library(capsys, built_db: Path) -> None:
    code, out, _ = run(capsys, "--db", str(built_db), "odds", "afr", "-p", "set", "--per", "box",
                       "--card", "afr queen of webs", "--json")  # fmt: skip
    assert code == 0
    lib = odds("afr", "set", "box", "afr queen of webs", db=built_db)
    assert json.loads(out) == lib
    assert lib["box_size"] == 30 and {c["name"] for c in lib["cards"]} == {"AFR Queen of Webs"}


def test_cli_table_csv_parquet(capsys, built_db: Path, tmp_path: Path) -> None:
    import polars as pl

    code, out, _ = run(capsys, "--db", str(built_db), "odds", "afr", "--simulate", "2000")
    assert code == 0 and "observed: 2000 packs of seed 0" in out and "integral" in out
    code, out, _ = run(capsys, "--db", str(built_db), "odds", "afr", "-f", "csv")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("set,product,per,level,group,foil,expected,chance")
    target = tmp_path / "odds.parquet"
    code, _, _ = run(
        capsys, "--db", str(built_db), "odds", "afr", "-f", "parquet", "-o", str(target)
    )
    frame = pl.read_parquet(target)
    lib = odds("afr", db=built_db)
    assert code == 0 and frame.height == len(lib["groups"]) + len(lib["cards"])
    assert frame.filter(pl.col("level") == "group")["chance"].to_list() == [
        g["chance"] for g in lib["groups"]
    ]


def test_box_sizes_file(tmp_path: Path) -> None:
    from boosterkit.generator.odds import box_sizes

    assert box_sizes() == {"draft": 36, "set": 30, "collector": 12, "play": 36}
    bad = tmp_path / "boxes.yaml"
    bad.write_text("boxes: {draft: 36}\npacks: 3\n")
    with pytest.raises(InputError, match="exactly one key"):
        box_sizes(bad)
    bad.write_text("boxes: {draft: many}\n")
    with pytest.raises(InputError, match="boxes.draft"):
        box_sizes(bad)


def test_bad_input(capsys, built_db: Path) -> None:
    with pytest.raises(NotFoundError, match="card 'no such card'"):
        odds("afr", card="no such card", db=built_db)
    with pytest.raises(InputError, match="per 'crate'"):
        odds("afr", per="crate", db=built_db)
    with pytest.raises(InputError, match="box_size"):
        odds("afr", per="box", box_size=0, db=built_db)
    code, out, err = run(capsys, "--db", str(built_db), "odds", "afr", "--per", "crate")
    assert code == 2 and out == ""
    code, _, err = run(capsys, "--db", str(built_db), "odds", "zzz")
    assert (
        code == 2
        and err.startswith("boosterkit: error: unknown set 'zzz'")
        and len(err.splitlines()) == 1
    )


def test_programme_too_large_falls_back_to_an_approximation(monkeypatch) -> None:
    """Past ``DP_STATES_MAX`` a sheet's figures are Rosén's approximation, marked approx."""
    import boosterkit.generator.odds as odds_mod

    exact_cards, _ = product_odds(compile_product(SMALL))
    monkeypatch.setattr(odds_mod, "DP_STATES_MAX", 1)
    cards, groups = product_odds(compile_product(SMALL))
    a, exact_a = _by(cards, name="A"), _by(exact_cards, name="A")
    assert a["method"] == "approx" and _by(cards, name="F")["method"] == "exact"
    assert a["chance"] == pytest.approx(exact_a["chance"], abs=0.03)
    assert _by(groups, group="rare", foil=False)["method"] == "approx"


def test_the_exact_odds_are_kept_per_database_content(
    built_db: Path, tmp_path: Path, monkeypatch
) -> None:
    import shutil

    from boosterkit.cache import Cache
    from boosterkit.database import Database
    from boosterkit.generator import odds as odds_mod

    path = tmp_path / "kept.duckdb"
    shutil.copy(built_db, path)
    computed = []
    monkeypatch.setattr(odds_mod, "product_odds", lambda cp: computed.append(1) or product_odds(cp))

    def fresh() -> Database:  # as a new process: nothing kept in memory, the file beside
        return Database(path, cache=Cache())

    first = odds("afr", "draft", db=fresh())
    boxed = odds("afr", "draft", "box", db=fresh())
    assert len(computed) == 1  # the second read them from the file beside the database
    assert boxed["packs_per_unit"] > 1 and boxed["cards"] != first["cards"]
    one = fresh()  # one process asking again and again: the rows kept in memory
    simulated = odds("afr", "draft", "box", db=one, simulate=72, seed=3)
    for _ in range(2):  # no call changed the kept rows (rounded, per box, variance taken)
        assert odds("afr", "draft", db=one) == first
        assert odds("afr", "draft", "box", db=one) == boxed
        assert odds("afr", "draft", "box", db=one, simulate=72, seed=3) == simulated
    assert len(computed) == 1
    with Database(path).write() as con:  # new content: computed again
        con.execute("CREATE TABLE scratch AS SELECT 1 AS x")
        con.execute("CHECKPOINT")
    assert odds("afr", "draft", db=fresh()) == first and len(computed) == 2
