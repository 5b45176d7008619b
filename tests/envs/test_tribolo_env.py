"""What is specific to the Tribolo env: the skip rule in ``agent_selection``, the
seat-relative observation planes, the image size, and bad positions.  Everything every
env must do is in test_env_conformance.py."""

import numpy as np
import pytest
from env_helpers import TRIBOLO_SKIPS, play_aec

import parlour.envs.tribolo_v0 as tribolo_v0
from parlour.errors import IllegalActionError


def test_agent_selection_follows_the_skip_rule_and_returns_at_the_end():
    env = tribolo_v0.raw_env()
    env.reset(seed=8)
    state = env.game_state
    seen_skip = False
    for agent, _ in play_aec(env, np.random.default_rng(8)):
        if state.is_terminal():
            break
        (nxt,) = state.current_players()
        assert env.agent_selection == f"player_{nxt}"
        seen_skip |= nxt != (int(agent[-1]) + 1) % 3
    assert env.terminations == dict.fromkeys(env.possible_agents, True)
    assert [env._cumulative_rewards[f"player_{s}"] for s in range(3)] == list(state.returns())
    assert seen_skip  # this game skips someone at least once


def test_skipped_agent_never_acts():
    env = tribolo_v0.raw_env(width=8, height=4, walls=0, start_cells=1)
    env.reset(options={"position": TRIBOLO_SKIPS})
    acted = [agent for agent, action in play_aec(env, np.random.default_rng(0)) if action is not None]
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
        assert (obs.sum(axis=0) == 1).all()  # every cell in exactly one plane
    assert env.action_space("player_0").n == 176


def test_rgb_image_grows_with_the_board():
    pytest.importorskip("PIL", reason="rgb_array needs Pillow (the render extra)")
    small = tribolo_v0.raw_env(render_mode="rgb_array", width=6, height=4, walls=1, start_cells=2)
    small.reset(seed=0)
    large = tribolo_v0.raw_env(render_mode="rgb_array")
    large.reset(seed=0)
    assert small.render().dtype == np.uint8 and small.render().shape[0] < large.render().shape[0]


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
