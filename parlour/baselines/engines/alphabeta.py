"""``alphabeta`` (two players, zero-sum) and ``paranoid`` (any number of players).

One fail-soft alpha-beta over values for the searching seat: nodes where that seat
moves maximise, every other node minimises.  With two zero-sum players this is
exactly minimax (and equivalent to negamax); with more players it is the paranoid
assumption of Sturtevant and Korf (2000): all opponents are taken to play against
the searcher, which is what makes deep pruning possible with three or more players.
Because the value is always the searcher's, a seat that moves twice in a row
(skipped turns, multi-part moves) needs no special case.

Around it: a transposition table keyed by ``State.key()`` (depth, bound type, value,
best move), move ordering (the table's move first, then the policy's own move hints if
it has any, killer moves, and the history heuristic or a static evaluation), an
evaluation cache (a transposition table for the depth-limit leaves, keyed by what the
evaluation sees), iterative deepening that stops when the result is proven or the
per-move time budget is spent (the deepest completed iteration's move is played),
and statistics: nodes, evaluated nodes (leaves, terminals, ordering evaluations),
cutoffs, table hits, depth reached, time.

Game knowledge stays out of this module: a subclass may override ``move_hints`` (a
score per legal move, higher first, e.g. wins and blocks; ``WINS`` / ``LOSES`` mark a
move that wins at once or loses by force within the depth searched, so that a winning
move alone is searched and losing moves are skipped, which is exact because no
position is worth more than a win or less than a loss), ``winning_move`` (a win on the
spot found before generating the moves) and ``leaf_key`` (the key under which a leaf's
evaluation is cached).  Killer moves: Akl and Newborn 1977;
history heuristic: Schaeffer 1989.  No ordering changes the value of a search: only
which moves are cut off (tests compare root values with minimax).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable

import numpy as np

from parlour.baselines.engines.heuristics import Evaluation, get_evaluation
from parlour.baselines.engines.search import (
    Budget,
    OutOfTime,
    SearchPolicy,
    positive_or_none,
    sequential_perfect_info,
)
from parlour.baselines.policy import Param, register
from parlour.games.base import Game, State

EXACT, LOWER, UPPER = 0, 1, 2
WINS, LOSES = math.inf, -math.inf
"""Move hints for a move that wins or loses on the spot (see ``move_hints``)."""
TABLE_LIMIT = 1_000_000
"""Entries a kept table (or evaluation cache) may hold before a new search clears it."""


def optional_seconds(text: str) -> float | None:
    """Read a time limit from text: a number of seconds, or ``none`` for no limit."""
    if text.strip().lower() in ("none", ""):
        return None
    return float(text)


def check_time_limit(value: object) -> float | None:
    """``None`` or a positive number of seconds (as float); ``ValueError`` otherwise."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"parameter time_limit={value!r}: expected a number of seconds or None")
    seconds = float(value)
    positive_or_none("time_limit", seconds)
    return seconds


