"""alpha-beta's optional parts (killer moves, principal variation search, the evaluation
cache, the move-hint and leaf-key hooks, the evaluated-node statistics, ``time_limit``
parsing): none of them may change the value of a search, only its cost."""

import math

import numpy as np
import pytest
from toy_games import RandomTreeGame, RandomTreeState, TakeThreeGame

from parlour.baselines import make
from parlour.baselines.engines.alphabeta import LOSES, WINS, AlphaBetaPolicy, check_time_limit, optional_seconds
from parlour.baselines.engines.heuristics import get_evaluation
from parlour.games.sticks import SticksGame

OPTIONS = [
    {},
    {"pvs": True},
    {"pvs": True, "killers": False},
    {"pvs": True, "iterative": False},
    {"pvs": True, "eval_cache": False, "tt": False},
    {"killers": False, "eval_cache": False},
    {"pvs": True, "ordering": "evaluation"},
    {"pvs": True, "ordering": "none"},
]


def brute_value(state, me, depth=None, evaluate=None):
    """Plain (depth-limited) minimax for ``me``: no pruning, no table."""
    if state.is_terminal():
        return float(state.returns()[me])
    if depth == 0:
        return float(evaluate(state)[me])
    (player,) = state.current_players()
    values = []
    for action in state.legal_actions(player):
        child = state.clone()
        child.apply(action)
        values.append(brute_value(child, me, None if depth is None else depth - 1, evaluate))
    return max(values) if player == me else min(values)


