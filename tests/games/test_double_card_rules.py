"""Double Card rules: every test vector of the rules specification the game was built
from (its rules are documented in docs/double_card.md), recycling, the move limit,
notation, the board's bitboards and bad input."""

import numpy as np
import pytest
from helpers import DOUBLE_CARD_SETUP_24

from parlour.errors import IllegalActionError
from parlour.games.double_card import (
    CELLS,
    EMPTY,
    NUM_ACTIONS,
    PICK_BASE,
    R_DOT,
    R_RING,
    W_DOT,
    W_RING,
    DoubleCardGame,
    parse_notation,
)

# DOUBLE_CARD_SETUP_24: player_0 to recycle.  Legal takes: D1-D2, B4-B5, C8-C9, G8-G9,
# E9-E10; A9-A10 was moved last.
# A pyramid: every card but the last (D12-E12) has a card on top of it.
PYRAMID_24 = [
    "0 6 A 1", "0 8 B 1", "0 4 C 1", "0 2 D 1", "0 2 E 1", "0 6 F 1", "0 4 G 1", "0 2 H 1",
    "0 7 A 3", "0 1 C 3", "0 5 E 3", "0 5 G 3", "0 3 B 4", "0 3 D 4", "0 7 F 4", "0 1 C 5",
    "0 7 E 5", "0 1 D 6", "0 4 D 7", "0 2 E 7", "0 5 D 9", "0 6 D 10", "0 4 E 10", "0 3 D 12",
]
# 24 moves after which G5-G6 can be moved to G5-H5 (one cell shared, other direction).
OVERLAP_24 = [
    "0 8 G 1", "0 6 C 1", "0 4 D 1", "0 1 E 1", "0 5 E 2", "0 2 A 1", "0 8 A 3", "0 2 G 3",
    "0 1 D 3", "0 8 C 3", "0 1 D 4", "0 6 C 5", "0 8 A 5", "0 3 D 5", "0 3 D 6", "0 7 D 7",
    "0 5 D 8", "0 8 B 1", "0 2 H 1", "0 8 E 9", "0 6 H 3", "0 4 C 7", "0 4 G 5", "0 2 C 9",
]


def texts(state):
    return [state.action_to_text(a) for a in state.legal_actions(state.to_move)]


def start(moves, **config):
    return DoubleCardGame(**config).new_initial_state(moves=moves)


# --- the specification's test vectors -----------------------------------------------------


def test_vector_1_empty_board_has_60_moves():
    state = DoubleCardGame().new_initial_state()
    assert len(state.legal_actions(0)) == 60 == 7 * 4 + 8 * 4
    assert state.legal_actions(1) == []


def test_vector_2_after_0_1_A_1_there_are_56_moves():
    state = start(["0 1 A 1"])
    assert len(state.legal_actions(1)) == 56


@pytest.mark.parametrize("move", ["0 1 B 2", "0 5 H 1", "0 2 A 12"])
def test_vector_3_hanging_and_off_board_moves_are_illegal(move):
    state = start(["0 5 A 1"])
    action = state.text_to_action(move)
    assert action not in state.legal_actions(1)
    before = state.to_text()
    with pytest.raises(IllegalActionError, match="hang|off the board"):
        state.apply(action)
    assert state.to_text() == before


def test_vector_4_both_kinds_of_line_the_mover_wins():
    state = start(["0 4 A 1", "0 4 B 1", "0 4 C 1"])
    state.play("0 4 D 1")
    assert state.lines() == (True, True)
    assert state.is_terminal() and state.winner == 1
    assert state.returns().tolist() == [-1.0, 1.0]


def test_vector_4_mover_wins_whatever_the_objectives():
    state = start(["0 4 A 1", "0 4 B 1", "0 4 C 1", "0 4 D 1"], first_player="dots")
    assert state.winner == 1


def test_vector_5_a_line_completed_for_the_opponent_makes_the_opponent_win():
    state = start(["0 4 A 1", "0 8 B 1", "0 4 C 1", "0 8 D 1"])
    assert state.lines() == (True, False)
    assert state.winner == 0  # player_0 plays colors; player_1 made the move
    state = start(["0 4 A 1", "0 8 B 1", "0 4 C 1", "0 8 D 1"], first_player="dots")
    assert state.winner == 1


def test_dot_line_wins_for_dots():
    # row 1 R* W* R* W*: filled dots, colours alternate
    state = start(["0 4 A 1", "0 6 B 1", "0 4 C 1", "0 6 D 1"])
    assert state.lines() == (False, True) and state.winner == 1


