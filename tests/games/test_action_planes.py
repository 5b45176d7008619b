"""``Game.action_planes``: a game that claims its actions are kinds of move on the
observation's cells (so a network may score each action from its own cell) keeps the
claim: every move changes the observation at the cell its id names."""

import numpy as np
import pytest

from parlour.games import GAMES, load_game

CLAIMED = sorted(name for name in GAMES if load_game(name).action_planes is not None)


def cell_of(game, action: int, mirrored: bool = False) -> tuple[int, int]:
    _, rows, columns = game.observation_shape
    row, column = divmod(action % (rows * columns), columns)
    return (row, columns - 1 - column) if mirrored else (row, column)


def uniform(observation: np.ndarray) -> np.ndarray:
    """Which planes hold one value over the whole board (such as Double Card's moves
    played: a feature of the position, not of a cell)."""
    flat = observation.reshape(len(observation), -1)
    return flat.min(axis=1) == flat.max(axis=1)


def moves_leave_their_cell(game, seed: int, mirrored: bool = False) -> list[bool]:
    """For every move of a random game: did a board plane change at the move's cell?"""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    changed = []
    while not state.is_terminal():
        (player,) = state.current_players()
        action = int(rng.choice(state.legal_actions(player)))
        row, column = cell_of(game, action, mirrored)
        before = state.observation_tensor(player)
        state.apply(action)
        after = state.observation_tensor(player)
        board = ~(uniform(before) & uniform(after))
        changed.append(bool((before[board, row, column] != after[board, row, column]).any()))
    return changed


def test_the_board_games_claim_their_planes():
    assert CLAIMED == ["double_card", "tribolo"]
    for name in GAMES:
        game = load_game(name)
        if game.action_planes is None:
            continue
        planes, rows, columns = game.observation_shape
        assert game.num_actions == game.action_planes * rows * columns


@pytest.mark.parametrize("name", CLAIMED)
@pytest.mark.parametrize("seed", range(3))
def test_every_move_changes_its_own_cell(name, seed):
    game = load_game(name)
    changed = moves_leave_their_cell(game, seed)
    assert changed and all(changed)


@pytest.mark.parametrize("name", CLAIMED)
def test_a_wrong_layout_would_be_caught(name):
    """The mirror image of the claimed layout fails the same check: it can fail."""
    game = load_game(name)
    assert not all(all(moves_leave_their_cell(game, seed, mirrored=True)) for seed in range(3))


def test_tribolo_on_other_boards_keeps_the_claim():
    game = load_game("tribolo", width=9, height=7, walls=4, start_cells=6)
    assert game.action_planes == 1 and all(moves_leave_their_cell(game, 5))
