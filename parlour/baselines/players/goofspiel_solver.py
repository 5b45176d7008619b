"""Goofspiel's exact solver: equilibrium values and strategies of two-player Goofspiel
with public bids, registered as the game's solver for the generic ``equilibrium`` player.

It is exact for every two-player Goofspiel with public bids, including
``prize_order="random"``: each prize reveal is a chance node, uniform over the prizes
not yet seen, which is what the seats know.  Its positions are compact: only how the
two hands interleave matters (a bid only ever compares with the other bid), so the
hands are relabelled by rank (the reduction of Rhoads and Bartholdi, "Computer solution
to the game of pure strategy", Games 3, 2012); swapping the seats negates the value,
which halves the positions again; and the points scored so far are kept only for
``win_loss`` (with ``point_difference`` the rest of the game adds to them
independently).  The generic solver of ``parlour.baselines.engines.equilibrium`` could
not do this: it has no chance nodes (a state holds its prize order) and no reduction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from parlour.baselines.engines.equilibrium import Decision, ExactSolver, register_solver
from parlour.baselines.engines.matrix_game import solve_zero_sum
from parlour.games.base import Game, State
from parlour.games.bitmask import set_bits
from parlour.games.goofspiel import GoofspielGame, GoofspielInfoState, GoofspielState

# --- which games can be solved ---------------------------------------------------------


def goofspiel_unsupported(game: Game, full_states: bool = False) -> str | None:
    """Why :class:`GoofspielSolver` cannot solve ``game`` (``None`` if it can).

    ``full_states``: the caller hands over complete states (e.g. ``pimc``'s
    determinizations), so hidden bids are no obstacle.
    """
    if game.num_players != 2:
        return f"the exact solver handles two players only, got num_players={game.num_players}"
    if game.config["imperfect_info"] and not full_states:
        return (
            "its bids are hidden (imperfect_info=True), so positions are not public and "
            "backward induction does not apply; use sm-mcts or ismcts"
        )
    if not game.info.zero_sum:
        return f"returns={game.config['returns']!r} is not zero-sum; use win_loss or point_difference"
    return None



# --- positions ---------------------------------------------------------------------------

# A pair of hands is one "word": two bits per position, position q being the q-th
# smallest card that either seat holds; digit 1: only seat 0 holds it, 2: only seat 1,
# 3: both.  Bids are only ever compared, so the rest of the game depends on nothing
# else about the cards.  Seat 0's cards are the positions whose digit has bit 1 set,
# seat 1's those with bit 2; in both cases ascending position = ascending card.
_ONES = int("01" * 256, 2)  # up to 256 positions (hands of up to 128 cards)


def compress(hand0: int, hand1: int) -> int:
    """The word of two hands given as card bitmasks (bit ``a`` = card ``a + 1``)."""
    merged = hand0 | hand1
    word = 0
    shift = 0
    while merged:
        low = merged & -merged
        word |= ((1 if hand0 & low else 0) | (2 if hand1 & low else 0)) << shift
        merged ^= low
        shift += 2
    return word


def swap_seats(word: int) -> int:
    """The word with the two seats' hands exchanged (digits 1 and 2 swapped)."""
    return ((word & _ONES) << 1) | ((word >> 1) & _ONES)


def _digits(word: int) -> list[int]:
    out = []
    while word:
        out.append(word & 3)
        word >>= 2
    return out


