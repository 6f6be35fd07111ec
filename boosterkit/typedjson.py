"""Values as JSON and back by their type: what the cache beside a database keeps is data that
nothing can run when it is read (no pickle).

``encode(value, tp)`` turns a value of type ``tp`` into JSON-ready lists, dicts and scalars;
``decode(data, tp)`` builds it back, checking every part against ``tp`` (a file that does not
fit its structure is a ``ValueError``; scalars are taken as JSON gives them, the file's
checksum vouching for them: ``boosterkit.cache``). Supported: ``None``, ``bool``, ``int``,
``float``, ``str``, ``Any`` (a JSON value as is), ``X | None``, ``tuple[X, ...]``,
``tuple[X, Y]``, ``list[X]``, ``frozenset[X]``, ``dict[K, V]`` (an object when ``K`` is
``str``, else a list of pairs), dataclasses and named tuples (a list of their fields in
order; a dataclass field with ``compare=False`` is a cache of its own, left out). Converters
are built once per type. ``shape(tp)`` names the structure, so a key can change with it.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable
from typing import Any, Union

__all__ = ["decode", "encode", "shape"]

Convert = Callable[[Any], Any]

_SCALARS = frozenset({bool, int, float, str, type(None)})


def encode(value: Any, tp: Any) -> Any:
    """``value`` (of type ``tp``) as JSON-ready data."""
    return _encoder(tp)(value)


def decode(data: Any, tp: Any) -> Any:
    """The value of type ``tp`` that ``encode`` made ``data`` from; ``ValueError`` when
    ``data`` does not fit ``tp``."""
    try:
        value = _decoder(tp)(data)
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        raise ValueError(f"does not fit {shape(tp)}: {exc}") from exc
    return value


@functools.cache
def shape(tp: Any) -> str:
    """The structure of ``tp`` as text: fields, their names and types, recursively."""
    if _is_record(tp):
        fields = ", ".join(f"{n}: {shape(t)}" for n, t in _fields(tp))
        return f"{tp.__qualname__}({fields})"
    args = typing.get_args(tp)
    if args:
        return f"{_origin_name(tp)}[{', '.join(shape(a) for a in args)}]"
    return getattr(tp, "__qualname__", repr(tp))


def _origin_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    return "Union" if origin in (Union, types.UnionType) else getattr(origin, "__name__", "?")


def _is_record(tp: Any) -> bool:
    return isinstance(tp, type) and (dataclasses.is_dataclass(tp) or hasattr(tp, "_fields"))


@functools.cache
def _fields(tp: type) -> tuple[tuple[str, Any], ...]:
    """The stored fields of a dataclass or named tuple, with their types, in order."""
    hints = typing.get_type_hints(tp)
    if dataclasses.is_dataclass(tp):
        return tuple(
            (f.name, hints[f.name]) for f in dataclasses.fields(tp) if f.compare and f.init
        )
    return tuple((name, hints[name]) for name in tp._fields)  # type: ignore[attr-defined]


def _identity(value: Any) -> Any:
    return value


@functools.cache
def _decoder(tp: Any) -> Convert:  # noqa: C901 (one case a kind of type)
    if tp is Any or tp in _SCALARS:
        return _identity
    if _is_record(tp):
        return _record_decoder(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1 or len(args) != 2:
            raise TypeError(f"unsupported union {tp!r}")
        inner = _decoder(rest[0])
        return lambda v: None if v is None else inner(v)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])
        return lambda v: tuple(_listed(v)) if item is _identity else tuple(map(item, _listed(v)))
    if origin is tuple:
        items = tuple(_decoder(a) for a in args)

        def fixed(v: Any) -> tuple[Any, ...]:
            if len(_listed(v)) != len(items):
                raise TypeError(f"{len(v)} values for {shape(tp)}")
            return tuple(d(x) for d, x in zip(items, v))

        return fixed
    if origin in (list, frozenset):
        item = _decoder(args[0])
        return lambda v: origin(map(item, _listed(v)))
    if origin is dict:
        key, value = _decoder(args[0]), _decoder(args[1])
        if args[0] is str:
            return lambda v: {key(k): value(x) for k, x in _object(v).items()}
        return lambda v: {key(k): value(x) for k, x in _listed(v)}
    raise TypeError(f"unsupported type {tp!r}")


def _listed(value: Any) -> list[Any]:
    if type(value) is not list:
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value


def _object(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return value


def _record_decoder(tp: type) -> Convert:
    decoders = [_decoder(t) for _, t in _fields(tp)]
    size = len(decoders)
    # only the fields that need converting are touched (the list is JSON's: changed in place)
    convert = [(i, d) for i, d in enumerate(decoders) if d is not _identity]
    named = hasattr(tp, "_fields")
    new = tuple.__new__

    def record(v: Any) -> Any:
        if type(v) is not list or len(v) != size:
            raise TypeError(f"{v!r:.40} is not the {size} fields of {tp.__qualname__}")
        for i, d in convert:
            v[i] = d(v[i])
        return new(tp, v) if named else tp(*v)

    return record


@functools.cache
def _encoder(tp: Any) -> Convert:
    if tp is Any or tp in _SCALARS:
        return _identity
    if _is_record(tp):
        names = [n for n, _ in _fields(tp)]
        encoders = [_encoder(t) for _, t in _fields(tp)]
        return lambda v: [e(getattr(v, n)) for n, e in zip(names, encoders)]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        inner = _encoder(next(a for a in args if a is not type(None)))
        return lambda v: None if v is None else inner(v)
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        items = tuple(_encoder(a) for a in args)
        return lambda v: [e(x) for e, x in zip(items, v)]
    if origin in (tuple, list):
        item = _encoder(args[0])
        return lambda v: [item(x) for x in v]
    if origin is frozenset:
        item = _encoder(args[0])
        return lambda v: sorted(item(x) for x in v)
    if origin is dict:
        key, value = _encoder(args[0]), _encoder(args[1])
        if args[0] is str:
            return lambda v: {k: value(x) for k, x in v.items()}
        return lambda v: [[key(k), value(x)] for k, x in v.items()]
    raise TypeError(f"unsupported type {tp!r}")
