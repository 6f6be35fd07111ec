"""Setup sheets: a dealt setup as plain text, Markdown or a print-ready HTML document.

A sheet has audiences, one page each: the **table** (what everyone may see: public zones,
face-down cards as positions only, dice, first player, the rules), **each player** who owns
cards (their hand, grid, pile… with the facts the game is played by), and the **organizer**
(everything, to lay out the face-down cards from the real packs; kept away from the players).
HTML pages carry ``data-audience="table" | "player-N" | "organizer"``; text and Markdown
sections say the same in their headings. Every piece of card or user text is escaped for its
format (``clean`` then Markdown/HTML escaping), so a card name cannot inject markup or lines.
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from boosterkit.database import Database
from boosterkit.errors import InputError
from boosterkit.formats import SHEETS
from boosterkit.generator.model import Item
from boosterkit.minigames.engine import Setup, Zone
from boosterkit.minigames.initiative import initiative_order
from boosterkit.minigames.labels import LANGS, label, plural
from boosterkit.minigames.translate import note, phrase, reminders, who, word, zone_name
from boosterkit.serialize import md_inline

if TYPE_CHECKING:
    from collections.abc import Mapping

    from boosterkit.database import DbLike
    from boosterkit.pipeline.queries import CardArt

    Images = Mapping[str, CardArt]

#: The names of the sheet formats (``formats.SHEETS``).
FORMATS = SHEETS.names
_OUT = ("removed", "set_aside")  # out of play: no game facts printed
_RARITY = {"common": "C", "uncommon": "U", "rare": "R", "mythic": "M", "special": "S", "bonus": "B"}
#: Control characters (C0, C1 but tab), bidirectional overrides/isolates and other invisible
#: format characters: never printed. Line breaks become spaces.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]"
)
_MD_LINE_START = re.compile(r"^(\s*)([-+=]|\d+(?=[.)]))")


def check_lang(lang: str) -> str:
    """``lang`` if sheets can be printed in it, else ``InputError``."""
    if lang not in LANGS:
        raise InputError(f"lang: {lang!r} is not one of {', '.join(LANGS)}", field="lang")
    return lang


def clean(text: Any) -> str:
    """One line of printable text: line breaks to spaces, control and bidi characters
    dropped (they could hide or reorder what a sheet says)."""
    return _UNSAFE.sub("", re.sub(r"[\r\n\t\v\f\x85]+", " ", str(text)))


def md_escape(text: Any) -> str:
    """``clean`` and escaped for Markdown: no markup, link, heading or raw HTML survives."""
    t = md_inline(clean(text))
    m = _MD_LINE_START.match(t)  # a list item, setext underline or ordered list at the start
    if m and not m.group(2).isdigit():
        return f"{m.group(1)}\\{t[m.end(1) :]}"
    if m:
        end = m.end(2)
        return f"{t[:end]}\\{t[end:]}"
    return t


def html_escape(text: Any) -> str:
    return html.escape(clean(text))


#: The card text's emphasis markup (MTGJSON's): ``*words*`` and ``**words**`` (MMID, MDMU)
#: strong, ``_words_`` emphasis (``_Magic_``); an underscore inside a word is not a marker.
_EMPHASIS = re.compile(
    r"\*\*(?P<bold>[^*\n]+?)\*\*|\*(?P<strong>[^*\n]+?)\*|(?<!\w)_(?P<em>[^_\n]+?)_(?!\w)"
)


def emphasis(line: str) -> list[tuple[str, str]]:
    """``line`` as (text, style) spans, style ``""``, ``"em"`` or ``"strong"``: the markers
    are gone, what they mark is styled."""
    out: list[tuple[str, str]] = []
    at = 0
    for m in _EMPHASIS.finditer(line):
        if m.start() > at:
            out.append((line[at : m.start()], ""))
        group = next(g for g in ("bold", "strong", "em") if m.group(g) is not None)
        out.append((m.group(group), "em" if group == "em" else "strong"))
        at = m.end()
    if at < len(line):
        out.append((line[at:], ""))
    return out


def _plain_rules(line: str) -> str:
    return "".join(t for t, _ in emphasis(line))


def _md_rules(line: str) -> str:
    out = []
    for k, (t, st) in enumerate(emphasis(line)):
        text = md_escape(t) if k == 0 else md_inline(clean(t))
        mark = {"": "", "em": "*", "strong": "**"}[st]
        core = text.strip()
        if mark and core:  # the markers hug the words (CommonMark's flanking rule)
            lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
            text = f"{lead}{mark}{core}{mark}{trail}"
        out.append(text)
    return "".join(out)


def _html_rules(line: str) -> str:
    return "".join(
        f"<{st}>{html_escape(t)}</{st}>" if st else html_escape(t) for t, st in emphasis(line)
    )


# --- the sheet model: pages of sections, rendered by each format ----------------------------


@dataclass
class Section:
    """``kind``: kv (pairs), para (lines of card text, with its emphasis markup: see
    ``emphasis``), list (lines), cards (card lines), grid (rows of cells). Every other string
    is plain text; renderers escape it."""

    title: str
    kind: str
    body: Any
    face_down: bool = False
    role: str = ""  # for the HTML's styles: "notes", "elsewhere" (a zone shown on other pages)


@dataclass
class Page:
    audience: str  # table | player-N | organizer
    title: str
    banner: str
    sections: list[Section] = field(default_factory=list)


def _n_cards(n: int, lang: str) -> str:
    return f"{n} {label(lang, 'cards' if plural(lang, n) else 'card')}"


def _name(item: Item, lang: str, names: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """The card's name, in the sheet's language when ``names`` (``Setup.names``) has it."""
    if item.kind == "card" and not item.resolved:
        return f"{label(lang, 'unknown card')} ({item.set.upper()} {item.collector_number or '?'})"
    printed = (names or {}).get(item.card_id or "", {}).get("name")
    if printed:
        return str(printed)
    kind = word(lang, item.kind.replace("_", " "))
    return item.name or f"({kind}, {item.set.upper() or '?'})"


def _english_marked(setup: Setup, item: Item) -> bool:
    """A card printed in English on a French or Spanish sheet: the data has no name for it."""
    return (
        setup.lang != "en"
        and item.resolved
        and bool(item.name)
        and not setup.names.get(item.card_id or "", {}).get("name")
    )


def _colours(colors: Any, lang: str) -> str:
    if lang == "en":
        return "".join(colors)
    return ", ".join(label(lang, f"colour-{c}") for c in colors)


def _facts(setup: Setup, item: Item) -> list[str]:
    """The facts the game reads, for one card (catalogue ``reads``), plus colour reminders."""
    lang, reads = setup.lang, setup.spec.reads
    extra = setup.facts.get(item.card_id or "", {})
    out: list[str] = []
    if item.kind != "card" or not item.resolved:
        return out
    front = (item.type_line or "").split(" // ")[0]
    printed_type = setup.names.get(item.card_id or "", {}).get("type_line")
    if "colors" in reads:
        out.append(_colours(item.colors, lang) or label(lang, "colourless"))
        if len(item.colors) > 1:
            out.append(label(lang, "multicolour"))
    if "mana_value" in reads and item.mana_value is not None:
        out.append(f"{label(lang, 'MV')} {item.mana_value:g}")
    if "card_type" in reads and printed_type:  # "Créature : pégase", "Criatura — Pegaso"
        out.append(re.split(" [—:] ", str(printed_type).split(" // ")[0])[0])
    elif "card_type" in reads and front:
        out.append(front.split(" — ")[0])
    if "toughness" in reads and extra.get("toughness") is not None:
        out.append(f"{label(lang, 'toughness')} {extra['toughness']}")
    if "loyalty" in reads and extra.get("loyalty") is not None:
        out.append(f"{label(lang, 'loyalty')} {extra['loyalty']}")
    if "legendary" in reads and "Legendary" in front.split():
        out.append(label(lang, "legendary"))
    if "watermark" in reads and extra.get("watermark"):
        out.append(f"{label(lang, 'watermark')} {extra['watermark']}")
    said = cast("Mapping[str, str]", setup.spec.reminders)  # keys checked on load
    said = {**said, **reminders(lang, setup.spec.id)}  # as printed on the card in ``lang``
    if "colors" in reads and said:
        key = (
            "multicolor" if len(item.colors) > 1 else item.colors[0] if item.colors else "colorless"
        )
        if key in said:
            out.append(f"{label(lang, 'effect')}: {said[key]}")
    return out


def _card_line(setup: Setup, zone: Zone, item: Item, with_facts: bool) -> dict[str, Any]:
    lang = setup.lang
    marks = [_RARITY.get(item.rarity or "", "-")]
    if item.kind != "card":
        marks.append(word(lang, item.kind.replace("_", " ")))
    if item.foil:
        marks.append(label(lang, "foil"))
    if item.external:
        marks.append(label(lang, "from outside the packs"))
    if item.kind == "card" and not item.resolved:
        marks.append(label(lang, "unknown card"))
    if _english_marked(setup, item):
        marks.append(label(lang, "english name"))
    tag = zone.tags.get(item.uid)
    if tag:
        marks.append(word(lang, tag).upper())
    name = _name(item, lang, setup.names)
    return {
        "uid": item.uid,
        "name": name,
        "english": item.name if item.name and item.name != name else None,
        "marks": marks,
        "facts": _facts(setup, item) if with_facts else [],
        "colors": list(item.colors),
        "card_id": item.card_id if item.resolved else None,
    }


def _zone_title(setup: Setup, zone: Zone) -> str:
    lang = setup.lang
    parts = [_n_cards(len(zone.cards), lang)]
    if zone.kind == "grid":
        parts.append(f"{zone.cols} x {zone.rows}")
    if zone.face_down:
        parts.append(label(lang, "face down"))
    elif zone.visibility == "hidden":
        parts.append(label(lang, "out of play"))
    return f"{zone_name(lang, zone.name)} ({', '.join(parts)})"


def _zone_section(setup: Setup, zone: Zone, *, reveal: bool, facts: bool) -> Section:
    """A zone's cards (``reveal``), or positions only for face-down cards."""
    title = _zone_title(setup, zone)
    hidden = zone.visibility == "hidden"
    if zone.kind == "grid":
        cols = zone.cols or 1
        cells: list[Any] = [
            _card_line(setup, zone, c, facts)
            if reveal
            else f"{k + 1}: {label(setup.lang, 'face down')}"
            for k, c in enumerate(zone.cards)
        ]
        return Section(
            title,
            "grid",
            [cells[i : i + cols] for i in range(0, len(cells), cols)],
            face_down=zone.face_down,
        )
    if not reveal:
        why = "why-down" if zone.face_down and hidden else f"why-{zone.visibility}"
        return Section(
            title,
            "list",
            [label(setup.lang, "not shown") + " " + label(setup.lang, why)],
            face_down=zone.face_down,
            role="elsewhere",
        )
    return Section(
        title,
        "cards",
        [_card_line(setup, zone, c, facts) for c in zone.cards],
        face_down=zone.face_down,
    )


