"""Tribolo players: the seed's strategy AI against a naive re-implementation, its
high-level predicates, greedy, the evaluations, and the generic searchers on Tribolo."""

import numpy as np
import pytest

from parlour.baselines import lookup, make
from parlour.baselines.engines.heuristics import get_evaluation
from parlour.baselines.players.tribolo import (
    MobilityStrategy,
    ScoreStrategy,
    choose_strategy,
    tribolo_cells,
    tribolo_mobility,
)
from parlour.games.sticks import SticksGame
from parlour.games.tribolo import TriboloGame

GAME = TriboloGame()
SMALL = TriboloGame(width=6, height=5, walls=3, start_cells=3)


def position(*rows, to_move=0, game=GAME):
    rows = [r.ljust(game.width, ".") for r in rows]
    rows += ["." * game.width] * (game.height - len(rows))
    return game.state_from_board(rows, to_move)


def random_position(game, seed, plies):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    for _ in range(plies):
        if state.is_terminal():
            break
        legal = state.legal_actions(state.to_move)
        state.apply(legal[int(rng.integers(len(legal)))])
    return state


# --- a naive re-implementation of the seed's search (clone, apply, count) ---------------


def naive_leaf(state, strategy):
    if isinstance(strategy, MobilityStrategy):
        return float(state.moves_of(strategy.player).bit_count())
    score = lambda s: sum(s.counts()[p] for p in strategy.players)  # noqa: E731
    if state.is_terminal():
        return float(score(state))
    values = []
    for a in state.legal_actions(state.to_move):
        child = state.clone()
        child.apply(a)
        values.append(score(child))
    return float(max(values) if strategy.maximizing(state.to_move) else min(values))


def naive_minimax(state, depth, strategy):
    if depth == 0 or state.is_terminal():
        return naive_leaf(state, strategy)
    values = []
    for a in state.legal_actions(state.to_move):
        child = state.clone()
        child.apply(a)
        values.append(naive_minimax(child, depth - 1, strategy))
    return max(values) if strategy.maximizing(state.to_move) else min(values)


@pytest.mark.parametrize("seed, plies", [(0, 0), (1, 20), (2, 60), (3, 100), (4, 120)])
@pytest.mark.parametrize("forced", ["own-cells", "allied", "mobility"])
def test_seed_strategy_matches_a_naive_search(seed, plies, forced):
    state = random_position(GAME, seed, plies)
    if state.is_terminal():
        pytest.skip("game over")
    player = state.to_move
    target = (player + 1) % 3
    policy = make("original-strategy", GAME, seed=0, strategy=forced, ally_against=target)
    text = state.to_text()
    action = policy.act(state.info_state(player))
    assert state.to_text() == text  # the search restores its state
    strategy = choose_strategy(state, player, target, forced)
    expected = {}
    for a in state.legal_actions(player):
        child = state.clone()
        child.apply(a)
        expected[a] = naive_minimax(child, 1, strategy)
    best = max(expected.values())
    assert action == min(a for a, v in expected.items() if v == best)  # ties: lowest cell
    assert policy.stats["strategy"] == forced
    # alpha-beta: the chosen move's value is exact, the others' bound them from above
    assert policy.root_values[action] == best == policy.stats["value"]
    assert all(expected[a] <= v <= best for a, v in policy.root_values.items())


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [1, 3])
def test_seed_strategy_at_other_depths_matches_a_naive_search(seed, depth):
    state = random_position(SMALL, seed, 2 * seed)
    if state.is_terminal():
        pytest.skip("game over")
    player = state.to_move
    policy = make("original-strategy", SMALL, seed=0, depth=depth)
    action = policy.act(state.info_state(player))
    strategy = choose_strategy(state, player, None, "auto")
    expected = {}
    for a in state.legal_actions(player):
        child = state.clone()
        child.apply(a)
        expected[a] = naive_minimax(child, depth - 1, strategy)
    best = max(expected.values())
    assert action == min(a for a, v in expected.items() if v == best)
    assert policy.stats["value"] == best


