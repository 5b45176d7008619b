"""Tribolo players: the original "high-level AI", a greedy player, and the evaluations that
let the generic ``minimax`` (max^n), ``paranoid`` alpha-beta and ``mcts`` play Tribolo.

``original-strategy`` is the AI of the blog series that ported Tribolo to ClojureScript
(its sixth post, on the AI):

- a minimax adapted to three players and irregular turn order, where the max/min
  decision at each node is the *strategy's* (the AIStrategy protocol: ``maximizing(seat)``
  and ``leaf(state)``), not a fixed alternation;
- searched at depth 2 (the root move and one more ply), plus one ply inside the leaf
  evaluation of the score strategies ("depth 2, effectively 3"): the leaf looks at each
  move of the seat to move there, scores the counts after it (cheaply, without playing
  it or working out the next turn) and takes the max or min;
- three strategies: ``own-cells`` (maximise own cells), ``allied`` (both AIs maximise
  the sum of their cells, i.e. minimise the human's; the human's moves minimise it),
  ``mobility`` (maximise own number of legal moves, to avoid traps);
- the "high-level AI" picks one per move, first match wins: (1) ``allied`` when both
  AIs have fewer than 1.1 x the human's cells; (2) ``own-cells`` in the late game, when
  ``cells - (sum of the three counts) < 20`` (walls plus empty cells); (3) ``mobility``
  when the AI has fewer than 5 legal moves; (4) ``own-cells`` otherwise.

The search is alpha-beta over that minimax, with the same result: each seat maximises
or minimises the one value by the strategy, so the cut-offs hold whatever the turn
order; the root tries its moves in ascending cells and keeps a move only when strictly
better, so it chooses what the full minimax chooses (2.4x fewer milliseconds a move on
the default board). The root's other values are then bounds (``exact_root_values``).

In our env every seat is an agent, so "the human" is the parameter ``ally_against``
(a seat), by default the opponent with the most cells (ties: the first after the mover
in turn order).  The seat that *is* ``ally_against`` never plays ``allied``.  Ties
between equally valued moves go to the lowest cell index (the post's ``max-key`` kept
the last of a hash-map order, which is not reproducible).  A terminal position is
scored by the strategy's leaf function (final counts; 0 moves for ``mobility``), as in
the post, which had no special case for it.

``greedy``: the move that takes the most cells now (the post's own-score strategy
at depth 1).  Evaluations registered for the generic searchers: ``cells`` (default:
the share of owned cells) and ``mobility`` (half cell share, half legal-move share),
both scaled strictly inside the returns range and zero-sum.  The features of the
learned evaluation that ``ntuple:`` plays inside ``paranoid`` are in
:mod:`parlour.baselines.players.tribolo_ntuple`.

Sources: the Tribolo series' AI post and its public repository's strategies and
predicates (``triboard.ai``); max^n: Luckhardt and Irani 1986; paranoid: Sturtevant and
Korf 2000.
"""

from __future__ import annotations

import math

import numpy as np

from parlour.baselines.engines.heuristics import register_evaluation
from parlour.baselines.policy import Param, Policy, register
from parlour.baselines.references import References, register_references
from parlour.games.base import Game, PerfectInfoState
from parlour.games.bitmask import bits_list
from parlour.games.tribolo import TriboloState

SOURCE = "the AI post of a blog series porting Tribolo to ClojureScript (minimax with AI strategies)"
STRATEGIES = ("auto", "own-cells", "allied", "mobility")
ALLIED_FACTOR = 1.1
LATE_GAME_CELLS = 20
FEW_MOVES = 5


# --- evaluations for the generic searchers ---------------------------------------------


def _scaled(shares: list[float], kind: str) -> np.ndarray:
    """Shares summing to 1 -> zero-sum values strictly inside the returns range."""
    if kind == "cell_share":
        return np.array([0.9 * (s - 1.0 / 3.0) for s in shares])
    return np.array([0.9 * (3.0 * s - 1.0) / 2.0 for s in shares])  # win_loss: in (-0.45, 0.9)


def _cell_shares(state: TriboloState) -> list[float]:
    counts = state.counts()
    total = sum(counts)
    return [c / total for c in counts] if total else [1.0 / 3.0] * 3


@register_evaluation("tribolo", "cells")
def tribolo_cells(state: TriboloState) -> np.ndarray:
    """Each seat's share of the owned cells (the final score if the game ended now)."""
    return _scaled(_cell_shares(state), state.game.config["returns"])


