"""``minimax``: exhaustive or depth-limited max^n search for turn-based games.

With two players and zero-sum returns this is plain minimax; with more players
it is max^n (Luckhardt and Irani, 1986): each node backs up the child whose value
vector is best for the seat to move.  Values are vectors of ``State.returns()``
units; at the depth limit the evaluation function estimates them.  Ties go to
the first best action in legal order, so the policy is deterministic.

Unlike the "minimax" of the C# tutorial that pick-up sticks comes from ("Game
Artificial Intelligence using the Minimax Algorithm", 2007), which counted winning
leaves per root move, this backs up values, and so plays perfectly with full depth.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from parlour.baselines.engines.heuristics import get_evaluation
from parlour.baselines.engines.search import SearchPolicy, sequential_perfect_info
from parlour.baselines.policy import Param, register
from parlour.games.base import Game, State


@register
class MinimaxPolicy(SearchPolicy):
    name = "minimax"
    summary = "max^n minimax (full depth, or depth-limited with an evaluation)"
    source = "textbook minimax; max^n for more players (Luckhardt and Irani 1986)"
    params = {
        "depth": Param(None, "plies to search (None: to the end of the game)", int),
        "evaluation": Param("default", "evaluation at the depth limit (see docs/baselines.md)", str),
        "memo": Param(True, "remember the value of each position already searched (full depth only)", bool),
    }

    @classmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        return super().unsupported(game, full_states) or sequential_perfect_info(game, full_states)

    def setup(self) -> None:
        depth = self.config["depth"]
        if depth is not None and depth < 1:
            raise ValueError(f"parameter depth={depth}: must be at least 1 (or None for full depth)")
        self.evaluate = get_evaluation(self.game, self.config["evaluation"])
        self._memo: dict[Hashable, np.ndarray] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._memo.clear()

    def search(self, state: State, player: int) -> int:
        depth = self.config["depth"]
        self.nodes = 0
        self.root_values = {}
        best_action: int | None = None
        best_value: np.ndarray | None = None
        for action in state.legal_actions(player):
            child = state.clone()
            child.apply(action)
            value = self.value(child, None if depth is None else depth - 1)
            self.root_values[action] = float(value[player])
            if best_value is None or value[player] > best_value[player]:
                best_action, best_value = action, value
        if best_action is None or best_value is None:
            raise ValueError(f"minimax: seat {player} has no legal action")
        self.stats = {"nodes": self.nodes, "value": float(best_value[player])}
        return best_action

    def value(self, state: State, depth: int | None) -> np.ndarray:
        """The max^n value vector of ``state`` searched ``depth`` more plies."""
        self.nodes += 1
        if state.is_terminal():
            return state.returns()
        if depth == 0:
            return self.evaluate(state)
        memo = self._memo if depth is None and self.config["memo"] else None
        if memo is not None:
            key = state.key()
            cached = memo.get(key)
            if cached is not None:
                return cached
        (player,) = state.current_players()
        best: np.ndarray | None = None
        for action in state.legal_actions(player):
            child = state.clone()
            child.apply(action)
            value = self.value(child, None if depth is None else depth - 1)
            if best is None or value[player] > best[player]:
                best = value
        assert best is not None, "a state that is not over has a legal action (the games protocol)"
        if memo is not None:
            memo[key] = best
        return best
