"""What is Double Card's own in its batched engine: games that reach every kind of
move and end (recycling, each kind of line, the draw at the move limit, the draw when
no card can be taken) against the single games, its reasons for a bad action (the
single game's), the recycling errors, its bad options, and the row shift of its
board.  Everything every engine keeps (lockstep with the single games under any
options, positions with every card down loaded mid-game, ``where``, no autoreset, bad
steps changing nothing, seeds, the base class's random draw, output buffers, vector
envs) is the conformance suite's, ``test_engine_contract*.py``."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conformance import Lockstep, assert_refused, quiet_play, random_play
from helpers import DOUBLE_CARD_SETUP_24

from parlour.errors import IllegalActionError
from parlour.games import load_game
from parlour.games.double_card import PICK_BASE, DoubleCardBatch
from parlour.vector import make_engine

# from tests/games/test_double_card_rules.py: after the 24th move (D12-E12) every other card
# has a card resting on it, so the next player cannot take any card: a draw
PYRAMID_24 = [
    "0 6 A 1", "0 8 B 1", "0 4 C 1", "0 2 D 1", "0 2 E 1", "0 6 F 1", "0 4 G 1", "0 2 H 1",
    "0 7 A 3", "0 1 C 3", "0 5 E 3", "0 5 G 3", "0 3 B 4", "0 3 D 4", "0 7 F 4", "0 1 C 5",
    "0 7 E 5", "0 1 D 6", "0 4 D 7", "0 2 E 7", "0 5 D 9", "0 6 D 10", "0 4 E 10", "0 3 D 12",
]


def play_kinds(opts: dict, num_envs: int, seed: int, steps: int, quiet: float, starts: dict | None = None) -> Counter:
    """The engine and its single games in lockstep, each move random or (with
    probability ``quiet``) one that does not end the game; the kinds of moves and ends
    seen.  ``starts``: game index -> moves in notation to start that game from."""
    engine = make_engine("double_card", num_envs, seed, **opts)
    lockstep = Lockstep(engine)
    for b, moves in (starts or {}).items():
        lockstep.load([engine.game.new_initial_state(moves=moves)], np.array([b]))
    rng = np.random.default_rng(seed)
    seen: Counter = Counter()
    for _ in range(steps):
        actions = np.where(rng.random(num_envs) < quiet, quiet_play(lockstep, rng), random_play(lockstep, rng))
        for state, action in zip(lockstep.states, actions.tolist()):
            seen["take" if action >= PICK_BASE else "recycled place" if state.taken is not None else "place"] += 1
        lockstep.step(actions)
    for state in lockstep.finished:
        colour, dot = state.lines()
        seen["draw (move limit)" if state.winner == 2 and state.moves >= engine.game.max_moves else "draw (stuck)" if state.winner == 2
             else "both lines" if colour and dot else "colour line" if colour else "dot line"] += 1
    return seen


def test_every_kind_of_move_and_end() -> None:
    """Fixed seeds: recycling moves, wins by each kind of line and by both at once,
    the draw at the move limit, all identical to the single games."""
    seen = play_kinds({}, 4, 0, 160, quiet=0.97, starts={1: DOUBLE_CARD_SETUP_24})
    seen += play_kinds({"max_moves": 60, "recycle_rule": "same_placement", "first_player": "dots"}, 3, 1, 120, quiet=0.8)
    for kind in ("place", "take", "recycled place", "colour line", "dot line", "both lines", "draw (move limit)"):
        assert seen[kind] > 0, (kind, seen)


def test_draw_when_no_card_can_be_taken() -> None:
    engine = DoubleCardBatch(2, 0, autoreset=False)
    lockstep = Lockstep(engine)
    state = engine.game.new_initial_state(moves=PYRAMID_24[:-1])
    lockstep.load([state], np.array([1]))
    result = lockstep.step(np.array([0, state.text_to_action(PYRAMID_24[-1])]))
    assert lockstep.states[1].winner == 2 and engine.winner.tolist() == [-1, 2]
    assert result.terminated.tolist() == [False, True] and not result.rewards.any()


@pytest.mark.parametrize(
    ("actions", "error", "message"),
    [
        (np.array([0, 16]), IllegalActionError,
         r"action 16 \('0 1 A 3'\) is illegal for seat 1 in game 1 of the batch: "
         r"cell A 3 would hang over the empty A 2; legal actions are \["),
        (np.array([0, 97]), IllegalActionError, r"action 97 .* in game 1 of the batch: cell B 1 is occupied"),
        (np.array([0, 7]), IllegalActionError, r"action 7 .* its right cell would be off the board"),
        (np.array([0, PICK_BASE]), IllegalActionError, r"action 768 .* taking a card is only allowed when recycling"),
        (np.array([864, 0]), IllegalActionError,
         r"action 864 \(not an action\) is illegal for seat 0 in game 0 of the batch: outside 0..863"),
        (np.array([0, -1]), IllegalActionError, r"action -1 .*outside 0..863"),
    ],
)
def test_bad_action_messages(actions, error, message) -> None:
    engine = DoubleCardBatch(2, 0)
    engine.step(np.array([0, 1]), where=np.array([False, True]))  # game 1: placement 1 on B1, seat 1 to move
    assert_refused(engine, actions, error, message)


def test_recycling_errors_and_where() -> None:
    engine = DoubleCardBatch(2, 0, autoreset=False)
    state = load_game("double_card").new_initial_state(moves=DOUBLE_CARD_SETUP_24)
    engine.load_states([state], [0])
    assert_refused(engine, np.array([0, 0]), IllegalActionError, "a recycling move starts by taking a card")
    a1 = PICK_BASE  # A1 holds the bottom of a vertical card with another on top of it
    assert_refused(engine, np.array([a1, 0]), IllegalActionError, r"in game 0 of the batch: taking it would leave A 3 hanging")
    take = state.text_to_action("D 1 D 2")
    engine.step(np.array([take, 0]), where=np.array([True, False]))  # game 1 untouched
    state.apply(take)
    assert engine.game_state(0).key() == state.key() and engine.moves[1] == 0 and not engine.board[1].any()
    back = 1 * 96 + take - PICK_BASE  # placement 2 (vertical) on D1: the same two cells
    assert_refused(engine, np.array([back, 0]), IllegalActionError, "may not go back onto the same two cells",
                   where=np.array([True, False]))


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="recycle_rule"):
        DoubleCardBatch(2, recycle_rule="sometimes")
    with pytest.raises(ValueError, match="max_moves"):
        DoubleCardBatch(2, max_moves=0)
    with pytest.raises(ValueError, match="first_player"):
        DoubleCardBatch(2, first_player="white")


def test_row_shift_matches_slices() -> None:
    from parlour.games.double_card.engine import row_shift

    rows = np.random.default_rng(0).integers(0, 256, (5, 12), dtype=np.uint8)
    for by, fill in ((1, 0xFF), (-1, 0), (-2, 0), (2, 7)):
        expected = np.full_like(rows, fill)
        if by > 0:
            expected[:, by:] = rows[:, :-by]
        else:
            expected[:, :by] = rows[:, -by:]
        assert np.array_equal(row_shift(rows, by, fill), expected)
