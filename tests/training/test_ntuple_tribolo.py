"""The learned n-tuple evaluation for Tribolo: its window features (against the board
read cell by cell, for every seat, on boards of several sizes), their symmetry under a
rotation of the seats, the three-seat evaluation inside ``paranoid``, ``ntuple:`` in a
PettingZoo env, and a game's three chains of positions (the training runs are in
test_ntuple.py, beside Double Card's)."""

import numpy as np
import pytest

from parlour.baselines import make_from_spec
from parlour.baselines.engines.alphabeta import ParanoidPolicy
from parlour.baselines.learned.ntuple import (
    NTupleEvaluation,
    load_ntuple,
    ntuple_features,
    save_ntuple,
)
from parlour.baselines.players.tribolo_ntuple import (
    CODES,
    PLACES,
    TRIBOLO_FEATURES,
    tribolo_window_indices,
    window_tables,
)
from parlour.baselines.policy import lookup
from parlour.envs import tribolo_v0
from parlour.games import load_game
from parlour.games.tribolo import DIRECTIONS, SYMBOLS
from parlour.training.backends.ntuple import record_game

TINY = {"width": 6, "height": 5, "walls": 2, "start_cells": 2}
BOARDS = [{}, TINY, {"width": 8, "height": 8, "walls": 4, "start_cells": 3}, {"width": 4, "height": 9, "walls": 1, "start_cells": 2},
          {"width": 3, "height": 3, "walls": 0, "start_cells": 1}]


def random_positions(options, count, seed=0):
    """Positions of random games (someone to move in each)."""
    game = load_game("tribolo", **options)
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state(seed=rng)
        while not state.is_terminal() and len(positions) < count:
            positions.append(state.clone())
            legal = state.legal_actions(state.to_move)
            state.apply(legal[int(rng.integers(len(legal)))])
    return positions


def reference_indices(state, seat):
    """The features read cell by cell: every window of four cells going E, SE, S, SW (by
    direction, then by first cell), each cell coded for ``seat`` (mine 0, next 1,
    previous 2, empty 3, wall 4), plus 625 x where it lies, plus 1875 x who moves."""
    width, height = state.game.width, state.game.height
    border_x, border_y = {0, width - 1}, {0, height - 1}
    indices = []
    for dx, dy in DIRECTIONS[:4]:
        for y in range(height):
            for x in range(width):
                cells = [(x + k * dx, y + k * dy) for k in range(4)]
                if not all(0 <= cx < width and 0 <= cy < height for cx, cy in cells):
                    continue
                code = 0
                for cx, cy in cells:
                    owner = state.board[cy * width + cx]
                    code = 5 * code + ((owner - seat) % 3 if owner < 3 else owner)
                along = any(all(c[axis] == line for c in cells) for axis, lines in ((0, border_x), (1, border_y)) for line in lines)
                touching = any(cx in border_x or cy in border_y for cx, cy in cells)
                place = 2 if along else 1 if touching else 0
                mover = (state.to_move - seat) % 3
                indices.append(code + 625 * place + 1875 * mover)
    return np.array(indices, dtype=np.intp)


@pytest.mark.parametrize("options", BOARDS, ids=lambda o: "x".join(str(o.get(k, "")) for k in ("width", "height")) or "default")
def test_window_indices_are_the_board_read_cell_by_cell_for_every_seat(options):
    for state in random_positions(options, 40, seed=len(options)):
        indices = tribolo_window_indices(state)
        assert indices.shape == (3, window_tables(state.game.width, state.game.height).windows)
        for seat in range(3):
            assert np.array_equal(indices[seat], reference_indices(state, seat))
        if indices.size:
            assert indices.min() >= 0 and indices.max() < TRIBOLO_FEATURES


def test_the_default_board_has_479_windows_in_three_places():
    tables = window_tables(16, 11)
    assert tables.windows == 143 + 104 + 128 + 104 and window_tables(16, 11) is tables
    assert sorted(set(tables.places.tolist())) == list(range(PLACES))
    assert TRIBOLO_FEATURES == CODES * PLACES * 3 == 5625


def rotated(state, k):
    """The position with every seat's cells given to the seat ``k`` after it (and the turn)."""
    rows = ["".join(SYMBOLS[(o + k) % 3 if o < 3 else o] for o in state.board[y * state.game.width:(y + 1) * state.game.width])
            for y in range(state.game.height)]
    return state.game.state_from_board(rows, (state.to_move + k) % 3)


def test_the_features_of_a_seat_are_those_of_its_seat_on_the_rotated_board():
    for state in random_positions(TINY, 20, seed=5) + random_positions({}, 10, seed=6):
        indices = tribolo_window_indices(state)
        for k in (1, 2):
            turned = tribolo_window_indices(rotated(state, k))
            for seat in range(3):
                assert np.array_equal(indices[seat], turned[(seat + k) % 3])


def test_a_finished_game_has_no_features():
    state = random_positions(TINY, 1)[0]
    while not state.is_terminal():
        state.apply(state.legal_actions(state.to_move)[0])
    with pytest.raises(ValueError, match="a finished game has no n-tuple features"):
        tribolo_window_indices(state)


