"""Tribolo rules: the rules file's test vectors, captures, skips, the end, setup, text, errors."""

import numpy as np
import pytest

from parlour.errors import IllegalActionError
from parlour.games.tribolo import TriboloGame, counts_to_returns

GAME = TriboloGame()


def cell(x: int, y: int, width: int = 16) -> int:
    return y * width + x


def board(*rows: str, width: int = 16, height: int = 11) -> list[str]:
    """Rows padded with empty cells to the board size."""
    rows = [r.ljust(width, ".") for r in rows]
    return rows + ["." * width] * (height - len(rows))


def position(*rows: str, to_move: int | None = 0, game: TriboloGame = GAME):
    return game.state_from_board(board(*rows, width=game.width, height=game.height), to_move)


# --- the rules file's test vectors ---------------------------------------------------


def test_vector_1_single_jump_ends_the_game():
    state = position("BR")
    assert state.legal_actions(0) == [cell(2, 0)]
    state.apply(cell(2, 0))
    assert state.counts() == [3, 0, 0]
    assert state.is_terminal()
    assert state.current_players() == ()
    assert list(state.returns()) == [1.0, -0.5, -0.5]


def test_vector_2_capture_then_skip():
    state = position("BR", "..BG")
    assert state.legal_actions(0) == [cell(2, 0), cell(4, 1)]
    state.apply(cell(2, 0))
    assert state.counts() == [4, 0, 1]
    assert state.current_players() == (2,)  # player_1 has no cell, so no move: skipped
    assert cell(1, 1) in state.legal_actions(2)
    state.apply(cell(1, 1))
    assert state.board[cell(2, 1)] == 2  # (2,1) captured by player_2
    assert state.counts() == [3, 0, 3]


# --- captures -------------------------------------------------------------------------


def test_two_opponents_captured_at_once_in_different_directions():
    # e = (2,2): west run R R closed by B at (0,2); north run G G closed by B at (2,0);
    # south-east run R closed by B.
    state = position("..B", "..G", "BR.R", "...R", "....B")
    # (2,2) is '.', row 2 is "BR.R": west run is R at (1,2) closed by B at (0,2).
    e = cell(2, 2)
    assert e in state.legal_actions(0)
    state.apply(e)
    for x, y in [(2, 2), (1, 2), (2, 1), (3, 3)]:
        assert state.board[cell(x, y)] == 0, (x, y)
    assert state.board[cell(3, 2)] == 1  # east: R then empty, not closed: stays red
    assert state.counts() == [7, 1, 0]


def test_long_runs_in_all_eight_directions():
    rows = [
        "B..B..B",
        ".R.R.R.",
        "..RRR..",
        "BRR.RRB",
        "..RRR..",
        ".R.R.R.",
        "B..B..B",
    ]
    game = TriboloGame(width=7, height=7, walls=0, start_cells=1)
    state = game.state_from_board(rows, 0)
    state.apply(cell(3, 3, 7))
    assert state.counts() == [25, 0, 0]


def test_mixed_run_of_two_opponents_does_not_convert():
    # e R R G B: not a jump for B (the rules file's example); it is G's jump (R R closed by G).
    state = position(".RRGB", "R", to_move=2)
    assert state.moves_of(0) == 0
    assert state.moves_of(2) == 1 << cell(0, 0) | 1 << cell(5, 0)  # (5,0): B closed by G
    state.apply(cell(0, 0))
    assert state.to_text().splitlines()[1].startswith("GGGGB")


def test_run_closed_by_a_third_player_is_that_players_jump():
    state = position(".RG", "B", to_move=2)
    assert state.legal_actions(2) == [cell(0, 0)]
    assert not state.moves_of(0) & 1 << cell(0, 0)


def test_walls_block_jumps():
    state = position(".R#B", "R", "#", "B", to_move=None)
    assert state.moves_of(0) == 0  # e R # B (east) and e R # B (south) are blocked
    state = position(".R.B", to_move=None)
    assert state.moves_of(0) == 0  # e R . B: an empty cell breaks the run
    state = position(".RB", to_move=0)
    assert state.legal_actions(0) == [cell(0, 0)]


