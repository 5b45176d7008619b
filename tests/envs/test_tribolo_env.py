"""The Tribolo env: PettingZoo's api and seed tests on several board sizes, the skip rule
in agent_selection, observations, reset options, rendering, bad input."""

import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import parlour.envs.tribolo_v0 as tribolo_v0
import parlour.games
from parlour.errors import IllegalActionError

CONFIGS = [
    dict(),
    dict(width=5, height=4, walls=2, start_cells=2),
    dict(width=8, height=8, walls=0, start_cells=4, returns="cell_share"),
    dict(width=3, height=3, walls=0, start_cells=1),
    dict(width=26, height=5, walls=20, start_cells=10),
]
IDS = ["16x11", "5x4", "8x8-share", "3x3", "26x5"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test resets with options={"options": 1}
        yield


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pettingzoo_api_and_seed_tests(config):
    api_test(tribolo_v0.env(**config), num_cycles=30)
    api_test(tribolo_v0.raw_env(**config), num_cycles=30)
    seed_test(lambda: tribolo_v0.env(**config), num_cycles=30)


def _trace(env, seed, games=2):
    trace = []
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term))
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


@pytest.mark.parametrize("config", CONFIGS[:3], ids=IDS[:3])
def test_whole_games_are_deterministic(config):
    assert _trace(tribolo_v0.env(**config), 4) == _trace(tribolo_v0.env(**config), 4)
    assert _trace(tribolo_v0.env(**config), 4) != _trace(tribolo_v0.env(**config), 5)


def test_agent_selection_follows_the_skip_rule_and_returns_at_the_end():
    env = tribolo_v0.raw_env()
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    seen_skip = False
    while not env.game_state.is_terminal():
        state = env.game_state
        (seat,) = state.current_players()
        assert env.agent_selection == f"player_{seat}"
        mask = env.observe(env.agent_selection)["action_mask"]
        assert mask.tolist() == state.legal_mask(seat).tolist()
        for other in range(3):
            if other != seat:
                assert not env.observe(f"player_{other}")["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(mask))))
        if not env.game_state.is_terminal():
            nxt = env.game_state.current_players()[0]
            seen_skip |= nxt != (seat + 1) % 3
    assert seen_skip  # this game skips someone at least once
    returns = env.game_state.returns()
    assert all(env.terminations.values())
    assert [env._cumulative_rewards[f"player_{s}"] for s in range(3)] == list(returns)


def test_skipped_agent_never_acts():
    text = "\n".join(["player_0 to move | B 2 R 1 G 2", "..B...B.", "..GG....", "R#......", "##......"])
    env = tribolo_v0.raw_env(width=8, height=4, walls=0, start_cells=1)
    env.reset(options={"position": text})
    acted = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term:
            env.step(None)
            continue
        acted.append(agent)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "player_1" not in acted and acted[:4] == ["player_0", "player_2", "player_0", "player_2"]


def test_observation_is_seat_relative():
    env = tribolo_v0.raw_env()
    env.reset(seed=3)
    state = env.game_state
    for seat in range(3):
        obs = env.observe(f"player_{seat}")["observation"]
        assert obs.shape == (5, 11, 16) and obs.dtype == np.float32
        assert obs[0].sum() == state.counts()[seat]
        assert obs[1].sum() == state.counts()[(seat + 1) % 3]
        assert obs[2].sum() == state.counts()[(seat + 2) % 3]
        assert obs[3].sum() == 12 and obs[4].sum() == 176 - 36 - 12
        assert env.observation_space(f"player_{seat}")["observation"].contains(obs)
    assert env.action_space("player_0").n == 176


def test_position_reset_option_and_render_round_trip():
    env = tribolo_v0.raw_env(render_mode="ansi")
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    text = env.render()
    other = tribolo_v0.raw_env(render_mode="ansi")
    other.reset(options={"position": text})
    assert other.render() == text
    assert other.agent_selection == env.agent_selection
    assert other.game_state.key() == env.game_state.key()


def test_rgb_render():
    env = tribolo_v0.raw_env(render_mode="rgb_array", width=6, height=4, walls=1, start_cells=2)
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.shape == (48, 72, 3)
    assert "rgb_array" in env.metadata["render_modes"]


def test_bad_input():
    env = tribolo_v0.raw_env()
    env.reset(seed=2)
    state = env.game_state
    seat = state.current_players()[0]
    illegal = next(a for a in range(176) if a not in state.legal_actions(seat))
    before = state.to_text()
    with pytest.raises(IllegalActionError, match="illegal"):
        env.step(illegal)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step(176)
    assert env.game_state.to_text() == before
    for options, message in [
        ({"position": "nonsense"}, "malformed tribolo header"),
        ({"position": "player_0 to move | B 0 R 0 G 0\n" + "." * 16}, "rows"),
        ({"position": 5}, "text form"),
    ]:
        with pytest.raises(ValueError, match=message):
            env.reset(options=options)
        assert env.game_state.to_text() == before
    with pytest.raises(ValueError, match="width"):
        tribolo_v0.env(width=40)
    with pytest.raises(ValueError, match="render_mode"):
        tribolo_v0.env(render_mode="svg")


def test_env_illegal_action_ends_the_game_with_minus_one():
    env = tribolo_v0.env()
    env.reset(seed=2)
    agent = env.agent_selection
    seat = int(agent[-1])
    illegal = next(a for a in range(176) if a not in env.unwrapped.game_state.legal_actions(seat))
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0


@pytest.mark.skipif("tribolo" not in parlour.games.GAMES, reason="not yet registered")
def test_registry_id():
    env = pettingzoo.make("aec", "parlour/tribolo-v0", width=8, height=8, walls=4, start_cells=5)
    env.reset(seed=0)
    assert env.unwrapped.game.num_actions == 64