@pytest.mark.parametrize("returns", ["win_loss", "cell_share"])
def test_each_seats_value_is_its_expected_return_from_its_own_view(returns):
    """Three values, each the seat's predicted result mapped into the returns range:
    zero weights give the range's middle; a weight on one seat's feature moves that
    seat's value only."""
    game = load_game("tribolo", returns=returns)
    low, high = game.returns_bounds
    features = ntuple_features(game)
    state = random_positions({"returns": returns}, 12, seed=2)[-1]
    assert np.allclose(NTupleEvaluation(np.zeros(TRIBOLO_FEATURES), features)(state), [(low + high) / 2] * 3)
    indices = tribolo_window_indices(state)
    weights = np.zeros(TRIBOLO_FEATURES)
    feature = next(f for f in indices[1] if f not in indices[0] and f not in indices[2])
    weights[feature] = 1.5
    evaluation = NTupleEvaluation(weights, features)
    values = evaluation(state)
    p = 1 / (1 + np.exp(-1.5 * int((indices[1] == feature).sum())))
    assert values[1] == pytest.approx(low + (high - low) * p) and low < values[1] < high
    assert values[0] == values[2] == pytest.approx((low + high) / 2)
    assert evaluation.win_probability(state, 1) == pytest.approx(p)


def test_paranoid_is_the_search_and_reads_the_searchers_value():
    game = load_game("tribolo", **TINY)
    assert lookup(ntuple_features(game).search, game) is ParanoidPolicy
    state = random_positions(TINY, 6, seed=3)[-1]
    weights = np.random.default_rng(0).normal(scale=0.3, size=TRIBOLO_FEATURES)
    evaluation = NTupleEvaluation(weights, ntuple_features(game))
    search = ParanoidPolicy(game, 0, depth=1, time_limit=None)
    search.evaluate = evaluation
    me = state.to_move
    search.act(state.info_state(me))
    for action, value in search.root_values.items():  # depth 1: each move's value is the searcher's value after it
        child = state.clone()
        child.apply(action)
        expected = child.returns()[me] if child.is_terminal() else evaluation(child)[me]
        assert value == pytest.approx(expected)


def test_a_temperature_makes_the_searchs_exact_root_values_a_distribution(tmp_path):
    """``temperature``: the softmax of the root moves' log-odds over it (at depth 1, the
    children's evaluations, taken back through the squashing), its best move the search's."""
    game = load_game("tribolo", **TINY)
    weights = np.random.default_rng(2).normal(scale=0.3, size=TRIBOLO_FEATURES)
    path = save_ntuple(weights, tmp_path / "m.zip", game)
    evaluation = NTupleEvaluation(weights, ntuple_features(game))
    low, high = game.returns_bounds
    plain = make_from_spec(f"ntuple:{path},depth=1,time_limit=none", game)
    soft = make_from_spec(f"ntuple:{path},depth=1,time_limit=none,temperature=0.5", game)
    assert soft.search.full_root_window and not plain.search.full_root_window
    for state in random_positions(TINY, 8, seed=5):
        info = state.info_state(state.to_move)
        assert plain.distribution(info) is None
        probs = soft.distribution(info)
        legal = state.legal_actions(state.to_move)
        scores = []
        for action in legal:
            child = state.clone()
            child.apply(action)
            value = child.returns()[state.to_move] if child.is_terminal() else evaluation(child)[state.to_move]
            inside = np.clip((value - (low + high) / 2) / ((high - low) / 2), -1 + 1e-6, 1 - 1e-6)
            scores.append(2 * np.arctanh(inside) / 0.5)
        expected = np.exp(np.array(scores) - max(scores))
        np.testing.assert_allclose(probs[legal], expected / expected.sum(), rtol=1e-5, atol=1e-7)
        assert probs.sum() == pytest.approx(1.0) and probs[np.setdiff1d(np.arange(game.num_actions), legal)].sum() == 0
        assert int(np.argmax(probs)) == plain.act(info) or np.isclose(probs.max(), probs[plain.act(info)])
    for bad in ("0", "-1", "nan"):
        with pytest.raises(ValueError, match=f"parameter temperature={float(bad)}: (must be positive|expected a finite)"):
            make_from_spec(f"ntuple:{path},depth=1,temperature={bad}", game)


def test_ntuple_plays_tribolo_in_a_pettingzoo_env(tmp_path):
    game = load_game("tribolo", **TINY)
    path = save_ntuple(np.random.default_rng(1).normal(scale=0.1, size=TRIBOLO_FEATURES), tmp_path / "m.zip", game)
    assert load_ntuple(path, game)[1]["search"] == "paranoid"
    agent = make_from_spec(f"ntuple:{path},depth=2,time_limit=none", game, seed=0)
    env = tribolo_v0.env(**TINY)
    env.reset(seed=4)
    moves = 0
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = agent.act(env.unwrapped.info_state(name))
        assert observation["action_mask"][action] == 1
        env.step(action)
        moves += 1
    assert moves > 0
    with pytest.raises(ValueError, match="was trained for 'tribolo'"):
        make_from_spec(f"ntuple:{path}", load_game("double_card"))


def test_a_game_records_a_chain_per_seat_with_its_result():
    game = load_game("tribolo", **TINY)
    chains = record_game(game, None, depth=1, opening=2, seed=3)
    assert len(chains) == 3
    lengths = {len(positions) for positions, _ in chains}
    assert len(lengths) == 1 and all(positions.shape[1] == window_tables(6, 5).windows for positions, _ in chains)
    results = [result for _, result in chains]
    assert all(0 <= r <= 1 for r in results) and sum(results) == pytest.approx(1.5)  # win_loss is zero-sum: mean 1/2
    again = record_game(game, None, depth=1, opening=2, seed=3)
    assert all(np.array_equal(a, b) and r == s for (a, r), (b, s) in zip(chains, again))
    other = record_game(game, None, depth=1, opening=2, seed=4)
    assert not all(len(a) == len(b) and np.array_equal(a, b) for (a, _), (b, _) in zip(chains, other))