def test_diagonal_colour_line():
    # A1 R*, B2 R*, C3 R*, D4 Ro: four reds on a diagonal, dots not all alike
    state = start(["0 4 A 1", "0 2 B 1", "0 2 C 1", "0 4 C 3", "0 6 D 1"])
    assert not state.is_terminal()
    state.play("0 6 D 3")
    assert state.lines() == (True, False)
    assert state.winner == 0  # colors (player_0), though player_1 moved


def test_anti_diagonal_dot_line():
    # H1 W*, G2 R*, F3 R*, E4 W*: four filled dots, colours mixed
    state = start(["0 6 H 1", "0 2 G 1", "0 4 F 1", "0 4 F 3", "0 6 E 1"])
    assert not state.is_terminal()
    state.play("0 8 E 3")
    assert state.lines() == (False, True)
    assert state.winner == 1  # dots (player_1)


# --- recycling ----------------------------------------------------------------------------


def test_recycling_starts_after_24_cards():
    state = start(DOUBLE_CARD_SETUP_24)
    assert state.phase == "pick" and state.cards == 24 and state.moves == 24
    assert texts(state) == ["D 1 D 2", "B 4 B 5", "C 8 C 9", "G 8 G 9", "E 9 E 10"]
    assert all(a >= PICK_BASE for a in state.legal_actions(0))


def test_last_moved_card_cannot_be_taken():
    state = start(DOUBLE_CARD_SETUP_24)
    action = state.text_to_action("A 9 A 10")
    with pytest.raises(IllegalActionError, match="last move"):
        state.apply(action)


def test_taking_a_supporting_card_is_illegal():
    state = start(DOUBLE_CARD_SETUP_24)
    action = state.text_to_action("E 1 E 2")  # E3-E4 rests on it
    with pytest.raises(IllegalActionError, match="hanging"):
        state.apply(action)


def test_cells_that_are_not_one_card():
    state = start(DOUBLE_CARD_SETUP_24)
    with pytest.raises(ValueError, match="do not hold one card"):
        state.text_to_action("D 2 D 3")


def test_recycling_is_two_sub_steps_by_the_same_seat_and_one_move():
    state = start(DOUBLE_CARD_SETUP_24)
    state.apply(state.text_to_action("D 1 D 2"))
    assert state.phase == "place" and state.to_move == 0 and state.moves == 24 and state.cards == 23
    assert all(a < PICK_BASE for a in state.legal_actions(0))
    state.apply(state.text_to_action("D 1 D 2 4 F 1"))
    assert state.moves == 25 and state.to_move == 1 and state.cards == 24
    assert state.last == state.text_to_action("F 1 F 2") - PICK_BASE


def test_place_text_is_the_whole_recycling_move():
    state = start(DOUBLE_CARD_SETUP_24)
    state.apply(state.text_to_action("G 8 G 9"))
    action = state.text_to_action("4 F 1")
    assert state.action_to_text(action) == "G 8 G 9 4 F 1"
    assert state.text_to_action("G 9 G 8 4 F 1") == action  # either order of the cells


@pytest.mark.parametrize(
    "rule, same_face_ok, other_face_ok",
    [("same_cells", False, False), ("same_placement", False, True), ("none", True, True)],
)
def test_recycle_rule_same_cells_and_alternatives(rule, same_face_ok, other_face_ok):
    state = start(DOUBLE_CARD_SETUP_24, recycle_rule=rule)
    state.apply(state.text_to_action("E 9 E 10"))  # W* under Ro: placement 6
    assert state.taken == (8 * 8 + 4, 6)
    legal = state.legal_actions(0)
    assert (state.text_to_action("6 E 9") in legal) == same_face_ok
    assert (state.text_to_action("2 E 9") in legal) == other_face_ok
    assert state.text_to_action("8 E 9") in legal or rule == "same_cells"
    if not same_face_ok:
        with pytest.raises(IllegalActionError, match="recycle_rule"):
            state.apply(state.text_to_action("6 E 9"))


def test_recycled_card_may_overlap_one_of_its_cells_in_another_direction():
    state = start(OVERLAP_24)
    state.apply(state.text_to_action("G 5 G 6"))
    action = state.text_to_action("1 G 5")
    assert action in state.legal_actions(state.to_move)
    state.apply(action)
    assert not state.is_terminal() and state.moves == 25


