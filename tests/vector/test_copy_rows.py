"""``BatchedEngine.copy_rows``: a game copied into another engine's row is the same game
there (observations, masks, movers, returns) and goes on the same under the same moves;
``deal`` starts the game ``new_initial_state`` deals from the same generator."""

from __future__ import annotations

import numpy as np
import pytest

from parlour.vector import ENGINES, make_engine

COPYABLE = sorted(name for name, engine in ENGINES.items() if engine.STATE)
OPTIONS = {"tribolo": {"width": 7, "height": 6, "walls": 3, "start_cells": 3}, "goofspiel": {"num_cards": 5}}


def snapshot(engine, rows):
    out = [engine.observations()[rows], engine.legal_masks()[rows], engine.to_act()[rows], engine.returns()[rows],
           engine.terminated[rows]]
    return out


@pytest.mark.parametrize("name", COPYABLE)
def test_a_copied_game_is_the_same_game_and_goes_on_the_same(name):
    options = OPTIONS.get(name, {})
    B = 12
    source = make_engine(name, B, seed=1, autoreset=False, **options)
    rng = np.random.default_rng(0)
    for _ in range(4):
        source.step(source.random_actions(rng), where=~source.terminated)
    target = make_engine(name, B, seed=2, autoreset=False, **options)
    order = rng.permutation(B)
    target.copy_rows(source, order, np.arange(B))
    for a, b in zip(snapshot(source, order), snapshot(target, np.arange(B))):
        assert np.array_equal(a, b)
    for _ in range(6):  # the same moves from here give the same games
        alive = ~source.terminated
        if not alive.any():
            break
        actions = source.random_actions(rng)
        source.step(actions, where=alive)
        target.step(actions[order], where=alive[order])
        for a, b in zip(snapshot(source, order), snapshot(target, np.arange(B))):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("name", [n for n in COPYABLE if hasattr(ENGINES[n], "deal")])
def test_deal_starts_the_single_games_deal(name):
    options = OPTIONS.get(name, {})
    engine = make_engine(name, 5, seed=0, autoreset=False, **options)
    engine.deal(np.arange(5), [np.random.default_rng(seed) for seed in range(5)])
    for seed in range(5):
        state = engine.game.new_initial_state(np.random.default_rng(seed))
        for seat in range(engine.num_players):
            assert np.array_equal(engine.observations()[seed, seat], state.observation_tensor(seat))
