"""Setup sheets: a dealt setup as plain text, Markdown or a print-ready HTML page.

Every format shows the game, players, seed, the packs, what was removed and why, each
zone (grids drawn as grids), the rolls, who starts and the win condition. The HTML page has
no external assets, prints on A4 and Letter, and puts each private hand on its own page.
"""

from __future__ import annotations

import html
from typing import Any

from boosterkit.errors import InputError
from boosterkit.generator.model import Item
from boosterkit.minigames.engine import Setup, Zone

FORMATS = ("text", "md", "html")
_RARITY = {"common": "C", "uncommon": "U", "rare": "R", "mythic": "M", "special": "S",
           "bonus": "B"}
_PRIVATE = ("hand", "selected")


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _mark(item: Item) -> str:
    """``R · WU · foil`` — rarity, colours and finish, plus what kind of object it is."""
    parts = [item.rarity or "no rarity"]
    if item.kind == "card":
        parts.append("".join(item.colors) or "colourless")
    else:
        parts.append(item.kind.replace("_", " "))
    if item.foil:
        parts.append("foil")
    if item.external:
        parts.append("from outside the packs")
    return " · ".join(parts)


def _name(item: Item) -> str:
    """The card name, or what the item is when it is not identified (an ad, an art card…)."""
    return item.name or f"({item.kind.replace('_', ' ')}, {item.set.upper() or 'set unknown'})"


def _card(item: Item) -> str:
    return f"{item.uid:<7} {_name(item)}  [{_mark(item)}]"


def _head(setup: Setup) -> list[tuple[str, str]]:
    spec = setup.spec
    return [
        ("Players", str(setup.players)),
        ("Set", f"{setup.set.upper()} ({setup.product or 'default'} boosters)"),
        ("Seed", str(setup.seed)),
        ("Packs", f"{len(setup.packs)} opened"),
        ("Time", f"{spec.raw['minutes']} minutes" if spec.raw["minutes"] else "unknown"),
        ("To win", spec.win),
    ]


def _first(setup: Setup) -> str:
    rule = setup.spec.raw["first_player"]["text"]
    return f"{setup.first_player} — {rule}" if setup.first_player else rule


def _grid_cells(zone: Zone, width: int) -> list[list[str]]:
    cols = zone.cols or 1
    cells = [f"{c.uid} {_name(c)}"[:width] for c in zone.cards]
    return [cells[i:i + cols] for i in range(0, len(cells), cols)]


def _text_grid(zone: Zone, width: int = 22) -> list[str]:
    rows = _grid_cells(zone, width)
    line = "+" + "+".join("-" * (width + 2) for _ in range(zone.cols or 1)) + "+"
    out = [line]
    for row in rows:
        out.append("| " + " | ".join(c.ljust(width) for c in row) + " |")
        out.append(line)
    return out


def render_text(setup: Setup) -> str:
    """The plain-text sheet."""
    title = f"{setup.spec.name.upper()} — setup sheet"
    out = [title, "=" * len(title)]
    out += [f"{k + ':':<9} {v}" for k, v in _head(setup)]
    out += ["", "Packs"]
    for p in setup.packs:
        out.append(f"  pack {p.index}: {p.product}, variant {p.variant}, {len(p.items)} items")
    for zone in setup.zones:
        shape = f", {zone.cols} x {zone.rows} grid" if zone.kind == "grid" else ""
        owner = f" (private to {zone.owner})" if zone.kind in _PRIVATE and zone.owner else ""
        kind = "" if zone.kind == zone.name.split()[-1] else f"{zone.kind.replace('_', ' ')}, "
        out += ["", f"{zone.name} — {kind}{_cards(len(zone.cards))}{shape}{owner}"]
        if zone.kind == "grid":
            out += ["  " + line for line in _text_grid(zone)]
        else:
            out += ["  " + _card(c) for c in zone.cards] or ["  (empty)"]
    if setup.rolls:
        out += ["", "Rolls: " + ", ".join(f"{p} {v}" for p, v in setup.rolls.items())]
    out += ["", f"First player: {_first(setup)}", "", "Notes"]
    out += [f"  - {n}" for n in setup.notes]
    return "\n".join(out) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def render_md(setup: Setup) -> str:
    """The Markdown sheet."""
    out = [f"# {setup.spec.name} — setup sheet", ""]
    out += [f"- **{k}:** {_md_escape(v)}" for k, v in _head(setup)]
    out += ["", "## Packs", ""]
    out += [f"- pack {p.index}: {p.product}, variant {p.variant}, {len(p.items)} items"
            for p in setup.packs]
    for zone in setup.zones:
        kind = zone.kind.replace("_", " ")
        out += ["", f"## {zone.name} ({kind}, {_cards(len(zone.cards))})", ""]
        if zone.kind == "grid":
            rows = _grid_cells(zone, 40)
            out.append("| " + " | ".join(f"col {i}" for i in range(1, (zone.cols or 1) + 1)) + " |")
            out.append("|" + "---|" * (zone.cols or 1))
            out += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in rows]
        else:
            out += [f"- `{c.uid}` {_md_escape(_name(c))} — {_mark(c)}"
                    for c in zone.cards] or ["_(empty)_"]
    if setup.rolls:
        out += ["", "## Rolls", ""] + [f"- {p}: **{v}**" for p, v in setup.rolls.items()]
    out += ["", "## First player", "", _md_escape(_first(setup)), "", "## Notes", ""]
    out += [f"- {_md_escape(n)}" for n in setup.notes]
    return "\n".join(out) + "\n"


