"""Pick-up sticks players: the tutorial's game with a correct minimax, and the closed form.

The game comes from "Game Artificial Intelligence using the Minimax Algorithm", a 2007
C# tutorial.  Its "minimax" counts winning leaves below each root move and picks the
move with the best ratio; that is not minimax and loses won positions.
``original-minimax`` is what the tutorial meant: values backed up with min/max,
memoised on the pile size.  ``optimal`` needs no search: the closed form of
docs/sticks.md ("Losing positions") says which piles lose for the player to move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.engines.heuristics import register_evaluation
from parlour.baselines.policy import Param, Policy, register
from parlour.baselines.references import References, register_references
from parlour.games.base import Game
from parlour.games.sticks import SticksGame, SticksState, losing_position


@register
class OptimalSticks(Policy):
    name = "optimal"
    summary = "perfect play from the closed form: leave a losing pile; when lost, take `when_lost` sticks"
    source = "the closed form in docs/sticks.md, Losing positions (classic subtraction-game theory)"
    games = ("sticks",)
    game: SticksGame
    params = {"when_lost": Param("one", "move in a lost position: take one stick, or a random take", str, ("one", "random"))}

    def act(self, info_state: Any) -> int:
        state = info_state.state
        game = state.game
        legal = info_state.legal_actions()
        for action in legal:
            left = state.sticks - (action + 1)
            if left and losing_position(left, game.max_take, game.misere):
                return action
            if not left and not game.misere:
                return action  # normal play: taking the last stick wins
        if self.config["when_lost"] == "random":
            return legal[int(self.rng.integers(len(legal)))]
        return legal[0]


@register
class OriginalMinimaxSticks(Policy):
    name = "original-minimax"
    summary = "the minimax tutorial's pick-up-sticks AI with its bug fixed: a real minimax, memoised on the pile"
    source = '"Game Artificial Intelligence using the Minimax Algorithm" (a 2007 C# minimax tutorial), corrected'
    games = ("sticks",)
    game: SticksGame

    def setup(self) -> None:
        """Minimax over every pile size, bottom-up (no recursion limit for big piles):
        ``self.wins[n]`` is True if the player to move with ``n`` sticks wins."""
        take, misere = self.game.max_take, self.game.misere
        wins = [False] * (self.game.num_sticks + 1)
        for sticks in range(1, len(wins)):
            wins[sticks] = any(
                (not misere) if n == sticks else not wins[sticks - n]
                for n in range(1, min(take, sticks) + 1)
            )
        self.wins = wins

    def act(self, info_state: Any) -> int:
        sticks = info_state.state.sticks
        legal = info_state.legal_actions()
        for action in legal:
            left = sticks - (action + 1)
            if (left == 0 and not self.game.misere) or (left and not self.wins[left]):
                return action
        return legal[0]  # every move loses against perfect play: take one and hope


@register_references("sticks")
def sticks_references(game: Game) -> References:
    """The closed form is perfect play, so ``optimal`` is both quick and strongest."""
    return References(original="original-minimax", quick="optimal", strongest="optimal")


@register_evaluation("sticks", "closed_form")
def sticks_closed_form(state: SticksState) -> np.ndarray:
    """The closed form of docs/sticks.md, discounted to 0.9 so proven results rank higher."""
    mover = state.to_move
    value = np.zeros(2)
    sign = -0.9 if losing_position(state.sticks, state.game.max_take, state.game.misere) else 0.9
    value[mover], value[1 - mover] = sign, -sign
    return value
