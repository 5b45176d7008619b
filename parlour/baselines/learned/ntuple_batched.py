"""``ntuple:PATH,depth=1,time_limit=none`` over many games at once (a batched form).

At depth 1 the n-tuple player's search (``AlphaBetaSearch._root`` with nothing below the
root to cut off) looks at every legal move once: the position after it is worth the
mover's return if the game is over, else the n-tuple evaluation's value for the mover
(:class:`~parlour.baselines.learned.ntuple.NTupleEvaluation`: ``half * tanh(logit / 2)``
with the sign of the mover's side for a one-perspective zero-sum model, ``middle + half *
tanh(logit / 2)`` of the mover's own logit otherwise), and the first best move in the
search's order is played.  That order is the legal order unless the search has move
hints (Double Card's ``double-card-best``: a win on the spot alone, losses on the spot
last, then by hint, ties in legal order); hints only decide between moves of equal value,
so this form finds the best value of every game with array operations and asks the
search's own ``move_hints`` only in the few games where several moves share it.

For a learner on the batched engine: every legal move of every game is applied on a
scratch copy of the engine (one ``copy_rows``, one ``step``), and a game's batched logit
function (``children_logits(engine, count, perspective)``: the summed weights of the
first ``count`` games of the scratch engine as seat ``perspective[i]`` sees game ``i``,
computed from the engine's arrays exactly as the single game's features do, float for
float) gives the evaluations of all the children at once.  The game's batched module
registers the form with the logit functions of the feature sets it covers
(:func:`one_ply_ntuple`).  Tests compare the moves with the single-game player's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from parlour.baselines.batched import BatchedPolicy
from parlour.baselines.engines.alphabeta import LOSES, WINS, AlphaBetaSearch
from parlour.baselines.learned.ntuple import NTupleEvaluation, NTuplePolicy
from parlour.baselines.one_ply import ChildExpander
from parlour.baselines.policy import Policy
from parlour.games.engine import BatchedEngine

ChildrenLogits = Callable[[Any, int, np.ndarray], np.ndarray]
"""``(scratch engine, count, perspective seats) -> (count,)`` float64 logits."""
LogitMaker = Callable[[np.ndarray], ChildrenLogits]
"""Given a model's weights, its batched logit function."""


def root_order(actions: list[int], hints: list[float] | None) -> list[int]:
    """The order in which the alpha-beta root searches ``actions`` at depth 1 (no table
    move, no killers, no history yet) given the search's ``move_hints``: the legal order
    without hints; with them a win on the spot alone, losses on the spot dropped while
    another move is legal, then by hint (higher first), ties in legal order."""
    if hints is None:
        return list(actions)
    if WINS in hints:
        return [actions[hints.index(WINS)]]
    kept = list(range(len(actions)))
    if LOSES in hints and max(hints) > LOSES:
        kept = [i for i in kept if hints[i] > LOSES]
    return [actions[i] for i in sorted(kept, key=lambda i: (-hints[i], i))]


class OnePlyNTuple(BatchedPolicy):
    """The n-tuple player at depth 1 over many games (see the module docstring)."""

    def __init__(self, policy: NTuplePolicy, logits: LogitMaker) -> None:
        self.spec = repr(policy)
        self.search: AlphaBetaSearch = policy.search
        evaluation = policy.search.evaluate
        assert isinstance(evaluation, NTupleEvaluation), "the n-tuple player's search evaluates with its model"
        self.frame = evaluation.frame(policy.game)
        self.logits = logits(evaluation.weights)
        self.hinted = policy.search.config["ordering"] == "history" and type(policy.search).move_hints is not AlphaBetaSearch.move_hints
        self.expander = ChildExpander()

    def leaf_values(self, scratch: BatchedEngine, count: int, movers: np.ndarray) -> np.ndarray:
        """The evaluation's value for ``movers[i]`` of the first ``count`` scratch games
        (as ``NTupleEvaluation.__call__`` computes it, element by element)."""
        frame = self.frame
        if frame.players != len(frame.seats):  # one seat of two, zero-sum
            (seat,) = frame.seats
            value = frame.half * np.tanh(self.logits(scratch, count, np.full(count, seat, dtype=np.int64)) / 2)
            return np.where(movers == seat, value, -value)
        return frame.middle + frame.half * np.tanh(self.logits(scratch, count, movers) / 2)

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        rows, seats = np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        try:
            children = self.expander.children(engine, rows, seats)
        except ValueError as error:
            raise ValueError(f"{self.spec}: {error}") from None
        parent, moves, starts = children.parent, children.moves, children.starts
        n = len(moves)
        values = children.values(self.leaf_values(children.scratch, n, children.movers))
        first = children.first_best(values)
        at_best = values == values[first][parent]
        chosen = moves[first]
        if self.hinted:  # the search's order decides between equal values
            ties = np.flatnonzero(np.add.reduceat(at_best.astype(np.int64), starts) > 1)
            ends = np.r_[starts[1:], n]
            for g in ties.tolist():
                span = slice(starts[g], ends[g])
                chosen[g] = self.first_best(engine, int(rows[g]), int(seats[g]), moves[span].tolist(), values[span].tolist())
        return chosen

    def first_best(self, engine: BatchedEngine, row: int, seat: int, moves: list[int], values: list[float]) -> int:
        """The root's choice in game ``row``: the first best move in the search's order."""
        state = engine.game_state(row)
        legal = state.legal_actions(seat)
        assert legal == moves, f"{self.spec}: the engine's legal moves {moves} are not the game's {legal}"
        value_of = dict(zip(moves, values))
        best_value, best_action = -math.inf, moves[0]
        for action in root_order(legal, self.search.move_hints(state, seat, legal, 1)):
            if value_of[action] > best_value:
                best_value, best_action = value_of[action], action
        return best_action

    def probabilities(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """One-hot: the player does not draw (it is the same move as :meth:`actions`)."""
        chosen = self.actions(engine, rows, seats, np.random.default_rng(0))  # (no draw: the generator is unused)
        out = np.zeros((len(chosen), engine.num_actions))
        out[np.arange(len(chosen)), chosen] = 1.0
        return out


def one_ply_ntuple(policy: Policy, engine: BatchedEngine, logits: dict[str, LogitMaker]) -> BatchedPolicy | None:
    """The batched form of ``policy`` if it is ``ntuple:PATH,depth=1,time_limit=none``
    with a feature set of ``logits`` (by name: their batched logit functions) and the
    search's default ordering, else ``None``."""
    if not isinstance(policy, NTuplePolicy):
        return None
    config, search = policy.config, policy.search
    if config["depth"] != 1 or config["time_limit"] is not None or policy.meta.get("features") not in logits:
        return None
    if search.config["ordering"] not in ("history", "none") or not isinstance(search.evaluate, NTupleEvaluation):
        return None
    return OnePlyNTuple(policy, logits[policy.meta["features"]])
