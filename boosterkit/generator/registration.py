"""Deck registration sheets: each pool's cards with a "played" column to fill in, the player's
and the event's fields, and the line that checks a registered deck against the pool.

As at a sealed event (the Magic Tournament Rules' deck registration, 7.5 on pool swaps): the
player writes how many of each card their main deck plays and the basic lands they add, and
signs; a judge checks the sheet, or the deck list, against the pool. The sheet names the
pool's packs and seeds and prints ``boosterkit pool check`` with the arguments that make this
player's pool again (``events.pool_args``).

The functions of ``formats.POOLS`` here: ``registration_html`` (a page per player, each
colour's table kept whole) and ``registration_csv`` (a row per card and player, ``played``
empty); ``registration_pdf`` prints the HTML (``boosterkit.pdf``).
"""

from __future__ import annotations

import html
import io
import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from boosterkit.generator.events import pool_args
from boosterkit.serialize import CsvWriter

if TYPE_CHECKING:
    from boosterkit.pipeline.queries import CardArt

#: The basic lands a player adds to a sealed deck from outside the pool.
BASICS = ("Plains", "Island", "Swamp", "Mountain", "Forest")
#: The fields a player fills in at the head of the sheet.
PLAYER_FIELDS = ("Player name", "Player ID", "Table")
CSV_COLUMNS = (
    "event", "player", "pool_seed", "section", "card", "set", "collector_number", "foil",
    "in_pool", "played",
)  # fmt: skip


def card_name(c: Mapping[str, Any]) -> str:
    """A pool row as the sheet names it: the name, its treatment and ``foil`` when so."""
    name = c["name"] or f"(not in the database: {c['set']} {c['collector_number'] or '?'})"
    marks = [*c.get("treatment", []), *(["foil"] if c["foil"] else [])]
    return name + (f" ({', '.join(marks)})" if marks else "")


def check_line(data: Mapping[str, Any], pool: Mapping[str, Any]) -> str:
    """``boosterkit pool check DECK …`` for this player's pool."""
    return "boosterkit pool check DECK " + shlex.join(pool_args(dict(data), pool["player"]))


def _pools(data: Mapping[str, Any], pool: Any) -> list[Mapping[str, Any]]:
    return [pool] if pool is not None else list(data["pools"])


