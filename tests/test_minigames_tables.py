"""What a table needs (issue 10): unknown cards, player counts, inferred steps, rules text,
face-down defaults, printed names in other languages, escaping."""

from __future__ import annotations

import pytest
from helpers import schema_checked_deal as deal

from boosterkit.errors import InputError
from boosterkit.generator.cache import compiled_product
from boosterkit.generator.packs import open_packs
from boosterkit.minigames import SetupError, render_sheet, validate_setup
from boosterkit.minigames.capacity import deal_capacity
from boosterkit.minigames.catalog import get_minigame
from boosterkit.minigames.filters import is_nmb, matches
from boosterkit.minigames.sheets import clean, md_escape


def test_an_unknown_card_out_of_play_is_marked_not_refused(con) -> None:
    """Seed 32 at 7 players sets aside a card from The List (not in the database): nobody reads
    it, so it is dealt with a note and an "unknown card" mark, never as a blank card."""
    setup = deal(con, "roll-for-initiative", 7, "afr", seed=32)
    unknown = [c for c in setup.zone("set aside").cards if not c.resolved and c.kind == "card"]
    assert len(unknown) == 1 and unknown[0].set == "plist"
    assert any(
        f"{unknown[0].uid} (PLIST {unknown[0].collector_number}) in the set aside is an "
        "unknown card"
        in n
        and "`boosterkit import mtgjson …/PLIST.json` or `boosterkit sync plst` brings it" in n
        for n in setup.notes
    )
    organizer = render_sheet(setup, "text").split("[organizer]")[1]
    assert f"unknown card (PLIST {unknown[0].collector_number})" in organizer
    assert validate_setup(con, setup.to_dict(), exact=True).valid


def test_an_unknown_card_in_play_fails_naming_the_fix_and_a_product_that_deals(con) -> None:
    """One short sentence: the commands that bring The List, and a product of the set that
    deals this very seed (issue 18), which it then does."""
    with pytest.raises(SetupError) as err:
        deal(con, "mimic-match", 2, "afr", seed=1)
    message = str(err.value)
    assert message == (
        "Mimic Match: 1 List card is not in the database: run `boosterkit import "
        "mtgjson …/PLIST.json` or `boosterkit sync plst`, or deal `--product draft`."
    )
    assert len(message) < 160 and (err.value.set_code, err.value.product) == ("afr", "set")
    assert deal(con, "mimic-match", 2, "afr", product="draft", seed=1).product == "draft"


def test_roll_for_initiative_serves_as_many_players_as_the_packs_deal(con) -> None:
    # "2+ players" / "Use an additional booster for groups of five players or more. Shuffle,
    # then deal the same number of cards to each player": two 12-card Set Boosters serve 24,
    # two 15-card Draft Boosters 25 and more (issue 19: count what the packs hold).
    setup = deal(con, "roll-for-initiative", 24, "afr", seed=0)
    hands = [z for z in setup.zones if z.kind == "hand"]
    assert len(hands) == 24 and {len(z.cards) for z in hands} == {1}
    # 24 players on a d20 cannot all differ: only the lowest roll is rolled off, so the dice
    # (not the seats) pick who starts; the other ties stand, and the sheet says so
    start = {p: (setup.tiebreaks.get(p) or [v])[-1] for p, v in setup.rolls.items()}
    lowest = min(start.values())
    assert list(start.values()).count(lowest) == 1 and len(set(start.values())) < 24
    assert any(n.startswith("More players than a d20 has faces: ") for n in setup.notes)
    assert setup.first_player == min(start, key=start.get)
    assert sum(len(n) for n in setup.notes) < 3000  # bounded notes
    with pytest.raises(SetupError) as refused:  # this seed's packs: other seeds' deal 25
        deal(con, "roll-for-initiative", 25, "afr", seed=0)
    assert str(refused.value) == (
        "Roll for Initiative: dealing at least 1 card to the 25 players: the 2 packs opened "
        "hold 24 cards once the cards without a Magic back are taken out, and 25 are needed; "
        "2 afr-set packs hold 24 to 26 such cards: try another seed (this was 0), or "
        "`--product draft` (its 2 hold at least 30)"
    )
    draft = deal(con, "roll-for-initiative", 25, "afr", product="draft", seed=0)
    hands = [z for z in draft.zones if z.kind == "hand"]
    assert [len(p.items) for p in draft.packs] == [16, 16]  # 15 cards and a token each
    assert len(hands) == 25 and {len(z.cards) for z in hands} == {1}
    assert len(draft.zone("set aside").cards) == 30 - 25
    assert validate_setup(con, draft.to_dict(), exact=True).valid