def test_recycling_move_that_wins():
    state = start(DOUBLE_CARD_SETUP_24)
    state.play("D 1 D 2 2 F 1")
    assert state.winner == 0 and state.returns().tolist() == [1.0, -1.0]


def test_recycling_move_that_completes_the_opponents_line():
    state = start(DOUBLE_CARD_SETUP_24)
    state.play("B 4 B 5 4 F 1")
    assert state.winner == 1


def test_position_without_legal_recycling_move_is_a_draw():
    state = start(PYRAMID_24[:-1])
    assert not state.is_terminal()
    state.play(PYRAMID_24[-1])
    assert state.is_terminal() and state.winner == 2
    assert state.returns().tolist() == [0.0, 0.0]
    probe = state.clone()
    probe.winner = -1
    assert probe.legal_actions(probe.to_move) == []  # the only free card is D12-E12, moved last
    assert probe.pick_error(state.last) == "that card was the opponent's last move and may not be taken"
    assert "hanging" in probe.pick_error(probe.text_to_action("A 1 A 2") - PICK_BASE)


def _quiet_game(config, seed):
    """Moves that never end the game, while possible, until it ends."""
    rng = np.random.default_rng(seed)
    state = DoubleCardGame(**config).new_initial_state()
    while not state.is_terminal():
        legal = list(state.legal_actions(state.to_move))
        rng.shuffle(legal)
        for action in legal:
            child = state.clone()
            child.apply(action)
            if not child.is_terminal() or child.winner == 2:
                break
        state = child
    return state


@pytest.mark.parametrize("max_moves", [40, 60])
def test_draw_at_the_move_limit(max_moves):
    state = _quiet_game({"max_moves": max_moves}, 3)
    assert state.winner == 2 and state.moves == max_moves
    assert state.returns().tolist() == [0.0, 0.0]


def test_a_win_on_the_last_move_counts():
    state = start(DOUBLE_CARD_SETUP_24, max_moves=25)
    state.play("D 1 D 2 2 F 1")
    assert state.winner == 0
    state = start(DOUBLE_CARD_SETUP_24, max_moves=25)
    state.play("D 1 D 2 4 F 1")
    assert state.winner == 2


def test_max_game_length_counts_sub_steps():
    assert DoubleCardGame().info.max_game_length == 40 + 16
    assert DoubleCardGame(max_moves=60).info.max_game_length == 96
    assert DoubleCardGame().num_actions == NUM_ACTIONS == 8 * CELLS + CELLS


# --- notation and bad input ---------------------------------------------------------------


def test_notation_round_trip():
    state = DoubleCardGame().new_initial_state()
    for action in state.legal_actions(0):
        assert state.text_to_action(state.action_to_text(action)) == action
    assert state.action_to_text(state.text_to_action("0 5 A 2")) == "0 5 A 2"
    assert state.text_to_action("0 5 a 2") == state.text_to_action("0  5  A  2")


@pytest.mark.parametrize("text", ["", "0 9 A 1", "0 5 I 1", "0 5 A 13", "1 5 A 2", "05A2", "F 2 F 3 3 A", "x", "0 0 A 1"])
def test_malformed_notation_is_a_clear_error(text):
    state = DoubleCardGame().new_initial_state()
    with pytest.raises(ValueError, match="malformed move|expected"):
        state.text_to_action(text)


def test_non_string_notation():
    with pytest.raises(ValueError, match="string"):
        parse_notation(5)


def test_move_in_the_wrong_phase_is_a_clear_error():
    state = DoubleCardGame().new_initial_state()
    with pytest.raises(ValueError, match="only 0 of 24 cards"):
        state.text_to_action("F 2 F 3 3 A 2")
    with pytest.raises(IllegalActionError, match="only allowed when recycling"):
        state.apply(PICK_BASE)
    late = start(DOUBLE_CARD_SETUP_24)
    with pytest.raises(ValueError, match="all 24 cards are on the board"):
        late.text_to_action("0 5 A 2")
    with pytest.raises(IllegalActionError, match="recycling move starts by taking"):
        late.apply(0)
    late.apply(late.text_to_action("D 1 D 2"))
    with pytest.raises(ValueError, match="already taken"):
        late.text_to_action("B 4 B 5")
    with pytest.raises(ValueError, match="came from D 1 D 2"):
        late.text_to_action("B 4 B 5 2 F 1")


