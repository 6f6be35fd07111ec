"""One model per shape (issue 35 §3): the JSON of a pack item is derived from ``Item``, and the
setup file's items and keys follow the models that write them."""

from __future__ import annotations

import typing

from boosterkit.generator.model import Item
from boosterkit.minigames.engine import Setup
from boosterkit.minigames.setupfile import SetupFile, SetupItem


def _item(**fields: typing.Any) -> Item:
    base = dict.fromkeys(Item._fields)
    base.update(uid="p1-1", set="tst", foil=False, slot="s", kind="card", magic_back=True,
                resolved=True, colors=("W",), external=False)  # fmt: skip
    base.update(fields)
    return Item(**base)


def test_an_items_json_is_its_fields_in_order() -> None:
    plain = _item()
    assert list(plain.to_dict()) == [
        f for f in Item._fields if f not in ("gold_stamped", "external")
    ]
    assert plain.to_dict()["colors"] == ["W"]
    item = _item(kind="art_card", gold_stamped=None, external=True)
    plain_fields = {
        k: v for k, v in zip(Item._fields, item) if k not in ("gold_stamped", "external")
    }
    assert item.to_dict() == {
        **plain_fields,
        "colors": ["W"],
        "gold_stamped": False,
        "external": True,
    }
    assert list(item.to_dict())[-2:] == ["gold_stamped", "external"]


def test_a_setup_files_item_is_an_item_and_its_tag() -> None:
    assert list(typing.get_type_hints(SetupItem)) == [*Item._fields, "tag"]


def test_a_setup_writes_the_setup_files_keys_in_order() -> None:
    keys = list(typing.get_type_hints(SetupFile))
    written = [k for k in keys if k != "rules"]  # rules: Setup.rules_text
    fields = {f for f in Setup.__dataclass_fields__}
    assert all(k in fields for k in written), set(written) - fields
    import inspect

    source = inspect.getsource(Setup._dict)  # to_dict and indented_json_parts write through it
    at = [source.index(f'"{k}"') for k in keys]
    assert at == sorted(at)  # to_dict writes them in the model's order
