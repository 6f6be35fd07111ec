"""Packs whose items are built on first access, from a compiled product's prototypes
(``generator.compiled.CompiledProduct``: its ``templates``, ``fragment(p)`` and ``build``)."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from boosterkit.generator.model import Item, Pack
from boosterkit.serialize import to_json

if TYPE_CHECKING:  # compiled and engine import this module
    from boosterkit.generator.compiled import CompiledProduct

_new_item = tuple.__new__  # Item is a tuple: (uid, *prototype) builds one in a single step
_POSITIONS = tuple(f"-{k}" for k in range(64))  # uid suffixes of the first items of a pack
_UID_ENDS = [b'%d",' % k for k in range(64)]  # the end of an indented item's uid line


def build_items(
    item_fields: Sequence[tuple[Any, ...]], index: int, protos: Sequence[int]
) -> list[Item]:
    """The ``Item`` objects of pack ``index`` holding prototypes ``protos`` (ids into
    ``item_fields``, the items' fields after ``uid``)."""
    table, new, pre = item_fields, _new_item, f"p{index}"
    if len(protos) >= len(_POSITIONS):
        return [new(Item, (f"{pre}-{k}",) + table[p]) for k, p in enumerate(protos, 1)]
    return [new(Item, (pre + _POSITIONS[k],) + table[p]) for k, p in enumerate(protos, 1)]


class ItemList(list):  # type: ignore[type-arg]  # list[Item]; subscripted at runtime
    """A ``LazyPack``'s items as built on access. The pack keeps them only while something
    else holds them (a weak reference), so kept packs hold no ``Item`` objects; a change
    (``append``, ``pop``, ``sort``, ``lst[i] = …``…) pins the list to its pack for good."""

    __slots__ = ("_pack", "__weakref__")
    _pack: LazyPack | None

    def __reduce__(self) -> tuple[type[list[Item]], tuple[list[Item]]]:
        return list, (list(self),)  # a plain list: pickled or copied, it is no pack's

    def _pin(self) -> None:
        pack = self._pack
        if pack is not None:
            pack._built = self
            self._pack = None  # the pack holds the list now: no cycle


def _pinning(name: str) -> Any:
    change = getattr(list, name)

    @functools.wraps(change)
    def method(self: ItemList, *args: Any, **kwargs: Any) -> Any:
        self._pin()
        return change(self, *args, **kwargs)

    return method


for _name in ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
              "__setitem__", "__delitem__", "__iadd__", "__imul__"):  # fmt: skip
    setattr(ItemList, _name, _pinning(_name))