def _beside(sec: Section) -> Section:
    """The organizer's cards: a card printed in the sheet's language shows its English name
    beside it (to find it in an English list, or among English cards)."""
    cards = [c for row in sec.body for c in row] if sec.kind == "grid" else sec.body
    for c in cards if sec.kind in ("grid", "cards") else []:
        if isinstance(c, dict) and c.get("english"):
            c["name"] = f"{c['name']} ({c['english']})"
    return sec


def _members(setup: Setup, owner: str | None) -> list[str]:
    """The players an owned zone belongs to (a team's zone: each of its players)."""
    if owner is None:
        return []
    if owner in setup.teams:
        return list(setup.teams[owner])
    if owner.startswith("team-"):
        teams = setup.spec.players.teams or 2
        t = int(owner.split("-")[1]) - 1
        return [f"player-{k + 1}" for k in range(setup.players) if k % teams == t]
    return [owner]


def _rolls(setup: Setup) -> list[str]:
    lang = setup.lang
    lines = [
        f"{who(lang, p)}: {v}"
        + (
            f" ({label(lang, 're-roll' if len(setup.tiebreaks[p]) == 1 else 're-rolls')} "
            f"{'/'.join(map(str, setup.tiebreaks[p]))})"
            if p in setup.tiebreaks
            else ""
        )
        for p, v in setup.rolls.items()
    ]
    order = initiative_order(
        setup.rolls, setup.tiebreaks, setup.spec.first_player.rule == "highest_roll"
    )
    return lines + [f"{label(lang, 'order')}: {', '.join(who(lang, p) for p in order)}"]


