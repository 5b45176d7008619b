"""The exact equilibrium solvers and the ``equilibrium`` policy.

Matrix games are checked by the definition of a solution (each strategy is a best
response to the other) and against an independent LP; Goofspiel by symmetry (its
value is 0), by full-game best responses computed on the real rules, by dominating
hands, and by agreement between the generic and the Goofspiel-specific solver.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from toy_games import MultiplierGame

from parlour.baselines import make
from parlour.baselines.engines.equilibrium import GameSolver, game_value
from parlour.baselines.engines.matrix_game import solve_zero_sum
from parlour.baselines.players.goofspiel_solver import (
    GoofspielSolver,
    compress,
    goofspiel_exploitability,
    swap_seats,
)
from parlour.games.goofspiel import GoofspielGame
from parlour.games.sticks import SticksGame, losing_position

# --- matrix games ------------------------------------------------------------------------


def assert_solution(matrix, value, x, y, tol=1e-9):
    """Both strategies are distributions and each is a best response to the other."""
    a = np.asarray(matrix, dtype=float)
    assert x.shape == (a.shape[0],) and y.shape == (a.shape[1],)
    assert (x >= 0).all() and (y >= 0).all()
    assert abs(x.sum() - 1) < tol and abs(y.sum() - 1) < tol
    assert abs((x @ a).min() - value) < tol, "the row strategy does not guarantee the value"
    assert abs((a @ y).max() - value) < tol, "the column strategy does not hold the row player to the value"


def random_matrices(count, seed=0):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        m, n = (int(v) for v in rng.integers(1, 21, size=2))
        kind = trial % 5
        if kind == 0:
            yield rng.normal(size=(m, n))
        elif kind == 1:  # small integers: many ties and degenerate vertices
            yield rng.integers(-2, 3, size=(m, n)).astype(float)
        elif kind == 2:  # 0/1 payoffs: heavily degenerate
            yield rng.integers(0, 2, size=(m, n)).astype(float)
        elif kind == 3:  # duplicated rows and columns
            base = rng.integers(-3, 4, size=(max(1, m // 2), max(1, n // 2))).astype(float)
            yield np.kron(base, np.ones((2, 2)))
        else:
            yield np.round(rng.normal(size=(m, n)) * 100)


def test_random_matrices_are_solved():
    for matrix in random_matrices(1500):
        assert_solution(matrix, *solve_zero_sum(matrix))


@pytest.mark.parametrize(
    ("matrix", "value", "x", "y"),
    [
        ([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], 0.0, [1 / 3] * 3, [1 / 3] * 3),  # rock-paper-scissors
        ([[1, -1], [-1, 1]], 0.0, [0.5, 0.5], [0.5, 0.5]),  # matching pennies
        ([[2, -1], [-1, 1]], 0.2, [0.4, 0.6], [0.4, 0.6]),
        ([[3, 1], [4, 2]], 2.0, [0, 1], [0, 1]),  # a saddle point
        ([[1, 5, 0], [3, 4, 2], [0, 6, -1]], 2.0, [0, 1, 0], [0, 0, 1]),  # saddle, dominated rows
        ([[7.5]], 7.5, [1], [1]),
        ([[1, 2, 3]], 1.0, [1], [1, 0, 0]),
        ([[1], [2], [3]], 3.0, [0, 0, 1], [1]),
        ([[4, 0, 9], [0, 4, 9], [-5, -5, 9]], 2.0, [0.5, 0.5, 0], [0.5, 0.5, 0]),  # a dominated row and column
    ],
)
def test_known_games(matrix, value, x, y):
    v, xs, ys = solve_zero_sum(matrix)
    assert v == pytest.approx(value, abs=1e-12)
    np.testing.assert_allclose(xs, x, atol=1e-12)
    np.testing.assert_allclose(ys, y, atol=1e-12)


def test_all_equal_and_scaled_games():
    v, x, y = solve_zero_sum(np.full((4, 6), -3.0))
    assert v == -3.0
    assert_solution(np.full((4, 6), -3.0), v, x, y)
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    for scale, offset in [(1e-6, 0.0), (1e6, 5.0), (3.0, -1e3)]:
        v, x, y = solve_zero_sum(rps * scale + offset)
        assert v == pytest.approx(offset, abs=1e-9 * max(1.0, scale))
        np.testing.assert_allclose(x, [1 / 3] * 3, atol=1e-9)


@pytest.mark.parametrize("bad", [[], [[]], [1, 2], [[1, np.nan]], [[np.inf]], np.zeros((2, 2, 2))])
def test_bad_matrices(bad):
    with pytest.raises(ValueError, match="matrix"):
        solve_zero_sum(bad)


def test_values_agree_with_an_independent_lp():
    """Dev-only: scipy's HiGHS (and OpenSpiel's LP when cvxpy is installed)."""
    optimize = pytest.importorskip("scipy.optimize")
    for matrix in itertools.islice(random_matrices(200, seed=1), 200):
        m, n = matrix.shape
        # variables (x, v): maximise v subject to v <= x^T A e_j for every column j
        cost = np.zeros(m + 1)
        cost[-1] = -1.0
        upper = np.hstack([-matrix.T, np.ones((n, 1))])
        result = optimize.linprog(
            cost, A_ub=upper, b_ub=np.zeros(n), A_eq=[[1.0] * m + [0.0]], b_eq=[1.0],
            bounds=[(0, None)] * m + [(None, None)], method="highs",
        )
        assert result.status == 0
        assert solve_zero_sum(matrix)[0] == pytest.approx(-result.fun, abs=1e-7)


def test_values_agree_with_openspiel_lp():
    lp_solver = pytest.importorskip("open_spiel.python.algorithms.lp_solver")
    pyspiel = pytest.importorskip("pyspiel")
    rng = np.random.default_rng(2)
    for _ in range(20):
        m, n = (int(v) for v in rng.integers(1, 7, size=2))
        matrix = rng.normal(size=(m, n))
        game = pyspiel.create_matrix_game(matrix.tolist(), (-matrix).tolist())
        _, _, value, _ = lp_solver.solve_zero_sum_matrix_game(game)
        assert solve_zero_sum(matrix)[0] == pytest.approx(value, abs=1e-5)


# --- Goofspiel: the compact positions ---------------------------------------------------


def test_compress_keeps_only_the_interleaving():
    def mask(cards):
        return sum(1 << (c - 1) for c in cards)

    # {1, 3, 5} vs {2, 3, 7}: positions 1 2 3 5 7 -> seat0, seat1, both, seat0, seat1
    assert compress(mask([1, 3, 5]), mask([2, 3, 7])) == 1 | 2 << 2 | 3 << 4 | 1 << 6 | 2 << 8
    assert compress(mask([1, 3, 5]), mask([2, 3, 7])) == compress(mask([10, 20, 30]), mask([15, 20, 99]))
    assert swap_seats(compress(mask([4, 5, 6]), mask([1, 2, 3]))) == compress(mask([1, 2, 3]), mask([4, 5, 6]))


def test_transitions_match_the_rules():
    """Every pair of bids leads to the word of the hands the rules leave."""
    rng = np.random.default_rng(3)
    solver = GoofspielSolver(GoofspielGame(num_cards=6, prize_order="descending"))
    for _ in range(60):
        size = int(rng.integers(1, 7))
        cards = [sorted(rng.choice(9, size=size, replace=False).tolist()) for _ in range(2)]
        hands = [sum(1 << a for a in c) for c in cards]
        kids, signs, _ = solver.transitions(compress(*hands))
        pairs = list(itertools.product(cards[0], cards[1]))
        assert len(kids) == len(pairs)
        for kid, s, (a, b) in zip(kids, signs, pairs):
            assert kid == compress(hands[0] & ~(1 << a), hands[1] & ~(1 << b))
            assert s == (a > b) - (a < b)


# --- Goofspiel: values and equilibria ----------------------------------------------------


def root_best_responses(solver, tol=1e-6):
    """At every first reveal, each root strategy is a best response to the other."""
    word, pot, rest, diff = solver.start()
    for prize, (value, x, y) in solver.root_strategies().items():
        matrix = solver.matrix(word, pot, prize, rest & ~(1 << (prize - 1)), diff)
        assert (x @ matrix).min() >= value - tol
        assert (matrix @ y).max() <= value + tol
        yield prize, value


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("order", ["descending", "random"])
def test_symmetric_goofspiel_is_worth_zero(n, order):
    game = GoofspielGame(num_cards=n, prize_order=order, tie_rule="discard", returns="point_difference")
    solver = GoofspielSolver(game)
    values = dict(root_best_responses(solver))
    assert len(values) == (n if order == "random" else 1)
    # each first prize leaves a symmetric game, so each is worth 0, not just their mean
    assert max(abs(v) for v in values.values()) < 1e-9
    assert abs(solver.root_value()) < 1e-9
    assert goofspiel_exploitability(solver) < 1e-6


@pytest.mark.parametrize(
    "config",
    [
        {"num_cards": 3, "tie_rule": "carry", "returns": "point_difference"},
        {"num_cards": 4, "tie_rule": "carry", "returns": "win_loss"},
        {"num_cards": 4, "tie_rule": "discard", "returns": "win_loss"},
        {"num_cards": 5, "tie_rule": "discard", "returns": "win_loss"},
        {"num_cards": 4, "tie_rule": "carry", "returns": "point_difference", "prize_order": [2, 4, 1, 3]},
    ],
)
@pytest.mark.parametrize("order", ["descending", "random"])
def test_other_rules_are_worth_zero_too(config, order):
    game = GoofspielGame(**{"prize_order": order, **config})
    solver = GoofspielSolver(game)
    list(root_best_responses(solver))
    assert abs(solver.root_value()) < 1e-9
    assert goofspiel_exploitability(solver) < 1e-6


@pytest.mark.parametrize("order", ["descending", "ascending", "random"])
@pytest.mark.parametrize("tie_rule", ["discard", "carry"])
def test_a_dominating_hand_wins_everything(order, tie_rule):
    """Seed example: [4, 5, 6] beats every card of [1, 2, 3]."""
    for returns, value in [("point_difference", 6.0), ("win_loss", 1.0)]:
        game = GoofspielGame(hands=[[4, 5, 6], [1, 2, 3]], prize_order=order, tie_rule=tie_rule, returns=returns)
        assert GoofspielSolver(game).root_value() == pytest.approx(value, abs=1e-12)
        flipped = GoofspielGame(hands=[[1, 2, 3], [4, 5, 6]], prize_order=order, tie_rule=tie_rule, returns=returns)
        assert GoofspielSolver(flipped).root_value() == pytest.approx(-value, abs=1e-12)


def test_an_uneven_hand_has_a_nonzero_value():
    """[2, 3, 4] vs [1, 2, 3]: seat 0 never loses a round but can tie."""
    game = GoofspielGame(hands=[[2, 3, 4], [1, 2, 3]], prize_order="descending", tie_rule="discard", returns="point_difference")
    value = GoofspielSolver(game).root_value()
    assert 0 < value < 6
    assert value == pytest.approx(GameSolver(game).value(game.new_initial_state()), abs=1e-9)


@pytest.mark.parametrize(
    "config",
    [
        {"num_cards": 3, "prize_order": "descending", "tie_rule": "discard", "returns": "point_difference"},
        {"num_cards": 4, "prize_order": "descending", "tie_rule": "carry", "returns": "point_difference"},
        {"num_cards": 4, "prize_order": "ascending", "tie_rule": "discard", "returns": "win_loss"},
        {"num_cards": 4, "prize_order": [3, 1, 4, 2], "tie_rule": "carry", "returns": "win_loss"},
        {"hands": [[1, 3, 5, 7], [2, 3, 4, 8]], "prize_order": "descending", "tie_rule": "carry", "returns": "point_difference"},
        {"hands": [[2, 4, 6], [1, 5, 9]], "prize_order": [2, 3, 1], "tie_rule": "discard", "returns": "win_loss"},
    ],
)
def test_generic_solver_agrees_with_the_goofspiel_solver(config):
    game = GoofspielGame(**config)
    generic = GameSolver(game)
    special = GoofspielSolver(game)
    rng = np.random.default_rng(4)
    for _ in range(8):  # the root and random positions along random games
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, game.num_cards))):
            state.apply({p: int(rng.choice(state.legal_actions(p))) for p in (0, 1)})
        position = special.position(state.hands, state.pot, state.prizes[state.round :], state.points)
        expected = special.value(*position)
        # the Goofspiel solver drops the points scored so far under point_difference
        if game.config["returns"] == "point_difference":
            expected += state.points[0] - state.points[1]
        assert generic.value(state) == pytest.approx(expected, abs=1e-9)


def test_generic_solver_on_sticks():
    for misere in (True, False):
        game = SticksGame(num_sticks=15, max_take=3, misere=misere)
        solver = GameSolver(game)
        for pile in range(1, 16):
            expected = -1.0 if losing_position(pile, 3, misere) else 1.0
            assert solver.value(game.new_initial_state(sticks=pile)) == expected


def test_game_value():
    assert game_value(SticksGame(num_sticks=5, max_take=3)) == -1.0  # 5 % 4 == 1: a lost start
    assert game_value(GoofspielGame(hands=[[4, 5, 6], [1, 2, 3]], returns="point_difference")) == pytest.approx(6.0)
    assert game_value(MultiplierGame()) == pytest.approx(2 / 7)


# --- a toy mixing turn-based and simultaneous steps ----------------------------------


def test_mixed_turn_based_and_simultaneous_game():
    game = MultiplierGame()
    solver = GameSolver(game)
    root = game.new_initial_state()
    value, strategies = solver.strategy(root)
    assert value == pytest.approx(2 / 7)
    np.testing.assert_array_equal(strategies[0][1], [0.0, 1.0])  # multiplier 2
    root.apply(1)
    value, strategies = solver.strategy(root)
    np.testing.assert_allclose(strategies[0][1], [3 / 7, 4 / 7])
    np.testing.assert_allclose(strategies[1][1], [2 / 7, 5 / 7])
    policy = make("equilibrium", game, seed=0)
    assert policy.strategy(game.new_initial_state().info_state(0)) == {0: 0.0, 1: 1.0}
    assert policy.strategy(root.info_state(1)) == pytest.approx({0: 2 / 7, 1: 5 / 7})


# --- the policy ----------------------------------------------------------------------------


def nash_conv_on_the_rules(game, policy):
    """NashConv of ``policy.strategy`` (played by both seats), on the real game: the
    prizes are revealed one by one (a chance node over the unseen ones when the order
    is random) and the returns are the rules' own."""
    n = game.num_cards
    fixed = None if game.config["prize_order"] == "random" else game.prize_sequence(None)

    def walk(seen, bids, seat):
        unseen = [p for p in range(1, n + 1) if p not in seen]
        nexts = [fixed[len(seen)]] if fixed else unseen
        total = 0.0
        for prize in nexts:
            order = fixed or seen + (prize,) + tuple(p for p in unseen if p != prize)
            state = game.new_initial_state(prizes=order)
            for b in bids:
                state.apply({0: b[0], 1: b[1]})
            x = policy.strategy(state.info_state(0))
            y = policy.strategy(state.info_state(1))
            rows, cols = state.legal_actions(0), state.legal_actions(1)
            payoff = np.empty((len(rows), len(cols)))
            for (i, a), (j, b) in itertools.product(enumerate(rows), enumerate(cols)):
                child = state.clone()
                child.apply({0: a, 1: b})
                if child.is_terminal():
                    payoff[i, j] = child.returns()[0]
                else:
                    payoff[i, j] = walk(seen + (prize,), bids + ((a, b),), seat)
            xs = np.array([x[a] for a in rows])
            ys = np.array([y[b] for b in cols])
            total += (payoff @ ys).max() if seat == 0 else (xs @ payoff).min()
        return total / len(nexts)

    return walk((), (), 0) - walk((), (), 1)


