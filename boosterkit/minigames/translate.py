"""The sheet's words in the table's language: the catalogue's sentences, zone names, card
kinds and types, and the notes a deal writes, from ``data/minigames/lang/<lang>.yaml``.

English is the language of the catalogue and of ``deal``'s output (``deal --json`` stays
English); a French or Spanish sheet says it in its language here. A note is matched against
the file's templates (``{n}`` a number, ``{who}`` a player or team, ``{zone}`` a zone name,
``{text}`` a catalogue sentence, ``{cards}`` a card description, ``{word}`` a tag or role,
``{game}`` a game's name, ``{ids}`` / ``{ties}`` text whose player and team ids are
translated, ``{roles}`` players each with a role, ``{any}`` kept as is; a trailing digit tells two apart); one that no template
matches stays English (``note`` says None: a test lists them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boosterkit.errors import InputError
from boosterkit.minigames.labels import label

if TYPE_CHECKING:
    from boosterkit.minigames.langfile import LangFile

LANG_DIR = Path(__file__).resolve().parent.parent / "data" / "minigames" / "lang"
_ID = re.compile(r"\b(player|team)-(\d+)\b")
_SLOT = re.compile(r"\{([a-z]+)(\d?)\}")


#: The kinds of a template's slots (see the module's docstring).
SLOTS = ("n", "any", "who", "ids", "ties", "word", "game", "zone", "cards", "text", "roles")


@dataclass(frozen=True)
class Tongue:
    """A loaded language file, its note templates compiled."""

    file: LangFile
    notes: tuple[tuple[re.Pattern[str], str], ...]


def _compile(template: str) -> re.Pattern[str]:
    parts, at = [], 0
    for m in _SLOT.finditer(template):
        parts += [re.escape(template[at : m.start()]), f"(?P<{m.group(1)}{m.group(2)}>.+?)"]
        at = m.end()
    return re.compile("".join(parts) + re.escape(template[at:]))


@lru_cache(maxsize=4)
def tongue(lang: str) -> Tongue | None:
    """The words of ``lang`` (None for English, or a language without a file)."""
    path = LANG_DIR / f"{lang}.yaml"
    if lang == "en" or not path.is_file():
        return None
    import yaml
    from pydantic import ValidationError

    from boosterkit.minigames.langfile import LangFile  # pydantic: only for a language file

    try:
        data = LangFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(map(str, err["loc"]))
        raise InputError(f"data/minigames/lang/{path.name}: {where}: {err['msg']}") from None
    return Tongue(data, tuple((_compile(n.en), n.say) for n in data.notes))


def phrase(lang: str, text: str) -> str:
    """A catalogue sentence in ``lang`` (as is when the file does not give it)."""
    t = tongue(lang)
    return t.file.phrases.get(text, text) if t else text


def word(lang: str, text: str) -> str:
    """A zone name, tag, role, card kind or type or card description in ``lang``."""
    t = tongue(lang)
    return t.file.words.get(text, text) if t else text


def who(lang: str, ident: str) -> str:
    """``player-2`` → "joueur 2" / "jugador 2" (English: as is)."""
    if lang == "en":
        return ident
    return _ID.sub(lambda m: f"{label(lang, m.group(1))} {m.group(2)}", ident)


def zone_name(lang: str, name: str) -> str:
    """A zone's name (``player-1 pile 3``) in ``lang``: "pile 3 — joueur 1" (as is when
    the file does not name it)."""
    return _zone(lang, name) or name


_ZONE = re.compile(r"((?:player|team)-\d+ )?(.+?)( \d+)?")


def _zone(lang: str, name: str) -> str | None:
    if lang == "en":
        return name
    m = _ZONE.fullmatch(name)
    if m is None:
        return None
    owner, core, number = m.group(1), m.group(2), m.group(3) or ""
    words = _words(lang)
    key = core if core in words else core[:1].lower() + core[1:]
    if key not in words:
        return None
    said = words[key]
    if key != core:  # the note capitalised it
        said = said[:1].upper() + said[1:]
    return f"{said}{number}" + (f" — {who(lang, owner.strip())}" if owner else "")


def _words(lang: str) -> dict[str, str]:
    t = tongue(lang)
    return t.file.words if t else {}


def phrases(lang: str) -> dict[str, str]:
    t = tongue(lang)
    return t.file.phrases if t else {}


def reminders(lang: str, game: str) -> dict[str, str]:
    """The printed effect of each colour of ``game``'s cards in ``lang`` ({} when none): as
    the card printed in ``lang`` says it, else as the language file words it."""
    card = printed(lang, game)
    if card is not None:
        return dict(card["reminders"])
    t = tongue(lang)
    return t.file.reminders.get(game, {}) if t else {}


@lru_cache(maxsize=1)
def _printed() -> dict[str, dict[str, dict[str, Any]]]:
    import yaml

    return yaml.safe_load((LANG_DIR / "printed.yaml").read_text(encoding="utf-8")) or {}


def printed(lang: str, game: str) -> dict[str, Any] | None:
    """``game``'s card as printed in ``lang`` (``printed.yaml``, written by
    ``make_printed.py`` from the printed cards): its ``card`` (``MCLB #1``), ``text`` and
    ``reminders``; None when boosterkit has no such printing."""
    return _printed().get(game, {}).get(lang) if lang != "en" else None


def _slot(lang: str, kind: str, value: str) -> str | None:
    """One template slot's value in ``lang``, None when it has no translation."""
    if kind in ("n", "any"):
        return value
    if kind == "who":
        return who(lang, value) if _ID.fullmatch(value) else None
    if kind == "ids":
        return who(lang, value)
    if kind == "ties":  # "player-1 = player-2 at 7: player-1 3, player-2 5"
        return who(lang, value).replace(" at ", f" {label(lang, 'at')} ")
    if kind == "word":
        return _words(lang).get(value)
    if kind == "roles":  # "player-1 Day, player-2 Night": each player and their role
        return _roles(lang, value)
    if kind == "game":
        from boosterkit.errors import NotFoundError
        from boosterkit.minigames.catalog import get_minigame

        try:
            return get_minigame(value).printed_name(lang)
        except NotFoundError:
            return None
    if kind == "zone":
        return _zone(lang, value)
    table = _words(lang) if kind == "cards" else phrases(lang)
    if value in table:
        return table[value]
    low = value[:1].lower() + value[1:]  # a sentence the note capitalised
    return table[low][:1].upper() + table[low][1:] if low in table else None


def _roles(lang: str, value: str) -> str | None:
    """``player-1 Day, player-2 Night`` in ``lang`` (None: a role without a translation)."""
    pairs = []
    for part in value.split(", "):
        ident, _, role = part.partition(" ")
        said = _words(lang).get(role)
        if not _ID.fullmatch(ident) or said is None:
            return None
        pairs.append(label(lang, "role-pair").format(who=who(lang, ident), role=said))
    return label(lang, "pair-sep").join(pairs)


def note(lang: str, text: str) -> str | None:
    """A deal's note in ``lang``: the first template that matches it whole, its slots
    translated; None when none does (English: the note itself)."""
    t = tongue(lang)
    if t is None:
        return text
    for pattern, say in t.notes:
        m = pattern.fullmatch(text)
        if not m:
            continue
        values = {k: _slot(lang, k.rstrip("0123456789"), v) for k, v in m.groupdict().items()}
        if all(v is not None for v in values.values()):
            return say.format(**values)
    return None