def _head(setup: Setup) -> list[tuple[str, str]]:
    lang, spec = setup.lang, setup.spec
    first = phrase(lang, spec.first_player.text)
    opened = label(lang, "opened" if plural(lang, len(setup.packs)) else "opened-1")
    teams = [
        (label(lang, "Teams"), "; ".join(
            f"{who(lang, t)} = {', '.join(who(lang, p) for p in members)}"
            for t, members in setup.teams.items()
        ))
    ] if setup.teams else []  # fmt: skip
    roles = [
        (label(lang, "Roles"), "; ".join(
            f"{who(lang, p)}: {word(lang, r)}" for p, r in setup.roles.items()
        ))
    ] if setup.roles else []  # fmt: skip
    return [
        (label(lang, "Players"), str(setup.players)),
        *teams,
        *roles,
        (label(lang, "Set"), f"{setup.set.upper()} ({_product(setup.product, lang)})"),
        (label(lang, "Seed"), str(setup.seed)),
        (label(lang, "Packs"), f"{len(setup.packs)} {opened}"),
        (
            label(lang, "Time"),
            f"{spec.minutes} {label(lang, 'minutes')}" if spec.minutes else "?",
        ),
        *_unprinted(setup),
        *_declare(setup),
        (label(lang, "To win"), phrase(lang, spec.win.text)),
        (
            label(lang, "First player"),
            f"{who(lang, setup.first_player)} — {first}" if setup.first_player else first,
        ),
    ]


