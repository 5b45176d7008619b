"""The contract every batched engine keeps (``parlour.vector.base.BatchedEngine``), one
differential suite over ``ENGINES``: each engine, under several of its game's
configurations, steps random games in lockstep with the single-game rules and must
give the same observations, masks, returns and endings at every step; ``game_state(b)``
gives each game back as a rules state, and ``load_states`` puts any rules states in."""

from __future__ import annotations

import numpy as np
import pytest

from parlour.games import load_game
from parlour.vector import ENGINES, make_engine

CONFIGS = {
    "double_card": [{}, {"recycle_rule": "same_placement", "max_moves": 30}, {"first_player": "dots"}],
    "goofspiel": [{"num_cards": 5}, {"num_cards": 4, "num_players": 3, "prize_order": "descending"}, {"num_cards": 6, "imperfect_info": True}],
    "sticks": [{}, {"num_sticks": 12, "max_take": 4, "misere": False}],
    "tides_of_time": [{"rounds": 1}, {}],
    "tribolo": [{}, {"width": 6, "height": 5, "walls": 2, "start_cells": 2}],
}
CASES = [(name, options) for name in sorted(ENGINES) for options in CONFIGS[name]]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'default'}" for name, options in CASES]


def test_every_engine_has_cases():
    assert sorted(CONFIGS) == sorted(ENGINES)


def check_same(engine, states, b):
    game = engine.game
    state = states[b]
    observations, masks, returns = engine.observations(), engine.legal_masks(), engine.returns()
    for seat in range(game.num_players):
        assert np.array_equal(observations[b, seat], state.observation_tensor(seat)), (b, seat)
        assert np.array_equal(masks[b, seat], state.legal_mask(seat)), (b, seat)
    assert np.array_equal(returns[b], state.returns())
    assert bool(engine.terminated[b]) == state.is_terminal()
    assert engine.to_act()[b].tolist() == [seat in state.current_players() for seat in range(game.num_players)]


@pytest.mark.parametrize("name, options", CASES, ids=IDS)
def test_lockstep_with_the_single_games(name, options):
    """Random play, autoreset on: every step the engine's arrays are the rules states'."""
    engine = make_engine(name, 6, 7, **options)
    rng = np.random.default_rng(7)
    states = [engine.game_state(b) for b in range(engine.num_envs)]
    endings = 0
    for step in range(400):  # until some games have ended and begun again
        if endings >= 3 and step >= 40:
            break
        for b in range(engine.num_envs):
            check_same(engine, states, b)
        actions = engine.random_actions(rng)
        result = engine.step(actions)
        for b in range(engine.num_envs):
            state = states[b]
            if engine.simultaneous:
                state.apply({seat: int(actions[b, seat]) for seat in state.current_players()})
            else:
                state.apply(int(actions[b]))
            if result.terminated[b]:  # the engine started a fresh game: compare its end, then go on from the new one
                endings += 1
                assert state.is_terminal() and np.array_equal(result.rewards[b], state.returns())
                for seat in range(engine.num_players):
                    assert np.array_equal(result.final_observations[b, seat], state.observation_tensor(seat))
                states[b] = engine.game_state(b)
            else:
                assert not state.is_terminal()
    assert endings >= 3  # the suite saw games end and the engine start new ones


@pytest.mark.parametrize("name, options", CASES, ids=IDS)
def test_load_states_and_game_state_round_trip(name, options):
    """Positions taken from one engine's games (finished ones too) load into other rows
    of another engine and come back as the same states, with the same arrays."""
    source = make_engine(name, 5, 3, autoreset=False, **options)
    for steps in range(25):
        live = ~source.terminated
        if not live.any():
            break
        source.step(source.random_actions(), where=live)
    states = [source.game_state(b) for b in range(5)]
    target = make_engine(name, 7, 4, autoreset=False, **options)
    rows = np.array([6, 0, 3, 1, 5])
    target.load_states(states, rows)
    for state, row in zip(states, rows):
        assert target.game_state(int(row)) == state
        check_same(target, {int(row): state}, int(row))
    live = ~target.terminated
    if live.any():  # and they play on
        target.step(target.random_actions(), where=live)


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_load_states_refuses_what_does_not_fit(name):
    options = CONFIGS[name][0]
    engine = make_engine(name, 3, 0, **options)
    state = engine.game_state(0)
    before = [engine.game_state(b) for b in range(3)]
    with pytest.raises(ValueError, match=f"{name}: 1 states for 3 games"):
        engine.load_states([state])
    with pytest.raises(ValueError, match="rows must be distinct games in 0..2"):
        engine.load_states([state, state], [1, 1])
    other = {"double_card": {"max_moves": 60}, "goofspiel": {"num_cards": 3}, "sticks": {"num_sticks": 5},
             "tides_of_time": {"rounds": 3}, "tribolo": {"width": 5, "height": 5, "walls": 0, "start_cells": 1}}[name]
    with pytest.raises(ValueError, match="load_states needs states of"):
        engine.load_states([load_game(name, **other).new_initial_state(0)], [0])
    finished = make_engine(name, 1, 0, autoreset=False, **options)
    while not finished.terminated[0]:
        finished.step(finished.random_actions())
    with pytest.raises(ValueError, match="a finished game cannot be loaded into an engine with autoreset=True"):
        engine.load_states([finished.game_state(0)], [2])
    assert [engine.game_state(b) for b in range(3)] == before  # every refusal left the games as they were
