"""The model of a language file, ``data/minigames/lang/<lang>.yaml`` (``translate``): its own
module, so that an English sheet never imports pydantic."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from boosterkit.minigames.translate import _SLOT, SLOTS


class NoteTemplate(BaseModel):
    """One note as ``deal`` writes it in English (``en``) and as the sheet says it (``say``):
    the same slots, each of a known kind."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    en: Annotated[str, Field(min_length=1)]
    say: Annotated[str, Field(min_length=1)]

    @model_validator(mode="after")
    def _same_slots(self) -> NoteTemplate:
        slots = [m.group(0) for m in _SLOT.finditer(self.en)]
        unknown = [m.group(0) for m in _SLOT.finditer(self.en) if m.group(1) not in SLOTS]
        if unknown:
            raise ValueError(f"{self.en!r}: unknown slot {unknown[0]} (slots: {', '.join(SLOTS)})")
        if sorted(slots) != sorted(m.group(0) for m in _SLOT.finditer(self.say)):
            raise ValueError(f"{self.say!r} must use the slots of {self.en!r}")
        return self


class LangFile(BaseModel):
    """``data/minigames/lang/<lang>.yaml``: the catalogue's words in one language."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    phrases: dict[str, str] = Field(description="catalogue sentences: English → this language")
    words: dict[str, str] = Field(
        description="zone names, tags, roles, card kinds and types, card descriptions"
    )
    notes: list[NoteTemplate] = Field(description="the notes of a deal, as templates")
    reminders: dict[str, dict[str, str]] = Field(
        default={}, description="per game id: the effect of a card of each colour, as printed"
    )
