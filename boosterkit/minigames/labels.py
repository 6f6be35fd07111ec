"""The setup sheets' own words in English, French and Spanish (``deal --lang``).

The catalogue's own words (win and first-player lines, zone names, notes, effect reminders)
are in ``data/minigames/lang/<lang>.yaml`` (``minigames.translate``); card names and type
lines come from the database's ``card_names`` (MTGJSON's ``foreignData``); the rules text is
the card's, as the database holds it. A label missing in a language falls back to English.
"""

from __future__ import annotations

from typing import Literal, get_args

#: The languages of a sheet's labels (``deal --lang``, ``POST /deal``'s ``lang``), and of the
#: game names a minigame's data may give (``printed_names``).
Lang = Literal["en", "fr", "es"]
LANGS: tuple[Lang, ...] = get_args(Lang)

_EN = {
    "role-pair": "{who} {role}",
    "pair-sep": ", ",
    "english title": "English title",
    "Roles": "Roles",
    "Role": "Your role",
    "Declare": "Declare",
    "watermark": "watermark",
    "Printed": "Not printed",
    "minigame-title": "Magic Minigame",  # the subtitle printed after the game's name
    "player": "player",
    "team": "team",
    "at": "at",
    "opened-1": "opened",
    "default": "default",
    "pack": "pack",
    "variant": "variant",
    "english name": "English name",
    "colour-W": "W",
    "colour-U": "U",
    "colour-B": "B",
    "colour-R": "R",
    "colour-G": "G",
    "card": "card",
    "cards": "cards",
    "Players": "Players",
    "Teams": "Teams",
    "Set": "Set",
    "Seed": "Seed",
    "Packs": "Packs",
    "opened": "opened",
    "Time": "Time",
    "minutes": "minutes",
    "To win": "To win",
    "First player": "First player",
    "Rules": "Rules",
    "Rolls": "Rolls",
    "Notes": "Notes",
    "face down": "face down",
    "not shown": "Not shown here:",
    "why-owner": "on its owner's page.",
    "why-hidden": "on the organizer's page.",
    "why-down": "face down; the organizer lays it out.",
    "out of play": "out of play",
    "why-public": "",
    "colourless": "colourless",
    "multicolour": "multicolour",
    "MV": "MV",
    "toughness": "toughness",
    "loyalty": "loyalty",
    "legendary": "legendary",
    "effect": "effect",
    "foil": "foil",
    "from outside the packs": "from outside the packs",
    "unknown card": "unknown card",
    "re-roll": "re-roll",  # a tied player's new roll ("the tied players roll again")
    "re-rolls": "re-rolls",
    "order": "initiative order",
    "organizer": "organizer",
    "banner-table": "TABLE: everyone may see this page.",
    "banner-player": "{p} ONLY: your own cards. Do not show them to the other players.",
    "banner-organizer": "ORGANIZER ONLY: keep this page away from the players. It names every "
    "card, face-down ones included, to lay the setup out from the real packs.",
    "source-card": "the card {card}",
    "source-catalogue": "the boosterkit catalogue: the database holds none of this game's cards",
    "text-in": "text in {lang}: the database holds none in this language",
    "lang-en": "English",
    "lang-fr": "French",
    "lang-es": "Spanish",
    "illus": "Illus.",
    "image-credits": "Card images from Scryfall (scryfall.com), each credited to its artist. "
    "Card images and artwork © Wizards of the Coast.",
}

_FR = {
    "role-pair": "{who} : {role}",
    "pair-sep": " ; ",
    "english title": "titre anglais",
    "Roles": "Rôles",
    "Role": "Votre rôle",
    "Declare": "À déclarer",
    "watermark": "filigrane",
    "Printed": "Non imprimé",
    "minigame-title": "Mini-jeu magique",  # the subtitle printed after the game's name
    "player": "joueur",
    "team": "équipe",
    "at": "à",
    "opened-1": "ouvert",
    "default": "par défaut",
    "pack": "booster",
    "variant": "variante",
    "english name": "nom anglais",
    "colour-W": "blanc",
    "colour-U": "bleu",
    "colour-B": "noir",
    "colour-R": "rouge",
    "colour-G": "vert",
    "card": "carte",
    "cards": "cartes",
    "Players": "Joueurs",
    "Teams": "Équipes",
    "Set": "Extension",
    "Seed": "Graine",
    "Packs": "Boosters",
    "opened": "ouverts",
    "Time": "Durée",
    "minutes": "minutes",
    "To win": "Pour gagner",
    "First player": "Premier joueur",
    "Rules": "Règles",
    "Rolls": "Jets de dés",
    "Notes": "Notes",
    "face down": "face cachée",
    "not shown": "Non montré ici :",
    "why-owner": "sur la page de son propriétaire.",
    "why-hidden": "sur la page de l'organisateur.",
    "why-down": "face cachée ; l'organisateur la met en place.",
    "out of play": "hors jeu",
    "why-public": "",
    "colourless": "incolore",
    "multicolour": "multicolore",
    "MV": "VM",
    "toughness": "endurance",
    "loyalty": "loyauté",
    "legendary": "légendaire",
    "effect": "effet",
    "foil": "premium",
    "from outside the packs": "hors des boosters",
    "unknown card": "carte inconnue",
    "re-roll": "relance",  # « les joueurs à égalité relancent le dé »
    "re-rolls": "relances",
    "order": "ordre d'initiative",
    "organizer": "organisateur",
    "banner-table": "TABLE : tout le monde peut voir cette page.",
    "banner-player": "{p} SEULEMENT : vos propres cartes. Ne les montrez pas aux autres joueurs.",
    "banner-organizer": "ORGANISATEUR SEULEMENT : gardez cette page loin des joueurs. Elle "
    "nomme chaque carte, y compris les cartes face cachée, pour préparer "
    "la partie avec les vrais boosters.",
    "source-card": "la carte {card}",
    "source-catalogue": "le catalogue de boosterkit : la base ne contient aucune carte de ce jeu",
    "text-in": "texte en {lang} : la base n'en a pas en français",
    "lang-en": "anglais",
    "lang-fr": "français",
    "lang-es": "espagnol",
    "illus": "Illus.",
    "image-credits": "Images des cartes : Scryfall (scryfall.com), chacune créditée à son "
    "artiste. Images et illustrations © Wizards of the Coast.",
}

