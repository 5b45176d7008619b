"""Tides of Time envs: PettingZoo's api, parallel api and seed tests on every
configuration, reset options, rendering and bad input."""

import itertools
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import parlour
import parlour.envs.tides_of_time_v0 as tides_v0
from parlour import IllegalActionError

CONFIGS = [
    dict(rounds=r, returns=ret, zero_ties_win=z, maze_counts_sets=m)
    for r, ret, z, m in itertools.product([1, 3], ["win_loss", "score_difference"], [True, False], [False, True])
]
IDS = [f"r{c['rounds']}-{c['returns']}-z{int(c['zero_ties_win'])}-m{int(c['maze_counts_sets'])}" for c in CONFIGS]
DECK = [15, 6, 10, 11, 18, 2, 5, 7, 8, 14, 1, 3, 4, 9, 12, 13, 16, 17]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test resets with options={"options": 1}
        yield


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pettingzoo_tests(config):
    api_test(tides_v0.env(**config), num_cycles=40)
    api_test(tides_v0.raw_env(**config), num_cycles=40)
    parallel_api_test(tides_v0.parallel_env(**config), num_cycles=40)
    seed_test(lambda: tides_v0.env(**config), num_cycles=40)
    parallel_seed_test(lambda: tides_v0.parallel_env(**config), num_cycles=40)


@pytest.mark.skipif("tides_of_time" not in parlour.games.GAMES, reason="not yet registered")
def test_registry_ids():
    import pettingzoo

    assert pettingzoo.make("aec", "parlour/tides_of_time-v0") is not None
    assert pettingzoo.make("parallel", "parlour/tides_of_time-v0") is not None


def _play_parallel(env, seed, options=None):
    observations, _ = env.reset(seed=seed, options=options)
    rng = np.random.default_rng(seed)
    steps = 0
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents}
        observations, rewards, terms, truncs, infos = env.step(actions)
        steps += 1
    return steps, rewards


@pytest.mark.parametrize("rounds, steps", [(1, 5), (3, 19)])
def test_parallel_game_lengths_and_rewards(rounds, steps):
    env = tides_v0.parallel_env(rounds=rounds, returns="score_difference")
    n, rewards = _play_parallel(env, 3)
    assert n == steps
    assert rewards["player_0"] == -rewards["player_1"]
    total = env.game_state.totals()
    assert rewards["player_0"] == total[0] - total[1]


def test_reset_deck_option_fixes_the_deal():
    env = tides_v0.parallel_env(rounds=1, returns="score_difference")
    observations, _ = env.reset(options={"deck": DECK})
    assert np.flatnonzero(observations["player_0"]["action_mask"]).tolist() == [5, 9, 10, 14, 17]
    assert np.flatnonzero(observations["player_1"]["action_mask"]).tolist() == [1, 4, 6, 7, 13]
    # every pick is the first card of the hand: the seed's example is not forced, just play on
    while env.agents:
        acts = {a: int(np.flatnonzero(observations[a]["action_mask"])[0]) for a in env.agents}
        observations, rewards, *_ = env.step(acts)
    assert env.game_state.is_terminal()


def test_reset_position_option_round_trips():
    env = tides_v0.parallel_env(rounds=3)
    _play_parallel(env, 5)
    text = env.game_state.to_text()
    env2 = tides_v0.parallel_env(rounds=3)
    env2.reset(options={"position": text})
    assert env2.game_state.to_text() == text


def test_bad_deck_option_is_a_clear_error():
    env = tides_v0.parallel_env()
    with pytest.raises(ValueError, match="deck must be a permutation of the card numbers 1..18"):
        env.reset(options={"deck": [1, 2, 3]})
    with pytest.raises(ValueError, match=r"card in deck must be between 1 and 18, got 19"):
        env.reset(options={"deck": DECK[:-1] + [19]})


def test_render_ansi_shows_names_relics_scores_and_breakdown():
    env = tides_v0.parallel_env(rounds=3, render_mode="ansi")
    observations, _ = env.reset(options={"deck": DECK})
    text = env.render()
    assert "The King's Nest [Palace]" in text and "round 1/3, pick 1/5" in text
    rng = np.random.default_rng(0)
    for _ in range(7):  # 5 picks, the relic step, the discard step
        acts = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents}
        observations, *_ = env.step(acts)
    text = env.render()
    assert "r1 score: " in text and "player_0 " in text and "(relic)" in text and "r1 keep: relic" in text
    assert env.game.state_from_text(text).to_text() == text


def test_aec_relic_step_hides_the_first_choice():
    env = tides_v0.raw_env(rounds=3)
    env.reset(seed=1)
    for _ in range(5):
        for _agent in ("player_0", "player_1"):
            obs, *_ = env.last()
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.game_state.phase == 1  # relic step
    before = env.observe("player_1")["observation"].copy()
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    assert (env.observe("player_1")["observation"] == before).all()


def test_raw_parallel_env_bad_relic_raises_and_changes_nothing():
    env = tides_v0.raw_parallel_env(rounds=3)
    observations, _ = env.reset(seed=2)
    for _ in range(5):
        acts = {a: int(np.flatnonzero(observations[a]["action_mask"])[0]) for a in env.agents}
        observations, *_ = env.step(acts)
    state = env.game_state
    before = state.to_text()
    not_drafted = next(a for a in range(18) if not state.drafted[0] >> a & 1)
    good = int(np.flatnonzero(observations["player_1"]["action_mask"])[0])
    with pytest.raises(IllegalActionError, match="was not drafted this round by seat 0"):
        env.step({"player_0": not_drafted, "player_1": good})
    assert env.game_state.to_text() == before


def test_env_illegal_pick_ends_the_game():
    env = tides_v0.parallel_env(rounds=1)
    observations, _ = env.reset(seed=0)
    bad = int(np.flatnonzero(observations["player_0"]["action_mask"] == 0)[0])
    good = int(np.flatnonzero(observations["player_1"]["action_mask"])[0])
    _, rewards, terms, _, infos = env.step({"player_0": bad, "player_1": good})
    assert rewards == {"player_0": -1.0, "player_1": 0.0} and all(terms.values())
    assert infos["player_0"]["illegal_action"][0]["agent"] == "player_0"
