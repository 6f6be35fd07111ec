"""What a sheet says (issue 19 §3, §4): the card's emphasis rendered, never its raw markers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import schema_checked_deal as deal
from markdown_it import MarkdownIt

from boosterkit.minigames import render_sheet
from boosterkit.minigames.catalog import get_minigame, load_catalogue
from boosterkit.minigames.labels import label
from boosterkit.minigames.lookup import _minigames, rules_text
from boosterkit.minigames.sheets import Section, _html_section, _md_body, _text_body, emphasis
from boosterkit.minigames.translate import who
from boosterkit.pipeline import db

#: A marker left in text: a star, or an underscore at a word's edge (``_Magic_``).
RAW = re.compile(r"\*|(?<!\w)_|_(?!\w)")


def test_emphasis_spans() -> None:
    assert emphasis("*White Card*: At the end, _Magic_ cards; snake_case") == [
        ("White Card", "strong"),
        (": At the end, ", ""),
        ("Magic", "em"),
        (" cards; snake_case", ""),
    ]


def test_roll_for_initiative_prints_the_cards_emphasis_in_each_format(con) -> None:
    """MAFR #5: "*Red Card*: Reroll another player's die. They must use the new result." and
    "remove all cards without _Magic_ card backs" print bold and italic, markers gone."""
    setup = deal(con, "roll-for-initiative", 3, "afr", seed=2)
    assert "*Red Card*" in setup.rules_text["text"]  # the card's own markup
    html = render_sheet(setup, "html")
    assert "<strong>Red Card</strong>: Reroll another" in html
    assert "without <em>Magic</em> card backs" in html
    md = render_sheet(setup, "md")
    parsed = MarkdownIt().render(md)
    assert "<strong>Red Card</strong>: Reroll another" in parsed
    assert "without <em>Magic</em> card backs" in parsed
    text = render_sheet(setup, "text")
    assert "Red Card: Reroll another" in text
    assert "without Magic card" in text
    for sheet in (text, re.sub(r"<[^>]+>", "", html), re.sub(r"<[^>]+>", "", parsed)):
        rules = sheet.split("Rules")[1].split("Notes")[0]
        assert not RAW.search(rules), RAW.search(rules)


def test_no_game_prints_raw_markers(real_db: Path) -> None:
    """All 28 games: the rules text the sheets print (the card's, from the real minigame
    files, else the catalogue's) holds emphasis in HTML and Markdown and no marker in any
    format."""
    con = db.connect(real_db, read_only=True)
    try:
        kept = _minigames(con)
    finally:
        con.close()
    games = load_catalogue()
    assert len(games) == 28
    emphasised = 0
    for spec in games.values():
        lines = rules_text(kept, spec)["text"].splitlines()
        sec = Section("Rules", "para", lines)
        text = "\n".join(_text_body(sec))
        html = _html_section(sec)
        md = MarkdownIt().render("\n".join(_md_body(sec)))
        for out in (text, re.sub(r"<[^>]+>", "", html), re.sub(r"<[^>]+>", "", md)):
            assert not RAW.search(out), (spec.id, RAW.search(out), out[:200])
        marked = sum(len(emphasis(x)) > 1 for x in lines)
        assert html.count("<strong>") + html.count("<em>") >= marked, spec.id
        assert md.count("<strong>") + md.count("<em>") == html.count("<strong>") + html.count(
            "<em>"
        ), spec.id
        emphasised += "<em>" in html or "<strong>" in html
    # the 15 cards whose text marks words (MAFR #5, MKHM #4, MSTX #4…; MMID #2 and MDMU #3
    # with **double** asterisks)
    assert emphasised == 15


# --- the table's language (§4) ------------------------------------------------------------


def _table_words(setup) -> list[str]:
    """What a sheet says beside the card text: zone titles, notes, head values."""
    from boosterkit.minigames.sheets import build_pages

    out = []
    for page in build_pages(setup):
        out.append(page.title)
        for sec in page.sections:
            if sec.kind == "para":
                continue  # the card's own text, as the database holds it
            out.append(sec.title)
            if sec.kind == "kv":
                out += [v for _, v in sec.body]
            elif sec.kind == "list":
                out += sec.body
            else:
                cells = [c for row in sec.body for c in row] if sec.kind == "grid" else sec.body
                out += [c if isinstance(c, str) else " ".join(c["facts"]) for c in cells]
    return out


#: English words no French or Spanish sheet may hold outside card names and the card text.
ENGLISH = re.compile(
    r"\b(player|team|cards?|hand|removed|set aside|unused|face down|grid|deck|discard|"
    r"starts|Dealt|Removed|reroll|roll|effect|lands?|booster data|shown)\b"
)


#: The sets of the built world: a game printed for another set is dealt on AFR.
BUILT_SETS = ("afr", "khm", "znr", "stx", "mh2")


#: (game, players) → the (set, seed) that dealt it first: the language does not change what
#: a seed deals, so the next language deals that table at once (201 deals a language → 46).
_DEALT: dict[tuple[str, int], tuple[str, int]] = {}


def _deal_any(con, spec, players: int, lang: str):
    """``spec`` dealt to ``players`` on the first of its built sets (else AFR, else the first
    built set whose packs can serve it: Monster of the Week's MID is not built) and seed that
    serve it; None when none does."""
    from boosterkit.errors import InputError, NotFoundError
    from boosterkit.minigames import SetupError

    sets = [p.parent for p in spec.printings if p.parent in BUILT_SETS] or ["afr"]
    tries = [(code, seed) for code in dict.fromkeys([*sets, *BUILT_SETS]) for seed in range(1, 30)]
    if (spec.id, players) in _DEALT:
        tries.insert(0, _DEALT[spec.id, players])
    refused = set()
    for code, seed in tries:  # a built List card is absent: some seeds open one
        if code in refused:
            continue
        try:
            setup = deal(con, spec.id, players, code, seed=seed, lang=lang)
        except (SetupError, NotFoundError):
            continue
        except InputError:  # no pack of this set can serve it
            refused.add(code)
            continue
        _DEALT[spec.id, players] = (code, seed)
        return setup
    return None


def _untranslated(setup, lang: str) -> list[str]:
    """What ``setup``'s sheet would print in English: notes no template matches, catalogue
    sentences, zone names, roles, tags and card kinds the language file lacks, and English
    words left in the table's lines once card names are taken out."""
    from boosterkit.minigames.translate import _zone, note, phrases, reminders, tongue

    spec, said, words = setup.spec, phrases(lang), tongue(lang).file.words
    out = [f"note: {n}" for n in setup.notes if note(lang, n) is None]
    texts = [spec.win.text, spec.first_player.text, *(r.text for r in spec.roles)]
    texts += [spec.declare.text] if spec.declare else []
    texts += [spec.unprinted.text] if spec.unprinted else []
    out += [f"phrase: {t}" for t in texts if t and t not in said]
    names = [*(r.name for r in spec.roles), *(t for z in setup.zones for t in z.tags.values())]
    names += [c.kind.replace("_", " ") for z in setup.zones for c in z.cards if c.kind != "card"]
    names += [spec.declare.what] if spec.declare else []
    out += [f"word: {w}" for w in dict.fromkeys(names) if w not in words]
    out += [f"zone: {z.name}" for z in setup.zones if _zone(lang, z.name) is None]
    if "colors" in spec.reads:  # each colour's effect, printed beside the card
        out += [f"reminder: {k}" for k in spec.reminders if k not in reminders(lang, spec.id)]
    cards = sorted({c.name for z in setup.zones for c in z.cards if c.name}, key=len, reverse=True)
    for line in _table_words(setup):
        rest = line
        for n in cards:
            rest = rest.replace(n, "")
        if ENGLISH.search(rest):
            out.append(f"line: {line}")
    return out


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_a_french_or_spanish_sheet_says_no_english_word(con, lang: str) -> None:
    """All 28 games at their smallest and largest printed table (8 when unbounded), on the
    built data: zone names, notes, roles, the win, first-player, declare and unprinted lines
    and the effect reminders are in the sheet's language. Every failure is listed at once: a
    note no template matches, a sentence or word the language file lacks."""
    games = load_catalogue()
    assert len(games) == 28
    dealt, tables, failures = 0, 0, []
    for spec in games.values():
        low = max(spec.players.min or 1, 3 if spec.id == "careful-study" else 1)
        for players in sorted({low, spec.players.max or 8}):
            tables += 1
            setup = _deal_any(con, spec, players, lang)
            if setup is None:
                failures.append(f"{spec.id} at {players}: not dealt")
                continue
            dealt += 1
            failures += [
                f"{spec.id} at {players}: {x}" for x in dict.fromkeys(_untranslated(setup, lang))
            ]
    assert failures == [], "\n".join(dict.fromkeys(failures))
    # 18 games print a range of players, 10 one count (Solo, 2 players, 4 players): 46 tables
    assert dealt == tables == 46


def test_plurals_and_colour_names() -> None:
    """ "1 booster ouvert", never "1 ouverts"; French counts 0 singular ("0 carte")."""
    from boosterkit.minigames.labels import label, plural
    from boosterkit.minigames.sheets import _colours, _n_cards

    assert [_n_cards(n, "fr") for n in (0, 1, 2)] == ["0 carte", "1 carte", "2 cartes"]
    assert [_n_cards(n, "es") for n in (0, 1, 2)] == ["0 cartas", "1 carta", "2 cartas"]
    assert [_n_cards(n, "en") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert label("fr", "opened" if plural("fr", 1) else "opened-1") == "ouvert"
    assert _colours(("U", "R"), "fr") == "bleu, rouge"
    assert _colours(("W", "G"), "es") == "blanco, verde"
    assert _colours(("U", "R"), "en") == "UR"  # the English sheet is unchanged


def test_roll_for_initiative_in_french_and_spanish_uses_the_cards_wording(con) -> None:
    """MAFR #5: "*Blue Card*: Reroll another player's die, but use the new result only if it's
    lower." — as the French card (MCLB #1) prints it, "Carte bleue : Relancez le dé d'un autre
    joueur, mais n'utilisez le nouveau résultat que s'il est inférieur.", and the Spanish
    (MAFR #5), "Carta azul: vuelve a tirar el dado de otro jugador, pero usa el nuevo resultado
    solo si es menor." (issue 30 §4: the printed wording, ../shared/seeds)."""
    from boosterkit.minigames.translate import reminders

    fr = reminders("fr", "roll-for-initiative")
    es = reminders("es", "roll-for-initiative")
    assert fr["U"] == (
        "Relancez le dé d'un autre joueur, mais n'utilisez le nouveau résultat que s'il est "
        "inférieur."
    )
    assert fr["R"] == "Relancez le dé d’un autre joueur. Il doit utiliser le nouveau résultat."
    assert es["U"] == (
        "Vuelve a tirar el dado de otro jugador, pero usa el nuevo resultado solo si es menor."
    )
    assert set(fr) == set(es) == set(get_minigame("roll-for-initiative").reminders)
    for lang, said in (("fr", fr), ("es", es)):
        setup = deal(con, "roll-for-initiative", 4, "afr", seed=3, lang=lang)
        text = render_sheet(setup, "text")
        blue = [c for z in setup.zones if z.owner for c in z.cards if c.colors == ("U",)]
        assert blue, "seed 3 deals a blue card"
        assert text.count(said["U"]) >= 2 * len(blue)  # its owner's page and the organizer's
        english = get_minigame("roll-for-initiative").reminders.values()
        assert not any(e in text for e in english)
        html = render_sheet(setup, "html")  # colour badges by name, not W/U/B/R/G
        assert not re.search(r'class="c c-\w">[WUBRG]<', html)
        assert re.search(r'class="c c-U">(bleu|azul)<', html)


@pytest.mark.parametrize(
    ("lang", "one", "more", "teams"),
    [
        ("en", "re-roll", "re-rolls", "Teams: team-1 = player-1, player-3; team-2 = player-2"),
        ("fr", "relance", "relances", "Équipes: équipe 1 = joueur 1, joueur 3; équipe 2 = joueur 2"),
        ("es", "nueva tirada", "nuevas tiradas",
         "Equipos: equipo 1 = jugador 1, jugador 3; equipo 2 = jugador 2"),
    ],
)  # fmt: skip
def test_a_tie_is_a_re_roll_and_a_team_game_names_its_players(
    con, lang: str, one: str, more: str, teams: str
) -> None:
    """MAFR #5: "In case of a tie, the tied players roll again." — the Rolls section calls
    each new roll a re-roll (the French card's "relancent le dé", the Spanish "vuelven a
    tirar"), never a roll-off; Careful Study ("Randomly determine which team goes first")
    names each team's players in the table page's head."""
    setup = deal(con, "roll-for-initiative", 5, "afr", product="draft", seed=6, lang=lang)
    text = render_sheet(setup, "text")
    rolls = text.split("\n" + label(lang, "Rolls") + "\n")[1].split("\n\n")[0]
    for p, again in setup.tiebreaks.items():
        said = one if len(again) == 1 else more
        line = f"  - {who(lang, p)}: {setup.rolls[p]} ({said} {'/'.join(map(str, again))})"
        assert line in rolls.splitlines(), line
    assert {len(v) for v in setup.tiebreaks.values()} == {1, 2}  # both words are printed
    assert not re.search("roll-off|départage|desempate", text)
    study = render_sheet(deal(con, "careful-study", 3, "khm", seed=1, lang=lang), "text")
    head = study.split("\n\n")[1].splitlines()
    assert re.sub(r":\s+", ": ", next(h for h in head if h.startswith(teams[:6]))) == teams


def test_the_printed_titles_find_the_game() -> None:
    """The French and Spanish cards' full titles, as printed."""
    for title in (
        "Lancez les dés pour l'initiative ! (Mini-jeu magique)",
        "Tirada de iniciativa (minijuego de Magic)",
        "Lancez les dés pour l'initiative !",
        "Roll for Initiative (Magic Minigame)",
    ):
        assert get_minigame(title).id == "roll-for-initiative", title


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_card_names_in_the_tables_language_where_mtgjson_has_them(real_db: Path, lang) -> None:
    """Real AFR: each dealt card with a French (Spanish) name in the MTGJSON file prints it,
    with its English name beside it on the organizer's page only; one without is printed in
    English, marked."""
    con = db.connect(real_db, read_only=True)
    try:
        setup = deal(con, "roll-for-initiative", 5, "afr", seed=2, lang=lang)
        known = dict(
            con.execute("SELECT card_id, name FROM card_names WHERE lang = ?", [lang]).fetchall()
        )
    finally:
        con.close()
    text = render_sheet(setup, "text")
    players, organizer = text.split("[organizer]")[0], text.split("[organizer]")[1]
    hands = [c for z in setup.zones if z.owner for c in z.cards]
    translated = [c for c in hands if c.card_id in known]
    assert len(translated) >= 0.9 * len(hands)  # AFR: 396 of 420 printings have one
    marked = {"fr": "nom anglais", "es": "nombre en inglés"}[lang]
    for c in hands:
        if c.card_id in known:
            assert f"{c.uid:<7} {known[c.card_id]}  [" in players
            assert f"{known[c.card_id]} ({c.name})" in organizer
            if known[c.card_id] != c.name:
                assert c.name not in players.replace(f"({c.name})", "")
        else:
            assert f"{c.uid:<7} {c.name}  [" in players and marked in players


def test_a_language_file_template_uses_the_slots_of_its_english() -> None:
    """A typo in a note template fails at load, naming it (not a half-English sheet)."""
    from pydantic import ValidationError

    from boosterkit.minigames.langfile import NoteTemplate

    with pytest.raises(ValidationError, match="must use the slots of '{who} starts.'"):
        NoteTemplate(en="{who} starts.", say="{zone} commence.")
    with pytest.raises(ValidationError, match="unknown slot {whoo}"):
        NoteTemplate(en="{whoo} starts.", say="{whoo} commence.")
