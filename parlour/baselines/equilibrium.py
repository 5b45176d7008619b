"""``equilibrium``: exact Nash equilibrium play for small two-player zero-sum games.

Backward induction over the game tree (Kuhn 1953; for simultaneous steps, the
"Markov game" recursion of Shapley 1953): a terminal node is worth its return, a
single seat's node the best child for that seat, and a simultaneous node the value
of the matrix game of its children's values, solved exactly by
:func:`parlour.baselines.matrix_game.solve_zero_sum`.  The policy plays the mixed
equilibrium strategy of its node, drawn with its own generator.

Two solvers:

* :class:`GameSolver` works on any game of the protocol with perfect information
  (simultaneous choices aside), memoised on ``State.key()``.
* :class:`GoofspielSolver` is exact for every two-player Goofspiel with public bids,
  including ``prize_order="random"``: each prize reveal is a chance node, uniform
  over the prizes not yet seen, which is what the seats know.  Its positions are
  compact: only how the two hands interleave matters (a bid only ever compares with
  the other bid), so the hands are relabelled by rank (the reduction of Rhoads and
  Bartholdi, "Computer solution to the game of pure strategy", Games 3, 2012);
  swapping the seats negates the value, which halves the positions again; and the
  points scored so far are kept only for ``win_loss`` (with ``point_difference``
  the rest of the game adds to them independently).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from parlour.baselines.matrix_game import solve_zero_sum
from parlour.baselines.policy import Param, register
from parlour.baselines.search import SearchPolicy
from parlour.games.base import Game, State
from parlour.games.goofspiel import GoofspielGame, GoofspielInfoState, GoofspielState

# --- which games can be solved ---------------------------------------------------------


def goofspiel_unsupported(game: Game, full_states: bool = False) -> str | None:
    """Why :class:`GoofspielSolver` cannot solve ``game`` (``None`` if it can).

    ``full_states``: the caller hands over complete states (e.g. ``pimc``'s
    determinizations), so hidden bids are no obstacle.
    """
    if not isinstance(game, GoofspielGame):
        return f"it is {game.name}, not goofspiel"
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


def generic_unsupported(game: Game, full_states: bool = False) -> str | None:
    """Why :class:`GameSolver` cannot solve ``game`` (``None`` if it can)."""
    if game.num_players != 2:
        return f"the exact solver handles two players only, got {game.num_players}"
    if not game.info.zero_sum:
        return "its returns are not zero-sum"
    if not game.info.perfect_information and not full_states:
        return "it hides information from the players (use pimc or ismcts)"
    return None


# --- any perfect-information game -------------------------------------------------------


class GameSolver:
    """Exact values of a two-player zero-sum game with perfect information.

    ``value(state)`` is seat 0's equilibrium value, memoised on ``state.key()``;
    ``strategy(state)`` the equilibrium of one node.  Chance is not modelled: the
    protocol draws it all at the start, so a state holds a fixed future (a game with
    hidden chance, such as Goofspiel's random prize order, needs a dedicated solver).
    """

    def __init__(self, game: Game, full_states: bool = False) -> None:
        reason = generic_unsupported(game, full_states)
        if reason:
            raise ValueError(f"cannot solve {game.name} exactly: {reason}")
        self.game = game
        self.values: dict[Hashable, float] = {}

    def value(self, state: State) -> float:
        """Seat 0's value of ``state`` under equilibrium play."""
        key = state.key()
        value = self.values.get(key)
        if value is None:
            value = self._solve(state)[0]
            self.values[key] = value
        return value

    def strategy(self, state: State) -> tuple[float, dict[int, tuple[list[int], np.ndarray]]]:
        """``(value, {seat: (legal actions, probabilities)})`` at a non-terminal ``state``.

        At a single seat's node the strategy is pure (the first best action).
        """
        if state.is_terminal():
            raise ValueError("the game is over: there is no strategy to compute")
        value, strategies = self._solve(state)
        self.values.setdefault(state.key(), value)
        return value, strategies

    def matrix(self, state: State) -> tuple[list[int], list[int], np.ndarray]:
        """Seat 0's payoffs of every joint action at a simultaneous node."""
        rows, cols = state.legal_actions(0), state.legal_actions(1)
        matrix = np.empty((len(rows), len(cols)))
        for i, a in enumerate(rows):
            for j, b in enumerate(cols):
                child = state.clone()
                child.apply({0: a, 1: b})
                matrix[i, j] = self._leaf_or_value(child)
        return rows, cols, matrix

    def _leaf_or_value(self, state: State) -> float:
        return float(state.returns()[0]) if state.is_terminal() else self.value(state)

    def _solve(self, state: State) -> tuple[float, dict[int, tuple[list[int], np.ndarray]]]:
        if state.is_terminal():
            return float(state.returns()[0]), {}
        players = state.current_players()
        if len(players) == 1:
            (seat,) = players
            actions = state.legal_actions(seat)
            values = []
            for a in actions:
                child = state.clone()
                child.apply(a)
                values.append(self._leaf_or_value(child))
            best = int(np.argmax(values) if seat == 0 else np.argmin(values))
            probs = np.zeros(len(actions))
            probs[best] = 1.0
            return values[best], {seat: (actions, probs)}
        if tuple(players) != (0, 1):
            raise ValueError(f"{self.game.name}: unexpected seats to act {players}")
        rows, cols, matrix = self.matrix(state)
        value, x, y = solve_zero_sum(matrix)
        return value, {0: (rows, x), 1: (cols, y)}

    def __len__(self) -> int:
        return len(self.values)


# --- Goofspiel ---------------------------------------------------------------------------

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


def _bits(mask: int) -> list[int]:
    out = []
    q = 0
    while mask:
        if mask & 1:
            out.append(q)
        mask >>= 1
        q += 1
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
                hands[seat] &= ~(1 << bids[seat])
        return self.position(hands, info.pot, info.unseen_prizes(), info.points), info.current_prize

    # --- values and strategies -------------------------------------------------------

    def root_value(self) -> float:
        """Seat 0's value of the whole game."""
        return self.value(*self.start())

    def root_strategies(self) -> dict[int, tuple[float, np.ndarray, np.ndarray]]:
        """For each possible first prize: ``(value, seat 0's strategy, seat 1's)``."""
        word, pot, rest, diff = self.start()
        prizes = [q + 1 for q in _bits(rest)] if self.order is None else [self.order[0]]
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
                left = self._left[rest] = sum(q + 1 for q in _bits(rest))
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
        prizes = [q + 1 for q in _bits(rest)]
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


# --- the policy --------------------------------------------------------------------------


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


def game_value(game: Game) -> float:
    """Seat 0's equilibrium value of ``game`` (an expectation over random prize orders)."""
    if isinstance(game, GoofspielGame):
        return goofspiel_solver(game).root_value()
    return GameSolver(game).value(game.new_initial_state(seed=0))


@register
class EquilibriumPolicy(SearchPolicy):
    name = "equilibrium"
    summary = "exact equilibrium by backward induction, a matrix game at every simultaneous step (small two-player zero-sum games)"
    source = "backward induction (Kuhn 1953; Shapley 1953); Goofspiel positions as in Rhoads and Bartholdi 2012"
    params = {
        "max_positions": Param(None, "forget solved positions when more than this many are stored (None: keep all)", int),
    }

    @classmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        reason = super().unsupported(game, full_states)
        if reason is None and isinstance(game, GoofspielGame):
            return goofspiel_unsupported(game, full_states)
        return reason or generic_unsupported(game, full_states)

    def setup(self) -> None:
        limit = self.config["max_positions"]
        if limit is not None and limit < 1:
            raise ValueError(f"parameter max_positions={limit}: must be at least 1 (or None)")
        self._generic: GameSolver | None = None
        self.root_values = {}

    def act(self, info_state: Any) -> int:
        return self._draw(*self._strategy(info_state))

    def strategy(self, info_state: Any) -> dict[int, float]:
        """The equilibrium strategy played at ``info_state``: action -> probability."""
        actions, probs = self._strategy(info_state)
        return {a: float(p) for a, p in zip(actions, probs)}

    def search(self, state: State, player: int) -> int:
        """Play ``player``'s equilibrium strategy in the complete ``state`` (for a
        Goofspiel determinization: the game with its prize order and bids known)."""
        return self._draw(*self._state_strategy(state, player))

    # --- the two solvers -------------------------------------------------------------

    def _strategy(self, info: Any) -> tuple[list[int], np.ndarray]:
        if isinstance(info, GoofspielInfoState) and not self.game.config["imperfect_info"]:
            # Public data only: prizes seen, the unseen ones (their order if it is
            # public), hands from the start hands and bids, pot and points.
            prizes = None if info.prizes_to_come is None else info.prizes_seen + info.prizes_to_come
            solver = goofspiel_solver(self.game, prizes)
            position, prize = solver.info_position(info)
            return self._goofspiel(solver, position, prize, info.player, info.legal_actions())
        return self._state_strategy(info.sample(self.rng), info.player)

    def _state_strategy(self, state: State, player: int) -> tuple[list[int], np.ndarray]:
        if isinstance(state, GoofspielState):
            if state.is_terminal():
                raise ValueError("the game is over: there is no decision to make")
            solver = goofspiel_solver(self.game, state.prizes, full_states=True)
            position = solver.position(state.hands, state.pot, state.prizes[state.round + 1 :], state.points)
            return self._goofspiel(solver, position, state.current_prize, player, state.legal_actions(player))
        if self._generic is None:
            self._generic = GameSolver(self.game, self.full_states)
        solver = self._generic
        value, strategies = solver.strategy(state)
        if player not in strategies:
            raise ValueError(f"{self.name}: seat {player} is not to act in this position")
        actions, probs = strategies[player]
        self.stats = {"value": value if player == 0 else -value, "positions": len(solver)}
        self._limit(solver)
        return actions, probs

    def _goofspiel(self, solver: GoofspielSolver, position: tuple, prize: int, seat: int, actions: list[int]) -> tuple[list[int], np.ndarray]:
        word, pot, rest, diff = position
        matrix = solver.matrix(word, pot, prize, rest, diff)
        value, x, y = solve_zero_sum(matrix)
        own = matrix @ y if seat == 0 else -(x @ matrix)
        self.root_values = {a: float(v) for a, v in zip(actions, own)}
        self.stats = {"value": value if seat == 0 else -value, "positions": len(solver), "matrices": solver.matrices}
        self._limit(solver)
        return actions, x if seat == 0 else y

    def _limit(self, solver: GameSolver | GoofspielSolver) -> None:
        limit = self.config["max_positions"]
        if limit is not None and len(solver) > limit:
            solver.values.clear()

    def _draw(self, actions: list[int], probs: np.ndarray) -> int:
        """One draw from the policy's generator whatever the strategy, so the stream
        of random numbers does not depend on whether the strategy is pure."""
        u = self.rng.random()
        index = int(np.searchsorted(np.cumsum(probs), u * probs.sum(), side="right"))
        return actions[min(index, len(actions) - 1)]
