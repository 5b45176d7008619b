"""The games layer: pure rules, numpy only (the protocol is in ``base``, the batched
engines' contract in ``engine``).

Each game is a package ``parlour/games/<game>/`` that declares its one registration,
``ENTRY`` (a :class:`~parlour.games.entry.GameEntry`); ``GAME_PACKAGES`` lists those
packages, the one list of games in the house.  ``ENTRIES`` and ``GAMES`` (each game's
name to its ``Game`` class) are derived from it; ``load_game(name, **config)`` builds
one.  See ``docs/games_protocol.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any

from parlour.games.base import Game, GameInfo, Option, PerfectInfoState, State
from parlour.games.entry import GameEntry

GAME_PACKAGES = ("double_card", "goofspiel", "sticks", "tides_of_time", "tribolo")
"""The game packages (``parlour.games.<name>``), each declaring its ``ENTRY``: a new game
is its folder and its name here."""

ENTRIES: dict[str, GameEntry] = {entry.name: entry for entry in (import_module(f"{__name__}.{package}").ENTRY for package in GAME_PACKAGES)}
"""Each game's registration by its name."""

GAMES: dict[str, type[Game]] = {name: entry.game for name, entry in ENTRIES.items()}

OPENSPIEL_PREFIX = "openspiel:"
"""Game names with this prefix are OpenSpiel games (``openspiel:connect_four``)."""

GAME_SOURCES = "parlour.game_sources"
"""The entry-point group of game sources: ``load_game("SOURCE:NAME")`` loads the entry
point called ``SOURCE`` and calls it with ``NAME`` and the configuration.  parlour's own
``pyproject.toml`` puts ``openspiel`` there (``parlour.interop.openspiel``: any OpenSpiel
game as a parlour game); another installed package may add its own.  So the rules layer
never names the packages above it, and imports numpy alone."""


def game_source(source: str) -> Callable[..., Game]:
    """The loader of the game source ``source``; ``ValueError`` naming the installed ones."""
    found = {point.name: point for point in entry_points(group=GAME_SOURCES)}
    if source not in found:
        raise ValueError(f"unknown game source {source!r}; installed game sources are {sorted(found)} "
                         f"(entry points of the group {GAME_SOURCES!r})")
    return found[source].load()


def load_game(name: str, /, **config: Any) -> Game:
    """The game called ``name`` with ``config``; a clear error for an unknown name.

    ``SOURCE:NAME`` is a game of an installed game source (:data:`GAME_SOURCES`), such as
    ``openspiel:connect_four``, an OpenSpiel game wrapped as a parlour game (``config``
    are its OpenSpiel parameters; needs open_spiel)."""
    source, colon, rest = name.partition(":")
    if colon:
        return game_source(source)(rest, **config)
    try:
        cls = GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; games are {sorted(GAMES)}") from None
    return cls(**config)


__all__ = ["ENTRIES", "GAMES", "GAME_PACKAGES", "GAME_SOURCES", "GameEntry", "OPENSPIEL_PREFIX", "Game", "GameInfo", "Option",
           "PerfectInfoState", "State", "load_game"]