def test_score_leaf_looks_one_move_ahead_without_playing_it():
    state = random_position(GAME, 9, 30)
    for players, maximizers in [((0,), (True, False, False)), ((1, 2), (False, True, True))]:
        strategy = ScoreStrategy("x", players, maximizers)
        assert strategy.leaf(state) == naive_leaf(state, strategy)


# --- the high-level AI -------------------------------------------------------------------


def test_high_level_predicates_in_order():
    # (1) allied: both AIs below 1.1 x the human's cells
    state = position("BR.", "GGGR", "RRR", to_move=0)  # B 1, R 5, G 3
    assert choose_strategy(state, 0, None).name == "allied"
    assert choose_strategy(state, 0, None).players == (0, 2)  # the leader, red, is the human
    assert choose_strategy(state, 2, 1).players == (0, 2)
    assert choose_strategy(state, 0, 2).name != "allied"  # R has 5 >= 1.1 x G's 3
    # the human never allies against itself; it falls through to the other rules
    assert choose_strategy(state, 1, 1).name != "allied"
    # (2) late game: fewer than 20 cells that are not owned -> own cells
    game = TriboloGame(width=5, height=4, walls=0, start_cells=1)
    late = game.state_from_board(["BRBRB", "RBRBR", "BBBBB", "GRB.."], 1)
    assert late.counts() == [11, 6, 1] and late.moves_of(1).bit_count() < 5
    assert choose_strategy(late, 1, 2).name == "own-cells"  # not allied: B has 11 >= 1.1 x 1
    assert choose_strategy(late, 1, None).name == "allied"  # against the leader, B
    # (3) fewer than 5 legal moves -> mobility
    few = position("BR", "", "", "GGGGRRRRRR", to_move=0)  # B 1, R 7, G 4
    assert few.moves_of(0).bit_count() == 1
    assert choose_strategy(few, 0, 0).name == "mobility"
    assert choose_strategy(few, 0, None).name == "allied"  # R leads: B 1 and G 4 < 7.7
    # (4) otherwise own cells
    many = random_position(GAME, 5, 40)
    seat = many.to_move
    if many.moves_of(seat).bit_count() >= 5 and 176 - sum(many.counts()) >= 20:
        assert choose_strategy(many, seat, seat).name == "own-cells"


def test_opening_allies_against_the_first_opponent_in_turn_order():
    state = GAME.new_initial_state(0)  # 12 cells each: everyone ties with "the human"
    seat = state.to_move
    strategy = choose_strategy(state, seat, None)
    assert strategy.name == "allied" and (seat + 1) % 3 not in strategy.players


# --- greedy ------------------------------------------------------------------------------


def test_greedy_takes_the_most_cells():
    state = position("BR.RRB", "..R", "..B", to_move=0)
    # (2,0) takes R (west), R R (east), R (south): 4 cells; every other move fewer
    assert make("greedy", GAME, seed=0).act(state.info_state(0)) == 2


def test_greedy_breaks_ties_at_random_or_first():
    for seed in range(50):  # the first opening with several best moves
        state = GAME.new_initial_state(seed)
        seat = state.to_move
        gains = {a: sum(state.geo.captures(state.board, a, seat)) for a in state.legal_actions(seat)}
        best = sorted(a for a, g in gains.items() if g == max(gains.values()))
        if len(best) > 2:
            break
    assert len(best) > 2
    picks = {make("greedy", GAME, seed=s).act(state.info_state(seat)) for s in range(12)}
    assert picks <= set(best) and len(picks) > 1
    assert make("greedy", GAME, tie_break="first").act(state.info_state(seat)) == best[0]


# --- evaluations -------------------------------------------------------------------------


