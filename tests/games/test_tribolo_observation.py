"""Tribolo's ``state_from_observation``: the seat to move's planes and legal mask give the
position back, that seat as player_0, so a search plays from a PettingZoo observation."""

import numpy as np
import pytest

from parlour.games import load_game

BOARDS = [{}, {"width": 6, "height": 5, "walls": 2, "start_cells": 2}, {"width": 9, "height": 7, "returns": "cell_share"}]


@pytest.mark.parametrize("options", BOARDS, ids=["default", "6x5", "9x7-cell_share"])
def test_every_position_comes_back_from_its_observation(options):
    game = load_game("tribolo", **options)
    rng = np.random.default_rng(3)
    for seed in range(4):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            (seat,) = state.current_players()
            obs, mask = state.observation_tensor(seat), state.legal_mask(seat)
            again = game.state_from_observation(obs, mask)
            assert again.current_players() == (0,)
            assert np.array_equal(again.observation_tensor(0), obs) and np.array_equal(again.legal_mask(0), mask)
            relabel = [(seat + k) % 3 for k in range(3)]  # player_k of the copy is seat + k of the game
            assert again.counts() == [state.counts()[s] for s in relabel]
            legal = state.legal_actions(seat)
            action = legal[int(rng.integers(len(legal)))]
            after, copy = state.clone(), again.clone()
            after.apply(action)
            copy.apply(action)
            if after.is_terminal():  # the same cell ends both games, with each observer's result
                assert copy.is_terminal() and copy.returns()[0] == after.returns()[seat]
            state = after


def test_bad_observations_are_refused():
    game = load_game("tribolo")
    state = game.new_initial_state(0)
    (seat,) = state.current_players()
    obs, mask = state.observation_tensor(seat), state.legal_mask(seat)
    with pytest.raises(ValueError, match="has shape"):
        game.state_from_observation(obs[:4], mask)
    with pytest.raises(ValueError, match="legal mask here has shape"):
        game.state_from_observation(obs, mask[:10])
    doubled = obs.copy()
    doubled[0, 0, 0] = doubled[4, 0, 0] = 1
    with pytest.raises(ValueError, match="exactly one of its five planes"):
        game.state_from_observation(doubled, mask)
    wrong = mask.copy()
    wrong[np.flatnonzero(mask == 0)[0]] = 1
    with pytest.raises(ValueError, match="not the observing seat's legal moves"):
        game.state_from_observation(obs, wrong)