@pytest.mark.parametrize(
    ("players", "set_code", "product", "line"),
    [
        (99, "afr", None, "from afr-set packs: 2 hold at most 26 cards once the cards without "
         "a Magic back are taken out, 1 for each player, so at most 26 players (30 with "
         "`--product draft`): deal fewer"),
        (27, "afr", None, "from afr-set packs: 2 hold at most 26 cards once the cards without "
         "a Magic back are taken out, 1 for each player, so at most 26 players; "
         "`--product draft` deals up to 30"),
        (25, "khm", None, "from khm-set packs: 2 hold at most 24 cards once the cards without "
         "a Magic back are taken out, 1 for each player, so at most 24 players; "
         "`--product draft` deals up to 30"),
        (31, "afr", "draft", "from afr-draft packs: 2 hold at most 30 cards once the cards "
         "without a Magic back are taken out, 1 for each player, so at most 30 players: deal "
         "fewer"),
    ],
)  # fmt: skip
def test_more_players_than_any_pack_of_the_product_holds_is_an_input_error(
    con, players: int, set_code: str, product: str | None, line: str
) -> None:
    """ "Deal the same number of cards to each player" from two packs: past what any two packs
    of the product hold (its variants: an AFR Set Booster holds 12 Magic cards, 13 with a card
    of The List in its token slot; KHM's 11 or 12), no seed deals, whatever the seed."""
    for seed in range(3):
        with pytest.raises(InputError) as err:
            deal(con, "roll-for-initiative", players, set_code, product=product, seed=seed)
        assert (
            str(err.value) == f"players: {players} is more than Roll for Initiative can deal {line}"
        )
        assert err.value.field == "players"


def test_the_bound_is_what_the_packs_of_the_product_hold(con) -> None:
    """The static bound against opened packs: over 400 AFR Set Boosters every pack holds 12 or
    13 Magic cards (``low``/``high``), both occur, and none exceeds 13."""
    spec = get_minigame("roll-for-initiative")
    held = {
        sum(not matches(i, "nmb") for i in p.items)
        for p in open_packs("afr", "set", 400, seed=5, db=con)
    }
    cap = deal_capacity(spec, compiled_product("afr", "set", db=con), False)
    assert cap is not None and (cap.low, cap.high) == (12, 13) == (min(held), max(held))
    assert cap.span(5) == (24, 26) and cap.most_players(100) == 26
    # a pack per player: the packs grow with the table (Urza's Blueprints, 5 cards each); a
    # random pick before the deal (Vampire Wedding Planner's theme card) leaves no bound
    product = compiled_product("afr", "set", db=con)
    urza = deal_capacity(get_minigame("urzas-blueprints"), product, False)
    assert urza is not None and urza.need(100) == 500 and urza.most_players(100) == 100
    assert deal_capacity(get_minigame("vampire-wedding-planner"), product, False) is None


def test_inferred_steps_and_products_are_noted(con) -> None:
    mm = deal(con, "magic-and-minions", 4, "afr", seed=0)
    assert any(n.startswith("Inferred, not printed on the card: Draft Boosters") for n in mm.notes)
    # leftovers nobody uses follow from the card's counts: not marked inferred (issue 30)
    cs = deal(con, "careful-study", 2, "khm", seed=0)
    assert not [n for n in cs.notes if n.startswith("Inferred")]


def test_rules_text_comes_from_the_card_else_the_catalogue(con) -> None:
    rfi = deal(con, "roll-for-initiative", 2, "afr", seed=2)
    assert rfi.rules_text["source"] == "the card MAFR #5"
    assert "In case of a tie, the tied players roll again." in rfi.rules_text["text"]
    assert "*Red Card*" in rfi.rules_text["text"]  # the back of the card too
    mini = deal(con, "mini-master", 2, "afr", seed=2)  # MCLB / MDMU are not in the database
    assert mini.rules_text["source"].startswith("the boosterkit catalogue")
    assert "To win: Best of three games of Magic" in mini.rules_text["text"]
    assert mini.to_dict()["rules"] == mini.rules_text


