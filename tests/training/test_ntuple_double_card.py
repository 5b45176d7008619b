"""Double Card's ``reach`` n-tuple features: against the board read cell by cell, shared
under the rules' three symmetries (the mirror, red for white, filled for empty), the
threat tuple, the fast logit the search calls, and how a model of the earlier
``windows`` set keeps playing (the runs themselves: test_ntuple.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.baselines import make_from_spec
from parlour.baselines.learned.ntuple import (
    NTUPLE_FEATURE_SETS,
    NTupleEvaluation,
    load_ntuple,
    ntuple_features,
    save_ntuple,
)
from parlour.baselines.players.double_card import WINDOW_FEATURES
from parlour.baselines.players.double_card_ntuple import (
    CLASS_OF,
    CODES,
    ORIENTATIONS,
    REACH_FEATURES,
    SYMBOLS,
    THREAT_COUNTS,
    WINDOW_CELLS,
    WINDOW_CLASSES,
    WINDOW_ORIENTATION,
    ReachLogit,
    orbit,
    reach_indices,
)
from parlour.games import load_game
from parlour.games.double_card import (
    COLS,
    R_DOT,
    R_RING,
    ROWS,
    W_DOT,
    W_RING,
    DoubleCardState,
)
from parlour.training.config import saved_config

GAME = load_game("double_card")


def random_position(seed, plies=None, whole_moves=False):
    """A position of a random game with someone to move (``plies`` random moves, or a
    random number of them); with ``whole_moves``, never between a recycling move's two
    sub-steps (a card taken and not yet placed)."""
    rng = np.random.default_rng(seed)
    while True:
        state = GAME.new_initial_state()
        for _ in range(int(rng.integers(0, 30)) if plies is None else plies):
            (seat,) = state.current_players()
            legal = state.legal_actions(seat)
            state.apply(legal[int(rng.integers(len(legal)))])
            if state.is_terminal():
                break
        while whole_moves and state.taken is not None and not state.is_terminal():
            (seat,) = state.current_players()
            legal = state.legal_actions(seat)
            state.apply(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal():
            return state


def naive_indices(state):
    """The features read cell by cell: each window's symbols (a segment, or an empty
    cell's height above its column's top segment: 0, 1, 2+), its class found by trying
    the symmetries, who moves; and the threat tuple counted window by window."""
    heights = [sum(1 for row in range(ROWS) if state.seg[row * COLS + col]) for col in range(COLS)]

    def symbol(cell):
        row, col = divmod(cell, COLS)
        return state.seg[cell] or (0, 5, 6)[min(row - heights[col], 2)]

    colours_to_move = state.to_move == GAME.colors_seat
    indices, colour_threats, dot_threats = [], 0, 0
    for cells, orientation in zip(WINDOW_CELLS.tolist(), WINDOW_ORIENTATION.tolist()):
        symbols = [symbol(cell) for cell in cells]
        code = sum(s * SYMBOLS ** (3 - k) for k, s in enumerate(symbols))
        indices.append(CLASS_OF[orientation, code] + WINDOW_CLASSES * colours_to_move)
        held = [s for s in symbols if 1 <= s <= 4]
        if len(held) == 3 and any(s in (0, 5) for s in symbols):
            colour_threats += len({s in (R_DOT, R_RING) for s in held}) == 1
            dot_threats += len({s in (R_DOT, W_DOT) for s in held}) == 1
    colour, dot = min(colour_threats, 3), min(dot_threats, 3)
    indices.append(2 * WINDOW_CLASSES + 2 * (THREAT_COUNTS * colour + dot) + colours_to_move)
    return np.array(indices)


def transformed(state, mirror=False, colours=False, dots=False):
    """The position under the rules' symmetries: the board mirrored left to right, red
    and white swapped, filled and empty dots swapped (the same game, the same result)."""
    swap = {0: 0, R_DOT: R_DOT, R_RING: R_RING, W_DOT: W_DOT, W_RING: W_RING}
    if colours:
        swap = {k: {R_DOT: W_DOT, W_DOT: R_DOT, R_RING: W_RING, W_RING: R_RING}.get(v, v) for k, v in swap.items()}
    if dots:
        swap = {k: {R_DOT: R_RING, R_RING: R_DOT, W_DOT: W_RING, W_RING: W_DOT}.get(v, v) for k, v in swap.items()}
    seg, hanch, vanch = [0] * (ROWS * COLS), 0, 0
    for cell, value in enumerate(state.seg):
        row, col = divmod(cell, COLS)
        target = row * COLS + (COLS - 1 - col if mirror else col)
        seg[target] = swap[value]
        if state.hanch >> cell & 1:  # a horizontal card's anchor is its left cell: the mirror's is the other one
            hanch |= 1 << (target - 1 if mirror else target)
        if state.vanch >> cell & 1:
            vanch |= 1 << target
    return DoubleCardState.from_board(GAME, seg, hanch, vanch, moves=state.moves, to_move=state.to_move)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_reach_indices_are_the_board_read_cell_by_cell(seed):
    state = random_position(seed)
    indices = reach_indices(state)
    assert indices.shape == (1, len(WINDOW_CELLS) + 1) and 0 <= indices.min() and indices.max() < REACH_FEATURES
    assert np.array_equal(indices[0], naive_indices(state))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.booleans(), st.booleans(), st.booleans())
def test_positions_the_symmetries_relate_have_the_same_features(seed, mirror, colours, dots):
    """The mirror, the colour swap and the dot swap give the same multiset of weight
    indices, so the same value under any weights (and the transformed position is a
    position of the game: its text round-trips). Whole moves only: ``transformed`` does
    not carry a taken card over."""
    state = random_position(seed, whole_moves=True)
    other = transformed(state, mirror, colours, dots)
    assert GAME.state_from_text(other.to_text()).to_text() == other.to_text()
    assert sorted(reach_indices(other)[0]) == sorted(reach_indices(state)[0])


def test_window_classes_are_the_orbits_of_the_symmetries():
    assert len(WINDOW_CELLS) == 222 and [int((WINDOW_ORIENTATION == o).sum()) for o in range(3)] == [12 * 5, 8 * 9, 2 * 9 * 5]
    for o, name in enumerate(ORIENTATIONS):
        members = {}
        for code in range(CODES):
            members.setdefault(int(CLASS_OF[o, code]), set()).add(code)
        for codes in members.values():
            assert orbit(min(codes), name) == codes  # a class is exactly one orbit
    # a row's window read backwards is its mirror; a column's is not
    code = (R_DOT * SYMBOLS + 5) * SYMBOLS**2
    backwards = 5 * SYMBOLS + R_DOT
    assert CLASS_OF[0, code] == CLASS_OF[0, backwards] and CLASS_OF[1, code] != CLASS_OF[1, backwards]
    assert REACH_FEATURES == 2 * WINDOW_CLASSES + 32


def test_the_fast_logit_is_the_sum_of_the_weights_of_the_indices():
    weights = np.random.default_rng(0).normal(size=REACH_FEATURES)
    logit = ReachLogit(weights)
    evaluation = NTupleEvaluation(weights, ntuple_features(GAME, "reach"))
    for seed in range(30):
        state = random_position(seed)
        expected = weights[reach_indices(state)[0]].sum()
        assert logit(state) == pytest.approx(expected, abs=1e-9)
        value = np.tanh(expected / 2)
        assert evaluation(state)[GAME.colors_seat] == pytest.approx(value) and evaluation.logit(state) == pytest.approx(expected)
    evaluation.weights = np.zeros(REACH_FEATURES)  # new weights: the fast logit is made again
    assert np.array_equal(evaluation(state), [0.0, 0.0])
    with pytest.raises(ValueError, match="read-only"):
        evaluation.weights[0] = 1.0


def test_feature_sets_are_chosen_by_name_and_a_model_plays_with_its_own(tmp_path):
    assert list(NTUPLE_FEATURE_SETS["double_card"]) == ["reach", "windows"]
    assert ntuple_features(GAME).name == ntuple_features(GAME, "").name == "reach"
    with pytest.raises(ValueError, match="no n-tuple feature set 'edges' for double_card; its sets are \\['reach', 'windows'\\]"):
        ntuple_features(GAME, "edges")
    state = random_position(5, plies=8)
    (seat,) = state.current_players()
    for name, size in (("windows", WINDOW_FEATURES), ("reach", REACH_FEATURES)):
        path = save_ntuple(np.random.default_rng(1).normal(scale=0.1, size=size), tmp_path / f"{name}.zip", GAME, features=name)
        weights, meta = load_ntuple(path, GAME)
        assert meta["features"] == name and weights.shape == (size,)
        agent = make_from_spec(f"ntuple:{path},depth=2,time_limit=none", GAME, seed=0)
        assert agent.search.evaluate.features.name == name
        assert agent.act(state.info_state(seat)) in state.legal_actions(seat)
    with pytest.raises(ValueError, match="must be 3386 finite numbers"):
        save_ntuple(np.zeros(WINDOW_FEATURES), tmp_path / "bad.zip", GAME)


def test_a_run_written_before_feature_sets_resumes_with_windows(tmp_path):
    """A config.toml without ``ntuple.features`` ran with the only set there was."""
    path = tmp_path / "config.toml"
    path.write_text('game = "double_card"\nalgo = "ntuple"\n[ntuple]\ndepth = 1\n')
    assert saved_config(path).ntuple["features"] == "windows"
    path.write_text('game = "double_card"\nalgo = "ntuple"\n[ntuple]\nfeatures = "reach"\n')
    assert saved_config(path).ntuple["features"] == "reach"