def _sections(pool: Mapping[str, Any]) -> list[tuple[str, list[Mapping[str, Any]]]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for c in pool["cards"]:
        out.setdefault(c["section"], []).append(c)
    return list(out.items())


_CSS = """@page{margin:9mm}
body{font:8pt/1.15 'DejaVu Sans',system-ui,sans-serif;margin:0;color:#111}
section.reg{break-after:page;page-break-after:always}
section.reg:last-child{break-after:auto;page-break-after:auto}
h1{font-size:13pt;margin:0 0 1.5mm}
h2{font-size:9pt;margin:0 0 1.5mm}
table{border-collapse:collapse}
table.fields{width:100%;margin-bottom:1.5mm}
table.fields td{border:1px solid #333;padding:.8mm 1.5mm;height:6mm;vertical-align:top;width:25%}
table.fields b{display:block;font-size:7pt;color:#444}
p.pool{margin:0 0 2mm;font-size:7.5pt;color:#333}
p.pool code{font-size:7pt}
div.cols::after{content:"";display:block;clear:both}
div.more{break-before:page;page-break-before:always}
.col{float:left;width:48.5%}.col+.col{float:right}
table.cards{width:100%;margin:0 0 1.5mm;break-inside:avoid;page-break-inside:avoid}
table.cards th{text-align:left;border-bottom:1px solid #333;padding:.3mm 1mm 0}
table.cards th.n{font-weight:normal;font-size:6.5pt;color:#444}
table.cards td{border-bottom:1px solid #bbb;padding:.1mm 1mm}
table.cards td.n,table.cards th.n{text-align:right;width:7mm}
table.cards td.played{border:1px solid #333;width:11mm}
table.cards td.set{color:#555;font-size:7pt;white-space:nowrap}
table.totals{width:100%;margin-top:1mm;break-inside:avoid;page-break-inside:avoid}
table.totals td{border:1px solid #333;padding:.8mm 1.5mm;height:6mm}
table.totals b{font-size:7pt;color:#444}"""


def _fields(data: Mapping[str, Any], pool: Mapping[str, Any]) -> str:
    e = html.escape
    event = e(str(data.get("event") or ""))
    cells = [f"<td><b>Event</b>{event}</td>"] + [f"<td><b>{e(f)}</b></td>" for f in PLAYER_FIELDS]
    return f'<table class="fields"><tr>{"".join(cells)}</tr></table>'


def _card_rows(cards: list[Mapping[str, Any]]) -> str:
    e = html.escape
    return "".join(
        f"<tr><td>{e(card_name(c))}</td>"
        f'<td class="set">{e(str(c["set"]).upper())} {e(str(c["collector_number"] or ""))}</td>'
        f'<td class="n">{c["count"]}</td><td class="played"></td></tr>'
        for c in cards
    )


def _table(section: str, cards: list[Mapping[str, Any]], count: int, more: bool = False) -> str:
    e = html.escape
    title = f"{section} ({count}{', continued' if more else ''})"
    return (
        f'<table class="cards"><tr><th colspan="2">{e(title)}</th><th class="n">pool</th>'
        f'<th class="n">played</th></tr>{_card_rows(cards)}</table>'
    )


# The layout is decided here, in card lines of a column (a browser's or WeasyPrint's column
# balancing is slow and may split a table). Measured with WeasyPrint on Letter, the shorter
# paper: a column holds 63.7 to 64.4 lines under the sheet's head and about 70.5 on a page of
# its own, a table's heading takes 1.45 lines, the foot 8 to 8.8; a name wraps from about 37
# characters on A4, the narrower paper. A guess a line short spills a column onto the next
# page (nothing is lost); one too long takes a page more.
#: Lines a column holds on a sheet's first page, and on each further page (under its heading).
FIRST_ROWS = 63.5
NEXT_ROWS = 68.5
#: Characters of a card line before it wraps.
LINE_CHARS = 36
#: A table's heading and the space after it; the sheet's foot (basic lands, total, signature).
_HEAD_ROWS = 1.45
_FOOT_ROWS = 8.8
#: Fewest card lines a table is split to leave at the foot of a column.
_MIN_SPLIT = 4


def _rows(card: Mapping[str, Any]) -> int:
    return 1 + (len(card_name(card)) - 1) // LINE_CHARS


Column = list[str]
Tables = list[tuple[str, list[Mapping[str, Any]]]]


def _height(cards: list[Mapping[str, Any]]) -> float:
    return _HEAD_ROWS + sum(map(_rows, cards))


def _whole(section: str, cards: list[Mapping[str, Any]]) -> str:
    return _table(section, cards, sum(c["count"] for c in cards))


def _balanced(tables: Tables) -> tuple[Column, Column] | None:
    """The tables whole in two columns of one page, the first k in the left one, k making
    the longer column shortest; None when no k fits both columns on the page."""
    heights = [_height(cards) for _, cards in tables]
    best: tuple[float, int] | None = None
    for k in range(len(tables) + 1):
        longest = max(sum(heights[:k]), sum(heights[k:]) + _FOOT_ROWS)
        if longest <= FIRST_ROWS and (best is None or longest < best[0]):
            best = (longest, k)
    if best is None:
        return None
    out = [_whole(s, cards) for s, cards in tables]
    return out[: best[1]], out[best[1] :]


def _flowed(tables: Tables) -> list[Column]:
    """The tables poured into columns (two a page) in order: a table goes whole to the next
    column when it fits there, and is split only when it is longer than a column."""
    columns: list[Column] = [[]]
    room = float(FIRST_ROWS)
    for section, cards in tables:
        count, more = sum(c["count"] for c in cards), False
        while cards:
            whole = _height(cards)
            fits, used = 0, _HEAD_ROWS
            while fits < len(cards) and used + _rows(cards[fits]) <= room:
                used, fits = used + _rows(cards[fits]), fits + 1
            if fits < len(cards) and (whole <= NEXT_ROWS or fits < _MIN_SPLIT) and columns[-1]:
                columns.append([])  # whole in the next column, or too little room here
                room = float(FIRST_ROWS if len(columns) < 3 else NEXT_ROWS)
                continue
            fits = max(fits, 1)  # a column holds at least one line, whatever it says
            columns[-1].append(_table(section, cards[:fits], count, more))
            room -= _height(cards[:fits])
            cards, more = cards[fits:], True
    if room < _FOOT_ROWS:
        columns.append([])
    return columns


def _layout(pool: Mapping[str, Any]) -> list[tuple[Column, Column]]:
    """The colour tables as pages of two columns, the foot last: one page when they fit,
    balanced, else as many as they take."""
    tables = _sections(pool)
    one = _balanced(tables)
    if one is not None:
        return [(one[0], [*one[1], _foot()])]
    columns = _flowed(tables)
    columns[-1].append(_foot())
    columns += [[]] * (len(columns) % 2)
    return [(columns[k], columns[k + 1]) for k in range(0, len(columns), 2)]


def _foot() -> str:
    basics = "".join(f"<td><b>{b}</b></td>" for b in BASICS)
    return (
        '<table class="totals"><tr><td colspan="5"><b>Basic lands added</b></td></tr>'
        f'<tr>{basics}</tr><tr><td colspan="5"><b>Main deck total (at least 40)</b></td></tr>'
        '<tr><td colspan="5"><b>Player signature</b></td></tr></table>'
    )


def _page(data: Mapping[str, Any], pool: Mapping[str, Any]) -> str:
    e = html.escape
    total = sum(c["count"] for c in pool["cards"])
    what = pool.get("contents") or f"{data['packs_per_player']} × {data['product']}"
    who = f"Deck registration — player {pool['player']} of {data['players']}"
    pages = _layout(pool)
    body = "".join(
        (f'<div class="cols more"><h2>{e(who)}, page {k} of {len(pages)}</h2>' if k > 1
         else '<div class="cols">')
        + f'<div class="col">{"".join(left)}</div><div class="col">{"".join(right)}</div></div>'
        for k, (left, right) in enumerate(pages, 1)
    )  # fmt: skip
    return (
        f'<section class="reg"><h1>{e(who)}</h1>{_fields(data, pool)}'
        f'<p class="pool">Pool: {e(what)} · {total} cards · event seed {data["seed"]}, pool '
        f"seed {pool['seed']} · check a deck list: <code>{e(check_line(data, pool))}</code></p>"
        f"{body}</section>"
    )


def registration_html(
    data: dict[str, Any], images: Mapping[str, CardArt] | None = None, pool: Any = None
) -> str:
    """A deck registration sheet per player, each on its own printed page."""
    pages = "".join(_page(data, p) for p in _pools(data, pool))
    title = html.escape(f"Deck registration — event seed {data['seed']}")
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{_CSS}</style></head><body>{pages}</body></html>\n"
    )


def registration_csv(
    data: dict[str, Any], images: Mapping[str, CardArt] | None = None, pool: Any = None
) -> str:
    """A row per card of each pool: the event, player, pool seed, the card, how many the
    pool holds, and an empty ``played`` for the count the deck plays."""
    out = io.StringIO()
    w = CsvWriter(out, list(CSV_COLUMNS))
    for p in _pools(data, pool):
        for c in p["cards"]:
            w.row([data.get("event") or "", p["player"], p["seed"], c["section"], card_name(c),
                   c["set"], c["collector_number"], c["foil"], c["count"], None])  # fmt: skip
    return out.getvalue()


def registration_pdf(
    data: dict[str, Any],
    images: Mapping[str, CardArt] | None = None,
    pool: dict[str, Any] | None = None,
    *,
    paper: str = "a4",
) -> bytes:
    """The deck registration sheets as PDF, a page per player (``registration_html``)."""
    from boosterkit.pdf import html_to_pdf

    return html_to_pdf(registration_html(data, None, pool), paper)
