"""The contract every batched engine keeps (``parlour.games.engine.BatchedEngine``), one
differential suite over ``ENGINES`` (this file and ``test_engine_contract_batch.py``,
on the harness in ``conformance.py``): each engine, under several configurations of
its game and under any options (hypothesis), steps games in lockstep with the
single-game rules and must give the same observations, masks, returns, endings and
seats to act at every step, also with games out of step (loaded mid-game) and stepped
a few at a time (``where``); ``game_state(b)`` gives each game back as a rules state,
and ``load_states`` puts any rules states in."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conformance import (
    CASES,
    CONFIGS,
    IDS,
    OPTIONS,
    SMALL,
    Lockstep,
    cases,
    engines,
    every_player,
    lockstep_at,
    mid_game_states,
    quiet_play,
    random_play,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.games import load_game
from parlour.vector import ENGINES, make_engine


def test_every_engine_has_cases():
    assert sorted(CONFIGS) == sorted(OPTIONS) == sorted(SMALL) == sorted(ENGINES)
    assert len(CASES) == len(IDS) == len(set(IDS))


@cases
def test_lockstep_with_the_single_games(name, options):
    """Every batched player in turn (random and the engine's own), autoreset on: every
    step the engine's arrays are the rules states'; finished games start afresh."""
    lockstep = Lockstep(make_engine(name, 6, 7, **options))
    rng = np.random.default_rng(7)
    while lockstep.steps < 30 or lockstep.endings < 3:
        assert lockstep.steps < 400
        lockstep.step(every_player(lockstep, rng))
    lockstep.check_states()


@cases
def test_games_out_of_step_and_where_steps_match_the_single_games(name, options):
    """Some games loaded mid-game, the others fresh; two steps in three move a random
    subset of the games (``where``: the others keep their state, whatever their
    actions), the third all of them."""
    lockstep = lockstep_at(name, options, 6, 3)
    engine = lockstep.engine
    rng = np.random.default_rng(3)
    for i in range(30):
        where = None if i % 3 == 2 else rng.random(6) < 0.6
        actions = engine.random_actions(rng)
        if where is not None:  # the actions of the games left out are ignored, however bad
            actions[~where] = engine.num_actions + 1 if i % 2 else -1
        lockstep.step(actions, where)
    assert lockstep.endings >= 1
    lockstep.check_states()


@engines
@settings(max_examples=15, deadline=None)
@given(data=st.data(), num_envs=st.integers(1, 5), seed=st.integers(0, 2**32 - 1), quiet=st.booleans(), loaded=st.sampled_from([0.0, 0.5]))
def test_lockstep_under_any_options(name, data, num_envs, seed, quiet, loaded):
    """Hypothesis over the game's options, the batch size and seed, random or quiet
    play (moves that end the game avoided: long games), fresh or loaded games.  Options
    the single game refuses, or under which it cannot start, the engine refuses alike."""
    options = data.draw(OPTIONS[name], label="options")
    try:
        load_game(name, **options).new_initial_state(0)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error))):
            make_engine(name, num_envs, seed, **options)
        return
    lockstep = lockstep_at(name, options, num_envs, seed, loaded)
    rng = np.random.default_rng(seed)
    while lockstep.steps < 60 and not lockstep.ended.all():
        lockstep.step((quiet_play if quiet else random_play)(lockstep, rng))
    lockstep.check_states()


@cases
def test_load_states_and_game_state_round_trip(name, options):
    """Positions of another engine's games (finished ones too) and of single games
    (random and notable positions) load into other rows and come back as the same
    states, with the same arrays, and play on as the single games."""
    source = make_engine(name, 5, 3, autoreset=False, **options)
    Lockstep(source).play(random_play, np.random.default_rng(3), 25)
    states = [source.game_state(b) for b in range(5)] + mid_game_states(source.game, np.random.default_rng(4), 5, finished=True)
    target = make_engine(name, 10, 4, autoreset=False, **options)
    rows = np.random.default_rng(5).permutation(10)  # every game, out of order (the other tests load some games)
    lockstep = Lockstep(target)
    lockstep.load(states, rows)
    for state, row in zip(states, rows):
        assert target.game_state(int(row)) == state and target.game_state(int(row)).key() == state.key()
    lockstep.play(random_play, np.random.default_rng(6), 4)
    lockstep.check_states()


@engines
def test_load_states_refuses_what_does_not_fit(name):
    options = CONFIGS[name][0]
    engine = make_engine(name, 3, 0, **options)
    state = engine.game_state(0)
    before = [engine.game_state(b) for b in range(3)]
    with pytest.raises(ValueError, match=f"{name}: 1 states for 3 games"):
        engine.load_states([state])
    with pytest.raises(ValueError, match="rows must be distinct games in 0..2"):
        engine.load_states([state, state], [1, 1])
    with pytest.raises(ValueError, match="rows must be distinct games in 0..2"):
        engine.load_states([state], [3])
    other = {"double_card": {"max_moves": 60}, "goofspiel": {"num_cards": 3}, "sticks": {"num_sticks": 5},
             "tides_of_time": {"rounds": 3, "maze_counts_sets": True},
             "tribolo": {"width": 5, "height": 5, "walls": 0, "start_cells": 1}}[name]
    with pytest.raises(ValueError, match="load_states needs states of"):
        engine.load_states([load_game(name, **other).new_initial_state(0)], [0])
    finished = make_engine(name, 1, 0, autoreset=False, **options)
    while not finished.terminated[0]:
        finished.step(finished.random_actions())
    with pytest.raises(ValueError, match="a finished game cannot be loaded into an engine with autoreset=True"):
        engine.load_states([finished.game_state(0)], [2])
    assert [engine.game_state(b) for b in range(3)] == before  # every refusal left the games as they were
