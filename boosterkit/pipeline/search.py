"""Scryfall-style card search (``t:creature c:g mv<=3``) translated to parameterised SQL.

A query is terms joined by spaces (and), ``or``, ``-`` (not) and parentheses. Every value
becomes a bound parameter; only fixed SQL fragments chosen from the tables below are ever
pasted. Terms (a subset of https://scryfall.com/docs/syntax):

=======================  ===========================================================
``word``, ``"two words"``  name contains it; ``!"Exact Name"`` the exact name
``name:`` ``n:``          name contains
``t:`` ``type:``          type line contains (``t:legendary t:creature``)
``o:`` ``oracle:``        rules text contains
``c:`` ``color:``         colours: ``c:g`` has green, ``c=rg`` exactly red-green,
                          ``c<=wu`` within white-blue, ``c:c`` colourless, ``c:m`` two or
                          more; letters ``wubrg`` or names (``c:green``); also ``id:`` for
                          the colour identity
``mv`` ``cmc``            mana value: ``mv<=3``, ``mv=2``, ``mv>5``
``pow`` ``tou`` ``loy``   power, toughness, loyalty (numbers)
``r:`` ``rarity:``        ``r:mythic``, ``r>=rare`` (common < uncommon < rare < mythic),
                          ``c``/``u``/``r``/``m`` too; ``special``, ``bonus``
``s:`` ``e:`` ``set:``    set code
``cn:`` ``number:``       collector number
``kind:``                 boosterkit's kind: card, token, art_card, minigame, emblem, other
=======================  ===========================================================

Operators: ``:`` and ``=`` (``:`` means "has" for colours), ``!=``, ``<``, ``<=``, ``>``,
``>=``. A malformed query is an ``InputError`` naming the term; so is one longer than
``MAX_QUERY_CHARS``, of more than ``MAX_TERMS`` terms or nested deeper than ``MAX_DEPTH``
(checked before anything is built). A condition repeated in an and or an or is kept once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from boosterkit.errors import InputError
from boosterkit.pipeline.fields import RARITIES
from boosterkit.suggest import unknown

Sql = tuple[str, list[Any]]

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<open>-?\()
  | (?P<close>\))
  | (?P<term>-?(?:(?P<key>[A-Za-z]+)(?P<op><=|>=|!=|:|=|<|>)(?P<value>"[^"]*"|[^\s()"]+)
               |(?P<bang>!?)(?P<word>"[^"]*"|[^\s()"]+)))
""",
    re.VERBOSE,
)