def _unprinted(setup: Setup) -> list[tuple[str, str]]:
    """What the card does not print (players, packs, minutes) and where boosterkit took it."""
    gap, lang = setup.spec.unprinted, setup.lang
    return [(label(lang, "Printed"), phrase(lang, gap.text))] if gap else []


def _declare(setup: Setup) -> list[tuple[str, str]]:
    """What each player declares before play (Demon's Due: a crime family), and the choices."""
    d, lang = setup.spec.declare, setup.lang
    if d is None:
        return []
    return [(label(lang, "Declare"), f"{phrase(lang, d.text)} ({' · '.join(d.options)})")]


def _player_head(setup: Setup, p: str) -> list[Section]:
    """A player's role (its card line) and what they declare, above their cards."""
    lang, out = setup.lang, []
    role = setup.roles.get(p)
    if role:
        text = next((r.text for r in setup.spec.roles if r.name == role), "")
        out.append((label(lang, "Role"), f"{word(lang, role)} — {phrase(lang, text)}"))
    d = setup.spec.declare
    if d is not None:
        out.append((f"{label(lang, 'Declare')}: {word(lang, d.what)}",
                    "  ".join(f"[ ] {o}" for o in d.options)))  # fmt: skip
    return [Section("", "kv", out)] if out else []


def _product(product: str | None, lang: str) -> str:
    """The product kind dealt (``set``, ``draft``…) in the sheet's language."""
    if not product:
        return label(lang, "default")
    said = word(lang, f"product:{product}")
    return product if said == f"product:{product}" else said


def _source(setup: Setup) -> str:
    """Where the rules text comes from, in the sheet's language."""
    source = (setup.rules_text or {}).get("source", "")
    card = re.match(r"the card (\S+ #\S+)( \((\w+): the database holds no \w+ text\))?", source)
    if not card:
        return label(setup.lang, "source-catalogue")
    words = label(setup.lang, "source-card").format(card=card.group(1))
    if card.group(3):
        name = label(setup.lang, f"lang-{card.group(3)}")
        words += " — " + label(setup.lang, "text-in").format(lang=name)
    return words