@pytest.mark.parametrize(
    "config",
    [
        {"num_cards": 3, "prize_order": "random", "tie_rule": "discard", "returns": "point_difference"},
        {"num_cards": 4, "prize_order": "descending", "tie_rule": "discard", "returns": "point_difference"},
        {"num_cards": 3, "prize_order": "random", "tie_rule": "carry", "returns": "win_loss"},
        {"num_cards": 4, "prize_order": "ascending", "tie_rule": "carry", "returns": "win_loss"},
        {"num_cards": 4, "prize_order": "random", "tie_rule": "discard", "returns": "point_difference"},
    ],
)
def test_policy_plays_an_equilibrium_of_the_real_game(config):
    game = GoofspielGame(**config)
    assert abs(nash_conv_on_the_rules(game, make("equilibrium", game, seed=0))) < 1e-6


def test_policy_sees_only_the_information_state():
    """Changing the hidden order of the prizes to come never changes the action."""
    game = GoofspielGame(num_cards=6, prize_order="random", tie_rule="carry")
    rng = np.random.default_rng(5)
    checked = 0
    for trial in range(40):
        state = game.new_initial_state(seed=trial)
        for _ in range(int(rng.integers(0, 5))):
            state.apply({p: int(rng.choice(state.legal_actions(p))) for p in (0, 1)})
        seen = state.prizes[: state.round + 1]
        future = list(state.prizes[state.round + 1 :])
        other = game.new_initial_state(prizes=seen + tuple(rng.permutation(future).tolist()))
        for bids in state.bids:
            other.apply(dict(enumerate(bids)))
        for seat in (0, 1):
            a = make("equilibrium", game, seed=trial).act(state.info_state(seat))
            b = make("equilibrium", game, seed=trial).act(other.info_state(seat))
            assert a == b
            checked += 1
    assert checked == 80


