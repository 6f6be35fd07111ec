"""Pure mappings from Scryfall objects to staging rows.

Card objects never become Python objects: DuckDB reads them with ``read_json`` and the
explicit column list ``CARD_JSON_COLUMNS``; ``CARD_SELECT`` / ``FACE_SELECT`` are the SQL
that turns those columns into ``stage_cards`` / ``stage_faces`` rows (``RAW_COLUMNS`` /
``FACE_COLUMNS`` of ``pipeline.load``). Set objects go the same way
(``SET_JSON_COLUMNS`` / ``SET_SELECT``).
"""

from __future__ import annotations

from collections.abc import Mapping

from boosterkit.pipeline.load import FACE_COLUMNS, RAW_COLUMNS, SET_COLUMNS


def _as_raw(*names: str) -> dict[str, str]:
    """Card fields Scryfall names and types as ``pipeline.load.RAW_COLUMNS`` does."""
    return {n: RAW_COLUMNS[n] for n in names}


#: Face fields Scryfall names and types as ``pipeline.load.FACE_COLUMNS`` does.
_FACE_FIELDS = {k: v for k, v in FACE_COLUMNS.items() if k not in ("card_id", "face_index")}
#: Faces as read from the JSON: the ``card_faces`` columns, and the face's images and artist
#: (a double-faced card has them on its faces only).
_FACE_STRUCT = (
    "STRUCT("
    + ", ".join(f"{k} {v}" for k, v in {**_FACE_FIELDS, **_as_raw("image_uris", "artist")}.items())
    + ")"
)


#: The fields of a Scryfall card object that boosterkit reads, with their DuckDB types.
#: Everything else in the object is skipped by the JSON reader (and kept in the cache).
CARD_JSON_COLUMNS: dict[str, str] = {
    "object": "VARCHAR",
    **_as_raw("id", "oracle_id", "name"),
    "set": "VARCHAR",
    "set_name": "VARCHAR",
    "set_type": "VARCHAR",
    "set_id": "VARCHAR",
    **_as_raw("collector_number", "lang", "rarity", "layout", "type_line", "mana_cost"),
    "cmc": "DOUBLE",
    **_as_raw("colors", "color_identity", "power", "toughness", "loyalty", "oracle_text"),
    "booster": "BOOLEAN",
    **_as_raw("finishes", "promo_types", "frame_effects", "full_art", "released_at"),
    **_as_raw("border_color"),
    "card_faces": f"{_FACE_STRUCT}[]",
    **_as_raw("image_uris", "artist", "watermark", "mtgo_id", "mtgo_foil_id"),
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
    "mana_value": "CASE WHEN isfinite(c.cmc) THEN c.cmc END",  # NaN, inf: unknown (null)
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
    "border_color": "c.border_color",
    "released_at": "c.released_at",
    "source": "'scryfall'",
    "image_uris": f"coalesce(c.image_uris, {_F}.image_uris)",
    "artist": f"coalesce(c.artist, {_F}.artist)",
    "watermark": "c.watermark",
    "mtgo_id": "c.mtgo_id",
    "mtgo_foil_id": "c.mtgo_foil_id",
}

#: SELECT list over ``c`` (the card) and ``f`` (one face, ``i`` its 0-based index).
FACE_SELECT: dict[str, str] = {
    "card_id": "c.id",
    "face_index": "i",
    **{k: f"f.{k}" for k in _FACE_FIELDS},
}

#: The fields of a Scryfall set object that boosterkit reads.
SET_JSON_COLUMNS: dict[str, str] = {
    "object": "VARCHAR",
    "id": "VARCHAR",
    **{k: v for k, v in SET_COLUMNS.items() if k not in ("scryfall_id", "source")},
}

#: SELECT list (over raw set columns aliased ``s``) producing ``sets`` rows.
SET_SELECT: dict[str, str] = {
    "code": "lower(s.code)",
    "name": "s.name",
    "set_type": "s.set_type",
    "released_at": "s.released_at",
    "card_count": "s.card_count",
    "printed_size": "s.printed_size",
    # a parent that is not a set code (2–8 letters or digits) is no parent
    "parent_set_code": "CASE WHEN regexp_full_match(lower(s.parent_set_code), '[a-z0-9]{2,8}') "
    "THEN lower(s.parent_set_code) END",
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