@register_evaluation("tribolo", "mobility")
def tribolo_mobility(state: TriboloState) -> np.ndarray:
    """Half the cell share, half the share of legal moves (a seat without moves is
    skipped, so mobility is future cells)."""
    cells = _cell_shares(state)
    moves = [state.moves_of(s).bit_count() for s in range(3)]
    total = sum(moves)
    shares = [0.5 * c + 0.5 * (m / total if total else c) for c, m in zip(cells, moves)]
    return _scaled(shares, state.game.config["returns"])


# --- greedy ----------------------------------------------------------------------------


@register
class GreedyCells(Policy):
    name = "greedy"
    summary = "take the most cells now (the played cell plus every capture)"
    source = "parlour (the Tribolo AI post's own-score strategy at depth 1)"
    games = ("tribolo",)
    params = {
        "tie_break": Param("random", "among equal moves: a seeded random one, or the lowest cell", str, ("random", "first")),
    }

    def act(self, info_state: PerfectInfoState) -> int:
        state = info_state.state
        assert isinstance(state, TriboloState)
        seat = info_state.player
        geo, board = state.geo, state.board
        best, best_gain = [], -1
        for cell in info_state.legal_actions():
            gain = sum(geo.captures(board, cell, seat))
            if gain > best_gain:
                best, best_gain = [cell], gain
            elif gain == best_gain:
                best.append(cell)
        if not best:
            raise ValueError(f"greedy: seat {seat} has no legal action")
        if self.config["tie_break"] == "first" or len(best) == 1:
            return best[0]
        return best[int(self.rng.integers(len(best)))]


# --- the AI post's strategies ----------------------------------------------------------


class Strategy:
    """The AI post's AIStrategy protocol: who maximises, and how a leaf is scored."""

    name: str

    def __init__(self, maximizers: tuple[bool, ...]) -> None:
        self.maximizers = maximizers

    def maximizing(self, seat: int) -> bool:
        return self.maximizers[seat]

    def leaf(self, state: TriboloState, alpha: float = -math.inf, beta: float = math.inf) -> float:
        """The value of a position where the search stops (exact inside ``(alpha,
        beta)``, a bound past it)."""
        raise NotImplementedError


class ScoreStrategy(Strategy):
    """Optimise the summed cells of ``players``, looking one move past the leaf.

    The AI post's ``eval-next-score-of``: for each move of the seat to move at the leaf,
    the counts after it (captured cells change hands, the played cell is new), summed
    over ``players``; max or min by the strategy; no next turn is computed.
    """

    def __init__(self, name: str, players: tuple[int, ...], maximizers: tuple[bool, ...]) -> None:
        super().__init__(maximizers)
        self.name = name
        self.players = players
        self.weights = tuple(1 if s in players else 0 for s in range(3))

    def leaf(self, state: TriboloState, alpha: float = -math.inf, beta: float = math.inf) -> float:
        """The leaf's value; once the best move so far takes it out of ``(alpha, beta)``
        the rest are not looked at (alpha-beta at the leaf's ply: the bound returned is
        enough for the search above, and the value inside the window is exact)."""
        counts = state.counts()
        w = self.weights
        base = w[0] * counts[0] + w[1] * counts[1] + w[2] * counts[2]
        mover = state.to_move
        if mover < 0:
            return float(base)
        captures, board = state.geo.captures, state.board
        w_mover = w[mover]
        maximizing = self.maximizers[mover]
        best = None
        legal = state.legal
        while legal:
            low = legal & -legal
            cell = low.bit_length() - 1
            legal ^= low
            taken = captures(board, cell, mover)  # the rules module's capture rule
            delta = w_mover + sum(n * (w_mover - w[o]) for o, n in enumerate(taken) if n)
            if best is None or (delta > best if maximizing else delta < best):
                best = delta
                if (base + best >= beta) if maximizing else (base + best <= alpha):
                    break
        assert best is not None, "the rules skip a seat without moves, so the mover has one"
        return float(base + best)


class MobilityStrategy(Strategy):
    """Maximise own number of legal moves (whoever is to move at the leaf)."""

    name = "mobility"

    def __init__(self, player: int) -> None:
        super().__init__(tuple(s == player for s in range(3)))
        self.player = player

    def leaf(self, state: TriboloState, alpha: float = -math.inf, beta: float = math.inf) -> float:
        return float(state.moves_of(self.player).bit_count())


