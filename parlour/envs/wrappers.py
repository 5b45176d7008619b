"""Wrappers that give parlour's envs the shape another library expects.

``ActionMaskInInfos``: a Parallel env whose agents observe the ``observation`` array
alone and find their legal moves in ``infos[agent]["action_mask"]``.  parlour puts the
mask in the observation (``{"observation", "action_mask"}``, docs/envs.md), as
PettingZoo's own games do; AgileRL's multi-agent algorithms (IPPO, MADDPG, MATD3) refuse
an observation that holds a mask and read it from the infos instead
(docs/integrations.md has the recipe).  The mask there is a list of 0/1 ints: AgileRL
(2.58) stacks a group's masks after asking ``None in masks``, which a numpy array
cannot answer.  ``names`` renames the agents: AgileRL puts agents named alike
(``player_0``, ``player_1``: the name before the last ``_``) in one group with one
network, and in our runs such a group did not learn where one network per seat did.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gymnasium import spaces
from pettingzoo.utils.env import ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper


class ActionMaskInInfos(BaseParallelWrapper):
    """``env`` (a Parallel env whose observations are ``{"observation", "action_mask"}``,
    as every parlour ``parallel_env()``) with the mask moved from each observation into
    that agent's infos, as a list, and the agents called ``names`` (one per agent of
    ``env.possible_agents``, in order; default: their own names).  Nothing else changes:
    the same actions, rewards and terminations, and the mask keeps its meaning (the
    legal moves of an agent to act now, all zeros for an agent that is not, and for
    every agent once the game is over).
    """

    def __init__(self, env: ParallelEnv, names: Sequence[str] | None = None) -> None:
        super().__init__(env)
        inner = list(env.possible_agents)
        if names is not None and (len(names) != len(inner) or len(set(names)) != len(inner)
                                  or not all(isinstance(n, str) for n in names)):
            raise ValueError(f"names must be {len(inner)} distinct strings, one per agent of {inner}, got {names!r}")
        self._outer = dict(zip(inner, names if names is not None else inner))
        self._inner = {outer: agent for agent, outer in self._outer.items()}
        self.possible_agents = [self._outer[a] for a in inner]
        self.observation_spaces = {}
        for agent in inner:
            space = env.observation_space(agent)
            if not isinstance(space, spaces.Dict) or set(space.spaces) != {"observation", "action_mask"}:
                raise ValueError(f"ActionMaskInInfos wants observations {{'observation', 'action_mask'}}; "
                                 f"agent {agent!r} observes {space}")
            self.observation_spaces[self._outer[agent]] = space["observation"]

    @property
    def agents(self) -> list[Any]:  # a view of the wrapped env's agents
        return [self._outer[a] for a in self.env.agents]

    @property
    def num_agents(self) -> int:
        return len(self.env.agents)

    def observation_space(self, agent: Any) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: Any) -> spaces.Space:
        return self.env.action_space(self._inner[agent])

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[Any, Any], dict[Any, dict[str, Any]]]:
        observations, infos = self.env.reset(seed=seed, options=options)
        return self._moved(observations, infos)

    def step(
        self, actions: dict[Any, Any]
    ) -> tuple[dict[Any, Any], dict[Any, float], dict[Any, bool], dict[Any, bool], dict[Any, dict[str, Any]]]:
        observations, rewards, terminations, truncations, infos = self.env.step({self._inner[a]: act for a, act in actions.items()})
        observations, infos = self._moved(observations, infos)
        outer = self._outer
        return (observations, {outer[a]: r for a, r in rewards.items()}, {outer[a]: t for a, t in terminations.items()},
                {outer[a]: t for a, t in truncations.items()}, infos)

    def _moved(self, observations: dict[Any, Any], infos: dict[Any, dict[str, Any]]) -> tuple[dict[Any, Any], dict[Any, dict[str, Any]]]:
        """Each agent's observation array, and its infos with its mask added."""
        outer = self._outer
        moved = {outer[agent]: seen["observation"] for agent, seen in observations.items()}
        # in the observations' order (the agents'): AgileRL stacks a group's masks in the infos' order
        with_masks = {outer[agent]: {**infos.get(agent, {}), "action_mask": seen["action_mask"].tolist()}
                      for agent, seen in observations.items()}
        with_masks.update((outer[agent], info) for agent, info in infos.items() if outer[agent] not in with_masks)
        return moved, with_masks


__all__ = ["ActionMaskInInfos"]
