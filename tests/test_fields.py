"""Card and item fields are declared once (``CardInfo``, ``Item``): every other list of them is
derived, and each reads what its name says (unit tests: an in-memory database, no ../shared)."""

from __future__ import annotations

import dataclasses

from boosterkit.generator import engine, odds
from boosterkit.generator.model import (
    CARD_COLUMNS,
    ITEM_FIELDS,
    PROTO_FIELDS,
    PROTO_INDEX,
    CardInfo,
    Item,
    ProductDef,
    SheetDef,
    VariantDef,
)
from boosterkit.generator.output import CSV_COLUMNS, ITEM_COLUMNS, PACK_COLUMNS
from boosterkit.minigames import lookup

CARD = CardInfo(
    "id-1", "Dwarfhold Champion", "afr", "14", "common", "card", True,
    type_line="Creature — Dwarf Warrior", colors=("W",), mana_value=2.0, layout="normal",
)  # fmt: skip


def _one_card_product() -> engine.CompiledProduct:
    sheet = SheetDef("common", (CARD,), (1,), foil=True)
    variant = VariantDef(0, 1, (("common", 1),))
    return engine.compile_product(
        ProductDef("afr-test", "afr", "Test", "draft", "generic", (variant,), {"common": sheet})
    )


def test_derived_lists_follow_the_item_record() -> None:
    assert ("uid", *ITEM_FIELDS) == Item._fields
    assert PROTO_FIELDS == tuple(f for f in Item._fields if f not in ("uid", "external"))
    assert engine.PROTO_FIELDS is PROTO_FIELDS
    assert CSV_COLUMNS == PACK_COLUMNS + ITEM_COLUMNS and ITEM_COLUMNS == ("uid", *PROTO_FIELDS)
    assert set(CARD_COLUMNS) == {f.name for f in dataclasses.fields(CardInfo)} - {"resolved"}
    assert set(CARD_COLUMNS) <= set(ITEM_FIELDS)  # an item carries every card field by name


def test_a_prototype_read_by_name_holds_the_card_and_its_slot() -> None:
    cp = _one_card_product()
    (proto,) = cp.protos
    for name in CARD_COLUMNS:
        assert proto[PROTO_INDEX[name]] == getattr(CARD, name), name
    assert proto[PROTO_INDEX["slot"]] == "common" and proto[PROTO_INDEX["foil"]] is True
    item = engine.open_pack(cp, seed=1, index=1).items[0]
    assert tuple(item)[1:] == (*proto, False)  # Item.from_prototype: uid, fields, external


def test_odds_card_key_and_group_read_their_fields_by_name() -> None:
    (proto,) = _one_card_product().protos
    key = odds.proto_key(proto)
    assert dict(zip(odds.KEY_FIELDS, key)) == {
        "card_id": "id-1", "name": "Dwarfhold Champion", "set": "afr", "collector_number": "14",
        "rarity": "common", "foil": True, "kind": "card", "gold_stamped": None, "resolved": True,
    }  # fmt: skip
    assert odds.proto_group(proto) == odds.key_group(key) == ("common", True)


def test_card_rows_read_each_column_under_the_items_name(mem_db) -> None:
    mem_db.execute(
        "INSERT INTO cards (id, name, set_code, collector_number, rarity, kind, magic_back, "
        "type_line, colors, mana_value, layout, is_basic_land, power, toughness, loyalty, "
        "oracle_text, is_legendary) VALUES ('id-1', 'Dwarfhold Champion', 'afr', '14', 'common', "
        "'card', true, 'Creature — Dwarf Warrior', ['W'], 2.0, 'normal', false, '1', '3', NULL, "
        "'Dwarfhold Champion gets +1/+0.', false)"
    )
    rows = lookup.card_rows(mem_db, ["id-1", "absent"])
    assert list(rows) == ["id-1"]
    row = rows["id-1"]
    assert isinstance(row, lookup.CardRow) and row.card == CARD and row.is_basic_land is False
    assert list(lookup.COLUMNS) == [
        *CARD_COLUMNS,
        *(f.name for f in dataclasses.fields(lookup.CardRow)[1:]),
    ]
    assert row.facts() == {
        "power": "1", "toughness": "3", "loyalty": None,
        "text": "Dwarfhold Champion gets +1/+0.", "legendary": False, "watermark": None,
    }  # fmt: skip
