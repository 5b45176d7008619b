"""The batched pick-up sticks engine against B single games (parlour.games.sticks):
the same random moves through both give the same observations, masks, rewards and
terminal flags at every step (hypothesis over the options), with autoreset; bad
actions are rejected without any change."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.errors import IllegalActionError
from parlour.games import load_game
from parlour.vector import SticksBatch, make_engine


@settings(max_examples=30, deadline=None)
@given(
    num_sticks=st.integers(1, 15),
    max_take=st.integers(1, 6),
    misere=st.booleans(),
    num_envs=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_same_as_single_games(num_sticks: int, max_take: int, misere: bool, num_envs: int, seed: int) -> None:
    opts = {"num_sticks": num_sticks, "max_take": max_take, "misere": misere}
    engine = make_engine("sticks", num_envs, seed, **opts)
    game = load_game("sticks", **opts)
    rng = np.random.default_rng(seed)
    states = [game.new_initial_state() for _ in range(num_envs)]
    ended = 0
    for _ in range(3 * num_sticks):
        obs, masks, movers = engine.observations(), engine.legal_masks(), engine.movers()
        assert obs.dtype == np.float32 and masks.dtype == np.int8
        for b, state in enumerate(states):
            assert (movers[b],) == state.current_players()
            assert np.array_equal(engine.to_act()[b], [p in state.current_players() for p in range(2)])
            for p in range(2):
                assert np.array_equal(obs[b, p], state.observation_tensor(p))
                assert np.array_equal(masks[b, p], state.legal_mask(p))
                assert np.array_equal(engine.observation(p)[b], state.observation_tensor(p))
                assert np.array_equal(engine.legal_mask(p)[b], state.legal_mask(p))
        actions = engine.random_actions(rng)
        result = engine.step(actions)
        for b, state in enumerate(states):
            state.apply(int(actions[b]))
            assert result.terminated[b] == state.is_terminal()
            assert np.array_equal(result.rewards[b], state.returns())
            if state.is_terminal():
                ended += 1
                for p in range(2):
                    assert np.array_equal(result.final_observations[b, p], state.observation_tensor(p))
                states[b] = game.new_initial_state()
    assert ended >= num_envs  # every game finished at least once


def test_where_and_no_autoreset() -> None:
    engine = make_engine("sticks", 3, 0, autoreset=False, num_sticks=2, max_take=2, misere=False)
    result = engine.step(np.array([1, 0, 0]), where=np.array([True, True, False]))
    assert np.array_equal(engine.sticks, [0, 1, 2]) and np.array_equal(result.terminated, [True, False, False])
    assert np.array_equal(engine.returns()[0], [1.0, -1.0])  # normal play: the last taker wins
    assert np.array_equal(engine.movers(), [-1, 1, 0])
    assert not engine.legal_masks()[0].any()
    with pytest.raises(IllegalActionError, match="game 0 of the batch is over"):
        engine.step(np.array([0, 0, 0]))


@pytest.mark.parametrize(
    ("actions", "error", "message"),
    [
        (np.array([0, 3]), IllegalActionError, r"action 3 \(take 4\) is illegal for seat 1 in game 1 .*legal actions are \[0, 1, 2\]"),
        (np.array([0, -1]), IllegalActionError, r"action -1 \(take 0\)"),
        (np.array([[0, 1]]), ValueError, r"shape \(2,\)"),
        (np.array([True, False]), IllegalActionError, "must be integers"),
    ],
)
def test_bad_actions_change_nothing(actions, error, message) -> None:
    engine = make_engine("sticks", 2, 0)
    engine.step(np.array([0, 0]), where=np.array([False, True]))
    before = engine.sticks.copy(), engine.to_move.copy()
    with pytest.raises(error, match=message):
        engine.step(actions)
    assert np.array_equal(engine.sticks, before[0]) and np.array_equal(engine.to_move, before[1])


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="max_take must be"):
        SticksBatch(2, max_take=0)
