"""What is specific to the Double Card env: the two recycling sub-steps, the observation
planes, the ``moves`` reset option, the image size and bad input.  Everything every env
must do is in test_env_conformance.py."""


import numpy as np
import pytest

import parlour.envs.double_card_v0 as double_card_v0
from parlour import IllegalActionError
from parlour.games.double_card import PICK_BASE, DoubleCardGame


def test_recycling_is_two_steps_by_the_same_agent(setup_24):
    env = double_card_v0.raw_env()
    env.reset(options={"moves": setup_24})
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


def test_moves_reset_option():
    env = double_card_v0.env(render_mode="ansi")
    env.reset(options={"moves": ["0 5 A 1", "0 2 C 1"]})
    text = env.render()
    assert env.agent_selection == "player_0" and "last C 1 C 2" in text
    assert env.unwrapped.game_state.moves == 2
    with pytest.raises(ValueError, match=r"moves\[0\]"):
        env.reset(options={"moves": ["0 1 B 2"]})
    assert env.render() == text  # a failed reset leaves the game alone


def test_rgb_image_is_the_boards_picture(setup_24):
    pytest.importorskip("PIL", reason="rgb_array needs Pillow (the render extra)")
    env = double_card_v0.env(render_mode="rgb_array")
    env.reset(options={"moves": setup_24})
    image = env.render()
    assert image.dtype == np.uint8 and image.shape == (606, 378, 3)  # 8 x 12 cells of 40 px, labels, header
    env.reset()
    assert not np.array_equal(env.render(), image)


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
