"""PPO on this machine (``algo = "ppo"``, ``backend = "local"``): sb3-contrib's MaskablePPO on one seat of a
game against an opponent pool, with self-play snapshots: on the batched engine
(``vec_env = "batched"``, the default where the game has one: ``BatchedSB3VecEnv`` with an
``OpponentMix``) or on single games (``dummy`` / ``subproc``: SB3's vector envs of
``SingleAgentEnv``).

Each segment starts every environment afresh from seeds derived from the run's seed and
the segment's number (``segment_seed``); a checkpoint holds the model with its
optimizer state, the global RNG states SB3 draws from (taken when the segment's training
ended, before the evaluation) and the snapshot list, so a run killed at any moment and
resumed ends with exactly the model an uninterrupted run would have produced (same
steps, same updates, same opponents, same evaluation rows; a test shows it).

Self-play: every ``snapshot_every`` steps (at the end of a rollout) the learner is
frozen into ``snapshots/`` and every environment's opponent pool (the batch's one mix)
is told about it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parlour.baselines.learned.ppo import (
    PPOPolicy,
    global_rng_state,
    preserved_global_rng,
    require_train_extra,
    save_model,
    set_global_rng_state,
)
from parlour.evaluation.win_rates import rates_deterministic
from parlour.games import load_game
from parlour.processes import die_with_parent
from parlour.training.backend import LOCAL, Backend, RunConfig, resolved
from parlour.training.backend_settings import BackendSettings, setting
from parlour.training.opponents import OpponentPool, describe_entries, parse_opponents
from parlour.training.run_files import Checkpoint
from parlour.training.seeds import segment_seed
from parlour.training.single_agent import SingleAgentEnv


@dataclass(frozen=True)
class PPOSettings(BackendSettings):
    """The ``[ppo]`` table: MaskablePPO's keyword arguments, and ``net_arch``, the policy
    network's hidden layers.  Set for short board-game runs: a smaller rollout
    (``n_steps`` per env) than SB3's 2048 so that a few-minute run still makes many
    updates, a little entropy bonus against early collapse onto one move, and a 128-128
    network (on the batched engine ``n_steps`` and ``batch_size`` default otherwise:
    ``config.batched_ppo_defaults``).  RLlib's PPO reads ``net_arch`` too."""

    learning_rate: float = setting(3e-4)
    n_steps: int = setting(256)
    batch_size: int = setting(256)
    n_epochs: int = setting(4)
    gamma: float = setting(0.99)
    gae_lambda: float = setting(0.95)
    clip_range: float = setting(0.2)
    ent_coef: float = setting(0.01)
    vf_coef: float = setting(0.5)
    max_grad_norm: float = setting(0.5)
    net_arch: list[int] = setting([128, 128])


def make_env(config: dict[str, Any], snapshots: list[str], rank: int, subprocess: bool = False) -> Any:
    """One learner environment (top-level, so that ``SubprocVecEnv`` can pickle it);
    ``subprocess``: it is made in a ``SubprocVecEnv`` worker, which must end with the trainer."""
    import torch
    from stable_baselines3.common.monitor import Monitor

    if subprocess:  # even on a SIGKILL of the trainer
        die_with_parent()
    torch.set_num_threads(config["torch_threads"])  # in SubprocVecEnv workers, for snapshot opponents
    game = load_game(config["game"], **config["game_options"])
    pool = OpponentPool(game, parse_opponents(config["opponents"], config["opponent_weights"]), snapshots, config["max_snapshots"])
    return Monitor(SingleAgentEnv(game, pool, seat=config["seat"]))