def test_policy_is_deterministic_and_legal():
    game = GoofspielGame(num_cards=5)
    runs = []
    for _ in range(2):
        policies = [make("equilibrium", game, seed=11), make("equilibrium", game, seed=12)]
        state = game.new_initial_state(seed=3)
        moves = []
        while not state.is_terminal():
            joint = {}
            for p in (0, 1):
                action = policies[p].act(state.info_state(p))
                assert action in state.legal_actions(p)
                joint[p] = action
            moves.append(joint)
            state.apply(joint)
        runs.append(moves)
    assert runs[0] == runs[1]


def test_policy_beats_random_on_goofspiel_5():
    game = GoofspielGame(num_cards=5)  # random prize order, carry, win_loss
    results = []
    for g in range(100):
        seat = g % 2
        policies = {seat: make("equilibrium", game, seed=g), 1 - seat: make("random", game, seed=1000 + g)}
        state = game.new_initial_state(seed=g)
        while not state.is_terminal():
            state.apply({p: policies[p].act(state.info_state(p)) for p in (0, 1)})
        results.append(state.returns()[seat])
    results = np.array(results)
    assert (results > 0).mean() > 0.6
    assert results.mean() > 0.3


def test_policy_reports_values():
    game = GoofspielGame(hands=[[4, 5, 6], [1, 2, 3]], returns="point_difference", prize_order="descending")
    state = game.new_initial_state()
    policy = make("equilibrium", game, seed=0)
    policy.act(state.info_state(1))
    assert policy.stats["value"] == pytest.approx(-6.0)
    assert policy.root_values == pytest.approx({0: -6.0, 1: -6.0, 2: -6.0})


