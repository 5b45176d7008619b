"""minimax, alphabeta, paranoid and the sticks players: correct values, perfect play."""

import itertools
import math

import numpy as np
import pytest
from helpers import play
from toy_games import TakeThreeGame

from parlour.baselines import make
from parlour.games.sticks import SticksGame, losing_position


@pytest.mark.parametrize(
    ("name", "params"),
    [("minimax", {}), ("alphabeta", {}), ("paranoid", {}), ("alphabeta", {"ordering": "evaluation", "evaluation": "zero", "depth": 12}),
     ("optimal", {}), ("original-minimax", {})],
)
@pytest.mark.parametrize("max_take", [2, 3, 4])
@pytest.mark.parametrize("misere", [True, False])
def test_never_loses_a_won_sticks_position(name, params, max_take, misere):
    """From every pile 1..40, as either seat, against a random opponent."""
    for pile in range(1, 41):
        game = SticksGame(num_sticks=pile, max_take=max_take, misere=misere)
        first_wins = not losing_position(pile, max_take, misere)
        seat = 0 if first_wins else 1  # the seat that has the won position
        policies = {seat: make(name, game, seed=pile, **params), 1 - seat: make("random", game, seed=pile)}
        assert play(game, policies).returns()[seat] == 1, (name, pile, max_take, misere)


@pytest.mark.parametrize("name", ["original-minimax", "optimal", "minimax"])
def test_perfect_for_every_pile_up_to_100(name):
    """The rules file: a minimax policy plays perfectly for every pile up to 100."""
    game = SticksGame(num_sticks=100, max_take=3)
    policy = make(name, game)
    for pile in range(1, 101):
        state = game.new_initial_state(sticks=pile)
        action = policy.act(state.info_state(0))
        left = pile - (action + 1)
        if not losing_position(pile, 3, True):
            assert left > 0 and losing_position(left, 3, True), (name, pile, action)


def brute_minimax(state, me):
    """Plain minimax value for ``me`` (others minimise), no pruning, no memo."""
    if state.is_terminal():
        return state.returns()[me]
    (player,) = state.current_players()
    values = []
    for action in state.legal_actions(player):
        child = state.clone()
        child.apply(action)
        values.append(brute_minimax(child, me))
    return max(values) if player == me else min(values)


def random_sticks_positions(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        take = int(rng.integers(2, 5))
        game = SticksGame(num_sticks=14, max_take=take, misere=bool(rng.integers(2)))
        yield game, game.new_initial_state(sticks=int(rng.integers(1, 15)))


def test_alphabeta_value_equals_minimax_and_visits_fewer_nodes():
    fewer = 0
    for game, state in random_sticks_positions(25, seed=4):
        me = state.to_move
        mm = make("minimax", game, memo=False)
        mm_action = mm.search(state.clone(), me)
        for params in [{}, {"tt": False}, {"ordering": "evaluation"}, {"iterative": False, "tt": False, "ordering": "none"}]:
            ab = make("alphabeta", game, **params)
            ab.search(state.clone(), me)
            assert ab.stats["value"] == mm.stats["value"] == brute_minimax(state, me)
        # the same full-depth search, pruned: never more nodes than minimax
        assert ab.stats["nodes"] <= mm.stats["nodes"]
        fewer += ab.stats["nodes"] < mm.stats["nodes"]
        assert mm.root_values[mm_action] == mm.stats["value"]
    assert fewer >= 20  # pruning pays on almost every position


def test_the_full_root_window_makes_every_root_value_minimaxs():
    """``root_window=full``: each root move's value is exact, not only the best one's; the
    narrow window (the default) gives bounds for the others, and the same move."""
    bounded = 0
    for game, state in random_sticks_positions(25, seed=6):
        me = state.to_move
        mm = make("minimax", game, memo=False)
        mm.search(state.clone(), me)
        full = make("alphabeta", game, root_window="full")
        narrow = make("alphabeta", game)
        assert full.search(state.clone(), me) == narrow.search(state.clone(), me)
        assert full.root_values == pytest.approx(mm.root_values)
        assert full.full_root_window and not narrow.full_root_window
        for action, value in narrow.root_values.items():
            assert value >= mm.root_values[action]  # fail-soft: an upper bound
            bounded += value != mm.root_values[action]
    assert bounded  # the narrow window does leave bounds


def test_depth_limited_alphabeta_equals_depth_limited_minimax():
    for game, state in random_sticks_positions(25, seed=9):
        for depth in (1, 2, 3, 4):
            mm = make("minimax", game, depth=depth, evaluation="closed_form")
            ab = make("alphabeta", game, depth=depth, evaluation="closed_form", tt=False)
            mm.search(state.clone(), state.to_move)
            ab.search(state.clone(), state.to_move)
            # iterative deepening stops early once proven: then the value is exact
            assert math.isclose(ab.stats["value"], mm.stats["value"]) or ab.stats["depth"] < depth


def test_alphabeta_statistics_and_time_budget():
    game = SticksGame(num_sticks=60, max_take=4)
    policy = make("alphabeta", game, evaluation="zero", time_limit=0.05)
    policy.act(game.new_initial_state().info_state(0))
    for key in ("nodes", "cutoffs", "tt_hits", "depth", "time", "nodes_per_second"):
        assert key in policy.stats
    assert policy.stats["depth"] >= 1 and policy.stats["nodes"] > 0


def test_alphabeta_stops_when_proven():
    game = SticksGame(num_sticks=12, max_take=3)
    policy = make("alphabeta", game, evaluation="zero")
    policy.act(game.new_initial_state().info_state(0))
    assert policy.stats["value"] == 1.0 and policy.stats["depth"] <= 12


def test_maxn_and_paranoid_on_three_players():
    game = TakeThreeGame(pile=9)
    for pile, mover in itertools.product(range(1, 10), range(3)):
        state = game.state_from_text(f"{pile} {mover}")
        paranoid = make("paranoid", game)
        paranoid.search(state.clone(), mover)
        assert paranoid.stats["value"] == brute_minimax(state, mover)
        maxn = make("minimax", game)
        maxn.search(state.clone(), mover)
        assert maxn.stats["value"] >= paranoid.stats["value"]  # paranoia is pessimistic
    with pytest.raises(ValueError, match="needs two players"):
        make("alphabeta", game)


def test_minimax_memo_gives_the_same_moves():
    game = SticksGame(num_sticks=25, max_take=3)
    with_memo, without = make("minimax", game), make("minimax", game, memo=False, depth=8, evaluation="closed_form")
    for pile in range(1, 26):
        info = game.new_initial_state(sticks=pile).info_state(0)
        a, b = with_memo.act(info), without.act(info)
        if not losing_position(pile, 3, True):
            assert a == b