def sticks_positions(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        game = SticksGame(num_sticks=14, max_take=int(rng.integers(2, 5)), misere=bool(rng.integers(2)))
        yield game, game.new_initial_state(sticks=int(rng.integers(1, 15)))


@pytest.mark.parametrize("options", OPTIONS)
def test_options_keep_the_exact_value(options):
    for game, state in sticks_positions(20, seed=3):
        policy = make("alphabeta", game, **options)
        policy.search(state.clone(), state.to_move)
        assert policy.stats["value"] == brute_value(state, state.to_move)


@pytest.mark.parametrize("options", OPTIONS)
def test_options_keep_the_depth_limited_value(options):
    for game, state in sticks_positions(20, seed=5):
        evaluate = get_evaluation(game, "closed_form")
        for depth in (1, 2, 3, 4):
            policy = make("alphabeta", game, depth=depth, evaluation="closed_form", **{"iterative": False, **options})
            policy.search(state.clone(), state.to_move)
            assert math.isclose(policy.stats["value"], brute_value(state, state.to_move, depth, evaluate))


def test_paranoid_with_pvs_on_three_players():
    game = TakeThreeGame(pile=9)
    for pile in range(1, 10):
        for mover in range(3):
            state = game.state_from_text(f"{pile} {mover}")
            policy = make("paranoid", game, pvs=True)
            policy.search(state.clone(), mover)
            assert policy.stats["value"] == brute_value(state, mover)


@pytest.mark.parametrize("options", OPTIONS)
def test_options_keep_the_value_on_random_trees(options):
    game = RandomTreeGame()
    for salt in range(12):
        state = game.new_initial_state(salt)
        for depth in (2, 3, 4, 5, 6):
            policy = make("alphabeta", game, depth=depth, **options)
            policy.evaluate = RandomTreeState.evaluation
            policy.search(state.clone(), 0)
            expected = brute_value(state, 0, depth, RandomTreeState.evaluation)
            assert policy.stats["value"] == expected or policy.stats["depth"] < depth, (salt, depth)


class _Hinted(AlphaBetaPolicy):
    """alphabeta with hints that favour one end of the action range, and a leaf key that
    counts its calls (the hooks a game-specific player overrides)."""

    name = "alphabeta-hinted-test"  # not registered
    prefer_high = True
    keys = 0

    def move_hints(self, state, player, actions, depth):
        self.seen_depths.add(depth)
        return [a if self.prefer_high else -a for a in actions]

    def leaf_key(self, state):
        self.keys += 1
        return state.key()


@pytest.mark.parametrize("prefer_high", [True, False])
def test_move_hints_order_the_search_but_not_its_value(prefer_high):
    for game, state in sticks_positions(15, seed=8):
        policy = _Hinted(game, depth=3, evaluation="closed_form", iterative=False, tt=False, pvs=True)
        policy.prefer_high = prefer_high
        policy.seen_depths = set()
        policy.search(state.clone(), state.to_move)
        evaluate = get_evaluation(game, "closed_form")
        assert math.isclose(policy.stats["value"], brute_value(state, state.to_move, 3, evaluate))
        legal = state.legal_actions(state.to_move)
        if len(legal) > 1 and not state.is_terminal():
            assert 3 in policy.seen_depths and policy.seen_depths <= {3, 2, 1}  # never at the leaves
            assert policy.keys == policy.stats["leaves"] + policy.stats["leaf_cache_hits"]


def test_hints_come_before_history_at_the_root():
    game = SticksGame(num_sticks=30, max_take=4)
    state = game.new_initial_state()
    policy = _Hinted(game, depth=1, evaluation="closed_form")
    policy.seen_depths = set()
    legal = state.legal_actions(0)
    policy.history = {legal[0]: 1000}  # history favours the lowest action
    ordered = policy._ordered(state, 0, list(legal), None, 0, 1)
    assert ordered == sorted(legal, reverse=True)
    assert policy._ordered(state, 0, list(legal), legal[1], 0, 1)[0] == legal[1]  # the table's move first


def test_killers_keep_the_two_latest_distinct_moves():
    policy = make("alphabeta", SticksGame())
    for action in (1, 2, 2, 0):
        policy._killer(3, action)
    assert policy.killers[3] == [0, 2] and len(policy.killers) == 4


def test_evaluated_counts_leaves_terminals_and_ordering_evaluations():
    game = SticksGame(num_sticks=25, max_take=3)
    state = game.new_initial_state()
    for options in ({"ordering": "evaluation", "eval_cache": False}, {"ordering": "history"}):
        policy = make("alphabeta", game, depth=6, evaluation="closed_form", **options)
        policy.search(state.clone(), 0)
        stats = policy.stats
        assert stats["evaluated"] == stats["leaves"] + stats["terminals"] + stats["order_evaluations"]
        assert stats["leaves"] > 0
        assert (stats["order_evaluations"] > 0) == (options["ordering"] == "evaluation")


def test_evaluation_cache_saves_evaluations_on_transpositions():
    # sticks: taking 1 then 2 and 2 then 1 reach the same position
    game = SticksGame(num_sticks=40, max_take=3)
    state = game.new_initial_state()
    cached = make("alphabeta", game, depth=4, evaluation="closed_form", tt=False, iterative=False, ordering="none")
    plain = make("alphabeta", game, depth=4, evaluation="closed_form", tt=False, iterative=False, ordering="none", eval_cache=False)
    cached.search(state.clone(), 0)
    plain.search(state.clone(), 0)
    assert cached.stats["value"] == plain.stats["value"]
    assert cached.stats["leaf_cache_hits"] > 0
    assert cached.stats["leaves"] < plain.stats["leaves"]
    assert cached.stats["leaves"] + cached.stats["leaf_cache_hits"] == plain.stats["leaves"]


def test_time_limit_text_and_values():
    assert optional_seconds("none") is None and optional_seconds(" None ") is None
    assert optional_seconds("2.5") == 2.5
    assert check_time_limit(None) is None and check_time_limit(3) == 3.0
    for bad in (0, -1.0, True, "fast"):
        with pytest.raises(ValueError, match="time_limit"):
            check_time_limit(bad)
    with pytest.raises(ValueError, match="time_limit"):
        make("alphabeta", SticksGame(), time_limit=-2)


class _Decisive(AlphaBetaPolicy):
    """alphabeta that marks moves ending the game at once: WINS / LOSES hints, and a
    ``winning_move`` found by trying every move (the hooks Double Card's player uses)."""

    name = "alphabeta-decisive-test"  # not registered
    quick_wins = True

    def _outcome(self, state, player, action):
        child = state.clone()
        child.apply(action)
        if not child.is_terminal():
            return None, child
        value = child.returns()[player]
        return (WINS if value > 0 else LOSES if value < 0 else None), child

    def move_hints(self, state, player, actions, depth):
        return [self._outcome(state, player, a)[0] or 0.0 for a in actions]

    def winning_move(self, state, player, depth):
        if self.quick_wins:
            for action in state.legal_actions(player):
                mark, child = self._outcome(state, player, action)
                if mark == WINS:
                    return action, child
        return None


@pytest.mark.parametrize("quick_wins", [True, False])
@pytest.mark.parametrize("options", [{}, {"pvs": True}, {"pvs": True, "tt": False, "iterative": False}])
def test_decisive_moves_keep_the_exact_value(quick_wins, options):
    """A win on the spot searched alone and losses on the spot skipped (while another
    move is left) never change the value: no position is worth more than a win or less
    than a loss.  Misère sticks has positions where every move loses (one stick left)."""
    evaluate = get_evaluation(SticksGame(), "closed_form")
    pruned = 0
    for game, state in sticks_positions(40, seed=11):
        for depth in (1, 2, 4):
            policy = _Decisive(game, depth=depth, evaluation="closed_form", **options)
            policy.quick_wins = quick_wins
            policy.search(state.clone(), state.to_move)
            plain = make("alphabeta", game, depth=depth, evaluation="closed_form", **options)
            plain.search(state.clone(), state.to_move)
            assert policy.stats["value"] == brute_value(state, state.to_move, depth, evaluate), (state.sticks, depth)
            pruned += policy.stats["nodes"] < plain.stats["nodes"]
    assert pruned > 10  # the rules did cut the search


def test_losing_moves_are_skipped_but_one_is_kept():
    game = SticksGame(num_sticks=14, max_take=3, misere=True)
    policy = _Decisive(game, depth=2, evaluation="closed_form")
    state = game.new_initial_state(sticks=1)  # the only move takes the last stick: a loss
    assert policy._ordered(state, state.to_move, state.legal_actions(state.to_move), None, 0, 2) == [0]  # take 1
    state = game.new_initial_state(sticks=3)  # taking 3 loses; taking 1 or 2 does not
    assert sorted(policy._ordered(state, state.to_move, state.legal_actions(state.to_move), None, 0, 2)) == [0, 1]
    normal = SticksGame(num_sticks=14, max_take=3, misere=False)
    state = normal.new_initial_state(sticks=2)  # taking 2 wins: searched alone
    assert _Decisive(normal, depth=2, evaluation="closed_form")._ordered(
        state, state.to_move, state.legal_actions(state.to_move), None, 0, 2) == [1]