def sheet_title(setup: Setup) -> str:
    """The game's name as printed in the sheet's language; a game printed in no such
    language keeps its English name, marked so ("Demon's Due (titre anglais)")."""
    lang, spec = setup.lang, setup.spec
    if lang == "en" or lang in spec.printed_names:
        return spec.printed_name(lang)
    return f"{spec.name} ({label(lang, 'english title')})"


def build_pages(setup: Setup) -> list[Page]:
    """The table's page, one page per player who owns cards, and the organizer's page."""
    lang, name = setup.lang, sheet_title(setup)
    table = Page("table", name, label(lang, "banner-table"), [Section("", "kv", _head(setup))])
    if setup.rules_text:
        table.sections.append(
            Section(
                f"{label(lang, 'Rules')} ({_source(setup)})",
                "para",
                setup.rules_text["text"].splitlines(),
            )
        )
    for zone in setup.zones:
        table.sections.append(
            _zone_section(setup, zone, reveal=zone.visibility == "public", facts=True)
        )
    if setup.rolls:
        table.sections.append(Section(label(lang, "Rolls"), "list", _rolls(setup)))
    notes = [note(lang, n) or n for n in setup.notes]  # a note without a template: English
    table.sections.append(Section(label(lang, "Notes"), "list", notes, role="notes"))
    pages = [table]
    for p in (f"player-{i}" for i in range(1, setup.players + 1)):
        own = [z for z in setup.zones if p in _members(setup, z.owner) and z.visibility != "hidden"]
        head = _player_head(setup, p)
        if own or head:
            pages.append(
                Page(
                    p,
                    f"{name} — {who(lang, p)}",
                    label(lang, "banner-player").format(p=who(lang, p)),
                    head + [_zone_section(setup, z, reveal=True, facts=True) for z in own],
                )
            )
    organizer = Page(
        "organizer", f"{name} — {label(lang, 'organizer')}", label(lang, "banner-organizer")
    )
    organizer.sections.append(
        Section(
            label(lang, "Packs"),
            "list",
            [
                f"{label(lang, 'pack')} {pk.index}: {pk.product}, {label(lang, 'variant')} "
                f"{pk.variant}, {_n_cards(len(pk.items), lang)}"
                for pk in setup.packs
            ],
        )
    )
    organizer.sections += [
        _beside(_zone_section(setup, z, reveal=True, facts=z.kind not in _OUT)) for z in setup.zones
    ]
    pages.append(organizer)
    return pages


# --- renderers --------------------------------------------------------------------------------


def _plain_card(c: dict[str, Any]) -> str:
    facts = f" — {'; '.join(c['facts'])}" if c["facts"] else ""
    return f"{c['uid']:<7} {c['name']}  [{' · '.join(c['marks'])}]{facts}"


def render_text(setup: Setup, images: Images | None = None) -> str:
    """The plain-text sheet: one section per audience, every string ``clean``."""
    out: list[str] = []
    for page in build_pages(setup):
        head = f"{page.title.upper()} [{page.audience}]"
        out += (
            ["", "#" * 78, clean(head), clean(page.banner), "#" * 78]
            if out
            else [clean(head), clean(page.banner), "=" * 78]
        )
        for sec in page.sections:
            out += [""] + ([clean(sec.title), "-" * len(clean(sec.title))] if sec.title else [])
            out += _text_body(sec)
    return "\n".join(out) + "\n"


def _text_body(sec: Section) -> list[str]:
    if sec.kind == "kv":
        width = max(len(k) for k, _ in sec.body) + 1
        return [f"{clean(k) + ':':<{width}} {clean(v)}" for k, v in sec.body]
    if sec.kind == "para":  # the rules text: wrapped to print
        return [
            line
            for x in sec.body
            for line in textwrap.wrap(
                clean(_plain_rules(x)), 96, initial_indent="  ", subsequent_indent="  "
            )
            or [""]
        ]
    if sec.kind == "list":
        return ["  - " + clean(x) for x in sec.body] or ["  (-)"]
    if sec.kind == "cards":
        return ["  " + clean(_plain_card(c)) for c in sec.body] or ["  (-)"]
    width = 24
    cells = [
        [clean(c if isinstance(c, str) else f"{c['uid']} {c['name']}")[:width] for c in row]
        for row in sec.body
    ]
    cols = max((len(r) for r in cells), default=1)
    line = "  +" + "+".join("-" * (width + 2) for _ in range(cols)) + "+"
    out = [line]
    for row in cells:
        out += ["  | " + " | ".join(c.ljust(width) for c in row) + " |", line]
    if any(not isinstance(c, str) for row in sec.body for c in row):
        out += ["  " + clean(_plain_card(c)) for row in sec.body for c in row]
    return out


