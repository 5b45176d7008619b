"""Leaf heuristics for depth-limited search, by game (``evaluation=`` of the searchers).

An evaluation maps a non-terminal state to one value per seat, in the units of
``State.returns()`` and strictly inside its range for a non-final position (so a
proven result always outranks a heuristic guess).  Every game has ``zero`` (no
knowledge); each game's players module registers its own with ``register_evaluation``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

from parlour.games.base import Game, State

Evaluation = Callable[[State], np.ndarray]
GameEvaluation = TypeVar("GameEvaluation", bound=Callable[..., np.ndarray])
"""An evaluation written for one game's states (a ``TriboloState``, say): the registry
hands it only states of the game it is registered for."""

_EVALUATIONS: dict[str, dict[str, Evaluation]] = {}


def register_evaluation(game_name: str, name: str) -> Callable[[GameEvaluation], GameEvaluation]:
    """Decorator: make ``fn`` the evaluation ``name`` of the game ``game_name``.

    The first one registered for a game is its ``default``.
    """

    def decorate(fn: GameEvaluation) -> GameEvaluation:
        _EVALUATIONS.setdefault(game_name, {})[name] = fn
        return fn

    return decorate


def evaluation_names(game: Game) -> list[str]:
    return ["default", "zero", *(_EVALUATIONS.get(game.name, {}))]


def get_evaluation(game: Game, name: str) -> Evaluation:
    """The evaluation ``name`` for ``game``; ``default`` is the game's first, else ``zero``."""
    own = _EVALUATIONS.get(game.name, {})
    if name == "default":
        return next(iter(own.values()), _zero_for(game))
    if name == "zero":
        return _zero_for(game)
    if name not in own:
        raise ValueError(f"unknown evaluation {name!r} for {game.name}; choose from {evaluation_names(game)}")
    return own[name]


def _zero_for(game: Game) -> Evaluation:
    zeros = np.zeros(game.num_players)

    def zero(state: State) -> np.ndarray:
        return zeros

    return zero
