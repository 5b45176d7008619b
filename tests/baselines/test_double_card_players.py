"""Double Card players: the seed's h1 and h2 (features, incremental h2 = full recount),
the generic searchers on the game, the seed's tournament player and ours."""

import numpy as np
import pytest

from parlour.baselines import make
from parlour.baselines.double_card_players import (
    SEED_WEIGHTS,
    h1,
    h1_features,
    h2,
    h2_features,
    h2_features_full,
    seed_depth,
    windows,
)
from parlour.baselines.evaluation import evaluation_names, get_evaluation
from parlour.baselines.double_card_players import _line_features
from parlour.games.double_card import LINES, DoubleCardGame

SETUP_24 = [
    "0 3 B 1", "0 6 E 1", "0 6 E 3", "0 2 H 1", "0 6 D 1", "0 2 B 2", "0 6 B 4", "0 2 G 1",
    "0 5 G 3", "0 2 A 1", "0 8 G 4", "0 6 A 3", "0 6 C 2", "0 6 G 6", "0 4 E 5", "0 8 C 4",
    "0 2 A 5", "0 4 E 7", "0 6 E 9", "0 8 G 8", "0 6 C 6", "0 2 A 7", "0 6 C 8", "0 8 A 9",
]


def start(moves, **config):
    return DoubleCardGame(**config).new_initial_state(moves=moves)


def test_evaluations_are_registered():
    game = DoubleCardGame()
    assert {"h1", "h2", "windows", "h1-w1", "h1-w3"} <= set(evaluation_names(game))
    assert get_evaluation(game, "default") is h1


def test_h1_counts_alive_runs_from_the_surface():
    # row 1: R* Wo R* (three placement-4 cards' bottoms are R*, tops Wo): reds A1 B1 C1
    state = start(["0 4 A 1", "0 4 B 1", "0 4 C 1"])
    colour3, colour2, dot3, dot2 = h1_features(state)
    # rows 1 (R* x3) and 2 (Wo x3), alive to the right: a colour three and a dot three each
    assert (colour3, dot3) == (2, 2)
    assert colour2 == 0 and dot2 == 0
    value = h1(state)
    # colors (player_0): 5 * 2 + -10 * 2 = -10; dots: the same by symmetry
    assert value[0] == pytest.approx(-10 / 60) and value[1] == pytest.approx(-10 / 60)


def test_dead_runs_are_not_counted():
    # row 1: W* R* R* Wo -- the red pair B1 C1 is walled in by whites: dead
    state = start(["0 6 A 1", "0 4 B 1", "0 4 C 1", "0 2 D 1"])
    assert not state.is_terminal()
    rows = [line for line in LINES if line[:2] == (0, 1)]

    c3, c2, d3, d2 = _line_features(state.seg, rows[0])
    # the red pair is walled in by whites, the filled three A1-C1 by the edge and Wo: both dead
    assert (c3, c2, d3, d2) == (0, 0, 0, 0)
    state.play("0 2 F 1")  # row 1: W* R* R* Wo . Wo: E1 open, the pair Wo . Wo is no run
    assert _line_features(state.seg, rows[0]) == (0, 0, 0, 0)


def test_seed_weights_sign_per_objective():
    state = start(["0 4 A 1", "0 8 B 1", "0 4 C 1"])  # R* Ro R*: a colour three (reds)
    c3, c2, d3, d2 = h2_features_full(state)
    assert c3 >= 1
    assert h2(state)[0] > 0 > h2(state)[1]
    flipped = start(["0 4 A 1", "0 8 B 1", "0 4 C 1"], first_player="dots")
    assert h2(flipped)[1] > 0 > h2(flipped)[0]
    assert SEED_WEIGHTS == (5.0, 0.2, -10.0, -0.2)