def render_md(setup: Setup, images: Images | None = None) -> str:
    """The Markdown sheet: every string escaped (``md_escape``)."""
    out: list[str] = []
    for page in build_pages(setup):
        out += ["", "---", ""] if out else []
        out += [
            f"# {md_escape(page.title)} — `{page.audience}`",
            "",
            f"> **{md_escape(page.banner)}**",
        ]
        for sec in page.sections:
            out += ["", f"## {md_escape(sec.title)}", ""] if sec.title else [""]
            out += _md_body(sec)
    return "\n".join(out) + "\n"


def _md_card(c: dict[str, Any]) -> str:
    facts = f" — {md_escape('; '.join(c['facts']))}" if c["facts"] else ""
    marks = md_escape(" · ".join(c["marks"]))
    return f"`{md_escape(c['uid'])}` {md_escape(c['name'])} ({marks}){facts}"


def _md_body(sec: Section) -> list[str]:
    if sec.kind == "kv":
        return [f"- **{md_escape(k)}:** {md_escape(v)}" for k, v in sec.body]
    if sec.kind == "para":
        return [_md_rules(x) + "  " for x in sec.body if x.strip()]
    if sec.kind == "list":
        return [f"- {md_escape(x)}" for x in sec.body] or ["- \\-"]
    if sec.kind == "cards":
        return [f"- {_md_card(c)}" for c in sec.body] or ["- \\-"]
    cols = max((len(r) for r in sec.body), default=1)
    out = ["| " + " | ".join(str(i) for i in range(1, cols + 1)) + " |", "|" + "---|" * cols]
    out += [
        "| " + " | ".join(md_escape(c) if isinstance(c, str) else _md_card(c) for c in row) + " |"
        for row in sec.body
    ]
    return out


_CSS = """
@page { margin: 10mm; }
* { box-sizing: border-box; }
body { font: 10pt/1.3 Georgia, 'Times New Roman', serif; color: #111; margin: 0 auto;
       max-width: 186mm; padding: 6mm 0; }
section.page + section.page { break-before: page; page-break-before: always; }
h1 { font-size: 16pt; margin: 0 0 1.5mm; } h2 { font-size: 11pt; margin: 3mm 0 1mm; }
h2 { break-after: avoid; page-break-after: avoid; }
.banner { font: bold 9pt sans-serif; padding: 1.2mm 3mm; border: 1px solid #333; margin: 0; }
/* The organizer's page must not reach a player: its banner is the page's loudest line,
   black on yellow in a heavy frame, and still black and framed where a printer leaves
   backgrounds out (white on dark printed as faint grey). */
section[data-audience="organizer"] .banner { font-size: 12pt; color: #000; background: #ffd43b;
  border: 1mm solid #000; padding: 2.5mm 4mm; margin-bottom: 1mm;
  -webkit-print-color-adjust: exact; print-color-adjust: exact; }
dl { display: grid; grid-template-columns: 30mm 1fr; gap: 0.4mm 4mm; margin: 2mm 0 0; }
dt { font-weight: bold; } dd { margin: 0; }
ul { margin: 0; padding-left: 5mm; } ul li { break-inside: avoid; }
ul.cards { list-style: none; padding: 0; }
ul.cards li { padding: 0.4mm 0; }
section[data-audience="table"] ul.cards { columns: 2 80mm; column-gap: 6mm; }
.uid { font-family: monospace; color: #555; font-size: 8.5pt; white-space: nowrap; }
.r { display: inline-block; width: 4.5mm; text-align: center; border-radius: 50%;
     font: bold 8pt sans-serif; color: #fff; background: #222; }
.r-U { background: #6b7f8c; } .r-R { background: #b8932e; } .r-M { background: #c4471d; }
.c { display: inline-block; min-width: 4mm; text-align: center; font: bold 8pt sans-serif;
     border: 1px solid #333; border-radius: 2px; margin-left: 0.5mm; padding: 0 0.5mm; }
.c-W { background: #f8f3d8; } .c-U { background: #b3d4ef; } .c-B { background: #aaa39d; }
.c-R { background: #f1a98e; } .c-G { background: #a3d3b1; }
.tag, .facts { font: 8pt sans-serif; color: #555; }
.rules { columns: 2 80mm; column-gap: 6mm; }
.rules p { margin: 0 0 0.6mm; font-size: 8pt; line-height: 1.2; }
.notes li { font-size: 8pt; line-height: 1.2; }
.grid-box { break-inside: avoid; page-break-inside: avoid; }
table.grid { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.grid tr { break-inside: avoid; page-break-inside: avoid; }
table.grid td { border: 1px solid #333; height: 12mm; padding: 1mm; font-size: 8.5pt;
                vertical-align: top; overflow-wrap: anywhere; }
p.elsewhere { margin: 1mm 0; font-size: 9pt; }
td.down { height: 8mm; color: #555; }
h2.face-down, b.face-down { color: #444; }  /* its heading says "face down": no unexplained mark */
@media print { a { color: inherit; text-decoration: none; } body { padding: 0; } }
"""


