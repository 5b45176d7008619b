"""Double Card invariants under hypothesis: over random playouts of every configuration,
at most 24 cards, every card's two cells adjacent and consistent with the faces, no
hanging segment, the incremental win check agrees with a full-board scan (the protocol
itself, text round trips and clones included, is checked by test_conformance.py)."""

import numpy as np
from helpers import quiet_action, random_action, random_playout
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.games.double_card import (
    CARDS,
    COLS,
    PLACEMENTS,
    ROWS,
    DoubleCardGame,
)

configs = st.fixed_dictionaries(
    {
        "max_moves": st.sampled_from([40, 60, 30]),
        "recycle_rule": st.sampled_from(["same_cells", "same_placement", "none"]),
        "first_player": st.sampled_from(["colors", "dots"]),
    }
)


def playout(game, seed, quiet):
    """Every state of one random game; ``quiet``: avoid moves that end it, to reach recycling."""
    return random_playout(game.new_initial_state(), np.random.default_rng(seed), choose=quiet_action if quiet else random_action)


def check_board(state):
    assert state.cards <= CARDS
    cells = state.card_cells()
    assert len(cells) == state.cards
    covered = set()
    for anchor, other in cells:
        assert other in (anchor + 1, anchor + COLS)
        if other == anchor + 1:
            assert anchor % COLS != COLS - 1  # adjacent in one row
        assert not {anchor, other} & covered
        covered |= {anchor, other}
        horizontal, a_seg, o_seg = PLACEMENTS[state.placement_of(anchor)]
        assert horizontal == (other == anchor + 1)
        assert (state.seg[anchor], state.seg[other]) == (a_seg, o_seg)
        assert state.partner(anchor) == other and state.partner(other) == anchor
    occupied = {c for c in range(ROWS * COLS) if state.seg[c]}
    assert occupied == covered
    for cell in occupied:  # no hanging segment
        assert cell < COLS or cell - COLS in occupied
    for col in range(COLS):
        assert state.heights[col] == sum(1 for r in range(ROWS) if r * COLS + col in occupied)


@settings(max_examples=60, deadline=None)
@given(configs, st.integers(0, 2**32 - 1), st.booleans())
def test_invariants(config, seed, quiet):
    game = DoubleCardGame(**config)
    for state in playout(game, seed, quiet):
        check_board(state)
        colour, dot = state.lines()
        assert (colour or dot) == (0 <= state.winner <= 1)
        if not state.is_terminal():
            assert state.to_move == state.moves % 2
        assert state.moves <= game.max_moves
    assert state.is_terminal()
    assert set(state.returns().tolist()) <= {-1.0, 0.0, 1.0}


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_recycling_takes_are_exactly_the_free_cards(seed):
    """A take is legal iff the card is not the last moved and nothing rests on it, and a
    taken card always has somewhere to go."""
    game = DoubleCardGame(max_moves=60)
    for state in playout(game, seed, True):
        if state.phase == "pick":
            free = []
            for anchor, other in state.card_cells():
                above = [c + COLS for c in (anchor, other) if c + COLS not in (anchor, other) and c + COLS < ROWS * COLS]
                if anchor != state.last and not any(state.seg[c] for c in above):
                    free.append(768 + anchor)
            assert state.legal_actions(state.to_move) == free
            for action in free:
                child = state.clone()
                child.apply(action)
                assert child.legal_actions(child.to_move)


@settings(max_examples=40, deadline=None)
@given(configs, st.integers(0, 2**32 - 1), st.booleans())
def test_the_observation_of_the_seat_to_move_gives_back_the_position(config, seed, quiet):
    """``state_from_observation`` inverts the observation (with the legal mask) at every
    position of a game, recycling included; the recycled card's placement, which the
    planes leave out, comes back where the rules read it (``same_placement``)."""
    game = DoubleCardGame(**config)
    for state in playout(game, seed, quiet):
        if state.is_terminal():
            continue
        seat = state.to_move
        back = game.state_from_observation(state.observation_tensor(seat), state.legal_mask(seat))
        assert back.legal_actions(seat) == state.legal_actions(seat)
        if state.taken is not None and config["recycle_rule"] != "same_placement":
            assert back.taken[0] == state.taken[0]
            assert back.key()[:-1] == state.key()[:-1]
        else:
            assert back.key() == state.key() and back.to_text() == state.to_text()