def test_policy_plays_sticks_perfectly():
    for pile in range(1, 25):
        game = SticksGame(num_sticks=pile, max_take=3)
        seat = 1 if losing_position(pile, 3, True) else 0
        policies = {seat: make("equilibrium", game, seed=pile), 1 - seat: make("random", game, seed=pile)}
        state = game.new_initial_state()
        while not state.is_terminal():
            (p,) = state.current_players()
            state.apply(policies[p].act(state.info_state(p)))
        assert state.returns()[seat] == 1


def test_search_on_complete_states():
    """For pimc: a determinized Goofspiel state is solved with everything known."""
    game = GoofspielGame(num_cards=4, imperfect_info=True)
    policy = make("equilibrium", game, seed=0, full_states=True)
    state = game.new_initial_state(seed=1)
    state.apply({0: 0, 1: 3})
    assert policy.search(state.clone(), 1) in state.legal_actions(1)
    assert policy.act(state.info_state(0)) in state.legal_actions(0)


def test_max_positions_forgets():
    game = GoofspielGame(num_cards=5, prize_order="descending", returns="point_difference")
    policy = make("equilibrium", game, seed=0, max_positions=3)
    policy.act(game.new_initial_state().info_state(0))
    assert policy.stats["positions"] > 3
    policy.act(game.new_initial_state().info_state(0))  # solved again from scratch: still right
    assert policy.stats["value"] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(
    ("game", "message"),
    [
        (GoofspielGame(num_cards=4, imperfect_info=True), r"its bids are hidden \(imperfect_info=True\).*use sm-mcts or ismcts"),
        (GoofspielGame(num_cards=4, num_players=3), "the exact solver handles two players only, got num_players=3"),
        (GoofspielGame(num_cards=4, returns="total_points"), "returns='total_points' is not zero-sum"),
    ],
)
def test_unsupported_games(game, message):
    with pytest.raises(ValueError, match="policy 'equilibrium' cannot play goofspiel: " + message):
        make("equilibrium", game)
    with pytest.raises(ValueError, match="cannot solve .* exactly: " + message):
        GoofspielSolver(game)


def test_bad_parameters_and_inputs():
    with pytest.raises(ValueError, match="max_positions=0: must be at least 1"):
        make("equilibrium", GoofspielGame(num_cards=3), max_positions=0)
    game = GoofspielGame(num_cards=3, prize_order="descending")
    with pytest.raises(ValueError, match=r"prizes must be a permutation of 1..3, got \[1, 1, 2\]"):
        GoofspielSolver(game, prizes=[1, 1, 2])
    state = game.new_initial_state()
    for _ in range(3):
        state.apply({0: state.legal_actions(0)[0], 1: state.legal_actions(1)[0]})
    with pytest.raises(ValueError, match="the game is over"):
        make("equilibrium", game).act(state.info_state(0))