def test_play_is_atomic_for_recycling_moves():
    state = start(DOUBLE_CARD_SETUP_24)
    before = state.to_text()
    with pytest.raises(ValueError):
        state.play("D 1 D 2 2 A 12")
    assert state.to_text() == before and state.phase == "pick"


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 1.5, "3", True])
def test_bad_action_values(action):
    state = DoubleCardGame().new_initial_state()
    with pytest.raises(IllegalActionError):
        state.apply(action)


def test_game_over_rejects_moves():
    state = start(["0 4 A 1", "0 4 B 1", "0 4 C 1", "0 4 D 1"])
    with pytest.raises(IllegalActionError, match="over"):
        state.apply(0)
    with pytest.raises(ValueError, match="over"):
        state.text_to_action("0 1 A 5")


@pytest.mark.parametrize(
    "config, message",
    [
        ({"max_moves": 0}, "max_moves"),
        ({"max_moves": "40"}, "max_moves"),
        ({"recycle_rule": "cells"}, "recycle_rule"),
        ({"first_player": "red"}, "first_player"),
        ({"colour": 1}, "unknown option"),
    ],
)
def test_bad_options(config, message):
    with pytest.raises(ValueError, match=message):
        DoubleCardGame(**config)


def test_bad_start_moves():
    game = DoubleCardGame()
    with pytest.raises(ValueError, match=r"moves\[1\]"):
        game.new_initial_state(moves=["0 5 A 1", "0 1 B 2"])
    with pytest.raises(ValueError, match="list of moves"):
        game.new_initial_state(moves="0 5 A 1")
    with pytest.raises(ValueError, match="unknown start option"):
        game.new_initial_state(position="x")


# --- card identity, text form -------------------------------------------------------------


def test_card_identity_and_last_card():
    state = start(["0 1 A 1", "0 2 C 1"])
    assert state.card_cells() == [(0, 1), (2, 10)]
    assert state.partner(1) == 0 and state.partner(10) == 2 and state.partner(3) == -1
    assert state.last == 2 and state.placement_of(0) == 1 and state.placement_of(2) == 2


def test_text_form_example_parses_back():
    state = start(DOUBLE_CARD_SETUP_24)
    state.apply(state.text_to_action("D 1 D 2"))
    text = state.to_text()
    assert text.splitlines()[0] == (
        "double_card | move 24/40 | player_0 colors | player_0 to place the card taken from D 1 (placement 6) | last A 9 A 10"
    )
    again = DoubleCardGame().state_from_text(text)
    assert again.to_text() == text and again.key() == state.key()
    assert again.legal_actions(0) == state.legal_actions(0)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda t: t.replace("move 24/40", "move 24/60"), "max_moves"),
        (lambda t: t.replace("player_0 colors", "player_0 dots"), "first_player"),
        (lambda t: t.replace(" 1 Wo^", " 1 Wo>", 1), "face|overlap|belong"),
        (lambda t: t.replace("R*", "Rx", 1), "malformed cell"),
        (lambda t: "\n".join(t.splitlines()[:-1]), "lines"),
        (lambda t: t.replace("player_0 to move", "player_1 to move"), "to move"),
        (lambda t: t.replace("last A 9 A 10", "last B 9 B 10"), "last moved"),
        (lambda t: t.replace("double_card |", "double card |"), "header"),
    ],
)
def test_bad_text_is_a_clear_error(mutate, message):
    text = start(DOUBLE_CARD_SETUP_24).to_text()
    with pytest.raises(ValueError, match=message):
        DoubleCardGame().state_from_text(mutate(text))


def test_hanging_text_rejected():
    state = start(["0 1 A 1"])
    lines = state.to_text().splitlines()
    lines[-2], lines[-3] = lines[-3], lines[-2]  # swap rows 1 and 2 contents
    lines[-2] = " 1" + lines[-2][2:]
    lines[-3] = " 2" + lines[-3][2:]
    with pytest.raises(ValueError, match="hanging"):
        DoubleCardGame().state_from_text("\n".join(lines))