def test_runs_do_not_wrap_around_the_edges():
    # Row 0 ends with "BR" and row 1 starts with an empty cell: (0,1) is NOT a move
    # for B (that would wrap around the right edge).
    game = TriboloGame(width=4, height=3, walls=0, start_cells=1)
    state = game.state_from_board([".#BR", "....", "...."], None)
    assert state.moves_of(0) == 0
    state = game.state_from_board(["R...", "B...", "...."], 1)
    assert state.moves_of(0) == 0  # the run meets the top edge
    assert state.legal_actions(1) == [cell(0, 2, 4)]
    state = game.state_from_board(["....", ".R..", "..B."], 0)
    assert state.legal_actions(0) == [cell(0, 0, 4)]  # the diagonal up-left
    state = game.state_from_board(["...B", "..R.", "...."], 0)
    assert state.legal_actions(0) == [cell(1, 2, 4)]  # the anti-diagonal


def test_run_reaching_the_edge_is_not_a_jump():
    state = position(".RRRRRRRRRRRRRRR", "B", to_move=None)
    assert state.moves_of(0) == 0 and state.moves_of(1) == 0
    state = position(".RRRRRRRRRRRRRRB", to_move=0)
    state.apply(cell(0, 0))
    assert state.counts() == [16, 0, 0]


# --- turns, skips, the end ------------------------------------------------------------


def test_player_skipped_twice_in_a_row():
    # player_1's only cell is boxed in by walls: it never has a move, so the turn goes
    # 0 -> 2 -> 0 -> 2, skipping player_1 twice in a row.
    game = TriboloGame(width=8, height=4, walls=0, start_cells=1)
    state = game.state_from_board(["..B...B.", "..GG....", "R#......", "##......"], 0)
    seen = []
    for _ in range(4):
        (seat,) = state.current_players()
        seen.append(seat)
        assert state.moves_of(1) == 0 and state.legal_actions(1) == []
        state.apply(state.legal_actions(seat)[0])
    assert seen == [0, 2, 0, 2]
    assert state.counts()[1] == 1


def test_mover_plays_again_when_both_others_are_blocked():
    state = position("BR.R.R", to_move=0)
    state.apply(cell(2, 0))
    assert state.counts() == [3, 2, 0]
    assert state.current_players() == (0,)  # red cannot move, green has no cell
    state.apply(cell(4, 0))
    assert state.counts() == [5, 1, 0]
    assert state.current_players() == (0,)
    state.apply(cell(6, 0))
    assert state.is_terminal()


def test_game_ends_with_empty_cells_left_for_nobody():
    state = position("BR.", "........", "......#.", to_move=0)
    state.apply(cell(2, 0))
    assert state.is_terminal()
    assert int(state.empty()).bit_count() > 0  # empty cells remain, but no move for anyone
    assert all(state.moves_of(s) == 0 for s in range(3))
    assert state.legal_actions(0) == [] and state.current_players() == ()
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(cell(5, 0))
    # All three players hold cells, empty cells remain, and nobody can move.
    stuck = position("B.R.G", to_move=None)
    assert stuck.is_terminal() and stuck.counts() == [1, 1, 1]
    with pytest.raises(ValueError, match="player_0 has no legal move"):
        position("B.R.G", to_move=0)


def test_each_move_adds_exactly_one_owned_cell():
    state = GAME.new_initial_state(3)
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        before = sum(state.counts())
        legal = state.legal_actions(state.to_move)
        state.apply(legal[rng.integers(len(legal))])
        assert sum(state.counts()) == before + 1


# --- returns --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "counts, expected",
    [
        ([5, 3, 1], [1.0, -0.5, -0.5]),
        ([5, 5, 1], [0.5, 0.5, -1.0]),
        ([4, 4, 4], [0.0, 0.0, 0.0]),
        ([0, 9, 2], [-0.5, 1.0, -0.5]),
    ],
)
def test_win_loss_returns(counts, expected):
    assert list(counts_to_returns(counts, "win_loss")) == expected
    assert sum(expected) == 0


