"""``parlour.envs.wrappers.ActionMaskInInfos``: the Parallel envs with each agent's mask
moved from its observation into its infos (AgileRL's shape): the same games, step for
step, the observation array alone, the mask in the infos in the agents' order."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.wrappers import BaseParallelWrapper

from parlour.envs import goofspiel_v0, tides_of_time_v0
from parlour.envs.wrappers import ActionMaskInInfos


@pytest.mark.parametrize("make", [lambda: goofspiel_v0.parallel_env(num_cards=6), lambda: tides_of_time_v0.parallel_env(rounds=1)],
                         ids=["goofspiel", "tides_of_time"])
def test_the_same_game_with_the_mask_in_the_infos(make):
    plain, wrapped = make(), ActionMaskInInfos(make())
    agent = plain.possible_agents[0]
    assert wrapped.observation_space(agent) == plain.observation_space(agent)["observation"]
    assert wrapped.observation_spaces[agent] == wrapped.observation_space(agent)
    assert wrapped.action_space(agent) == plain.action_space(agent) and wrapped.possible_agents == plain.possible_agents
    seen, infos = plain.reset(seed=3)
    observations, moved = wrapped.reset(seed=3)
    rng = np.random.default_rng(0)
    ended = False
    while not ended:
        assert list(moved) == list(observations) == list(seen)  # the agents' order: AgileRL stacks masks in it
        for name in seen:
            np.testing.assert_array_equal(observations[name], seen[name]["observation"])
            assert moved[name]["action_mask"] == seen[name]["action_mask"].tolist()
            assert all(type(bit) is int for bit in moved[name]["action_mask"])
            assert {k: v for k, v in moved[name].items() if k != "action_mask"} == infos[name]
        actions = {a: int(rng.choice(np.flatnonzero(seen[a]["action_mask"]))) for a in plain.agents}
        seen, rewards, terminations, truncations, infos = plain.step(actions)
        observations, wrapped_rewards, wrapped_terminations, wrapped_truncations, moved = wrapped.step(actions)
        assert (wrapped_rewards, wrapped_terminations, wrapped_truncations) == (rewards, terminations, truncations)
        ended = not plain.agents
    assert not wrapped.agents
    assert all(sum(moved[name]["action_mask"]) == 0 for name in moved)  # at the end: no moves, as in the observation


def test_it_passes_pettingzoos_parallel_api_test():
    parallel_api_test(ActionMaskInInfos(goofspiel_v0.parallel_env(num_cards=4)), num_cycles=50)
    parallel_api_test(ActionMaskInInfos(goofspiel_v0.parallel_env(num_cards=4), names=("first", "second")), num_cycles=50)


def test_the_agents_renamed():
    """names: the same game under other names (AgileRL groups agents named alike)."""
    plain, renamed = goofspiel_v0.parallel_env(num_cards=4), ActionMaskInInfos(goofspiel_v0.parallel_env(num_cards=4), names=("a0", "a1"))
    assert renamed.possible_agents == ["a0", "a1"] and renamed.agents == []
    seen, _ = plain.reset(seed=5)
    observations, infos = renamed.reset(seed=5)
    assert renamed.agents == ["a0", "a1"] and list(infos) == ["a0", "a1"] and renamed.num_agents == 2
    np.testing.assert_array_equal(observations["a1"], seen["player_1"]["observation"])
    assert renamed.action_space("a1") == plain.action_space("player_1")
    assert renamed.observation_space("a0") == plain.observation_space("player_0")["observation"]
    results = plain.step({"player_0": 3, "player_1": 0})
    renamed_results = renamed.step({"a0": 3, "a1": 0})
    assert renamed_results[1] == {"a0": results[1]["player_0"], "a1": results[1]["player_1"]}
    assert renamed_results[4]["a0"]["action_mask"] == results[0]["player_0"]["action_mask"].tolist()
    for bad in (("a0",), ("a0", "a0"), ("a0", 1)):
        with pytest.raises(ValueError, match="names must be 2 distinct strings"):
            ActionMaskInInfos(goofspiel_v0.parallel_env(num_cards=4), names=bad)


def test_an_env_without_a_mask_in_its_observations_is_refused():
    class ArraysOnly(BaseParallelWrapper):
        def observation_space(self, agent):
            return self.env.observation_space(agent)["observation"]

    with pytest.raises(ValueError, match="ActionMaskInInfos wants observations .* agent 'player_0' observes Box"):
        ActionMaskInInfos(ArraysOnly(goofspiel_v0.parallel_env(num_cards=4)))