def test_placement_error_says_why_and_agrees_with_legal_actions():
    state = start(["0 5 A 1"])  # A1 Ro, B1 W*
    assert state.placement_error(1, 0) == "cell A 1 is occupied"
    assert state.placement_error(1, 9) == "cell C 2 would hang over the empty C 1"
    assert state.placement_error(1, 7) == "its right cell would be off the board (column H is the last)"
    assert state.placement_error(2, 88) == "its top cell would be off the board (row 12 is the last)"
    assert state.placement_error(2, 16) == "cell A 3 would hang over the empty A 2"
    assert state.placement_error(1, 8) is None
    recycling = start(DOUBLE_CARD_SETUP_24)
    recycling.apply(recycling.text_to_action("E 9 E 10"))
    assert "recycle_rule=same_cells" in recycling.placement_error(2, 8 * 8 + 4)
    for position in (state, start(DOUBLE_CARD_SETUP_24[:20]), recycling):
        legal = [a for a in range(PICK_BASE) if position.placement_error(a // CELLS + 1, a % CELLS) is None]
        assert legal == position.legal_actions(position.to_move)


def test_bitboards_heights_and_surface_follow_the_board():
    # row 1: Ro W* (A1 B1, placement 5); C1-C2: Wo under R* (placement 2); D1: empty
    state = start(["0 5 A 1", "0 2 C 1"])
    assert state.seg[:4] == [R_RING, W_DOT, W_RING, EMPTY] and state.seg[8 + 2] == R_DOT
    assert state.occ == 0b111 | 1 << 10
    assert state.red == 0b001 | 1 << 10 and state.filled == 0b010 | 1 << 10
    assert state.hanch == 1 and state.vanch == 1 << 2 and state.cards == 2
    assert state.heights == [1, 1, 2, 0, 0, 0, 0, 0]
    assert state.surface == 1 << 8 | 1 << 9 | 1 << 18 | 0b11111000
    state.play("0 1 A 2")
    assert state.heights[:3] == [2, 2, 2] and state.cards == 3


def _planes_by_cell(state, player):
    """The observation written cell by cell from the segments and the cards."""
    obs = np.zeros((12, 96), dtype=np.float32)
    for cell, code in enumerate(state.seg):
        obs[0, cell] = code in (R_DOT, R_RING)
        obs[1, cell] = code in (W_DOT, W_RING)
        obs[2, cell] = code in (R_DOT, W_DOT)
        obs[3, cell] = code in (R_RING, W_RING)
    for anchor, other in state.card_cells():
        obs[4 if other == anchor + 1 else 5, anchor] = 1
    if state.last >= 0:
        obs[6, [state.last, state.partner(state.last)]] = 1
    if state.taken is not None:
        anchor, p = state.taken
        obs[7, [anchor, anchor + 1 if p % 2 else anchor + 8]] = 1
        obs[9] = 1
    obs[8] = player == state.game.colors_seat
    obs[10] = state.cards == 24 or state.taken is not None
    obs[11] = state.moves / state.game.max_moves
    return obs.reshape(12, 12, 8)


def test_observation_planes():
    taken = start(DOUBLE_CARD_SETUP_24, first_player="dots")
    taken.apply(taken.text_to_action("D 1 D 2"))
    for state in (DoubleCardGame().new_initial_state(), start(["0 5 A 1", "0 2 C 1"]), start(DOUBLE_CARD_SETUP_24), taken):
        for player in (0, 1):
            obs = state.observation_tensor(player)
            assert obs.dtype == np.float32 and obs.shape == (12, 12, 8)
            assert np.array_equal(obs, _planes_by_cell(state, player))


def test_a_bad_observation_is_refused_by_name():
    """``state_from_observation`` takes only the observation and mask of the seat to move."""
    game = DoubleCardGame()
    state = game.new_initial_state(moves=["0 2 D 1", "0 5 E 1"])
    obs, mask = state.observation_tensor(0), state.legal_mask(0)
    assert game.state_from_observation(obs, mask).key() == state.key()
    with pytest.raises(ValueError, match=r"observation has shape \(12, 12, 8\), got \(12, 96\)"):
        game.state_from_observation(obs.reshape(12, 96), mask)
    with pytest.raises(ValueError, match=r"legal mask has shape \(864,\), got \(10,\)"):
        game.state_from_observation(obs, mask[:10])
    with pytest.raises(ValueError, match="allows no move"):
        game.state_from_observation(state.observation_tensor(1), state.legal_mask(1))
    with pytest.raises(ValueError, match="not those of a double_card position where the observing seat moves"):
        game.state_from_observation(state.observation_tensor(1), mask)  # the other seat's planes
    hanging = obs.copy()
    hanging[0, 5, 0] = hanging[2, 5, 0] = 1  # a red dot in mid-air, on no card
    with pytest.raises(ValueError, match="not those of a double_card position"):
        game.state_from_observation(hanging, mask)
    with pytest.raises(NotImplementedError, match="goofspiel's observation does not determine its position"):
        __import__("parlour.games", fromlist=["load_game"]).load_game("goofspiel").state_from_observation(obs, mask)