def test_cell_share_returns():
    got = counts_to_returns([6, 3, 3], "cell_share")
    assert np.allclose(got, [0.5 - 1 / 3, 0.25 - 1 / 3, 0.25 - 1 / 3])
    assert abs(got.sum()) < 1e-12
    game = TriboloGame(returns="cell_share")
    state = position("BR", game=game)
    state.apply(cell(2, 0))
    assert np.allclose(state.returns(), [2 / 3, -1 / 3, -1 / 3])


def test_returns_are_zero_before_the_end():
    assert list(GAME.new_initial_state(0).returns()) == [0, 0, 0]


# --- setup ----------------------------------------------------------------------------


def test_random_setup_counts_and_determinism():
    a, b = GAME.new_initial_state(42), GAME.new_initial_state(42)
    assert a.to_text() == b.to_text()
    assert a.counts() == [12, 12, 12]
    assert int(a.walls).bit_count() == 12
    assert a.current_players()[0] in (0, 1, 2)
    assert a.legal_actions(a.current_players()[0])
    texts = {GAME.new_initial_state(s).to_text() for s in range(20)}
    assert len(texts) == 20


def test_first_player_is_drawn_uniformly():
    firsts = [GAME.new_initial_state(s).current_players()[0] for s in range(300)]
    counts = np.bincount(firsts, minlength=3)
    assert counts.min() > 60  # roughly 100 each


def test_small_boards_and_options():
    game = TriboloGame(width=5, height=4, walls=2, start_cells=2)
    state = game.new_initial_state(1)
    assert state.counts() == [2, 2, 2] and int(state.walls).bit_count() == 2
    assert game.num_actions == 20 and game.observation_shape == (5, 4, 5)


def test_setup_redraws_until_someone_can_move():
    # 3 x 3 with one cell each and no walls: many draws leave nobody a move.
    game = TriboloGame(width=3, height=3, walls=0, start_cells=1)
    for seed in range(30):
        state = game.new_initial_state(seed)
        assert not state.is_terminal()
        assert state.legal_actions(state.current_players()[0])


def test_impossible_setup_is_a_clear_error():
    game = TriboloGame(width=2, height=2, walls=0, start_cells=1)  # no room for a jump
    with pytest.raises(ValueError, match="no setup with a legal move"):
        game.new_initial_state(0)


# --- options and bad input ------------------------------------------------------------


@pytest.mark.parametrize(
    "config, match",
    [
        (dict(width=0), "width"),
        (dict(width=27), "width"),
        (dict(height="11"), "height"),
        (dict(walls=-1), "walls"),
        (dict(start_cells=0), "start_cells"),
        (dict(width=4, height=4, walls=4, start_cells=4), "empty cell"),
        (dict(returns="points"), "returns"),
        (dict(players=4), "unknown option"),
    ],
)
def test_bad_options(config, match):
    with pytest.raises(ValueError, match=match):
        TriboloGame(**config)


def test_illegal_actions_raise_and_leave_the_state_unchanged():
    state = GAME.new_initial_state(5)
    seat = state.current_players()[0]
    text = state.to_text()
    illegal = next(a for a in range(GAME.num_actions) if a not in state.legal_actions(seat))
    for bad in (illegal, -1, GAME.num_actions, 2.5, "a1", True, {(seat + 1) % 3: state.legal_actions(seat)[0]}):
        with pytest.raises(IllegalActionError):
            state.apply(bad)
        assert state.to_text() == text
    with pytest.raises(IllegalActionError, match=f"illegal for seat {seat}"):
        state.apply(illegal)


def test_numpy_ints_and_single_seat_dicts_are_accepted():
    state = GAME.new_initial_state(5)
    seat = state.current_players()[0]
    a = state.legal_actions(seat)[0]
    other = state.clone()
    state.apply(np.int64(a))
    other.apply({seat: a})
    assert state.to_text() == other.to_text()


