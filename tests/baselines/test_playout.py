"""The one loop that moves a game on with policies (``parlour.baselines.playout``): who
chooses, what is recorded, and the guard against a game that never ends."""

import numpy as np
import pytest

from parlour.baselines import make_from_spec
from parlour.baselines.playout import play_out, playing
from parlour.errors import EndlessGame
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
    with pytest.raises(EndlessGame, match=r"sticks: the game did not end within 3 steps \(max_game_length 7\)"):
        play_out(state, act=lambda seat: 0, max_steps=3)
    assert state.sticks == 4  # the three steps it played stay played
    assert np.array_equal(state.returns(), np.zeros(2))


def test_the_error_of_a_game_that_does_not_end_crosses_processes():
    """Self-play and the arena play in worker processes: the error comes back whole."""
    import pickle

    error = pickle.loads(pickle.dumps(EndlessGame("sticks", 3, 7)))
    assert isinstance(error, RuntimeError) and (error.game, error.limit, error.longest) == ("sticks", 3, 7)
    assert str(error) == "sticks: the game did not end within 3 steps (max_game_length 7): its rules do not end it"


def test_apply_keeps_an_account_of_each_step_and_playing_counts_the_steps():
    game = load_game("sticks", num_sticks=8, max_take=3)
    state = game.new_initial_state()
    left = []
    steps = play_out(state, act=lambda seat: 1, apply=lambda action: state.apply(action) or left.append(state.sticks))
    assert steps == 4 and left == [6, 4, 2, 0] and state.is_terminal()  # two sticks a step
    state = game.new_initial_state()
    counted = []
    for played in playing(state, until=lambda s: s.sticks <= 4):  # a loop that applies its own steps
        counted.append(played)
        state.apply(1)
    assert counted == [0, 1] and state.sticks == 4
    with pytest.raises(EndlessGame, match="within 1 steps"):
        for _ in playing(state, max_steps=1):  # ... stops where play_out stops
            state.apply(0)
    assert state.sticks == 3