def make_vec_env(config: RunConfig, snapshots: list[str], device: str = "cpu") -> Any:
    """The run's ``n_envs`` learner envs: ``DummyVecEnv`` or ``SubprocVecEnv`` of
    ``SingleAgentEnv``, or (``vec_env = "batched"``) one batched numpy engine for all of
    them against the opponent mix (``parlour.training.opponent_mix``; the snapshots'
    network on ``device``), with SB3's episode statistics."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if config.vec_env == "batched":
        from parlour.training.opponent_mix import OpponentMix
        from parlour.vector.sb3_env import BatchedSB3VecEnv

        assert config.n_envs is not None  # TrainConfig resolves it
        game = load_game(config.game, **config.game_options)
        mix = OpponentMix(game, parse_opponents(config.opponents, config.opponent_weights), snapshots, config.max_snapshots,
                          device=device, workers=config.opponent_workers)
        try:
            return VecMonitor(BatchedSB3VecEnv(config.game, config.n_envs, opponent=mix, seat=config.seat, seed=config.seed,
                                               **config.game_options))
        except BaseException:
            mix.close()
            raise

    subprocess = config.vec_env == "subproc"
    assert config.n_envs is not None  # TrainConfig resolves it
    fns: list[Callable[[], Any]] = [functools.partial(make_env, config.to_dict(), list(snapshots), rank, subprocess)
                                    for rank in range(config.n_envs)]
    return SubprocVecEnv(fns) if subprocess else DummyVecEnv(fns)


def describe_envs(config: RunConfig) -> str:
    """The line a run starts with: where its games are played, and by whom."""
    if config.vec_env != "batched":
        return (f"environments: {config.n_envs} single games ({config.vec_env}: SB3's "
                f"{'DummyVecEnv' if config.vec_env == 'dummy' else 'SubprocVecEnv'} of SingleAgentEnv)")
    entries = parse_opponents(config.opponents, config.opponent_weights)
    return f"environments: {config.n_envs} games on the batched engine (vec_env batched); {describe_entries(entries)}"


class PPOBackend(Backend):
    """MaskablePPO in this process (see the module docstring)."""

    algo = "ppo"
    runs_on = (LOCAL,)
    Settings = PPOSettings
    summary = "MaskablePPO against --opponents; the default"
    learns_against_opponents = True
    batched_engine = True

    @classmethod
    def require_extra(cls) -> None:
        require_train_extra()

    def round_steps(self, steps: int) -> int:
        return self.config.round_to_rollouts(steps)

    @property
    def uses_self(self) -> bool:
        return any(spec == "self" for spec in self.config.opponents)

    def start(self) -> None:
        import torch
        from sb3_contrib import MaskablePPO

        from parlour.baselines.learned.networks import ppo_policy

        config, files = self.config, self.files
        torch.set_num_threads(resolved(config.torch_threads))
        self.snapshot_steps = self.round_steps(config.snapshot_every)
        self.snapshots: list[str] = [str(files.snapshot(0))] if self.uses_self else []
        self.vec_env = make_vec_env(config, [], self.run.device)
        self.run.log(describe_envs(config))
        ppo = dict(config.ppo)
        net_arch = ppo.pop("net_arch")
        policy, kwargs = ppo_policy(self.run.network, net_arch, {"channels": config.cnn_channels, "blocks": config.cnn_blocks},
                                    shared=config.cnn_shared, action_planes=self.game.action_planes,
                                    precision=config.cnn_precision)
        self.model = MaskablePPO(policy, self.vec_env, seed=config.seed, device=self.run.device, verbose=0,
                                 tensorboard_log=str(files.tensorboard), policy_kwargs=kwargs, **ppo)
        if self.uses_self:
            save_model(self.model, files.snapshot(0), self.game)
            self.vec_env.env_method("add_snapshot", self.snapshots[0])
        self._rng: dict[str, Any] | None = None  # step 0's checkpoint keeps the generators as they are after its evaluation

    def restore(self, checkpoint: Checkpoint) -> None:
        import torch
        from sb3_contrib import MaskablePPO

        config, files, state = self.config, self.files, checkpoint.state
        torch.set_num_threads(resolved(config.torch_threads))
        self.snapshot_steps = self.round_steps(config.snapshot_every)
        # Snapshots live in snapshots/ (the saved paths may be relative to another working directory).
        self.snapshots = [str(files.snapshots / Path(path).name) for path in state["snapshots"]]
        self.vec_env = make_vec_env(config, self.snapshots, self.run.device)
        self.run.log(describe_envs(config))
        with preserved_global_rng():
            self.model = MaskablePPO.load(checkpoint.model, env=self.vec_env, device=self.run.device,
                                          tensorboard_log=str(files.tensorboard))
        set_global_rng_state(state["rng"])
        self._rng = None

    def train(self, step: int, until: int, advance: Callable[[int], None]) -> int:
        from parlour.training.backends.ppo.callback import TrainingCallback

        model = self.model
        self.vec_env.seed(segment_seed(self.config.seed, step // self.round_steps(self.config.eval_every)))
        model._last_obs = None  # start every env afresh from the seeds just set
        model.learn(until - model.num_timesteps, reset_num_timesteps=False, callback=TrainingCallback(self, advance),
                    tb_log_name="ppo")
        self._rng = global_rng_state()  # before the evaluation: what the next segment starts from
        return int(model.num_timesteps)

    def snapshot_due(self, steps: int) -> bool:
        return self.uses_self and steps % self.snapshot_steps == 0

    def snapshot(self) -> None:
        """Freeze the learner into snapshots/ and tell every environment's pool."""
        path = self.files.snapshot(self.model.num_timesteps)
        save_model(self.model, path, self.game)
        self.snapshots.append(str(path))
        self.vec_env.env_method("add_snapshot", str(path))

    def save_candidate(self, path: Path, step: int) -> Path:
        candidate = path.with_suffix(".zip")
        save_model(self.model, candidate, self.game)
        return candidate

    def candidate_agent(self, candidate: Path) -> Any:
        return PPOPolicy(self.game, path=str(candidate), deterministic=rates_deterministic(self.game))

    def state(self) -> dict[str, Any]:
        rng = global_rng_state() if self._rng is None else self._rng
        return {"snapshots": list(self.snapshots), "rng": rng}

    def record(self, scalars: dict[str, float], step: int) -> None:
        model = self.model
        if getattr(model, "_logger", None) is not None:  # SB3 makes it in the first learn()
            for key, value in scalars.items():
                model.logger.record(key, value)
            model.logger.dump(step)

    def close(self) -> None:
        super().close()
        vec_env = getattr(self, "vec_env", None)
        if vec_env is not None:
            self.vec_env = None
            vec_env.close()