def test_undo_restores_the_position():
    state = GAME.new_initial_state(8)
    rng = np.random.default_rng(8)
    texts = []
    while not state.is_terminal():
        texts.append((state.to_text(), state.key()))
        legal = state.legal_actions(state.to_move)
        state.apply(legal[rng.integers(len(legal))])
    while texts:
        state.undo()
        text, key = texts.pop()
        assert state.to_text() == text and state.key() == key
    with pytest.raises(ValueError, match="no move to undo"):
        state.undo()


# --- notation and text form -----------------------------------------------------------


def test_action_notation():
    state = GAME.new_initial_state(0)
    assert state.action_to_text(0) == "a1"
    assert state.action_to_text(cell(2, 1)) == "c2"
    assert state.action_to_text(175) == "p11"
    for a in (0, 17, 100, 175):
        assert state.text_to_action(state.action_to_text(a)) == a
    assert state.text_to_action("2,1") == cell(2, 1)
    assert state.text_to_action(" (15, 10) ") == 175
    assert state.text_to_action("C2") == cell(2, 1)
    for bad in ("", "q1", "a12", "a0", "16,0", "x", "1;2", None):
        with pytest.raises(ValueError):
            state.text_to_action(bad)
    for bad in (-1, 176, 1.0, None):
        with pytest.raises(ValueError):
            state.action_to_text(bad)


def test_text_form_example_and_round_trip():
    state = position("BR", "..BG")
    assert state.to_text().splitlines()[:3] == ["player_0 to move | B 2 R 1 G 1", "BR" + "." * 14, "..BG" + "." * 12]
    again = GAME.state_from_text(state.to_text())
    assert again.to_text() == state.to_text() and again.key() == state.key()
    state.apply(cell(2, 0))
    state.apply(cell(1, 1))
    assert GAME.state_from_text(state.to_text()).key() == state.key()


def test_text_form_of_finished_games():
    state = position("BR")
    state.apply(cell(2, 0))
    assert state.to_text().splitlines()[0] == "game over | player_0 wins | B 3 R 0 G 0"
    assert GAME.state_from_text(state.to_text()).is_terminal()
    tie = position("B.R.G", to_move=None)
    assert tie.to_text().splitlines()[0] == "game over | draw | B 1 R 1 G 1"
    two = position("B..R", to_move=None)
    assert two.to_text().splitlines()[0] == "game over | player_0, player_1 win | B 1 R 1 G 0"
    assert GAME.state_from_text(two.to_text()).to_text() == two.to_text()


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda lines: ["player_3 to move | B 2 R 1 G 1"] + lines[1:], "header"),
        (lambda lines: lines[:1] + lines[2:], "rows"),
        (lambda lines: lines[:1] + [lines[1] + "."] + lines[2:], "rows"),
        (lambda lines: lines[:1] + ["BX" + lines[1][2:]] + lines[2:], "unknown symbol"),
        (lambda lines: ["player_0 to move | B 9 R 1 G 1"] + lines[1:], "counts"),
        (lambda lines: ["player_1 to move | B 1 R 1 G 0", "BR" + "." * 14] + ["." * 16] * 10, "player_1 has no legal move"),
        (lambda lines: ["game over | player_0 wins | B 2 R 1 G 1"] + lines[1:], "not over"),
        (lambda lines: [], "empty"),
    ],
)
def test_malformed_text_is_a_clear_error(mutate, match):
    lines = position("BR", "..BG").to_text().splitlines()
    with pytest.raises(ValueError, match=match):
        GAME.state_from_text("\n".join(mutate(lines)))



def test_observation_planes_are_seat_relative():
    state = position("BRG#", to_move=None)
    for seat in range(3):
        obs = state.observation_tensor(seat)
        assert obs.shape == (5, 11, 16) and obs.dtype == np.float32
        assert obs[0, 0, seat] == 1 and obs[1, 0, (seat + 1) % 3] == 1 and obs[2, 0, (seat + 2) % 3] == 1
        assert obs[3, 0, 3] == 1 and obs[4].sum() == 176 - 4
        assert (obs.sum(axis=0) == 1).all()
    with pytest.raises(ValueError):
        state.observation_tensor(3)