COLORS = {"w": "W", "u": "U", "b": "B", "r": "R", "g": "G"}
COLOR_WORDS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}
RARITY_RANK = {r: i for i, r in enumerate(RARITIES)}
RARITY_ABBR = {r[0]: r for r in RARITIES}  # c, u, r, m, s, b
_CMP = {":": "=", "=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


#: Longest query read (characters), most terms in one, deepest nesting of parentheses: a
#: search is a line typed by a person, and every term is a condition the database evaluates.
MAX_QUERY_CHARS = 1000
MAX_TERMS = 64
MAX_DEPTH = 16


class QueryError(InputError):
    """A query that cannot be read: the message quotes the query and the term."""


def _fail(query: str, message: str) -> QueryError:
    shown = repr(query) if len(query) <= 80 else f"{query[:60]!r}… ({len(query):,} characters)"
    return QueryError(f"query {shown}: {message}", field="q")


def _check_size(query: str, tokens: list[tuple[str, Any]]) -> None:
    """``QueryError`` for a query past ``MAX_TERMS`` terms or ``MAX_DEPTH`` parentheses deep
    (counted on the tokens: nothing is built, nothing recurses)."""
    terms = sum(kind == "term" for kind, _ in tokens)
    if terms > MAX_TERMS:
        raise _fail(query, f"{terms:,} terms; a query has at most {MAX_TERMS}")
    depth = 0
    for kind, _ in tokens:
        depth += kind == "open"
        depth -= kind == "close"
        if depth > MAX_DEPTH:
            raise _fail(query, f"parentheses nested more than {MAX_DEPTH} deep")


def _like(column: str, value: str) -> Sql:
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"coalesce({column}, '') ILIKE ? ESCAPE '\\'", [f"%{escaped}%"]


def _text(column: str) -> Callable[[str, str, str], Sql]:
    def build(op: str, value: str, query: str) -> Sql:
        if op not in (":", "="):
            raise _fail(query, f"{op} does not apply to text; use : (contains)")
        return _like(column, value)

    return build


def _equal(column: str, lower: bool = True) -> Callable[[str, str, str], Sql]:
    def build(op: str, value: str, query: str) -> Sql:
        if op not in (":", "=", "!="):
            raise _fail(query, f"{op} does not apply here; use : or !=")
        return f"{column} {_CMP[op]} ?", [value.lower() if lower else value]

    return build


def _number(column: str) -> Callable[[str, str, str], Sql]:
    def build(op: str, value: str, query: str) -> Sql:
        try:
            number = float(value)
        except ValueError:
            raise _fail(query, f"{value!r} is not a number") from None
        return f"{column} {_CMP[op]} ?", [number]

    return build


def _colour_set(value: str, query: str) -> set[str] | str:
    v = value.lower()
    if v in ("c", "colorless", "colourless"):
        return "colourless"
    if v in ("m", "multicolor", "multicolour", "gold"):
        return "multi"
    if v in COLOR_WORDS:
        return {COLOR_WORDS[v]}
    if v and all(ch in COLORS for ch in v):
        return {COLORS[ch] for ch in v}
    raise _fail(query, f"unknown colour {value!r} (use letters wubrg, c, m or colour names)")


def _colours(column: str) -> Callable[[str, str, str], Sql]:
    col = f"coalesce({column}, [])"

    def build(op: str, value: str, query: str) -> Sql:
        wanted = _colour_set(value, query)
        if wanted == "colourless":
            return (f"len({col}) = 0" if op in (":", "=", "<=") else f"len({col}) > 0"), []
        if wanted == "multi":
            return (f"len({col}) > 1" if op in (":", "=", ">=") else f"len({col}) <= 1"), []
        codes = sorted(wanted)
        has_all = f"list_has_all({col}, ?::VARCHAR[])"
        within = f"list_has_all(?::VARCHAR[], {col})"
        size = len(codes)
        sql: dict[str, Sql] = {
            ":": (has_all, [codes]),
            ">=": (has_all, [codes]),
            ">": (f"{has_all} AND len({col}) > ?", [codes, size]),
            "=": (f"{has_all} AND len({col}) = ?", [codes, size]),
            "!=": (f"NOT ({has_all} AND len({col}) = ?)", [codes, size]),
            "<=": (within, [codes]),
            "<": (f"{within} AND len({col}) < ?", [codes, size]),
        }
        return sql[op]

    return build


def _rarity(op: str, value: str, query: str) -> Sql:
    v = value.lower()
    name = RARITY_ABBR.get(v, v)
    if name not in RARITY_RANK:
        names = [(r, r) for r in RARITY_RANK]
        raise _fail(query, unknown("rarity", value, names, ", ".join(RARITY_RANK)))
    if op in (":", "=", "!="):
        return f"rarity {_CMP[op]} ?", [name]
    rank = (
        "CASE rarity " + " ".join(f"WHEN '{r}' THEN {n}" for r, n in RARITY_RANK.items()) + " END"
    )
    return f"{rank} {_CMP[op]} ?", [RARITY_RANK[name]]


TERMS: dict[str, Callable[[str, str, str], Sql]] = {
    "name": _text("name"), "n": _text("name"),
    "t": _text("type_line"), "type": _text("type_line"),
    "o": _text("oracle_text"), "oracle": _text("oracle_text"),
    "c": _colours("colors"), "color": _colours("colors"), "colour": _colours("colors"),
    "id": _colours("color_identity"), "identity": _colours("color_identity"),
    "ci": _colours("color_identity"),
    "mv": _number("mana_value"), "cmc": _number("mana_value"),
    "manavalue": _number("mana_value"),
    "pow": _number("power_num"), "power": _number("power_num"),
    "tou": _number("toughness_num"), "toughness": _number("toughness_num"),
    "loy": _number("loyalty_num"), "loyalty": _number("loyalty_num"),
    "r": _rarity, "rarity": _rarity,
    "s": _equal("set_code"), "e": _equal("set_code"), "set": _equal("set_code"),
    "edition": _equal("set_code"),
    "cn": _equal("collector_number", lower=False), "number": _equal("collector_number", lower=False),
    "kind": _equal("kind"),
}  # fmt: skip


def _tokens(query: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(query):
        m = _TOKEN.match(query, pos)
        if m is None:
            rest = query[pos:]
            what = "an unclosed quote" if rest.startswith('"') or '"' in rest else f"{rest[:20]!r}"
            raise _fail(query, f"cannot read {what} at character {pos + 1}")
        pos = m.end()
        if m["space"]:
            continue
        if m["open"]:
            out.append(("open", m["open"].startswith("-")))
        elif m["close"]:
            out.append(("close", None))
        elif (
            m["word"] is not None
            and m["word"].lower() == "or"
            and not m["bang"]
            and not m["term"].startswith("-")
        ):
            out.append(("or", None))
        else:
            out.append(("term", m))
    return out


def _unquote(v: str) -> str:
    return v[1:-1] if len(v) >= 2 and v[0] == v[-1] == '"' else v


def _term(m: re.Match[str], query: str) -> Sql:
    negated = m["term"].startswith("-")
    if m["key"] is not None:
        key = m["key"].lower()
        if key not in TERMS:
            known = "name t o c id mv pow tou loy r set cn kind"
            raise _fail(query, f"unknown term {m['term']!r} (known: {known})")
        value = _unquote(m["value"])
        if not value:
            raise _fail(query, f"{m['term']!r} has no value")
        sql, params = TERMS[key](m["op"], value, query)
    else:
        word = _unquote(m["word"])
        if word == m["word"] and re.match(r"^[A-Za-z]+(<=|>=|!=|[:=<>])", word):
            raise _fail(query, f"{m['term']!r} has no value")
        if m["bang"]:
            sql, params = "lower(name) = lower(?)", [word]
        else:
            sql, params = _like("name", word)
    return (f"NOT coalesce(({sql}), false)" if negated else f"({sql})"), params


class _Parser:
    def __init__(self, query: str) -> None:
        self.query = query
        if len(query) > MAX_QUERY_CHARS:
            raise _fail(query, f"longer than {MAX_QUERY_CHARS:,} characters")
        self.tokens = _tokens(query)
        _check_size(query, self.tokens)
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def parse(self) -> Sql:
        if not self.tokens:
            raise _fail(self.query, "empty query")
        sql = self.either()
        if self.peek() is not None:
            raise _fail(self.query, "unbalanced parentheses: a ')' without its '('")
        return sql

    def either(self) -> Sql:
        parts = [self.both()]
        while self.peek() == "or":
            self.i += 1
            parts.append(self.both())
        return self._join(parts, " OR ")

    def both(self) -> Sql:
        parts = []
        while self.peek() in ("term", "open"):
            kind, value = self.tokens[self.i]
            self.i += 1
            if kind == "term":
                parts.append(_term(value, self.query))
                continue
            inner = self.either()
            if self.peek() != "close":
                raise _fail(self.query, "unbalanced parentheses: a '(' without its ')'")
            self.i += 1
            parts.append((f"NOT coalesce({inner[0]}, false)", inner[1]) if value else inner)
        if not parts:
            raise _fail(self.query, "'or' or '(' with nothing on one side")
        return self._join(parts, " AND ")

    @staticmethod
    def _join(parts: list[Sql], glue: str) -> Sql:
        """The parts joined, each once (a repeated condition changes neither an and nor an or)."""
        unique: dict[str, Sql] = {}
        for sql, params in parts:
            unique.setdefault(f"{sql}\x00{params!r}", (sql, params))
        parts = list(unique.values())
        if len(parts) == 1:
            return parts[0]
        return "(" + glue.join(p[0] for p in parts) + ")", [x for p in parts for x in p[1]]


def to_sql(query: str) -> Sql:
    """The WHERE condition (on ``cards``) and its parameters for a Scryfall-style query."""
    return _Parser(query.strip()).parse()
