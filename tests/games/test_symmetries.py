"""The games' symmetries commute with their rules: a mirrored (or, on a square Tribolo
board, turned) position has the mirrored legal moves, observations, next positions
and returns.  Checked on random positions of several board shapes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.games import GAMES, load_game

SHAPES = [{}, {"width": 6, "height": 6, "walls": 3, "start_cells": 3}, {"width": 7, "height": 5, "walls": 2, "start_cells": 2}]


def mirrored(state, symmetry):
    """The symmetric Tribolo position, built from the board text moved cell by cell."""
    head, *rows = state.to_text().splitlines()
    grid = np.array([list(row) for row in rows])
    moved = ["".join(row) for row in symmetry.transform(grid)]
    return state.game.state_from_board(moved, state.to_move if state.to_move >= 0 else None)


def test_which_games_have_symmetries():
    counts = {name: len(load_game(name).symmetries()) for name in GAMES}
    assert counts == {"double_card": 0, "goofspiel": 0, "sticks": 0, "tides_of_time": 0, "tribolo": 3}
    square = load_game("tribolo", **SHAPES[1]).symmetries()
    assert len(square) == 7 and len({s.name for s in square}) == 7
    for symmetry in square:  # each a permutation of the cells
        assert sorted(symmetry.actions) == list(range(36))


@pytest.mark.parametrize("options", SHAPES)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 40))
def test_tribolo_rules_commute_with_its_symmetries(options, seed, plies):
    game = load_game("tribolo", **options)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    for _ in range(plies):
        if state.is_terminal():
            break
        (seat,) = state.current_players()
        legal = state.legal_actions(seat)
        state.apply(legal[int(rng.integers(len(legal)))])
    for symmetry in game.symmetries():
        image = mirrored(state, symmetry)
        assert image.current_players() == state.current_players() and image.counts() == state.counts()
        for seat in range(3):
            assert np.array_equal(image.observation_tensor(seat), symmetry.observations(state.observation_tensor(seat)))
            assert np.array_equal(image.legal_mask(seat), symmetry.over_actions(state.legal_mask(seat)))
        if state.is_terminal():
            assert np.array_equal(image.returns(), state.returns())
            continue
        (seat,) = state.current_players()
        move = state.legal_actions(seat)[int(rng.integers(len(state.legal_actions(seat))))]
        after, image_after = state.clone(), image.clone()
        after.apply(move)
        image_after.apply(int(symmetry.actions[move]))
        assert image_after.to_text() == mirrored(after, symmetry).to_text()