class AlphaBetaSearch(SearchPolicy):
    """The search both registered policies share; they differ only in what they accept."""

    exact_root_values = False
    evaluate: Evaluation  # the leaf evaluation (``evaluation=``; a learned one may replace it)
    params = {
        "depth": Param(None, "deepest iteration in plies (None: until proven or out of time)", int),
        "time_limit": Param(None, "seconds per move (None: no limit; then the result is deterministic)", float),
        "ordering": Param("history", "move ordering after the table's move", str, ("history", "evaluation", "none")),
        "tt": Param(True, "use the transposition table", bool),
        "iterative": Param(True, "iterative deepening (False: one search straight to `depth`)", bool),
        "evaluation": Param("default", "evaluation at the depth limit (see docs/baselines.md)", str),
        "killers": Param(True, "killer moves: the two latest cutoff moves of each ply go right after the table's move "
                               "(with ordering history)", bool),
        "pvs": Param(False, "principal variation search: moves after the first are tried with a null window, "
                            "and searched again only if they may be better", bool),
        "eval_cache": Param(True, "cache leaf evaluations by position (a transposition table for the leaves)", bool),
        "root_window": Param("narrow", "narrow: the root's moves after the first are searched against the best so far "
                                       "(their values only bounds); full: each with the full window, so that every "
                                       "root value is exact (slower; what a teacher's distribution needs)", str,
                             ("narrow", "full")),
    }

    @classmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        return super().unsupported(game, full_states) or sequential_perfect_info(game, full_states)

    def setup(self) -> None:
        depth = self.config["depth"]
        if depth is not None and depth < 1:
            raise ValueError(f"parameter depth={depth}: must be at least 1 (or None)")
        self.config["time_limit"] = check_time_limit(self.config["time_limit"])
        self.evaluate = get_evaluation(self.game, self.config["evaluation"])
        self.table: dict[Hashable, tuple[int, int, float, int | None, bool]] = {}
        self.leaf_values: dict[Hashable, float] = {}
        self.history: dict[int, int] = {}
        self.killers: list[list[int]] = []
        self.use_killers = self.config["killers"] and self.config["ordering"] == "history"
        self.use_leaf_cache = self.config["eval_cache"]
        self.table_owner: int | None = None
        self.full_root_window = self.config["root_window"] == "full"
        """Every root value exact (:attr:`root_values`), not only the best move's."""
        self.exact_root_values = self.full_root_window

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.table.clear()
        self.leaf_values.clear()
        self.history.clear()

    # --- hooks for game-specific players ------------------------------------------------

    def move_hints(self, state: State, player: int, actions: list[int], depth: int) -> list[float] | None:
        """A score per action (higher is searched first, before killers and history), or
        ``None`` for no hints.  ``depth``: plies left below ``state``.  Only the order of
        the search depends on it, never its value, with two exact exceptions:

        * ``WINS`` (+inf): the move ends the game at once with the mover's highest
          return.  The node then searches only that move: no sibling can do better.
        * ``LOSES`` (-inf): searched to the ``depth - 1`` plies left below it, the move
          is worth the mover's lowest return: it ends the game at once with the mover's
          loss, or (only with ``depth >= 2``) it leaves the opponent a win on the spot.
          Such moves are skipped while any other move is legal: a sibling can do no
          worse.

        Both need every evaluation to lie within the range of the returns (a loss is
        the worst value any position has for the mover, a win the best), which the
        evaluations of ``evaluation.py`` guarantee by squashing into (-1, 1)."""
        return None

    def winning_move(self, state: State, player: int, depth: int) -> tuple[int, State] | None:
        """A legal move that ends the game at once with ``player``'s highest return and
        the position after it, found without generating and ordering all the moves (e.g.
        a recent win at this depth, tried again), or ``None``.  The node then searches
        that move alone, which is exact for the same reason as ``WINS`` in ``move_hints``."""
        return None

    def leaf_key(self, state: State) -> Hashable:
        """The evaluation cache's key: ``state.key()``; a game may drop what its
        evaluations do not read (so transpositions that differ only there share one)."""
        return state.key()

    # --- the search -------------------------------------------------------------------

    def search(self, state: State, player: int) -> int:
        root = state
        self.me = player
        self.last_root_values: dict[int, float] = {}
        if self.table_owner != self.me:  # values in the table are for one seat
            self.table.clear()
            self.leaf_values.clear()
            self.table_owner = self.me
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        if len(self.leaf_values) > TABLE_LIMIT:
            self.leaf_values.clear()
        self.killers = []
        self.use_killers = self.config["killers"] and self.config["ordering"] == "history"
        self.use_leaf_cache = self.config["eval_cache"]
        legal = root.legal_actions(self.me)
        if not legal:
            raise ValueError(f"{self.name}: seat {self.me} has no legal action")
        max_depth = self.config["depth"] or self.game.info.max_game_length
        budget = Budget(self.config["time_limit"])
        self.nodes = self.cutoffs = self.tt_hits = 0
        self.leaves = self.terminals = self.order_evaluations = self.leaf_hits = 0
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
            "evaluated": self.leaves + self.terminals + self.order_evaluations,
            "leaves": self.leaves,
            "terminals": self.terminals,
            "order_evaluations": self.order_evaluations,
            "leaf_cache_hits": self.leaf_hits,
            "cutoffs": self.cutoffs,
            "tt_hits": self.tt_hits,
            "depth": reached,
            "value": best_value,
            "time": elapsed,
            "nodes_per_second": self.nodes / elapsed if elapsed > 0 else math.inf,
        }
        return best_action

    def _root(self, state: State, depth: int, budget: Budget, first: int | None) -> tuple[float, int]:
        """One iteration at the root, trying the previous iteration's best move first
        (``root_window = "full"``: every move with the full window, its value exact)."""
        alpha, beta = -math.inf, math.inf
        best_value, best_action = -math.inf, None
        values: dict[int, float] = {}
        pvs = self.config["pvs"]
        full = self.full_root_window
        for action in self._ordered(state, self.me, state.legal_actions(self.me), first, 0, depth):
            child = state.clone()
            child.apply(action)
            if full:
                value = self._search(child, depth - 1, -math.inf, math.inf, budget, 1)
            elif pvs and alpha > -math.inf:
                value = self._search(child, depth - 1, alpha, math.nextafter(alpha, math.inf), budget, 1)
                if value > alpha:  # it may be better: find its exact value
                    value = self._search(child, depth - 1, alpha, beta, budget, 1)
            else:
                value = self._search(child, depth - 1, alpha, beta, budget, 1)
            values[action] = value  # exact for the best move, an upper bound for the others (narrow window)
            if value > best_value:
                best_value, best_action = value, action
            alpha = max(alpha, value)
        self.last_root_values = values
        assert best_action is not None, "the root is not over, so it has a legal action"
        return best_value, best_action

    def _search(self, state: State, depth: int, alpha: float, beta: float, budget: Budget, ply: int = 1) -> float:
        """Fail-soft alpha-beta value of ``state`` for ``self.me`` (``ply``: from the root)."""
        self.nodes += 1
        budget.tick()
        if state.is_terminal():
            self.terminals += 1
            return float(state.returns()[self.me])
        if depth == 0:
            self.horizons += 1
            if not self.use_leaf_cache:
                self.leaves += 1
                return float(self.evaluate(state)[self.me])
            leaf = self.leaf_key(state)
            value = self.leaf_values.get(leaf)
            if value is None:
                self.leaves += 1
                value = self.leaf_values[leaf] = float(self.evaluate(state)[self.me])
            else:
                self.leaf_hits += 1
            return value
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
        pvs = self.config["pvs"]
        win = self.winning_move(state, player, depth)
        actions = [win[0]] if win is not None else self._ordered(state, player, state.legal_actions(player), tt_move, ply, depth)
        for action in actions:
            if win is not None:
                child = win[1]
            else:
                child = state.clone()
                child.apply(action)
            if pvs and best_action is not None:
                # principal variation search: prove the move no better with a null window
                # first; only a move that might be better is searched with the full one
                if maximising:
                    value = self._search(child, depth - 1, alpha, math.nextafter(alpha, math.inf), budget, ply + 1)
                    if alpha < value < beta:
                        value = self._search(child, depth - 1, alpha, beta, budget, ply + 1)
                else:
                    value = self._search(child, depth - 1, math.nextafter(beta, -math.inf), beta, budget, ply + 1)
                    if alpha < value < beta:
                        value = self._search(child, depth - 1, alpha, beta, budget, ply + 1)
            else:
                value = self._search(child, depth - 1, alpha, beta, budget, ply + 1)
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
                if self.use_killers and action != tt_move:
                    self._killer(ply, action)
                break
        if key is not None:
            flag = UPPER if best <= alpha0 else LOWER if best >= beta0 else EXACT
            self._store(state, depth, best, flag, best_action, self.horizons == horizons, key)
        return best

    def _store(self, state: State, depth: int, value: float, flag: int, action: int | None, proven: bool,
               key: Hashable | None = None) -> None:
        """Remember a result; ``proven``: no line below it stopped at the depth limit."""
        if self.config["tt"]:
            self.table[state.key() if key is None else key] = (depth, flag, value, action, proven)

    def _killer(self, ply: int, action: int) -> None:
        killers = self.killers
        while len(killers) <= ply:
            killers.append([])
        slot = killers[ply]
        if not slot or slot[0] != action:
            slot.insert(0, action)
            del slot[2:]

    def _ordered(self, state: State, player: int, actions: list[int], tt_move: int | None = None, ply: int = 0,
                 depth: int = 0) -> list[int]:
        ordering = self.config["ordering"]
        if ordering == "history":
            history = self.history
            hints = self.move_hints(state, player, actions, depth)
            killers = self.killers[ply] if self.use_killers and ply < len(self.killers) else ()
            if hints is not None:
                if WINS in hints:  # one winning move settles the node (see move_hints)
                    return [actions[hints.index(WINS)]]
                if LOSES in hints and max(hints) > LOSES:  # losing moves: skipped while others exist
                    kept = [i for i, h in enumerate(hints) if h > LOSES]
                    actions = [actions[i] for i in kept]
                    hints = [hints[i] for i in kept]
            if hints is None and not killers:
                actions = sorted(actions, key=lambda a: -history.get(a, 0))
            else:
                if hints is None:
                    hints = [0] * len(actions)
                first = killers[0] if killers else None
                second = killers[1] if len(killers) > 1 else None
                keyed = [(-h, -(2 if a == first else 1 if a == second else 0), -history.get(a, 0), i)
                         for i, (a, h) in enumerate(zip(actions, hints))]
                keyed.sort()
                actions = [actions[k[3]] for k in keyed]
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
        self.order_evaluations += 1
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
