"""A Stable-Baselines3 ``VecEnv`` over B batched games, for MaskablePPO and friends.

SB3 steps a ``VecEnv`` directly (``step_async`` / ``step_wait``) and reads the masks
through ``env_method("action_masks")`` (sb3_contrib.common.maskable.utils
``get_action_masks``, which stacks the list it gets), so this class answers that call
from the batch without any per-game env object.  The learner's view is
:class:`parlour.vector.gym_env.LearnerCore`'s (the conventions of
``parlour.training.single_agent``); SB3's autoreset convention is followed: the
observation of a finished game is already the next episode's and the last one is in
``infos[b]["terminal_observation"]``.

Stable-Baselines3 is the optional ``train`` extra, so it is imported here only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from parlour.vector.gym_env import LearnerCore
from parlour.vector.seat_players import SeatPlayers


class BatchedSB3VecEnv(VecEnv):
    """``num_envs`` games of ``game`` for SB3 (see the module docstring); the
    arguments are those of :class:`parlour.vector.gym_env.BatchedVectorEnv`."""

    def __init__(self, game: str = "goofspiel", num_envs: int = 8, opponent: str | SeatPlayers = "random",
                 seat: int | str = "random", illegal_action: str = "terminate", seed: int | None = None,
                 **game_options: Any) -> None:
        self.core = LearnerCore(game, num_envs, opponent, seat, illegal_action, seed, **game_options)
        engine = self.core.engine
        low, high = engine.game.observation_bounds
        observation_space = spaces.Box(low, high, engine.observation_shape, dtype=np.float32)
        self.render_mode = None
        super().__init__(num_envs, observation_space, spaces.Discrete(engine.num_actions))
        self._actions: np.ndarray | None = None

    # ----- the VecEnv API --------------------------------------------------------------

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]  # VecEnv.seed(s) gives s, s+1, ...: the first seeds the batch
        obs = self.core.reset(seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{"seat": int(s)} for s in self.core.seats]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        obs, rewards, ended, final, illegal = self.core.step(actions.astype(np.int64, copy=False))
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for b in np.flatnonzero(ended):
            assert final is not None  # the core gives a final observation whenever a game ends
            infos[b] = {"terminal_observation": final[b], "TimeLimit.truncated": False, "illegal_action": bool(illegal[b])}
        return obs, rewards.astype(np.float32), ended, infos

    def close(self) -> None:
        self.core.players.close()

    def action_masks(self) -> np.ndarray:
        """``(num_envs, A)`` bool: the learner's legal actions in each game."""
        return self.core.action_masks().copy()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "action_masks":
            return [self.action_masks] * len(self._indices(indices))
        value = getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"the batched env has one shared state; cannot set {attr_name!r} per game")

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        """``"action_masks"``: one mask per selected game (what ``get_action_masks`` stacks)."""
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        if method_name == "add_snapshot" and hasattr(self.core.players, "add_snapshot"):
            self.core.players.add_snapshot(*method_args, **method_kwargs)  # one mix serves every game
            return [None] * len(rows)
        raise AttributeError(f"the batched env has no per-game method {method_name!r} (only 'action_masks'"
                             f"{', add_snapshot' if hasattr(self.core.players, 'add_snapshot') else ''})")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))