class GoofspielSolver:
    """Exact equilibrium of two-player Goofspiel with public bids (module docstring).

    ``prizes``: solve with this prize order known (default: the game's fixed order;
    with ``prize_order="random"`` and no ``prizes``, every reveal is a chance node).
    ``full_states``: accept ``imperfect_info`` games, for callers that solve complete
    (determinized) states with every bid known.

    A position before a reveal is ``(word, pot, rest, diff)``: the hands (see
    :func:`compress`), the pot carried into the next prize, the bitmask of the prizes
    not yet revealed (bit ``p - 1`` for prize ``p``), and seat 0's lead in points
    (always 0 unless ``win_loss``).  Values are seat 0's expected returns.
    """

    def __init__(self, game: GoofspielGame, prizes: Sequence[int] | None = None, full_states: bool = False) -> None:
        reason = goofspiel_unsupported(game, full_states)
        if reason:
            raise ValueError(f"cannot solve {game!r} exactly: {reason}")
        self.game = game
        self.n = game.num_cards
        self.order: tuple[int, ...] | None = None
        if prizes is not None:
            self.order = tuple(int(p) for p in prizes)
        elif game.config["prize_order"] != "random":
            self.order = game.prize_sequence(None)
        if self.order is not None and sorted(self.order) != list(range(1, self.n + 1)):
            raise ValueError(f"prizes must be a permutation of 1..{self.n}, got {list(self.order)}")
        self.discard = game.discard_ties
        self.win_loss = game.config["returns"] == "win_loss"
        self.values: dict[tuple[int, int, int, int], float] = {}
        self._moves: dict[int, tuple] = {}
        # The same hands come back with other pots, prizes or leads unless the order is
        # fixed, ties are discarded and only the point difference counts: then the
        # transitions are not worth their memory.
        self._keep_moves = self.order is None or not self.discard or self.win_loss
        self._left: dict[int, int] = {}
        self.matrices = 0  # matrix games solved (statistics)

    # --- positions from the game's objects ---------------------------------------------

    def position(self, hands: Sequence[int], pot: int, unseen: Iterable[int], points: Sequence[int]) -> tuple[int, int, int, int]:
        """The position of real hands (card bitmasks), the pot, the prizes not yet
        revealed and the points."""
        rest = 0
        for p in unseen:
            rest |= 1 << (p - 1)
        diff = points[0] - points[1] if self.win_loss else 0
        return compress(hands[0], hands[1]), pot, rest, diff

    def start(self) -> tuple[int, int, int, int]:
        """The position before the first reveal, every seat holding its starting hand."""
        hands = [0, 0]
        for seat, hand in enumerate(self.game.default_hands):
            for card in hand:
                hands[seat] |= 1 << (card - 1)
        return self.position(hands, 0, range(1, self.n + 1), (0, 0))

    def info_position(self, info: GoofspielInfoState) -> tuple[tuple[int, int, int, int], int]:
        """``(position, current prize)`` from the public data of an information state:
        start hands less the bids, pot, points, and which prizes are still unseen."""
        if info.round >= self.n:
            raise ValueError("the game is over: there is no decision to make")
        hands = list(info.start_hands)
        for bids in info.bids:
            for seat in (0, 1):
                bid = bids[seat]
                assert bid is not None, "bids are public here (decide_info declines hidden bids)"
                hands[seat] &= ~(1 << bid)
        prize = info.current_prize
        assert prize is not None, "a round not yet over has its prize turned up"
        return self.position(hands, info.pot, info.unseen_prizes(), info.points), prize

    # --- values and strategies -------------------------------------------------------

    def root_value(self) -> float:
        """Seat 0's value of the whole game."""
        return self.value(*self.start())

    def root_strategies(self) -> dict[int, tuple[float, np.ndarray, np.ndarray]]:
        """For each possible first prize: ``(value, seat 0's strategy, seat 1's)``."""
        word, pot, rest, diff = self.start()
        prizes = [q + 1 for q in set_bits(rest)] if self.order is None else [self.order[0]]
        return {p: self.strategy(word, pot, p, rest & ~(1 << (p - 1)), diff) for p in prizes}

    def value(self, word: int, pot: int, rest: int, diff: int = 0) -> float:
        """Seat 0's value before the next prize of ``rest`` is revealed."""
        swapped = swap_seats(word)
        if swapped < word:  # the seats exchanged: the value is negated
            return -self._value(swapped, pot, rest, -diff)
        return self._value(word, pot, rest, diff)

    def _value(self, word: int, pot: int, rest: int, diff: int) -> float:
        """``value`` of a canonical word (not above its seat swap)."""
        if not rest:
            return float((diff > 0) - (diff < 0)) if self.win_loss else 0.0
        if self.win_loss:  # a lead larger than all that is left decides the game
            left = self._left.get(rest)
            if left is None:
                left = self._left[rest] = sum(q + 1 for q in set_bits(rest))
            if diff > left + pot:
                return 1.0
            if diff < -left - pot:
                return -1.0
        key = (word, pot, rest, diff)
        value = self.values.get(key)
        if value is None:
            value = self.values[key] = self._chance(word, pot, rest, diff)
        return value

    def _chance(self, word: int, pot: int, rest: int, diff: int) -> float:
        if self.order is None:  # the next prize is uniform over the unseen ones
            total = 0.0
            r = rest
            while r:
                low = r & -r
                total += self.decision_value(word, pot, low.bit_length(), rest ^ low, diff)
                r ^= low
            return total / rest.bit_count()
        prize = self.order[self.n - rest.bit_count()]
        return self.decision_value(word, pot, prize, rest & ~(1 << (prize - 1)), diff)

    def decision_value(self, word: int, pot: int, prize: int, rest: int, diff: int = 0) -> float:
        """Seat 0's value once ``prize`` is revealed (``rest``: the prizes still hidden)."""
        if not rest:  # the last round: one card each, a forced move
            s = 1 if word == 1 << 2 | 2 else -1 if word == 2 << 2 | 1 else 0
            if self.win_loss:
                d = diff + s * (pot + prize)
                return float((d > 0) - (d < 0))
            return float(s * (pot + prize))
        return self.strategy(word, pot, prize, rest, diff)[0]

    def strategy(self, word: int, pot: int, prize: int, rest: int, diff: int = 0) -> tuple[float, np.ndarray, np.ndarray]:
        """``(value, seat 0's strategy, seat 1's)`` once ``prize`` is revealed, over each
        seat's cards in ascending order (its legal actions)."""
        self.matrices += 1
        return solve_zero_sum(self.matrix(word, pot, prize, rest, diff))

    def matrix(self, word: int, pot: int, prize: int, rest: int, diff: int = 0) -> np.ndarray:
        """Seat 0's payoff for every pair of bids (rows: seat 0's cards ascending)."""
        moves = self._moves.get(word)
        if moves is None:
            moves = self._canonical_transitions(word)
        kids, flips, signs, sign_matrix = moves
        stake = pot + prize
        tie_pot = 0 if self.discard else stake
        value = self._value
        if self.win_loss:
            values = [
                f * value(kid, 0 if s else tie_pot, rest, f * (diff + s * stake))
                for kid, f, s in zip(kids, flips, signs)
            ]
            return np.array(values).reshape(sign_matrix.shape)
        if tie_pot:
            values = [f * value(kid, 0 if s else tie_pot, rest, 0) for kid, f, s in zip(kids, flips, signs)]
        else:
            values = [f * value(kid, 0, rest, 0) for kid, f in zip(kids, flips)]
        return np.array(values).reshape(sign_matrix.shape) + stake * sign_matrix

    def _canonical_transitions(self, word: int) -> tuple:
        """``transitions`` with each next word made canonical: (words, sign flips of
        their values, round winners, winners as a matrix); cached when worth it."""
        kids, signs, sign_matrix = self.transitions(word)
        canonical = []
        flips = []
        for kid in kids:
            swapped = swap_seats(kid)
            if swapped < kid:
                canonical.append(swapped)
                flips.append(-1)
            else:
                canonical.append(kid)
                flips.append(1)
        moves = (canonical, flips, signs, sign_matrix)
        if self._keep_moves:
            if len(self._moves) >= 100_000:
                self._moves.clear()
            self._moves[word] = moves
        return moves

    def transitions(self, word: int) -> tuple[list[int], list[int], np.ndarray]:
        """For every pair of bids, row-major: the word after it, and who wins the round
        (+1 seat 0, -1 seat 1, 0 a tie); also the signs as a matrix."""
        digits = _digits(word)
        own = [q for q, d in enumerate(digits) if d & 1]
        other = [q for q, d in enumerate(digits) if d & 2]
        kids = []
        signs = []
        for i in own:
            # seat 0 plays position i: a card both held becomes seat 1's only; a card
            # only seat 0 held disappears, and the positions above move down
            if digits[i] == 3:
                after, gone = word - (1 << 2 * i), False
            else:
                after, gone = (word & ((1 << 2 * i) - 1)) | ((word >> (2 * i + 2)) << 2 * i), True
            for j in other:
                jj = 2 * (j - 1) if gone and j > i else 2 * j
                if (after >> jj) & 3 == 3:
                    kids.append(after - (2 << jj))
                else:
                    kids.append((after & ((1 << jj) - 1)) | ((after >> (jj + 2)) << jj))
                signs.append((i > j) - (i < j))
        return kids, signs, np.array(signs, dtype=np.float64).reshape(len(own), len(other))

    def __len__(self) -> int:
        return len(self.values)


