"""Pick-up sticks rules: the rules file's facts, an exhaustive minimax, bad input."""

from functools import cache

import numpy as np
import pytest

from parlour import IllegalActionError
from parlour.games.sticks import SticksGame, losing_position


def minimax_value(sticks: int, max_take: int, misere: bool) -> int:
    """Value (+1 win / -1 loss) for the player to move, by exhaustive minimax with memo."""

    @cache
    def value(n: int) -> int:
        best = -1
        for take in range(1, min(max_take, n) + 1):
            left = n - take
            if left == 0:
                mine = -1 if misere else 1  # I took the last stick
            else:
                mine = -value(left)
            best = max(best, mine)
        return best

    return value(sticks)


@pytest.mark.parametrize("misere", [True, False])
@pytest.mark.parametrize("max_take", [1, 2, 3, 4, 5])
def test_closed_form_matches_exhaustive_minimax(max_take, misere):
    for sticks in range(1, 61):
        loses = minimax_value(sticks, max_take, misere) == -1
        assert loses == losing_position(sticks, max_take, misere), (sticks, max_take, misere)


def test_minimax_uses_the_rules_module():
    """The same minimax run on SticksState transitions agrees with the closed form."""
    game = SticksGame(num_sticks=30, max_take=3)

    def value(state):
        if state.is_terminal():
            return state.returns()[state.to_move]
        player = state.to_move
        best = -1.0
        for action in state.legal_actions(player):
            child = state.clone()
            child.apply(action)
            best = max(best, child.returns()[player] if child.is_terminal() else -value(child))
        return best

    for n in range(1, 13):
        state = game.new_initial_state(sticks=n)
        assert (value(state) < 0) == losing_position(n, 3, True)


def test_seed_setting_first_player_wins_by_taking_one():
    game = SticksGame()
    assert (game.num_sticks, game.max_take, game.misere) == (10, 3, True)
    assert not losing_position(10, 3, True)
    winning = [a for a in range(3) if losing_position(10 - (a + 1), 3, True)]
    assert winning == [0]  # take 1, leaving 9 (9 % 4 == 1)


@pytest.mark.parametrize(("misere", "winner"), [(True, 1), (False, 0)])
def test_last_stick(misere, winner):
    state = SticksGame(num_sticks=3, misere=misere).new_initial_state()
    state.apply(2)  # player_0 takes all three
    assert state.is_terminal() and state.current_players() == ()
    assert state.winner() == winner
    assert state.returns()[winner] == 1 and state.returns()[1 - winner] == -1


def test_mask_hides_takes_larger_than_the_pile():
    state = SticksGame(num_sticks=10, max_take=5).new_initial_state(sticks=2)
    assert state.legal_actions(0) == [0, 1]
    assert state.legal_actions(1) == []
    assert state.legal_mask(0).tolist() == [1, 1, 0, 0, 0]


def test_illegal_actions_raise_and_change_nothing():
    state = SticksGame().new_initial_state(sticks=2)
    for action, message in [(2, "take 3"), (-1, "illegal"), (7, "illegal"), ("1", "not an integer"), (1.0, "not an integer"),
                            ({1: 0}, "only seat 0 acts")]:
        with pytest.raises(IllegalActionError, match=message):
            state.apply(action)
        assert state.to_text() == "2 sticks | player_0 to move"
    state.apply({0: np.int64(1)})
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(0)


def test_text_form_round_trip_and_malformed():
    game = SticksGame(num_sticks=10, max_take=3)
    state = game.new_initial_state()
    assert state.to_text() == "10 sticks | player_0 to move"
    for action in (2, 2, 2, 0):
        state.apply(action)
    assert state.to_text() == "0 sticks | player_1 took the last stick | player_0 wins"
    assert game.state_from_text(state.to_text()) == state
    for bad in ["", "11 sticks | player_0 to move", "3 sticks | player_2 to move", "0 sticks | player_0 to move",
                "3 sticks | player_0 took the last stick", "three sticks"]:
        with pytest.raises(ValueError, match="sticks position|does not fit"):
            game.state_from_text(bad)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"num_sticks": 0}, "num_sticks must be between 1 and 1000, got 0"),
        ({"max_take": 0}, "max_take must be between 1 and 1000, got 0"),
        ({"max_take": "3"}, "max_take must be an integer"),
        ({"misere": 1}, "misere must be True or False"),
        ({"pile": 3}, "unknown option"),
    ],
)
def test_bad_configuration(config, message):
    with pytest.raises(ValueError, match=message):
        SticksGame(**config)


def test_bad_start_and_action_text():
    game = SticksGame(num_sticks=5)
    with pytest.raises(ValueError, match="between 1 and 5"):
        game.new_initial_state(sticks=6)
    with pytest.raises(ValueError, match="unknown start option"):
        game.new_initial_state(prizes=[1])
    state = game.new_initial_state()
    assert state.text_to_action("3") == 2 and state.action_to_text(2) == "3"
    with pytest.raises(ValueError, match="how many to take, 1..3"):
        state.text_to_action("4")


def test_observation():
    state = SticksGame(num_sticks=4, max_take=2).new_initial_state(sticks=3)
    assert state.observation_tensor(0).tolist() == [3, 2, 0, 0, 0, 1, 0]
