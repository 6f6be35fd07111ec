"""What a sheet prints beside the dealt cards, looked up in the database: the game's own
rules text (from its minigame card when the database holds it) and the facts of each dealt
card that the packs do not carry (toughness, loyalty, rules text)."""

from __future__ import annotations

from typing import Any

from boosterkit.minigames.catalog import Minigame
from boosterkit.minigames.engine import Setup
from boosterkit.pipeline.db import Connection


def rules_text(con: Connection, spec: Minigame, lang: str = "en",
               set_code: str | None = None) -> dict[str, str]:
    """``{"source", "text"}``: the minigame card's text (both faces) when the database holds
    one of its printings (in ``lang`` if there is one, else English; the printing for
    ``set_code`` first), else the catalogue's setup notes, first-player rule and win."""
    printings = sorted(spec.raw["printings"], key=lambda p: p["parent"] != set_code)
    sets = [p["set"] for p in printings]
    names = [n.split(" // ")[0] for n in spec.raw["scryfall_names"]] or [spec.name]
    rows = con.execute(
        """SELECT c.id, c.set_code, c.collector_number, c.oracle_text, c.lang FROM cards c
           WHERE c.kind = 'minigame' AND c.set_code IN (SELECT unnest(?::VARCHAR[]))
             AND split_part(c.name, ' // ', 1) IN (SELECT unnest(?::VARCHAR[]))
           ORDER BY (c.lang = ?) DESC, (c.lang = 'en') DESC,
                    list_position(?::VARCHAR[], c.set_code), c.collector_number""",
        [sets, names, lang, sets]).fetchall()
    if rows:
        card_id, set_code, number, text, card_lang = rows[0]
        faces = [r[0] for r in con.execute(
            "SELECT oracle_text FROM card_faces WHERE card_id = ? ORDER BY face_index",
            [card_id]).fetchall() if r[0]]
        body = "\n\n".join(faces) if faces else (text or "")
        if body.strip():
            source = f"the card {set_code.upper()} #{number}"
            if (card_lang or "en") != lang:
                source += f" ({card_lang or 'en'}: the database holds no {lang} text)"
            return {"source": source, "text": body.strip()}
    steps = [s.get("note") or s.get("reason") for s in spec.steps or []]
    lines = [f"Setup: {'; '.join(x for x in steps if x)}."] if any(steps) else []
    lines += [f"First player: {spec.raw['first_player']['text']}", f"To win: {spec.win}"]
    return {"source": "the boosterkit catalogue (the database holds none of this game's cards)",
            "text": "\n".join(lines)}


def card_facts(con: Connection | None, setup: Setup,
               known: dict[str, dict[str, Any] | None] | None = None) -> dict[str, dict[str, Any]]:
    """Per card id of the setup: power, toughness, loyalty and oracle text from the database.

    ``known``: facts already read (None for an id the database lacks), filled with the ids
    read now, so that a caller dealing many setups reads each card once (``con`` may then be
    a function giving the connection, called only when a card is new)."""
    known = {} if known is None else known
    ids = sorted({c.card_id for z in setup.zones for c in z.cards if c.card_id})
    new = [i for i in ids if i not in known]
    if new:
        connection = con() if callable(con) else con
        rows = connection.execute(
            """SELECT id, power, toughness, loyalty, oracle_text, is_legendary FROM cards
               WHERE id IN (SELECT unnest(?::VARCHAR[]))""", [new]).fetchall()
        keys = ("power", "toughness", "loyalty", "text", "legendary")
        known.update(dict.fromkeys(new))
        known.update({r[0]: dict(zip(keys, r[1:])) for r in rows})
    return {i: known[i] for i in ids if known[i] is not None}