# --- best responses (to check a solution) ------------------------------------------------


def goofspiel_exploitability(solver: GoofspielSolver) -> float:
    """NashConv of the solver's strategies over the whole game: what the two seats
    together could gain by deviating anywhere.  0 (up to rounding) exactly when the
    strategies form an equilibrium.  Walks every position, so it is for small games.
    """
    root = solver.start()
    gains = [_best_response(solver, seat, {}, *root) for seat in (0, 1)]
    return gains[0] - gains[1]


def _best_response(solver: GoofspielSolver, seat: int, memo: dict, word: int, pot: int, rest: int, diff: int) -> float:
    """Seat 0's value when ``seat`` best-responds to the other seat's solver strategy."""
    if not rest:
        return float((diff > 0) - (diff < 0)) if solver.win_loss else 0.0
    key = (word, pot, rest, diff)
    if key in memo:
        return memo[key]
    if solver.order is None:
        prizes = [q + 1 for q in set_bits(rest)]
    else:
        prizes = [solver.order[solver.n - rest.bit_count()]]
    kids, signs, sign_matrix = solver.transitions(word)
    total = 0.0
    for prize in prizes:
        after = rest & ~(1 << (prize - 1))
        if after:
            _, x, y = solver.strategy(word, pot, prize, after, diff)
        else:
            x = y = np.ones(1)
        stake = pot + prize
        tie_pot = 0 if solver.discard else stake
        values = []
        for kid, s in zip(kids, signs):
            if solver.win_loss:
                values.append(_best_response(solver, seat, memo, kid, 0 if s else tie_pot, after, diff + s * stake))
            else:
                values.append(s * stake + _best_response(solver, seat, memo, kid, 0 if s else tie_pot, after, 0))
        payoff = np.array(values).reshape(sign_matrix.shape)
        total += (payoff @ y).max() if seat == 0 else (x @ payoff).min()
    memo[key] = total / len(prizes)
    return memo[key]