_ES = {
    "role-pair": "{who}: {role}",
    "pair-sep": "; ",
    "english title": "título en inglés",
    "Roles": "Roles",
    "Role": "Tu rol",
    "Declare": "Declara",
    "watermark": "marca de agua",
    "Printed": "No impreso",
    "minigame-title": "minijuego de Magic",  # the subtitle printed after the game's name
    "player": "jugador",
    "team": "equipo",
    "at": "con",
    "opened-1": "abierto",
    "default": "por defecto",
    "pack": "sobre",
    "variant": "variante",
    "english name": "nombre en inglés",
    "colour-W": "blanco",
    "colour-U": "azul",
    "colour-B": "negro",
    "colour-R": "rojo",
    "colour-G": "verde",
    "card": "carta",
    "cards": "cartas",
    "Players": "Jugadores",
    "Teams": "Equipos",
    "Set": "Colección",
    "Seed": "Semilla",
    "Packs": "Sobres",
    "opened": "abiertos",
    "Time": "Duración",
    "minutes": "minutos",
    "To win": "Para ganar",
    "First player": "Jugador inicial",
    "Rules": "Reglas",
    "Rolls": "Tiradas",
    "Notes": "Notas",
    "face down": "boca abajo",
    "not shown": "No se muestra aquí:",
    "why-owner": "en la página de su dueño.",
    "why-hidden": "en la página del organizador.",
    "why-down": "boca abajo; el organizador la prepara.",
    "out of play": "fuera de juego",
    "why-public": "",
    "colourless": "incoloro",
    "multicolour": "multicolor",
    "MV": "VM",
    "toughness": "resistencia",
    "loyalty": "lealtad",
    "legendary": "legendario",
    "effect": "efecto",
    "foil": "foil",
    "from outside the packs": "de fuera de los sobres",
    "unknown card": "carta desconocida",
    "re-roll": "nueva tirada",  # «los jugadores empatados vuelven a tirar»
    "re-rolls": "nuevas tiradas",
    "order": "orden de iniciativa",
    "organizer": "organizador",
    "banner-table": "MESA: todos pueden ver esta página.",
    "banner-player": "SOLO {p}: tus propias cartas. No se las enseñes a los demás jugadores.",
    "banner-organizer": "SOLO ORGANIZADOR: mantén esta página lejos de los jugadores. Nombra "
    "todas las cartas, también las que están boca abajo, para preparar la "
    "partida con los sobres reales.",
    "source-card": "la carta {card}",
    "source-catalogue": "el catálogo de boosterkit: la base de datos no tiene ninguna carta "
    "de este juego",
    "text-in": "texto en {lang}: la base de datos no lo tiene en español",
    "lang-en": "inglés",
    "lang-fr": "francés",
    "lang-es": "español",
    "illus": "Ilus.",
    "image-credits": "Imágenes de las cartas de Scryfall (scryfall.com), cada una con el "
    "nombre de su artista. Imágenes e ilustraciones © Wizards of the Coast.",
}

_LABELS = {"en": _EN, "fr": _FR, "es": _ES}


def plural(lang: str, n: int) -> bool:
    """Whether ``n`` takes the plural: French counts 0 and 1 singular ("0 carte"), English and
    Spanish 1 only."""
    return n > 1 if lang == "fr" else n != 1


def label(lang: str, key: str) -> str:
    """The sheet label ``key`` in ``lang`` (English when that language lacks it)."""
    return _LABELS.get(lang, _EN).get(key) or _EN.get(key, key)
