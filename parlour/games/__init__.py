"""The games layer: pure rules, numpy only (the protocol is in ``base``).

``GAMES`` maps each game's name to its ``Game`` class; ``load_game(name, **config)``
builds one.  See ``docs/games_protocol.md``.
"""

from __future__ import annotations

import importlib
from typing import Any

from parlour.games.base import Game, GameInfo, Option, PerfectInfoState, State
from parlour.games.double_card import DoubleCardGame
from parlour.games.goofspiel import GoofspielGame
from parlour.games.sticks import SticksGame
from parlour.games.tides_of_time import TidesOfTimeGame
from parlour.games.tribolo import TriboloGame

GAMES: dict[str, type[Game]] = {
    DoubleCardGame.name: DoubleCardGame,
    GoofspielGame.name: GoofspielGame,
    SticksGame.name: SticksGame,
    TidesOfTimeGame.name: TidesOfTimeGame,
    TriboloGame.name: TriboloGame,
}

OPENSPIEL_PREFIX = "openspiel:"
"""Game names with this prefix are OpenSpiel games (``openspiel:connect_four``)."""


def load_game(name: str, /, **config: Any) -> Game:
    """The game called ``name`` with ``config``; a clear error for an unknown name.

    ``openspiel:<game>`` is an OpenSpiel game wrapped as a parlour game (``config`` are
    its OpenSpiel parameters; needs open_spiel: ``parlour.interop.openspiel``, loaded by
    name only when asked for, so the rules layer itself imports numpy alone)."""
    if name.startswith(OPENSPIEL_PREFIX):
        interop = importlib.import_module("parlour.interop.openspiel")
        return interop.load_openspiel(name[len(OPENSPIEL_PREFIX) :], **config)
    try:
        cls = GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; games are {sorted(GAMES)}") from None
    return cls(**config)


__all__ = ["GAMES", "OPENSPIEL_PREFIX", "Game", "GameInfo", "Option", "PerfectInfoState", "State", "load_game"]