_CSS = """
@page { margin: 12mm; }
* { box-sizing: border-box; }
body { font: 11pt/1.35 Georgia, 'Times New Roman', serif; color: #111; margin: 0 auto;
       max-width: 186mm; padding: 8mm 0; }
h1 { font-size: 18pt; margin: 0 0 4mm; } h2 { font-size: 13pt; margin: 6mm 0 2mm; }
dl { display: grid; grid-template-columns: 28mm 1fr; gap: 1mm 4mm; margin: 0; }
dt { font-weight: bold; } dd { margin: 0; }
ul.cards { list-style: none; padding: 0; margin: 0; columns: 2; }
ul.cards li { break-inside: avoid; padding: 0.6mm 0; }
.uid { font-family: monospace; color: #555; font-size: 9pt; }
.r { display: inline-block; width: 4.5mm; text-align: center; border-radius: 50%;
     font: bold 8pt sans-serif; color: #fff; background: #222; }
.r-U { background: #6b7f8c; } .r-R { background: #b8932e; } .r-M { background: #c4471d; }
.c { display: inline-block; min-width: 4mm; text-align: center; font: bold 8pt sans-serif;
     border: 1px solid #333; border-radius: 2px; margin-left: 0.5mm; }
.c-W { background: #f8f3d8; } .c-U { background: #b3d4ef; } .c-B { background: #aaa39d; }
.c-R { background: #f1a98e; } .c-G { background: #a3d3b1; }
.tag { font: 8pt sans-serif; color: #555; }
table.grid { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.grid td { border: 1px solid #333; height: 16mm; padding: 1mm; font-size: 9pt;
                vertical-align: top; }
section.private { break-before: page; page-break-before: always; }
section.private h2::after { content: " — private"; font-weight: normal; color: #777; }
@media print { a { color: inherit; text-decoration: none; } }
"""


def _html_card(item: Item) -> str:
    e = html.escape
    rarity = _RARITY.get(item.rarity or "", "-")
    colors = "".join(f'<span class="c c-{e(c)}">{e(c)}</span>' for c in item.colors)
    tags = [item.kind.replace("_", " ")] if item.kind != "card" else []
    tags += ["foil"] if item.foil else []
    tags += ["from outside the packs"] if item.external else []
    tag = f' <span class="tag">({e(", ".join(tags))})</span>' if tags else ""
    return (f'<span class="r r-{rarity}" title="{e(item.rarity or "")}">{rarity}</span> '
            f'{e(_name(item))}{colors}{tag} <span class="uid">{e(item.uid)}</span>')


def _html_zone(zone: Zone) -> str:
    e = html.escape
    private = zone.kind in _PRIVATE and zone.owner is not None
    kind = "" if zone.kind == zone.name.split()[-1] else f"{zone.kind.replace('_', ' ')}, "
    head = f"<h2>{e(zone.name)} <small>({e(kind)}{_cards(len(zone.cards))})</small></h2>"
    if zone.kind == "grid":
        cols = zone.cols or 1
        rows = [zone.cards[i:i + cols] for i in range(0, len(zone.cards), cols)]
        body = '<table class="grid">' + "".join(
            "<tr>" + "".join(f"<td>{_html_card(c)}</td>" for c in r) + "</tr>" for r in rows
        ) + "</table>"
    else:
        body = '<ul class="cards">' + "".join(f"<li>{_html_card(c)}</li>" for c in zone.cards)
        body += "</ul>" if zone.cards else "<li><em>empty</em></li></ul>"
    cls = ' class="private"' if private else ""
    return f"<section{cls}>{head}{body}</section>"


def render_html(setup: Setup) -> str:
    """A print-ready HTML page (no external assets)."""
    e = html.escape
    head = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in _head(setup))
    packs = "".join(f"<li>pack {p.index}: {e(p.product)}, variant {p.variant}, "
                    f"{len(p.items)} items</li>" for p in setup.packs)
    public = [z for z in setup.zones if not (z.kind in _PRIVATE and z.owner)]
    private = [z for z in setup.zones if z.kind in _PRIVATE and z.owner]
    rolls = "".join(f"<li>{e(p)}: <b>{v}</b></li>" for p, v in setup.rolls.items())
    notes = "".join(f"<li>{e(n)}</li>" for n in setup.notes)
    body = (
        f"<h1>{e(setup.spec.name)}</h1><dl>{head}</dl><h2>Packs</h2><ul>{packs}</ul>"
        + "".join(_html_zone(z) for z in public)
        + (f"<h2>Rolls</h2><ul>{rolls}</ul>" if rolls else "")
        + f"<h2>First player</h2><p>{e(_first(setup))}</p><h2>Notes</h2><ul>{notes}</ul>"
        + "".join(_html_zone(z) for z in private)
    )
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{e(setup.spec.name)} — seed {setup.seed}</title><style>{_CSS}</style>"
            f"</head><body>{body}</body></html>\n")


def render_sheet(setup: Setup, fmt: str = "text") -> str:
    """The setup sheet in ``fmt``: ``text``, ``md`` or ``html``."""
    renderers: dict[str, Any] = {"text": render_text, "md": render_md, "html": render_html}
    if fmt not in renderers:
        raise InputError(f"--format {fmt}: sheets are {', '.join(FORMATS)} (or json)")
    return renderers[fmt](setup)
