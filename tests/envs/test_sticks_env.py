"""What is specific to the sticks env: the ``sticks`` reset option, its text form and the
observation's Box bounds.  Everything every env must do is in test_env_conformance.py."""

from parlour.envs import sticks_v0


def test_sticks_and_position_reset_options(capsys):
    env = sticks_v0.env(render_mode="ansi")
    env.reset(options={"sticks": 4})
    assert env.render() == "4 sticks | player_0 to move"
    env.reset(options={"position": "2 sticks | player_1 to move"})
    assert env.agent_selection == "player_1"
    assert env.observe("player_1")["action_mask"].tolist() == [1, 1, 0]
    human = sticks_v0.env(render_mode="human")
    human.reset()
    human.render()
    assert capsys.readouterr().out == "10 sticks | player_0 to move\n"
    human.step(0)
    assert capsys.readouterr().out == "9 sticks | player_1 to move\n"  # printed after each step


def test_observation_and_its_bounds():
    """docs/sticks.md: with num_sticks=5 and 3 sticks left, [3, 3, 0, 0, 0, 1, 0, 0];
    the upper bounds are [num_sticks, max_take, 1, ..., 1]."""
    env = sticks_v0.raw_env(num_sticks=5)
    env.reset(options={"sticks": 3})
    for agent in env.possible_agents:
        assert env.observe(agent)["observation"].tolist() == [3, 3, 0, 0, 0, 1, 0, 0]
    box = env.observation_space("player_0")["observation"]
    assert box.high.tolist() == [5, 3, 1, 1, 1, 1, 1, 1] and box.low.tolist() == [0] * 8
