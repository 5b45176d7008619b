"""Double Card env: PettingZoo's api and seed tests on every flag combination, reset
options, the two recycling sub-steps, rendering and bad input."""

import itertools
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import parlour
import parlour.envs.double_card_v0 as double_card_v0
from parlour import IllegalActionError
from parlour.games.double_card import PICK_BASE, DoubleCardGame

CONFIGS = [
    dict(max_moves=m, recycle_rule=r, first_player=f)
    for m, r, f in itertools.product([40, 60], ["same_cells", "same_placement", "none"], ["colors", "dots"])
]
IDS = [f"m{c['max_moves']}-{c['recycle_rule']}-{c['first_player']}" for c in CONFIGS]

SETUP_24 = [
    "0 3 B 1", "0 6 E 1", "0 6 E 3", "0 2 H 1", "0 6 D 1", "0 2 B 2", "0 6 B 4", "0 2 G 1",
    "0 5 G 3", "0 2 A 1", "0 8 G 4", "0 6 A 3", "0 6 C 2", "0 6 G 6", "0 4 E 5", "0 8 C 4",
    "0 2 A 5", "0 4 E 7", "0 6 E 9", "0 8 G 8", "0 6 C 6", "0 2 A 7", "0 6 C 8", "0 8 A 9",
]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test resets with options={"options": 1}
        yield


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pettingzoo_api_and_seed_tests(config):
    api_test(double_card_v0.env(**config), num_cycles=30)
    api_test(double_card_v0.raw_env(**config), num_cycles=10)
    seed_test(lambda: double_card_v0.env(**config), num_cycles=30)


def _trace(env, seed, options=None, games=2):
    trace = []
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g, options=options)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            trace.append((agent, obs["observation"].sum(), tuple(np.flatnonzero(obs["action_mask"])), reward, term))
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


@pytest.mark.parametrize("config", CONFIGS[::5], ids=IDS[::5])
def test_recycling_games_from_a_full_board_are_deterministic(config):
    options = {"moves": SETUP_24}
    first = _trace(double_card_v0.env(**config), 7, options)
    assert first == _trace(double_card_v0.env(**config), 7, options)
    assert any(min(mask, default=0) >= PICK_BASE for _, _, mask, _, _ in first)


def test_recycling_is_two_steps_by_the_same_agent():
    env = double_card_v0.raw_env()
    env.reset(options={"moves": SETUP_24})
    assert env.agent_selection == "player_0"
    obs = env.observe("player_0")
    assert np.flatnonzero(obs["action_mask"]).min() >= PICK_BASE
    assert obs["observation"][9].max() == 0 and obs["observation"][10].min() == 1
    state = env.game_state
    env.step(state.text_to_action("D 1 D 2"))
    assert env.agent_selection == "player_0"
    obs = env.observe("player_0")
    assert np.flatnonzero(obs["action_mask"]).max() < PICK_BASE
    assert obs["observation"][9].min() == 1 and obs["observation"][7].sum() == 2
    assert not env.observe("player_1")["action_mask"].any()
    env.step(env.game_state.text_to_action("4 F 1"))
    assert env.agent_selection == "player_1" and env.game_state.moves == 25


def test_observation_planes():
    game = DoubleCardGame(first_player="dots")
    state = game.new_initial_state(moves=["0 1 A 1", "0 2 C 1"])
    obs = state.observation_tensor(0)
    assert obs.shape == (12, 12, 8)
    assert obs[0, 0, 0] == 1 and obs[1, 0, 1] == 1 and obs[2, 0, 0] == 1 and obs[3, 0, 1] == 1  # R* Wo
    assert obs[4, 0, 0] == 1 and obs[5, 0, 2] == 1 and obs[4].sum() == 1 and obs[5].sum() == 1
    assert obs[6].sum() == 2 and obs[6, 0, 2] == obs[6, 1, 2] == 1  # C1-C2 moved last
    assert obs[8].max() == 0 and state.observation_tensor(1)[8].min() == 1  # player_1 plays colors
    assert np.allclose(obs[11], 2 / 40)


def test_reset_options_moves_and_position():
    env = double_card_v0.env(render_mode="ansi")
    env.reset(options={"moves": ["0 5 A 1", "0 2 C 1"]})
    text = env.render()
    assert env.agent_selection == "player_0" and "last C 1 C 2" in text
    other = double_card_v0.env(render_mode="ansi")
    other.reset(options={"position": text})
    assert other.render() == text
    with pytest.raises(ValueError, match=r"moves\[0\]"):
        other.reset(options={"moves": ["0 1 B 2"]})
    assert other.render() == text  # a failed reset leaves the game alone


def test_rgb_render():
    env = double_card_v0.env(render_mode="rgb_array")
    env.reset(options={"moves": SETUP_24})
    image = env.render()
    assert image.dtype == np.uint8 and image.shape == (288, 192, 3)


def test_bad_input():
    env = double_card_v0.raw_env()
    env.reset()
    before = env.game_state.to_text()
    with pytest.raises(IllegalActionError, match="hang"):
        env.step(env.game_state.text_to_action("0 1 A 2"))
    with pytest.raises(IllegalActionError, match="only allowed when recycling"):
        env.step(PICK_BASE)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step(864)
    assert env.game_state.to_text() == before
    with pytest.raises(ValueError, match="recycle_rule"):
        double_card_v0.env(recycle_rule="bad")
    with pytest.raises(ValueError, match="malformed"):
        env.game_state.text_to_action("0 5 Z 2")


def test_env_illegal_action_terminates():
    env = double_card_v0.env()
    env.reset()
    env.step(PICK_BASE)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}


@pytest.mark.skipif("double_card" not in parlour.games.GAMES, reason="not yet registered")
def test_registry_id():
    env = pettingzoo.make("aec", "parlour/double_card-v0", max_moves=60)
    env.reset()
    assert env.unwrapped.game.max_moves == 60