class LazyPack(Pack):
    """A ``Pack`` whose ``Item`` objects are built on access (``to_dict`` needs none).

    Building the items costs more than drawing the pack, and kept items cost memory and the
    cyclic collector's rescans, so the engine keeps prototype ids and builds ``items`` when
    asked: an ``ItemList`` kept while the caller holds it (the same list, the same objects),
    and built again after. A changed list, or one assigned, is the pack's for good.
    """

    __slots__ = ("_compiled", "_protos", "_built", "_last")
    _compiled: CompiledProduct
    _protos: list[int]
    _built: list[Item] | None  # items changed or assigned: the pack's own
    _last: weakref.ref[ItemList] | None  # the items built last, while held elsewhere

    @property
    def items(self) -> list[Item]:
        built = self._built
        if built is not None:
            return built
        last = self._last
        found = last() if last is not None else None
        if found is None:
            found = ItemList(self._compiled.build(self.index, self._protos))
            found._pack = self
            self._last = weakref.ref(found)
        return found

    @items.setter
    def items(self, value: list[Item]) -> None:
        self._built = value

    def _pristine(self) -> bool:
        """Whether the items are still those of ``_protos`` (never changed nor assigned)."""
        return self._built is None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (``--jobs`` workers, users): its fields and prototypes, no weak reference."""
        return {k: getattr(self, k) for k in _STATE}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        self._last = None

    def to_dict(self) -> dict[str, Any]:
        if not self._pristine():  # items were handed out and may have been changed
            return Pack.to_dict(self)
        t = self._compiled.templates
        i = self.index
        return {
            "set": self.set, "product": self.product, "seed": self.seed, "index": i,
            "variant": self.variant,
            "items": [{"uid": f"p{i}-{k}", **t[p]} for k, p in enumerate(self._protos, 1)],
        }  # fmt: skip

    def item_texts(self, depth: int) -> list[bytes] | None:
        """Each item's JSON indented as at ``depth`` (an item of a pack of a setup: 4), from
        kept fragments (``json_safe``, UTF-8); None when the items were changed."""
        if not self._pristine():
            return None
        cp, i = self._compiled, self.index
        made: dict[int, bytes] = cp.memo.setdefault(f"pretty{depth}", {})
        head = b'{\n%s"uid": "p%d-' % (b"  " * (depth + 1), i)
        return [
            b'%s%d",%s' % (head, k, made.get(p) or _fragment_at(cp, p, depth, made))
            for k, p in enumerate(self._protos, 1)
        ]

    def to_json_line(self) -> str:
        """``serialize.to_json(self.to_dict(), indent=None)``, built from cached fragments."""
        if not self._pristine():
            return to_json(self.to_dict(), indent=None)
        f = self._compiled.fragment
        i = self.index
        uid = f'{{"uid": "p{i}-'
        body = ", ".join([f'{uid}{k}", {f(p)}' for k, p in enumerate(self._protos, 1)])
        head = json_head(self.set, self.product, self.seed)
        return f'{head}{i}, "variant": {self.variant}, "items": [{body}]}}'

    def to_json_pretty(self) -> str:
        """``serialize.to_json(self.to_dict())`` (indented), built from cached fragments."""
        if not self._pristine():
            return to_json(self.to_dict())
        cp, i = self._compiled, self.index
        pretty = cp.pretty
        uid = f'{{\n      "uid": "p{i}-'
        body = ",\n    ".join([
            f'{uid}{k}",{pretty.get(p) or pretty_fragment(cp, p)}'
            for k, p in enumerate(self._protos, 1)
        ])  # fmt: skip
        head = pretty_head(self.set, self.product, self.seed)
        items = f"[\n    {body}\n  ]" if body else "[]"
        return f'{head}{i},\n  "variant": {self.variant},\n  "items": {items}\n}}'


class JsonLines:
    """Packs as JSON-lines bytes (``to_json_line`` and a newline, UTF-8) for one run of
    writing: per compiled product its item fragments are encoded once, and a line is one
    ``bytes.join`` of pieces laid out by slice assignment, so its items cost no Python step
    each (2.6 µs a 15-card pack, against 11 µs formatting one ``%`` template)."""

    def __init__(self) -> None:
        self._fragments: dict[int, tuple[CompiledProduct, list[bytes]]] = {}
        self._positions = [b'%d", ' % k for k in range(64)]  # the end of a uid: 'K", '
        self._at: dict[tuple[int, int, bool], Any] = {}  # ``_items``
        self._at_cp: dict[int, CompiledProduct] = {}

    def line(self, pack: Pack) -> bytes:
        """``pack`` as one JSON line, newline included."""
        if type(pack) is not LazyPack or not pack._pristine():
            fast = getattr(pack, "to_json_line", None)
            text = fast() if fast else to_json(pack.to_dict(), indent=None)
            return text.encode() + b"\n"
        cp, protos, i = pack._compiled, pack._protos, pack.index
        frags = self._encoded(cp)
        n = len(protos)
        while len(self._positions) <= n:
            self._positions.append(b'%d", ' % len(self._positions))
        head = json_head(pack.set, pack.product, pack.seed).encode()
        uid = b', {"uid": "p%d-' % i
        # head, then per item: ', {"uid": "pI-' 'K", ' fragment (the first without ', ')
        pieces = [uid] * (3 * n + 2)
        pieces[0] = b'%s%d, "variant": %d, "items": [' % (head, i, pack.variant)
        pieces[1] = uid[2:]
        pieces[2:-1:3] = self._positions[1 : n + 1]
        pieces[3::3] = map(frags.__getitem__, protos)
        pieces[-1] = b"]}\n"
        if n == 0:
            pieces = [pieces[0], b"]}\n"]
        return b"".join(pieces)

    def _encoded(self, cp: CompiledProduct) -> list[bytes]:
        kept = self._fragments.get(id(cp))
        if kept is None or kept[0] is not cp:
            kept = self._fragments[id(cp)] = (cp, [f.encode() for f in cp.fragments])
        return kept[1]

    def _items(self, cp: CompiledProduct, j: int, last: bool) -> Any:
        """Per prototype: the end of the uid of the item at position ``j`` (1-based) and its
        fragment, and the line's end after the last item, as a numpy array of objects (a
        column of prototype ids takes its pieces in one step); kept per product."""
        from boosterkit.generator._np import np

        key = (id(cp), j, last)
        found = self._at.get(key)
        if found is None or self._at_cp.get(id(cp)) is not cp:
            self._at_cp[id(cp)] = cp
            end = b"]}\n" if last else b""
            found = np.empty(len(cp.items), dtype=object)
            found[:] = [b'%d", %s%s' % (j, f, end) for f in self._encoded(cp)]
            self._at[key] = found
        return found

    def layout(
        self, cp: CompiledProduct, seed: int, at: list[int], variants: list[int], rows: Any
    ) -> tuple[list[bytes], int]:
        """The pieces of the lines of packs ``at``, of ``variants`` (one a pack), drawn as
        ``rows`` (a numpy matrix of prototype ids, a row a pack), and how many a line takes:
        line ``r`` is ``b"".join(pieces[r * width : (r + 1) * width])``, each ``line`` of its
        pack. One list for them all, laid out column by column by slice assignment."""
        m, k = rows.shape
        head = json_head(cp.product.set_code, cp.product.code, seed).encode()
        if k == 0:
            return [b'%s%d, "variant": %d, "items": []}\n' % (head, i, v)
                    for i, v in zip(at, variants)], 1  # fmt: skip
        # per pack: its head and first uid, then per item the end of its uid and its
        # fragment (``_items``), every item after the first behind ', {"uid": "pI-'
        width = 2 * k
        pieces: list[bytes] = [b""] * (m * width)
        pieces[0::width] = [b'%s%d, "variant": %d, "items": [{"uid": "p%d-' % (head, i, v, i)
                            for i, v in zip(at, variants)]  # fmt: skip
        uids = _uids(at, ', {"uid": "p')
        for j in range(k):
            if j:
                pieces[2 * j :: width] = uids
            pieces[2 * j + 1 :: width] = self._items(cp, j + 1, j == k - 1)[rows[:, j]].tolist()
        return pieces, width


def _uids(at: list[int], before: str) -> list[bytes]:
    """``before`` then ``I-`` for each pack ``I`` of ``at`` (``before`` ends ``"uid": "p``),
    made by C loops (a join of the numbers, then a split) rather than a format a pack."""
    text = ("-\x00" + before).join(map(str, at))
    return f"{before}{text}-".encode().split(b"\x00")


def chunks(pieces: list[bytes], width: int, size: int = 1 << 16) -> Iterator[bytes]:
    """``JsonLines.layout``'s lines in order, joined about ``size`` bytes at a time (whole
    lines), one chunk made at a time: a batch's 47 MB are never held at once."""
    line = sum(map(len, pieces[:width])) + 1
    step = width * max(1, size // line)
    for a in range(0, len(pieces), step):
        yield b"".join(pieces[a : a + step])


class PrettyPacks:
    """Packs as the UTF-8 bytes of an indented JSON list (``serialize.to_json`` of the list
    of their dicts): per compiled product each item's indented JSON is encoded once, and a
    pack is one ``bytes.join`` of its pieces (as ``JsonLines``)."""

    def __init__(self) -> None:
        self.count = 0

    def pack(self, pack: Pack) -> bytes:
        """``pack`` as an element of the list: its separator before it, then its JSON."""
        self.count += 1
        lead = b"[\n  " if self.count == 1 else b",\n  "
        if type(pack) is not LazyPack or not pack._pristine():
            fast = getattr(pack, "to_json_pretty", None)
            text = fast() if fast else to_json(pack.to_dict())
            return lead + text.replace("\n", "\n  ").encode()
        frags, protos, i = pretty_list_fragments(pack._compiled), pack._protos, pack.index
        head = pretty_head(pack.set, pack.product, pack.seed).replace("\n", "\n  ").encode()
        start = b'%s%s%d,\n    "variant": %d,\n    "items": ' % (lead, head, i, pack.variant)
        if not protos:
            return start + b"[]\n  }"
        uid = b',\n      {\n        "uid": "p%d-' % i
        pieces = [uid] * (3 * len(protos) + 2)
        pieces[0] = start + b"["
        pieces[1] = uid[1:]
        pieces[2:-1:3] = (
            _UID_ENDS[1 : len(protos) + 1]
            if len(protos) < len(_UID_ENDS)
            else [b'%d",' % k for k in range(1, len(protos) + 1)]
        )
        pieces[3::3] = map(frags.__getitem__, protos)
        pieces[-1] = b"\n    ]\n  }"
        return b"".join(pieces)

    def end(self) -> bytes:
        """What closes the list (all of it when no pack came)."""
        return b"\n]\n" if self.count else b"[]\n"

    def layout(
        self, cp: CompiledProduct, seed: int, at: list[int], variants: list[int], rows: Any
    ) -> tuple[list[bytes], int]:
        """``JsonLines.layout`` for this list: the pieces of packs ``at`` of the run of
        ``cp`` with ``seed`` (pack 1 opens the list), each what ``pack`` gives."""
        head = pretty_head(cp.product.set_code, cp.product.code, seed).replace("\n", "\n  ")
        start = head.encode() + b'%d,\n    "variant": %d,\n    "items": '
        leads = [b",\n  " if i != 1 else b"[\n  " for i in at]
        self.count += len(at)
        if not rows.shape[1]:
            return [lead + start % (i, v) + b"[]\n  }"
                    for lead, i, v in zip(leads, at, variants)], 1  # fmt: skip
        # per pack: its head and first uid, then per item the end of its uid and its
        # fragment, every item after the first behind its uid, then the pack's end
        m, k = rows.shape
        width = 3 * k + 1
        pieces: list[bytes] = [b""] * (m * width)
        first = start + b'[\n      {\n        "uid": "p%d-'
        pieces[0::width] = [lead + first % (i, v, i) for lead, i, v in zip(leads, at, variants)]
        uids = _uids(at, ',\n      {\n        "uid": "p')
        fragment = pretty_list_fragments(cp).__getitem__
        for j, column in enumerate(rows.T.tolist()):
            if j:
                pieces[3 * j :: width] = uids
            end = _UID_ENDS[j + 1] if j + 1 < len(_UID_ENDS) else b'%d",' % (j + 1)
            pieces[3 * j + 1 :: width] = [end] * m
            pieces[3 * j + 2 :: width] = map(fragment, column)
        pieces[width - 1 :: width] = [b"\n    ]\n  }"] * m
        return pieces, width


#: What a pickled ``LazyPack`` keeps (``Pack``'s fields but ``items``, built again on access).
_STATE = ("set", "product", "seed", "index", "variant", "_compiled", "_protos", "_built")


#: How deep an item sits in an indented list of packs (the list, a pack, its items, an item).
_LIST_DEPTH = 3


def pretty_list_fragments(cp: CompiledProduct) -> list[bytes]:
    """Every prototype's ``pretty_fragment`` as in a list of packs (indented once more),
    UTF-8: made on first use, then held by ``cp`` (the service draws from it per request)."""
    found: list[bytes] | None = cp.memo.get("pretty_list")
    if found is None:
        made: dict[int, bytes] = cp.memo.setdefault(f"pretty{_LIST_DEPTH}", {})
        found = cp.memo["pretty_list"] = [
            made.get(p) or _fragment_at(cp, p, _LIST_DEPTH, made) for p in range(len(cp.items))
        ]
    return found


def _fragment_at(cp: CompiledProduct, proto: int, depth: int, made: dict[int, bytes]) -> bytes:
    """``pretty_fragment`` for an item at ``depth``, UTF-8; kept in ``made``."""
    text = to_json(cp.templates[proto])[1:].replace("\n", "\n" + "  " * depth)
    found = made[proto] = text.encode()
    return found


def pretty_fragment(cp: CompiledProduct, proto: int) -> str:
    """Prototype ``proto``'s item indented as in a pack, from its first field (after the
    ``uid`` line) to its closing brace; kept in ``cp.pretty``."""
    text = to_json(cp.templates[proto])
    fragment = cp.pretty[proto] = text[1:].replace("\n", "\n    ")
    return fragment


@functools.lru_cache(maxsize=64)
def pretty_head(set_code: str, product: str, seed: int) -> str:
    """``json_head`` indented: a pack's JSON up to its index."""
    head = {"set": set_code, "product": product, "seed": seed}
    return to_json(head)[:-2] + ',\n  "index": '


@functools.lru_cache(maxsize=64)
def json_head(set_code: str, product: str, seed: int) -> str:
    """The start of a pack's JSON line, up to its index (the same for every pack of a run)."""
    return (
        to_json({"set": set_code, "product": product, "seed": seed}, indent=None)[:-1]
        + ', "index": '
    )


def new_pack(
    cp: CompiledProduct, seed: int, index: int, variant: int, protos: list[int]
) -> LazyPack:
    p = LazyPack.__new__(LazyPack)
    p.set = cp.product.set_code
    p.product = cp.product.code
    p.seed = seed
    p.index = index
    p.variant = variant
    p._compiled = cp
    p._protos = protos
    p._built = None
    p._last = None
    return p