def test_rules_text_is_worked_out_once_a_content_and_each_caller_gets_a_copy(monkeypatch) -> None:
    """``rules_text`` keeps its answer by game, language and set with the database's
    minigame cards (issue 36: every deal scanned every minigame card for it); a caller that
    changes its answer changes no other caller's."""
    from boosterkit.minigames import lookup

    card = lookup.MinigameCard("c1", "mafr", "5", "Roll a d20.", "en", "Roll for Initiative", ())
    cards = lookup.MinigameCards((card,), frozenset({"afr"}))
    spec = get_minigame("roll-for-initiative")
    worked: list[str] = []
    real = lookup._rules_text
    monkeypatch.setattr(lookup, "_rules_text", lambda *a: worked.append(a[2]) or real(*a))
    first = lookup.rules_text(cards, spec, "en", "afr")
    assert first == {"source": "the card MAFR #5", "text": "Roll a d20."}
    first["text"] = "changed by its caller"
    assert lookup.rules_text(cards, spec, "en", "afr")["text"] == "Roll a d20."
    assert lookup.rules_text(cards, spec, "fr", "afr")["source"].startswith("the card")
    assert worked == ["en", "fr"]  # the second English answer was kept
    other = lookup.MinigameCards((card,), frozenset({"afr"}))  # another content: its own
    assert lookup.rules_text(other, spec, "en", "afr")["text"] == "Roll a d20."
    assert worked == ["en", "fr", "en"]


def test_face_down_games_drop_double_faced_cards_by_default(con) -> None:
    """ZNR has modal double-faced cards: Base Race removes them unless --no-strict-backs."""
    for seed in (0, 2, 3, 5, 6, 7):
        keep = deal(con, "base-race", 2, "znr", seed=seed, strict_backs=False)
        dfc = [c for z in keep.zones if z.kind == "grid" for c in z.cards if is_nmb(c, True)]
        if dfc:
            break
    else:
        pytest.fail("no ZNR seed put a double-faced card in a Base Race grid")
    default = deal(con, "base-race", 2, "znr", seed=seed)
    assert default.strict_backs and not keep.strict_backs
    removed = {c.uid for c in default.zone("removed").cards}
    assert {c.uid for c in dfc} <= removed
    assert any(
        "double-faced Magic cards too: this game's cards lie face down" in n for n in default.notes
    )
    assert validate_setup(con, default.to_dict(), exact=True).valid
    # the file without strict_backs means the game's default
    data = default.to_dict()
    del data["strict_backs"]
    assert validate_setup(con, data).valid


def test_printed_names_in_other_languages_find_the_game() -> None:
    for name in (
        "Lancez les dés pour l'initiative !",
        "lancez les des pour l'initiative",
        "Tirada de iniciativa",
        "TIRADA DE INICIATIVA",
        "Roll for Initiative",
    ):
        assert get_minigame(name).id == "roll-for-initiative"
    assert get_minigame("careful study (minigame)").id == "careful-study"


def test_escaping_helpers() -> None:
    assert clean("a\nb\r\nc\x00d\u202ee\x1bf") == "a b cdef"
    assert md_escape("[x](javascript:alert(1))") == "\\[x\\]\\(javascript:alert\\(1\\)\\)"
    assert md_escape("<script>") == "&lt;script\\>"
    assert md_escape("- item") == "\\- item" and md_escape("1. x") == "1\\. x"
    assert md_escape("# h") == "\\# h"