_IMAGES_CSS = """
.has-art { display: flex; gap: 2mm; align-items: flex-start; }
.art { flex: none; width: 17mm; font: 6pt/1.1 sans-serif; color: #555; }
.art img { display: block; width: 17mm; height: 23.7mm; border-radius: 0.8mm;
           background: #eee; }
ul.cards li.has-art { padding: 1mm 0; }
p.image-credits { font: 7pt sans-serif; color: #555; margin-top: 4mm; }
"""


def _html_art(art: CardArt, lang: str) -> str:
    """A card's image, small, with its artist's credit (Scryfall's image guidelines). The
    image is decorative (``alt=""``): the card's name stands beside it, and offline the
    sheet reads as it does without images."""
    e = html_escape
    credit = (
        f'<span class="credit">{e(label(lang, "illus"))} {e(art.artist)}</span>'
        if art.artist
        else ""
    )
    return (
        f'<span class="art"><img src="{html.escape(art.image, quote=True)}" alt="" '
        f'loading="lazy" width="146" height="204">{credit}</span>'
    )


def _html_card(c: dict[str, Any] | str, images: Images | None = None, lang: str = "en") -> str:
    e = html_escape
    if isinstance(c, str):
        return f'<span class="tag">{e(c)}</span>'
    art = images.get(c["card_id"]) if images and c.get("card_id") else None
    if art:
        return (
            f'<div class="has-art">{_html_art(art, lang)}<div>{_html_card(c, None, lang)}</div>'
            "</div>"
        )
    rarity = c["marks"][0]
    colors = "".join(
        f'<span class="c c-{e(x)}">{e(_colours((x,), lang))}</span>' for x in c["colors"]
    )  # the colour's letter in English, its name in French and Spanish
    tags = c["marks"][1:]
    tag = f' <span class="tag">({e(", ".join(tags))})</span>' if tags else ""
    facts = f'<br><span class="facts">{e("; ".join(c["facts"]))}</span>' if c["facts"] else ""
    return (
        f'<span class="r r-{e(rarity)}">{e(rarity)}</span> {e(c["name"])}{colors}{tag} '
        f'<span class="uid">{e(c["uid"])}</span>{facts}'
    )


