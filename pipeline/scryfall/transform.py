"""Pure mappings from Scryfall objects to staging rows.

Card objects never become Python objects: DuckDB reads them with ``read_json`` and the
explicit column list ``CARD_JSON_COLUMNS``; ``CARD_SELECT`` / ``FACE_SELECT`` are the SQL
that turns those columns into ``stage_cards`` / ``stage_faces`` rows (``RAW_COLUMNS`` /
``FACE_COLUMNS`` of ``pipeline.load``). Set objects go the same way
(``SET_JSON_COLUMNS`` / ``SET_SELECT``).
"""

from __future__ import annotations

from collections.abc import Mapping

_FACE_STRUCT = (
    "STRUCT(name VARCHAR, type_line VARCHAR, mana_cost VARCHAR, colors VARCHAR[], "
    "power VARCHAR, toughness VARCHAR, loyalty VARCHAR, oracle_text VARCHAR)"
)

#: The fields of a Scryfall card object that boosterkit reads, with their DuckDB types.
#: Everything else in the object is skipped by the JSON reader (and kept in the cache).
CARD_JSON_COLUMNS: dict[str, str] = {
    "object": "VARCHAR",
    "id": "VARCHAR",
    "oracle_id": "VARCHAR",
    "name": "VARCHAR",
    "set": "VARCHAR",
    "set_name": "VARCHAR",
    "set_type": "VARCHAR",
    "set_id": "VARCHAR",
    "collector_number": "VARCHAR",
    "lang": "VARCHAR",
    "rarity": "VARCHAR",
    "layout": "VARCHAR",
    "type_line": "VARCHAR",
    "mana_cost": "VARCHAR",
    "cmc": "DOUBLE",
    "colors": "VARCHAR[]",
    "color_identity": "VARCHAR[]",
    "power": "VARCHAR",
    "toughness": "VARCHAR",
    "loyalty": "VARCHAR",
    "oracle_text": "VARCHAR",
    "booster": "BOOLEAN",
    "finishes": "VARCHAR[]",
    "promo_types": "VARCHAR[]",
    "frame_effects": "VARCHAR[]",
    "full_art": "BOOLEAN",
    "released_at": "DATE",
    "card_faces": f"{_FACE_STRUCT}[]",
}

# Multi-faced cards (transform, modal_dfc…) keep mana cost, colours, power… on their faces;
# the front face stands in for the card where the top level has no value.
_F = "c.card_faces[1]"

#: SELECT list (over raw card columns aliased ``c``) producing ``pipeline.load.RAW_COLUMNS``.
CARD_SELECT: dict[str, str] = {
    "id": "c.id",
    "oracle_id": "c.oracle_id",
    "name": "c.name",
    "set_code": "lower(c.set)",
    "collector_number": "c.collector_number",
    "lang": "c.lang",
    "rarity": "c.rarity",
    "layout": "c.layout",
    "type_line": f"coalesce(c.type_line, {_F}.type_line)",
    "mana_cost": f"coalesce(c.mana_cost, {_F}.mana_cost)",
    "mana_value": "c.cmc",
    "colors": f"coalesce(c.colors, {_F}.colors)",
    "color_identity": "c.color_identity",
    "power": f"coalesce(c.power, {_F}.power)",
    "toughness": f"coalesce(c.toughness, {_F}.toughness)",
    "loyalty": f"coalesce(c.loyalty, {_F}.loyalty)",
    "oracle_text": (
        "coalesce(c.oracle_text, "
        "array_to_string(list_transform(c.card_faces, lambda f: coalesce(f.oracle_text, '')), '\n//\n'))"
    ),
    "in_booster": "c.booster",
    "finishes": "c.finishes",
    "promo_types": "c.promo_types",
    "frame_effects": "c.frame_effects",
    "full_art": "c.full_art",
    "released_at": "c.released_at",
    "source": "'scryfall'",
}

#: SELECT list over ``c`` (the card) and ``f`` (one face, ``i`` its 0-based index).
FACE_SELECT: dict[str, str] = {
    "card_id": "c.id",
    "face_index": "i",
    "name": "f.name",
    "type_line": "f.type_line",
    "mana_cost": "f.mana_cost",
    "colors": "f.colors",
    "power": "f.power",
    "toughness": "f.toughness",
    "loyalty": "f.loyalty",
    "oracle_text": "f.oracle_text",
}

#: The fields of a Scryfall set object that boosterkit reads.
SET_JSON_COLUMNS: dict[str, str] = {
    "object": "VARCHAR",
    "id": "VARCHAR",
    "code": "VARCHAR",
    "name": "VARCHAR",
    "set_type": "VARCHAR",
    "released_at": "DATE",
    "card_count": "INTEGER",
    "printed_size": "INTEGER",
    "parent_set_code": "VARCHAR",
    "digital": "BOOLEAN",
    "icon_svg_uri": "VARCHAR",
}

#: SELECT list (over raw set columns aliased ``s``) producing ``sets`` rows.
SET_SELECT: dict[str, str] = {
    "code": "lower(s.code)",
    "name": "s.name",
    "set_type": "s.set_type",
    "released_at": "s.released_at",
    "card_count": "s.card_count",
    "printed_size": "s.printed_size",
    "parent_set_code": "lower(s.parent_set_code)",
    "digital": "s.digital",
    "scryfall_id": "s.id",
    "icon_svg_uri": "s.icon_svg_uri",
    "source": "'scryfall'",
}


def json_columns_sql(columns: Mapping[str, str]) -> str:
    """A DuckDB struct literal for ``read_json(columns=…)``."""
    return "{" + ", ".join(f"'{k}': '{v}'" for k, v in columns.items()) + "}"


def struct_sql(columns: Mapping[str, str]) -> str:
    """A DuckDB STRUCT type with these fields (for list objects' ``data``)."""
    return "STRUCT(" + ", ".join(f"{k} {v}" for k, v in columns.items()) + ")"