def test_face_down_libraries_are_on_the_organizer_page_only(con) -> None:
    """Mini-Master's libraries lie face down, in order: neither the table nor the players
    see them (the issue found them, in order, on the shared page)."""
    import re

    setup = deal(con, "mini-master", 2, "afr", seed=2)
    page = render_sheet(setup, "html")
    sections = dict(re.findall(r'data-audience="([^"]+)">(.*?)</section>', page))
    assert set(sections) == {"table", "organizer"}
    for z in (setup.zone("player-1 library"), setup.zone("player-2 library")):
        assert z.visibility == "hidden" and z.face_down
        own = [c.uid for c in z.cards if not c.external]
        assert not any(f'class="uid">{uid}<' in sections["table"] for uid in own)
        assert all(f'class="uid">{uid}<' in sections["organizer"] for uid in own)


def test_roll_for_initiative_sheet_stays_small_at_24_players(con) -> None:
    """The issue's 20-player sheet was 273 MB (an unbounded re-roll history)."""
    setup = deal(con, "roll-for-initiative", 24, "afr", seed=0)
    sizes = {f: len(render_sheet(setup, f)) for f in ("text", "md", "html")}
    assert max(sizes.values()) < 100_000, sizes


def test_sheet_labels_follow_the_language(con) -> None:
    es = render_sheet(deal(con, "roll-for-initiative", 2, "afr", seed=2, lang="es"), "text")
    assert es.startswith("TIRADA DE INICIATIVA [table]\nMESA: todos pueden ver esta página.")
    # issue 30 §4: the Spanish MAFR #5 as printed, "PREPARARSE: Abre un sobre y retira todas
    # las cartas que no tengan el reverso de Magic.", not the English text marked
    assert "Reglas (la carta MAFR #5)\n" in es and "SOLO ORGANIZADOR" in es
    assert (
        "  PREPARARSE:\n  Abre un sobre y retira todas las cartas que no tengan el reverso de Magic."
        in es
    )
    assert "texto en inglés" not in es and "GET READY" not in es
    fr = render_sheet(deal(con, "mini-master", 2, "afr", seed=2, lang="fr"), "html")
    assert '<html lang="fr">' in fr and "Règles (le catalogue de boosterkit" in fr
    with pytest.raises(InputError, match="lang: 'de' is not one of en, fr, es"):
        deal(con, "mini-master", 2, "afr", seed=2, lang="de")


@pytest.mark.parametrize(
    ("game", "players", "set_code", "seed", "message"),
    [
        (
            "base-race",
            2,
            "khm",
            12,
            "Base Race: dealing 11 cards to the 2 players: the 3 packs opened hold 20 cards once the "
            "lands or cards without a Magic back are taken out, and 22 are needed; try another seed "
            "(this was 12) or another set",
        ),
        (
            "booster-blitz",
            2,
            "khm",
            0,
            "Booster Blitz: making 4 piles of 3: player-1's own pack holds 11 cards once the cards "
            "without a Magic back are taken out, and 12 are needed; none of the 8 seeds after 0 "
            "deals it either: try another set or product",
        ),
        (
            "foraging-squirrels",
            4,
            "khm",
            0,
            "Foraging Squirrels: laying out the grid (5 x 5, 25 cards): the 2 packs opened hold 22 "
            "cards once the cards without a Magic back are taken out (1 art card put back makes "
            "23), and 25 are needed; none of the 8 seeds after 0 deals it either: try another set "
            "or product",
        ),
    ],
)
def test_short_packs_say_what_they_lacked_and_what_to_do(
    con, game, players, set_code, seed, message
) -> None:
    with pytest.raises(SetupError) as err:
        deal(con, game, players, set_code, seed=seed)
    assert str(err.value) == message


def test_a_product_that_cannot_deal_the_fewest_says_so(con) -> None:
    """A product whose packs cannot serve even the game's fewest players is not told to
    "deal fewer": the line says it cannot deal the game and names the product that can."""
    import dataclasses

    spec = get_minigame("roll-for-initiative")
    real = deal_capacity(spec, compiled_product("afr", "set", db=con), False)
    assert real is not None
    tiny = dataclasses.replace(real, low=0, high=0)  # a pack that holds none of the kind
    assert tiny.most_players(100) is None
    error = tiny.too_many(4, 100, {"draft": real})
    assert error is not None and "deal fewer" not in str(error)
    assert "so it cannot deal this game: `--product draft` deals up to 26" in str(error)
    alone = tiny.too_many(4, 100, {})
    assert alone is not None and str(alone).endswith("so it cannot deal this game: try another set")