def _html_section(sec: Section, images: Images | None = None, lang: str = "en") -> str:
    e = html_escape
    cls = ' class="face-down"' if sec.face_down else ""
    if sec.role == "elsewhere":  # one line: the zone and where it is shown
        return f'<p class="elsewhere"><b{cls}>{e(sec.title)}</b> — {e(" ".join(sec.body))}</p>'
    head = f"<h2{cls}>{e(sec.title)}</h2>" if sec.title else ""
    if sec.kind == "kv":
        body = "<dl>" + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in sec.body) + "</dl>"
    elif sec.kind == "para":
        body = '<div class="rules">' + "".join(
            f"<p>{_html_rules(x)}</p>" for x in sec.body if x.strip()
        )
        body += "</div>"
    elif sec.kind == "list":
        ul = f'<ul class="{sec.role}">' if sec.role else "<ul>"
        body = ul + "".join(f"<li>{e(x)}</li>" for x in sec.body) + "</ul>"
    elif sec.kind == "cards":
        body = '<ul class="cards">' + "".join(
            f"<li>{_html_card(c, images, lang)}</li>" for c in sec.body
        )
        body += "</ul>"
    else:
        body = (
            '<table class="grid">'
            + "".join(
                "<tr>"
                + "".join(
                    f'<td class="down">{_html_card(c)}</td>'
                    if isinstance(c, str)
                    else f"<td>{_html_card(c, images, lang)}</td>"
                    for c in row
                )
                + "</tr>"
                for row in sec.body
            )
            + "</table>"
        )
        return f'<div class="grid-box">{head}{body}</div>'  # kept whole on one printed page
    return f"{head}{body}"


def _html_page(p: Page, images: Images | None, lang: str) -> str:
    e = html_escape
    body = "".join(_html_section(s, images, lang) for s in p.sections)
    if "<img " in body:
        body += f'<p class="image-credits">{e(label(lang, "image-credits"))}</p>'
    return (
        f'<section class="page" data-audience="{e(p.audience)}"><h1>{e(p.title)}</h1>'
        f'<p class="banner">{e(p.banner)}</p>{body}</section>'
    )


def render_html(setup: Setup, images: Images | None = None) -> str:
    """A print-ready HTML document, one ``<section class="page" data-audience=…>`` per
    audience, each starting on a new printed page. No external assets, except with
    ``images`` (card id → ``CardArt``, see ``sheet_images``): each card shown has its Scryfall
    image and artist credit (a face-down card is not shown, so neither is its image)."""
    e = html_escape
    pages = "".join(_html_page(p, images, setup.lang) for p in build_pages(setup))
    css = _CSS + (_IMAGES_CSS if "<img " in pages else "")
    title = f"{sheet_title(setup)} — seed {setup.seed}"
    return (
        f'<!DOCTYPE html>\n<html lang="{e(setup.lang)}"><head><meta charset="utf-8">'
        f"<title>{e(title)}</title><style>{css}</style></head><body>{pages}</body></html>\n"
    )


def sheet_images(db: DbLike, setup: Setup) -> dict[str, CardArt]:
    """card id → ``CardArt`` for the dealt cards of ``setup`` (outside additions such as Base
    Race's basic lands included) that have a Scryfall image (``db``: a ``Database``, a
    connection, a database path or None for the configured one; read only if cards were
    dealt)."""
    from boosterkit.pipeline.queries import card_art  # startup: loads DuckDB's helpers

    return card_art(Database.of(db), (it.card_id for z in setup.zones for it in z.cards))


def render_sheet(setup: Setup, fmt: str = "text", images: Images | None = None) -> str:
    """The setup sheet in ``fmt``: a ``formats.SHEETS`` format, ``text``, ``md`` or ``html``
    (``images``: HTML only, see ``render_html``)."""
    refused = SHEETS.refuses_images(fmt) if images is not None else None
    if refused:
        raise InputError(f"images: {refused} (the format is {fmt})", field="images")
    if fmt not in SHEETS:
        raise InputError(f"--format {fmt}: sheets are {', '.join(FORMATS)} (or json)")
    if SHEETS.get(fmt).binary:
        raise InputError(f"format {fmt}: binary, not text (sheet_pdf writes it)")
    rendered: str = SHEETS.get(fmt).renderer()(setup, images)
    return rendered


def sheet_pdf(setup: Setup, images: Images | None = None, *, paper: str = "a4") -> bytes:
    """A setup sheet as PDF (``boosterkit.pdf``): ``render_html``'s pages, without card images."""
    from boosterkit.pdf import html_to_pdf

    return html_to_pdf(render_html(setup), paper)
