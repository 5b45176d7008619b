"""RLlib PPO configurations for parlour's games: who learns, with which module, where.

``ppo_config`` returns an ordinary ``ray.rllib.algorithms.ppo.PPOConfig`` (change
anything on it afterwards), set up so that a new user needs no wrapper:

- the env is ``ParlourMultiAgentEnv`` with the game, its options, the learner's
  ``seat`` and the ``opponents`` pool (``self``: a learning seat; ``league``: a frozen
  snapshot of the learning modules, see ``league.add_league_snapshot``, the latest
  ``max_snapshots`` of them; any other spec: a parlour policy played inside the env);
- ``policies="shared"``: every learning seat maps to one module, ``"shared"``
  (parameter-sharing self-play: the seat's planes say whose view it is);
  ``policies="per_seat"``: one module per seat, ``player_0``, ``player_1`` ...;
- the module is ``MaskedPPOModule`` (masked logits, board network for planes);
- the new API stack, ``num_env_runners`` sampling processes (0: sample in the driver)
  and ``num_learners`` learner processes (0: learn in the driver), and the seed.

``batched_ppo_config`` is the batched path (``rllib.vec_env = "batched"``, see
``batched_env``): RLlib's single-agent env runners, each stepping one batched engine of
``num_envs_per_env_runner`` games against the opponent mix, one module
(``default_policy``, the same ``MaskedPPOModule``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from parlour.baselines.learned.rllib_module import MaskedPPOModule, model_settings
from parlour.training.backends.rllib.batched_env import BatchedRLlibEnv
from parlour.training.backends.rllib.env import ParlourMultiAgentEnv, agent_name

POLICY_MODES = ("shared", "per_seat")
SHARED = "shared"


def shared_mapping(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every seat plays the one shared module."""
    return SHARED


def seat_mapping(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Each seat plays its own module, named like the seat (its agent id, ``player_N``)."""
    return str(agent_id)


def module_ids(env: ParlourMultiAgentEnv, policies: str) -> list[str]:
    """The modules of a policy mode for this env's learning seats."""
    if policies not in POLICY_MODES:
        raise ValueError(f"policies must be one of {list(POLICY_MODES)}, got {policies!r}")
    return [SHARED] if policies == SHARED else [agent_name(s) for s in range(env.game.num_players)]


def ppo_config(
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    policies: str = "shared",
    opponents: str | Sequence[str] = "self",
    opponent_weights: Sequence[float] | None = None,
    seat: int | str = "random",
    max_snapshots: int = 20,
    model: Mapping[str, Any] | None = None,
    num_env_runners: int = 0,
    num_learners: int = 0,
    seed: int = 0,
    train_batch_size: int = 2000,
    minibatch_size: int = 250,
    num_epochs: int = 6,
    lr: float = 3e-4,
) -> PPOConfig:
    """PPO for ``game`` on RLlib's new API stack (see the module docstring)."""
    env_config = {"game": game, "options": dict(options or {}), "opponents": opponents,
                  "opponent_weights": None if opponent_weights is None else list(opponent_weights), "seat": seat,
                  "max_snapshots": max_snapshots}
    probe = ParlourMultiAgentEnv(env_config)  # validates the game, options and opponents here, not in a worker
    model_config = model_settings(dict(model or {}))
    ids = module_ids(probe, policies)
    check_processes(num_env_runners, num_learners)
    specs = {module: RLModuleSpec(module_class=MaskedPPOModule, model_config=model_config) for module in ids}
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        # RLlib's env check steps with unmasked random actions, which the rules refuse
        # (an illegal move raises, as in the rules layer); the env's own tests check it.
        .environment(ParlourMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .multi_agent(
            policies=set(ids),
            policy_mapping_fn=shared_mapping if policies == SHARED else seat_mapping,
            policies_to_train=list(ids),
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=num_learners)
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr)
        .debugging(seed=seed)
    )


def check_processes(num_env_runners: Any, num_learners: Any) -> None:
    for name, value in (("num_env_runners", num_env_runners), ("num_learners", num_learners)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an int >= 0, got {value!r}")


def batched_ppo_config(
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    opponents: str | Sequence[str] = "random",
    opponent_weights: Sequence[float] | None = None,
    seat: int | str = "random",
    max_snapshots: int = 20,
    model: Mapping[str, Any] | None = None,
    num_envs_per_env_runner: int = 256,
    num_env_runners: int = 0,
    num_learners: int = 0,
    seed: int = 0,
    train_batch_size: int | None = None,
    minibatch_size: int | None = None,
    num_epochs: int = 6,
    lr: float = 3e-4,
) -> PPOConfig:
    """PPO for ``game`` on the batched path (see the module docstring): ``num_envs_per_env_runner``
    games of one batched engine per env runner; ``opponents`` may not hold ``self`` (a live
    learning seat), ``league`` is the learner's frozen snapshots; ``train_batch_size`` defaults
    to 64 steps of every game of one engine, ``minibatch_size`` to a quarter of it."""
    env_config = {"game": game, "options": dict(options or {}), "opponents": opponents,
                  "opponent_weights": None if opponent_weights is None else list(opponent_weights), "seat": seat,
                  "max_snapshots": max_snapshots}
    BatchedRLlibEnv({**env_config, "num_envs": 1}).close()  # validates the game, options and opponents here, not in a worker
    model_config = model_settings(dict(model or {}))
    check_processes(num_env_runners, num_learners)
    if isinstance(num_envs_per_env_runner, bool) or not isinstance(num_envs_per_env_runner, int) or num_envs_per_env_runner < 1:
        raise ValueError(f"num_envs_per_env_runner must be an int >= 1, got {num_envs_per_env_runner!r}")
    if train_batch_size is None:
        train_batch_size = 64 * num_envs_per_env_runner
    if minibatch_size is None:
        minibatch_size = max(1, train_batch_size // 4)
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(BatchedRLlibEnv, env_config=env_config, disable_env_checking=True)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOModule, model_config=model_config))
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner,
                     gym_env_vectorize_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT)
        .learners(num_learners=num_learners)
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr)
        .debugging(seed=seed)
    )