def choose_strategy(state: TriboloState, player: int, ally_against: int | None, forced: str = "auto") -> Strategy:
    """The AI post's high-level AI (first match wins); see the module docstring."""
    counts = state.counts()
    others = ((player + 1) % 3, (player + 2) % 3)
    if ally_against is None:
        human = max(others, key=lambda s: (counts[s], -others.index(s)))
    else:
        human = ally_against
    own = ScoreStrategy("own-cells", (player,), tuple(s == player for s in range(3)))
    if forced != "auto":
        if forced == "own-cells":
            return own
        if forced == "mobility":
            return MobilityStrategy(player)
        if human == player:
            raise ValueError(f"original-strategy: seat {player} cannot ally against itself")
        return _allied(human)
    if human != player:
        ai = [s for s in range(3) if s != human]
        if all(counts[s] < ALLIED_FACTOR * counts[human] for s in ai):
            return _allied(human)
    if state.geo.cells - sum(counts) < LATE_GAME_CELLS:
        return own
    if state.moves_of(player).bit_count() < FEW_MOVES:
        return MobilityStrategy(player)
    return own


def _allied(human: int) -> ScoreStrategy:
    ai = tuple(s for s in range(3) if s != human)
    return ScoreStrategy("allied", ai, tuple(s != human for s in range(3)))


@register
class OriginalStrategyTribolo(Policy):
    name = "original-strategy"
    summary = "the Tribolo series' AI: minimax (depth 2 + 1 ply in the leaf) with strategies chosen per move"
    source = SOURCE
    games = ("tribolo",)
    exact_root_values = False  # alpha-beta: a move that loses says only how much at least
    params = {
        "depth": Param(2, "plies searched before the strategy's leaf evaluation (the original AI: 2)", int),
        "ally_against": Param(None, "seat the AIs ally against, the original game's human player "
                                    "(None: the opponent with most cells)", int),
        "strategy": Param("auto", "the original high-level AI (a strategy chosen per move), or always one strategy", str, STRATEGIES),
    }

    def setup(self) -> None:
        if self.config["depth"] < 1:
            raise ValueError(f"parameter depth={self.config['depth']}: must be at least 1")
        target = self.config["ally_against"]
        if target is not None and target not in (0, 1, 2):
            raise ValueError(f"parameter ally_against={target!r}: must be a seat 0, 1, 2 (or None: the leader)")

    def act(self, info_state: PerfectInfoState) -> int:
        state = info_state.sample(self.rng)
        assert isinstance(state, TriboloState)
        return self.search(state, info_state.player)

    def search(self, state: TriboloState, player: int) -> int:
        """The AI post's ``move-tree-search`` on ``state`` (changed and restored in place)."""
        if state.to_move != player or not state.legal:
            raise ValueError(f"original-strategy: seat {player} is not to move or has no legal move")
        strategy = choose_strategy(state, player, self.config["ally_against"], self.config["strategy"])
        self.nodes = 0
        depth = self.config["depth"] - 1
        best, best_value = None, -math.inf
        values = {}
        for action in bits_list(state.legal):  # ascending: ties keep the lowest cell
            state.apply(action)
            value = self._alphabeta(state, depth, strategy, best_value, math.inf)
            state.undo()
            values[action] = value
            if best is None or value > best_value:
                best, best_value = action, value
        self.root_values = values
        self.stats = {"strategy": strategy.name, "nodes": self.nodes, "value": best_value}
        assert best is not None  # state.legal was checked above
        return best

    def _alphabeta(self, state: TriboloState, depth: int, strategy: Strategy, alpha: float, beta: float) -> float:
        """The post's minimax value of ``state`` where it lies inside ``(alpha, beta)``,
        else a bound on the same side: each seat maximises or minimises the one value by
        the strategy, so the two-sided cut-offs of alpha-beta apply whatever the turn
        order, and the root (searched in ascending cells, a move kept only when strictly
        better) chooses the move that the full minimax chooses."""
        self.nodes += 1
        if depth == 0 or state.to_move < 0:
            return strategy.leaf(state, alpha, beta)
        maximizing = strategy.maximizing(state.to_move)
        best = -math.inf if maximizing else math.inf
        legal = state.legal
        while legal:
            low = legal & -legal
            legal ^= low
            state.apply(low.bit_length() - 1)
            value = self._alphabeta(state, depth - 1, strategy, alpha, beta)
            state.undo()
            if maximizing:
                if value > best:
                    best = value
                    if best >= beta:
                        break
                    alpha = max(alpha, best)
            else:
                if value < best:
                    best = value
                    if best <= alpha:
                        break
                    beta = min(beta, best)
        return best


@register_references("tribolo")
def tribolo_references(game: Game) -> References:
    return References(original="original-strategy", quick="paranoid:depth=2", strongest="paranoid:depth=4", final_games=12)