@pytest.mark.parametrize("seed", range(6))
def test_h2_incremental_equals_full_recount(seed):
    rng = np.random.default_rng(seed)
    game = DoubleCardGame(max_moves=60)
    state = game.new_initial_state(moves=SETUP_24 if seed % 2 else [])
    h2(state)  # prime the cache
    while not state.is_terminal():
        child = state.clone()
        for _ in range(int(rng.integers(1, 4))):  # sometimes several plies between evaluations
            if child.is_terminal():
                break
            child.apply(int(rng.choice(child.legal_actions(child.to_move))))
        assert h2_features(child) == h2_features_full(child)
        state = child


@pytest.mark.parametrize("evaluation", [h1, h2, windows])
def test_evaluations_strictly_inside_returns(evaluation):
    rng = np.random.default_rng(1)
    state = DoubleCardGame().new_initial_state()
    while not state.is_terminal():
        value = evaluation(state)
        assert value.shape == (2,) and np.all(np.abs(value) < 1)
        state.apply(int(rng.choice(state.legal_actions(state.to_move))))


def test_seed_depth_schedule():
    assert [seed_depth(m) for m in (1, 2, 3, 10, 11, 21, 22, 24, 25, 40)] == [2, 2, 3, 3, 4, 4, 5, 5, 2, 2]


@pytest.mark.parametrize(
    "spec",
    [
        "minimax:depth=1,evaluation=h1",
        "minimax:depth=2,evaluation=h2",
        "alphabeta:depth=2,evaluation=h1",
        "alphabeta:depth=2,evaluation=h2,tt=false,ordering=none,iterative=false",
        "alphabeta:depth=3,evaluation=windows",
        "seed-tournament:depth=1,time_limit=2",
        "double-card-best:time_limit=0.3",
        "mcts:simulations=60",
    ],
)
def test_players_take_an_immediate_win(spec):
    from parlour.baselines import make_from_spec

    state = start(["0 4 A 1", "0 2 H 1", "0 4 B 1", "0 2 G 1", "0 4 C 1", "0 2 F 1"])
    # row 1: R* R* R* . . Wo Wo Wo -> D1 completes a red line (0 4 D 1 also makes Wo x4 in row 2: both kinds, mover wins)
    policy = make_from_spec(spec, DoubleCardGame(), seed=0)
    action = policy.act(state.info_state(0))
    child = state.clone()
    child.apply(action)
    assert child.winner == 0, state.action_to_text(action)


def test_players_play_recycling_moves():
    game = DoubleCardGame()
    state = game.new_initial_state(moves=SETUP_24)
    for spec in ("alphabeta:depth=2,evaluation=h2", "seed-tournament:time_limit=1", "double-card-best:time_limit=0.3", "mcts:simulations=50"):
        from parlour.baselines import make_from_spec

        policy = make_from_spec(spec, game, seed=1)
        child = state.clone()
        child.apply(policy.act(child.info_state(0)))
        assert child.phase == "place"
        child.apply(policy.act(child.info_state(0)))
        assert child.moves == 25


def test_seed_tournament_uses_the_schedule_in_plies():
    game = DoubleCardGame()
    policy = make("seed-tournament", game, seed=0, time_limit=20.0)
    state = game.new_initial_state(moves=["0 4 A 1"])
    policy.act(state.info_state(1))
    assert policy.stats["depth"] == 2  # move 2: depth 2
    state = game.new_initial_state(moves=SETUP_24)
    policy.act(state.info_state(0))
    assert policy.stats["depth"] == 4  # move 25: depth 2 moves = 4 plies (take, place)
    assert policy.config["depth"] is None  # the schedule is restored after each search


def test_deterministic_players():
    game = DoubleCardGame()
    state = game.new_initial_state(moves=["0 4 A 1", "0 6 C 1"])
    a = make("alphabeta", game, seed=0, depth=3, evaluation="h2").act(state.info_state(0))
    b = make("alphabeta", game, seed=0, depth=3, evaluation="h2").act(state.info_state(0))
    assert a == b
