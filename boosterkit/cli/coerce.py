"""typer's coercion of option values, without pydantic for the values commands usually get.

typer >= 0.2x coerces every parameter's value, defaults included, through a pydantic
``TypeAdapter`` it builds on the parameter's first use: importing pydantic and building the
adapters was half the CPU of ``boosterkit open afr -n 1`` (73 of 143 ms). ``quicken`` gives
each parameter of a command a ``Quick`` coercer (typer's lazily built ``_runtime_param``)
that turns the plain values — a decimal integer, a string, a path, one of the choices, a
list of those — into what typer's adapter would, by typer's own functions (choices, path
checks), and hands anything else (a bad value, an unusual spelling: ``1_000``, ``" 5"``) to
typer's pydantic coercion, built then, so every error message and edge case stays typer's.
A typer without ``_runtime_param`` is left as it is (``quicken`` does nothing).
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from types import SimpleNamespace
from typing import Any, get_args, get_origin

#: typer's own coercion modules (those of the adapters replaced); None for a typer without
#: them (older than 0.2x: it has no pydantic adapters to avoid).
_typer: Any
try:
    from typer import _coercion, _param_types, _typing

    _typer = SimpleNamespace(
        build=_coercion.build_runtime_param,
        choice=_param_types.coerce_cli_choice,
        path=_param_types.coerce_cli_path,
        is_literal=_typing.is_literal_type,
    )
except ImportError:  # pragma: no cover - another typer: keep its coercion
    _typer = None

__all__ = ["Quick", "quicken"]

_INT = re.compile(r"[+-]?[0-9]+")
_SLOW = object()  # a value the quick path leaves to typer


class Quick:
    """One parameter's coercion: plain values here, the rest through typer's adapter."""

    def __init__(self, descriptor: Any) -> None:
        self.descriptor = descriptor
        annotation = descriptor.annotation
        self.is_list = get_origin(annotation) is list
        leaf: Any = get_args(annotation)[0] if self.is_list else annotation
        self.leaf = leaf
        self.choices: list[Any] | None = None
        if isinstance(leaf, type) and issubclass(leaf, Enum):
            self.choices = list(leaf)
        elif _typer.is_literal(leaf):
            self.choices = list(get_args(leaf))
        self._typer: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        """What typer's ``RuntimeParam.coerce`` returns for ``value``."""
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        if multi == isinstance(value, (list, tuple)):
            if not multi:
                quick = self._leaf(value, param, ctx)
            else:
                items = [self._leaf(v, param, ctx) for v in value]
                quick = _SLOW if _SLOW in items else items
            if quick is not _SLOW and (multi or not self.is_list):
                return quick
        return self.typer().coerce(value, param=param, ctx=ctx)

    def _leaf(self, value: Any, param: Any, ctx: Any) -> Any:
        leaf, info = self.leaf, self.descriptor.parameter_info
        if info.parser is not None:
            return _SLOW
        if leaf is str:
            return value if isinstance(value, str) else _SLOW
        if leaf is int:
            number = _integer(value)
            if number is _SLOW or (info.min is not None and number < info.min):
                return _SLOW
            return _SLOW if info.max is not None and number > info.max else number
        if self.choices is not None:
            try:
                return _typer.choice(
                    value, choices=self.choices, case_sensitive=info.case_sensitive, ctx=ctx
                )
            except ValueError:
                return _SLOW  # typer words the error
        if leaf is Path and isinstance(value, str) and value:
            return _typer.path(Path(value), info, path_type=Path, param=param, ctx=ctx)
        return _SLOW

    def typer(self) -> Any:
        """typer's own coercion of this parameter (pydantic), built on first need."""
        if self._typer is None:
            self._typer = _typer.build(self.descriptor)
        return self._typer


def _integer(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and len(value) <= 64 and _INT.fullmatch(value):
        return int(value)
    return _SLOW  # typer words the error, or takes the unusual spelling


def quicken(command: Any) -> None:
    """Give every parameter of ``command`` (and of its subcommands), ``--help`` included, a
    ``Quick`` coercer."""
    if _typer is None:  # pragma: no cover - another typer
        return
    for sub in getattr(command, "commands", {}).values():
        quicken(sub)
    for param in command.params:
        _quick(param)
    made = command.get_help_option  # made on first use, for a context

    def get_help_option(ctx: Any) -> Any:
        option = made(ctx)
        if option is not None:
            _quick(option)
        return option

    command.get_help_option = get_help_option


def _quick(param: Any) -> None:
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None and getattr(param, "_runtime_param", _SLOW) is None:
        if descriptor.file_annotation is None:
            param._runtime_param = Quick(descriptor)
