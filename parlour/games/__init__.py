"""The games layer: pure rules, numpy only (the protocol is in ``base``).

``GAMES`` maps each game's name to its ``Game`` class; ``load_game(name, **config)``
builds one.  See ``docs/games_protocol.md``.
"""

from __future__ import annotations

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


def load_game(name: str, /, **config: Any) -> Game:
    """The game called ``name`` with ``config``; a clear error for an unknown name."""
    try:
        cls = GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; games are {sorted(GAMES)}") from None
    return cls(**config)


__all__ = ["GAMES", "Game", "GameInfo", "Option", "PerfectInfoState", "State", "load_game"]
