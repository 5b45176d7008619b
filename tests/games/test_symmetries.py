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


def double_card_mirror_placements() -> np.ndarray:
    """Double Card's left-right mirror of the placement ids (docs/training.md, AlphaZero
    section): placements 1 and 3 trade, 5 and 7 trade, vertical ones stay; a horizontal
    card's bottom-left cell goes from column ``c`` to ``6 - c``, a vertical card's to ``7 - c``."""
    cells, columns = 96, 8
    image = np.arange(8 * cells)
    for p, q in {1: 3, 3: 1, 5: 7, 7: 5, 2: 2, 4: 4, 6: 6, 8: 8}.items():
        for cell in range(cells):
            row, column = divmod(cell, columns)
            to = (6 - column if column < 7 else 7) if p % 2 else 7 - column
            image[(p - 1) * cells + cell] = (q - 1) * cells + row * columns + to
    return image


def double_card_mirror_observation(observation: np.ndarray) -> np.ndarray:
    """The columns reversed, the horizontal-anchor plane (4) moved one column left."""
    out = observation[..., ::-1].copy()
    out[4, :, :-1], out[4, :, -1] = out[4, :, 1:].copy(), 0
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_double_card_mirror_maps_placements_by_one_permutation_and_takes_by_position(seed):
    """Why Double Card claims no symmetry: its mirror maps every placement by one fixed
    permutation, but a take's image depends on whether the card taken lies flat."""
    placements = double_card_mirror_placements()
    assert sorted(placements) == list(range(768))
    game = load_game("double_card")
    rng = np.random.default_rng(seed)
    state, image = game.new_initial_state(), game.new_initial_state()
    while not state.is_terminal():
        (seat,) = state.current_players()
        mask, image_mask = state.legal_mask(seat), image.legal_mask(seat)
        for viewer in range(2):
            assert np.array_equal(image.observation_tensor(viewer), double_card_mirror_observation(state.observation_tensor(viewer)))
        legal = np.flatnonzero(mask)
        move = int(legal[rng.integers(len(legal))])
        if move < 768:
            assert np.array_equal(image_mask[:768][placements], mask[:768])
            mirrored_move = int(placements[move])
        else:  # a take: the card's bottom-left cell, one column apart for the two kinds
            row, column = divmod(move - 768, 8)
            flat = bool(state.observation_tensor(seat)[4, row, column])
            mirrored_move = 768 + row * 8 + (6 - column if flat else 7 - column)
        assert image_mask[mirrored_move]
        state.apply(move)
        image.apply(mirrored_move)
    assert image.is_terminal() and np.array_equal(image.returns(), state.returns())
