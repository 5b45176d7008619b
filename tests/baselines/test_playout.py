"""The one loop that moves a game on with policies (``parlour.baselines.playout``): who
chooses, what is recorded, and the guard against a game that never ends."""

import numpy as np
import pytest

from parlour.baselines import make_from_spec
from parlour.baselines.playout import play_out
from parlour.games import load_game


def test_play_out_records_every_step_and_stops_where_asked():
    game = load_game("goofspiel", num_cards=4)
    state = game.new_initial_state(3)
    policies = [make_from_spec("random", game, seed=seat) for seat in range(2)]
    applied = []
    assert play_out(state, policies, record=applied, until=lambda s: len(applied) >= 2) == 2
    assert len(applied) == 2 and all(isinstance(step, dict) and set(step) == {0, 1} for step in applied)  # joint bids
    replay = game.new_initial_state(3)
    for step in applied:
        replay.apply(step)
    assert replay == state
    assert play_out(state, policies, record=applied) == 2 and state.is_terminal() and len(applied) == 4


def test_play_out_chooses_with_act_instead_of_policies():
    game = load_game("sticks", num_sticks=7, max_take=3)
    state = game.new_initial_state()
    seen = []
    steps = play_out(state, act=lambda seat: seen.append(seat) or 0)  # every seat takes one stick
    assert steps == 7 and seen == [0, 1, 0, 1, 0, 1, 0] and state.is_terminal()
    with pytest.raises(ValueError, match="needs policies or act"):
        play_out(game.new_initial_state())


def test_a_game_that_does_not_end_within_its_limit_is_an_error():
    game = load_game("sticks", num_sticks=7, max_take=3)
    state = game.new_initial_state()
    with pytest.raises(RuntimeError, match=r"sticks: the game did not end within 3 steps \(max_game_length 7\)"):
        play_out(state, act=lambda seat: 0, max_steps=3)
    assert state.sticks == 4  # the three steps it played stay played
    assert np.array_equal(state.returns(), np.zeros(2))
