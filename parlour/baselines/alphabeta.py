"""``alphabeta`` (two players, zero-sum) and ``paranoid`` (any number of players).

One fail-soft alpha-beta over values for the searching seat: nodes where that seat
moves maximise, every other node minimises.  With two zero-sum players this is
exactly minimax (and equivalent to negamax); with more players it is the paranoid
assumption of Sturtevant and Korf (2000): all opponents are taken to play against
the searcher, which is what makes deep pruning possible with three or more players.
Because the value is always the searcher's, a seat that moves twice in a row
(skipped turns, multi-part moves) needs no special case.

Around it: a transposition table keyed by ``State.key()`` (depth, bound type, value,
best move), move ordering (the table's move first, then the history heuristic or a
static evaluation), iterative deepening that stops when the result is proven or the
per-move time budget is spent (the deepest completed iteration's move is played),
and statistics: nodes, cutoffs, table hits, depth reached, time.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

from parlour.baselines.evaluation import get_evaluation
from parlour.baselines.policy import Param, register
from parlour.baselines.search import Budget, OutOfTime, SearchPolicy, positive_or_none, sequential_perfect_info
from parlour.games.base import Game, State

EXACT, LOWER, UPPER = 0, 1, 2


class AlphaBetaSearch(SearchPolicy):
    """The search both registered policies share; they differ only in what they accept."""

    params = {
        "depth": Param(None, "deepest iteration in plies (None: until proven or out of time)", int),
        "time_limit": Param(None, "seconds per move (None: no limit; then the result is deterministic)", float),
        "ordering": Param("history", "move ordering after the table's move", str, ("history", "evaluation", "none")),
        "tt": Param(True, "use the transposition table", bool),
        "iterative": Param(True, "iterative deepening (False: one search straight to `depth`)", bool),
        "evaluation": Param("default", "evaluation at the depth limit (see docs/baselines.md)", str),
    }

    @classmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        return super().unsupported(game, full_states) or sequential_perfect_info(game, full_states)

    def setup(self) -> None:
        depth = self.config["depth"]
        if depth is not None and depth < 1:
            raise ValueError(f"parameter depth={depth}: must be at least 1 (or None)")
        positive_or_none("time_limit", self.config["time_limit"])
        self.evaluate = get_evaluation(self.game, self.config["evaluation"])
        self.table: dict[Hashable, tuple[int, int, float, int | None, bool]] = {}
        self.history: dict[int, int] = {}
        self.table_owner: int | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.table.clear()
        self.history.clear()

    # --- the search -------------------------------------------------------------------

    def search(self, state: State, player: int) -> int:
        root = state
        self.me = player
        self.last_root_values: dict[int, float] = {}
        if self.table_owner != self.me:  # values in the table are for one seat
            self.table.clear()
            self.table_owner = self.me
        legal = root.legal_actions(self.me)
        if not legal:
            raise ValueError(f"{self.name}: seat {self.me} has no legal action")
        max_depth = self.config["depth"] or self.game.info.max_game_length
        budget = Budget(self.config["time_limit"])
        self.nodes = self.cutoffs = self.tt_hits = 0
        best_action, best_value, reached = legal[0], 0.0, 0
        first_depth = 1 if self.config["iterative"] else max_depth
        for depth in range(first_depth, max_depth + 1):
            self.horizons = 0
            try:
                value, action = self._root(root, depth, budget, best_action if reached else None)
            except OutOfTime:
                break
            best_action, best_value, reached = action, value, depth
            if not self.horizons or not budget.left():
                break  # proven: every line reached the end of the game
        elapsed = budget.elapsed()
        self.root_values = self.last_root_values
        self.stats = {
            "nodes": self.nodes,
            "cutoffs": self.cutoffs,
            "tt_hits": self.tt_hits,
            "depth": reached,
            "value": best_value,
            "time": elapsed,
            "nodes_per_second": self.nodes / elapsed if elapsed > 0 else math.inf,
        }
        return best_action

    def _root(self, state: State, depth: int, budget: Budget, first: int | None) -> tuple[float, int]:
        """One iteration at the root, trying the previous iteration's best move first."""
        alpha, beta = -math.inf, math.inf
        best_value, best_action = -math.inf, None
        values = {}
        for action in self._ordered(state, self.me, state.legal_actions(self.me), first):
            child = state.clone()
            child.apply(action)
            value = self._search(child, depth - 1, alpha, beta, budget)
            values[action] = value  # exact for the best move, an upper bound for the others
            if value > best_value:
                best_value, best_action = value, action
            alpha = max(alpha, value)
        self.last_root_values = values
        return best_value, best_action

    def _search(self, state: State, depth: int, alpha: float, beta: float, budget: Budget) -> float:
        """Fail-soft alpha-beta value of ``state`` for ``self.me``."""
        self.nodes += 1
        budget.tick()
        if state.is_terminal():
            return float(state.returns()[self.me])
        if depth == 0:
            self.horizons += 1
            return float(self.evaluate(state)[self.me])
        key = state.key() if self.config["tt"] else None
        tt_move = None
        if key is not None:
            entry = self.table.get(key)
            if entry is not None:
                entry_depth, flag, value, tt_move, proven = entry
                if entry_depth >= depth or proven:
                    if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
                        self.tt_hits += 1
                        self.horizons += not proven
                        return value
        (player,) = state.current_players()
        horizons = self.horizons
        maximising = player == self.me
        alpha0, beta0 = alpha, beta
        best = -math.inf if maximising else math.inf
        best_action = None
        for action in self._ordered(state, player, state.legal_actions(player), tt_move):
            child = state.clone()
            child.apply(action)
            value = self._search(child, depth - 1, alpha, beta, budget)
            if maximising:
                if value > best:
                    best, best_action = value, action
                alpha = max(alpha, value)
            else:
                if value < best:
                    best, best_action = value, action
                beta = min(beta, value)
            if alpha >= beta:
                self.cutoffs += 1
                self.history[action] = self.history.get(action, 0) + depth * depth
                break
        if key is not None:
            flag = UPPER if best <= alpha0 else LOWER if best >= beta0 else EXACT
            self._store(state, depth, best, flag, best_action, self.horizons == horizons, key)
        return best

    def _store(self, state: State, depth: int, value: float, flag: int, action: int | None, proven: bool, key: Hashable | None = None) -> None:
        """Remember a result; ``proven``: no line below it stopped at the depth limit."""
        if self.config["tt"]:
            self.table[state.key() if key is None else key] = (depth, flag, value, action, proven)

    def _ordered(self, state: State, player: int, actions: list[int], tt_move: int | None = None) -> list[int]:
        ordering = self.config["ordering"]
        if ordering == "history":
            history = self.history
            actions = sorted(actions, key=lambda a: -history.get(a, 0))
        elif ordering == "evaluation":
            sign = 1.0 if player == self.me else -1.0
            actions = sorted(actions, key=lambda a: -sign * self._static(state, a))
        if tt_move is not None and tt_move in actions:
            actions.remove(tt_move)
            actions.insert(0, tt_move)
        return actions

    def _static(self, state: State, action: int) -> float:
        child = state.clone()
        child.apply(action)
        values = child.returns() if child.is_terminal() else self.evaluate(child)
        return float(values[self.me])


@register
class AlphaBetaPolicy(AlphaBetaSearch):
    name = "alphabeta"
    summary = "alpha-beta search with transposition table, move ordering and iterative deepening (2 players, zero-sum)"
    source = "Knuth and Moore 1975; history heuristic: Schaeffer 1989"

    @classmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        reason = super().unsupported(game, full_states)
        if reason is None and (game.num_players != 2 or not game.info.zero_sum):
            reason = "alpha-beta needs two players and zero-sum returns (use paranoid or minimax)"
        return reason


@register
class ParanoidPolicy(AlphaBetaSearch):
    name = "paranoid"
    summary = "paranoid alpha-beta: every opponent minimises the searcher's value (any number of players)"
    source = "Sturtevant and Korf 2000"
