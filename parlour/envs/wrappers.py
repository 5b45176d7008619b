"""Wrappers that give parlour's envs the shape another library expects.

``ActionMaskInInfos``: a Parallel env whose agents observe the ``observation`` array
alone and find their legal moves in ``infos[agent]["action_mask"]``.  parlour puts the
mask in the observation (``{"observation", "action_mask"}``, docs/envs.md), as
PettingZoo's own games do; AgileRL's multi-agent algorithms (IPPO, MADDPG, MATD3) refuse
an observation that holds a mask and read it from the infos instead
(docs/integrations.md has the recipe).  The mask there is a list of 0/1 ints: AgileRL
(2.58) stacks a group's masks after asking ``None in masks``, which a numpy array
cannot answer.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from pettingzoo.utils.env import ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper


class ActionMaskInInfos(BaseParallelWrapper):
    """``env`` (a Parallel env whose observations are ``{"observation", "action_mask"}``,
    as every parlour ``parallel_env()``) with the mask moved from each observation into
    that agent's infos, as a list.  Nothing else changes: the same agents, actions, rewards and
    terminations, and the mask keeps its meaning (the legal moves of an agent to act
    now, all zeros for an agent that is not, and for every agent once the game is over).
    """

    def __init__(self, env: ParallelEnv) -> None:
        super().__init__(env)
        self.observation_spaces = {}
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            if not isinstance(space, spaces.Dict) or set(space.spaces) != {"observation", "action_mask"}:
                raise ValueError(f"ActionMaskInInfos wants observations {{'observation', 'action_mask'}}; "
                                 f"agent {agent!r} observes {space}")
            self.observation_spaces[agent] = space["observation"]

    def observation_space(self, agent: Any) -> spaces.Space:
        return self.observation_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[Any, Any], dict[Any, dict[str, Any]]]:
        observations, infos = self.env.reset(seed=seed, options=options)
        return self._moved(observations, infos)

    def step(self, actions: dict[Any, Any]) -> tuple[dict[Any, Any], dict[Any, float], dict[Any, bool], dict[Any, bool], dict[Any, dict[str, Any]]]:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        observations, infos = self._moved(observations, infos)
        return observations, rewards, terminations, truncations, infos

    @staticmethod
    def _moved(observations: dict[Any, Any], infos: dict[Any, dict[str, Any]]) -> tuple[dict[Any, Any], dict[Any, dict[str, Any]]]:
        """Each agent's observation array, and its infos with its mask added."""
        moved = {agent: seen["observation"] for agent, seen in observations.items()}
        # in the observations' order (the agents'): AgileRL stacks a group's masks in the infos' order
        with_masks = {agent: {**infos.get(agent, {}), "action_mask": seen["action_mask"].tolist()} for agent, seen in observations.items()}
        with_masks.update((agent, info) for agent, info in infos.items() if agent not in with_masks)
        return moved, with_masks


__all__ = ["ActionMaskInInfos"]
