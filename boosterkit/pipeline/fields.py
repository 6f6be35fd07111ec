"""The columns the browse commands list: plain data, importable without the database
(the CLI's help texts name them without loading DuckDB)."""

SET_FIELDS = (
    "code",
    "name",
    "set_type",
    "released_at",
    "card_count",
    "parent_set_code",
    "digital",
    "cards",
)
CARD_FIELDS = (
    "id",
    "set_code",
    "collector_number",
    "name",
    "rarity",
    "kind",
    "magic_back",
    "type_line",
    "mana_cost",
    "colors",
    "in_booster",
    "lang",
    "layout",
)
#: Every column ``list_cards(columns=…)`` can return (``CARD_FIELDS`` is the default).
CARD_COLUMNS = CARD_FIELDS + (
    "mana_value",
    "color_identity",
    "power",
    "toughness",
    "loyalty",
    "oracle_text",
    "oracle_id",
    "finishes",
    "promo_types",
    "released_at",
    "source",
)

#: Scryfall's rarities, lowest first.
RARITIES = ("common", "uncommon", "rare", "mythic", "special", "bonus")

__all__ = ["CARD_COLUMNS", "CARD_FIELDS", "RARITIES", "SET_FIELDS"]