_SOLVERS: dict[tuple[Game, tuple[int, ...] | None], GoofspielSolver] = {}
_MAX_SOLVERS = 8


def goofspiel_solver(game: GoofspielGame, prizes: Sequence[int] | None = None, full_states: bool = False) -> GoofspielSolver:
    """The shared solver of ``game`` (with ``prizes`` known, if given), kept across
    policies and games so that a position is solved once per process."""
    if prizes is None and game.config["prize_order"] != "random":
        prizes = game.prize_sequence(None)
    order = None if prizes is None else tuple(prizes)
    key = (game, order)
    solver = _SOLVERS.get(key)
    if solver is None:
        if len(_SOLVERS) >= _MAX_SOLVERS:
            _SOLVERS.pop(next(iter(_SOLVERS)))
        solver = _SOLVERS[key] = GoofspielSolver(game, order, full_states)
    return solver


@register_solver("goofspiel")
class GoofspielEquilibrium(ExactSolver):
    """The ``equilibrium`` player's solver for Goofspiel: the shared
    :class:`GoofspielSolver` of the game (with the prize order, where the seat knows it),
    solved from the public data of the information state alone."""

    @classmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        return goofspiel_unsupported(game, full_states)

    def __init__(self, game: Game, full_states: bool = False) -> None:
        assert isinstance(game, GoofspielGame), "registered for Goofspiel only"
        self.game = game
        self.full_states = full_states
        self._last: GoofspielSolver | None = None

    def decide_info(self, info: Any) -> Decision | None:
        if self.game.config["imperfect_info"]:
            return None  # hidden bids: the caller samples complete states
        # Public data only: prizes seen, the unseen ones (their order if it is public),
        # hands from the start hands and bids, pot and points.
        prizes = None if info.prizes_to_come is None else info.prizes_seen + info.prizes_to_come
        solver = goofspiel_solver(self.game, prizes)
        position, prize = solver.info_position(info)
        return self._decide(solver, position, prize, info.player, info.legal_actions())

    def decide(self, state: State, player: int) -> Decision:
        if state.is_terminal():
            raise ValueError("the game is over: there is no decision to make")
        assert isinstance(state, GoofspielState) and state.current_prize is not None
        solver = goofspiel_solver(self.game, state.prizes, full_states=True)
        position = solver.position(state.hands, state.pot, state.prizes[state.round + 1 :], state.points)
        return self._decide(solver, position, state.current_prize, player, state.legal_actions(player))

    def _decide(self, solver: GoofspielSolver, position: tuple, prize: int, seat: int, actions: list[int]) -> Decision:
        self._last = solver
        word, pot, rest, diff = position
        matrix = solver.matrix(word, pot, prize, rest, diff)
        value, x, y = solve_zero_sum(matrix)
        own = matrix @ y if seat == 0 else -(x @ matrix)
        return Decision(
            actions=actions,
            probs=x if seat == 0 else y,
            value=value if seat == 0 else -value,
            root_values={a: float(v) for a, v in zip(actions, own)},
            stats={"positions": len(solver), "matrices": solver.matrices},
        )

    def game_value(self) -> float:
        return goofspiel_solver(self.game).root_value()

    def __len__(self) -> int:
        return 0 if self._last is None else len(self._last)

    def forget(self) -> None:
        if self._last is not None:
            self._last.values.clear()