@pytest.mark.parametrize("returns, low, high", [("win_loss", -1.0, 1.0), ("cell_share", -1 / 3, 2 / 3)])
def test_evaluations_are_zero_sum_and_inside_the_returns_range(returns, low, high):
    game = TriboloGame(returns=returns)
    assert get_evaluation(game, "default") is tribolo_cells
    for seed in range(5):
        state = random_position(game, seed, 10 * seed)
        for fn in (tribolo_cells, tribolo_mobility):
            values = fn(state)
            assert values.shape == (3,) and abs(values.sum()) < 1e-9
            assert (values > low).all() and (values < high).all()
    lopsided = position("BBBBBR.", to_move=0, game=game)
    assert np.argmax(tribolo_cells(lopsided)) == 0


# --- registration, parameters, determinism ----------------------------------------------


def test_registered_and_restricted_to_tribolo():
    for name in ("original-strategy", "greedy"):
        assert lookup(name, TriboloGame()).games == ("tribolo",)
        with pytest.raises(ValueError, match="cannot play sticks: it is made for"):
            make(name, SticksGame())


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(depth=0), "depth"),
        (dict(ally_against=3), "ally_against"),
        (dict(strategy="greedy"), "strategy"),
        (dict(width=3), "unknown parameter"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        make("original-strategy", GAME, **params)


def test_cannot_ally_against_itself_when_forced():
    state = GAME.new_initial_state(0)
    seat = state.to_move
    policy = make("original-strategy", GAME, strategy="allied", ally_against=seat)
    with pytest.raises(ValueError, match="against itself"):
        policy.act(state.info_state(seat))


def test_deeper_seed_search_and_determinism():
    state = random_position(SMALL, 2, 4)
    seat = state.to_move
    a = make("original-strategy", SMALL, seed=1, depth=3).act(state.info_state(seat))
    b = make("original-strategy", SMALL, seed=2, depth=3).act(state.info_state(seat))
    assert a == b and a in state.legal_actions(seat)


# --- every baseline plays whole games ---------------------------------------------------


@pytest.mark.parametrize(
    "specs",
    [
        [("original-strategy", {}), ("greedy", {}), ("random", {})],
        [("minimax", dict(depth=2)), ("paranoid", dict(depth=3)), ("mcts", dict(simulations=30))],
        [("paranoid", dict(depth=2, evaluation="mobility")), ("mcts", dict(simulations=20, rollout="evaluation")),
         ("original-strategy", dict(ally_against=0))],
    ],
)
def test_baselines_play_whole_games(specs):
    for seed in range(2):
        policies = [make(name, SMALL, seed=seed, **params) for name, params in specs]
        state = SMALL.new_initial_state(seed)
        while not state.is_terminal():
            seat = state.to_move
            action = policies[seat].act(state.info_state(seat))
            assert action in state.legal_actions(seat)
            state.apply(action)
        assert abs(state.returns().sum()) < 1e-9


def _exact(state, root, paranoid):
    """Naive full-depth value vector: max^n, or paranoid (others minimise ``root``)."""
    if state.is_terminal():
        return state.returns()
    seat = state.to_move
    best = None
    for a in state.legal_actions(seat):
        child = state.clone()
        child.apply(a)
        value = _exact(child, root, paranoid)
        if best is None:
            best = value
        elif paranoid and seat != root:
            best = value if value[root] < best[root] else best
        elif value[seat] > best[seat]:
            best = value
    return best


def _endgames(count):
    """The first ``count`` small positions where the seat to move has a real choice."""
    game = TriboloGame(width=5, height=4, walls=2, start_cells=3)
    found = []
    for seed in range(100):
        state = random_position(game, seed, 2)
        if not state.is_terminal() and len(state.legal_actions(state.to_move)) >= 2:
            found.append(state)
        if len(found) == count:
            return found
    raise AssertionError("not enough test positions")


@pytest.mark.parametrize("state", _endgames(4))
def test_full_depth_paranoid_and_minimax_play_exactly_on_endgames(state):
    game = state.game
    seat = state.to_move
    for name, paranoid in (("paranoid", True), ("minimax", False)):
        values = {}
        for a in state.legal_actions(seat):
            child = state.clone()
            child.apply(a)
            values[a] = _exact(child, seat, paranoid)[seat]
        chosen = make(name, game).act(state.info_state(seat))
        assert values[chosen] == max(values.values()), name
