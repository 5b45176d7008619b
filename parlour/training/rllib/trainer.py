"""``parlour train --backend rllib``: PPO on Ray RLlib with the run conventions of ``parlour train``.

The run directory is the one of the SB3 runs (``run_files``): config.toml,
evaluations.csv and the learning curve, TensorBoard scalars (``tb/rllib``), checkpoints
at every evaluation with their SHA-256 (``checkpoints/step_N/model.zip`` is the RLlib
checkpoint directory zipped, ``state.pkl`` parlour's counters), and ``best/``, the best
evaluated checkpoint as a plain directory, which ``rllib:runs/NAME`` plays.

Steps are environment steps (``step()`` calls of the multi-agent env, whatever the
number of seats moving in them); RLlib rounds each iteration to whole batches of
``rllib.train_batch_size``, so evaluations fall on the first iteration that crosses
each multiple of ``eval_every``.

Resume: RLlib restores its whole algorithm state from a checkpoint (module weights,
optimizer moments, learner and env-runner connector states, metrics), and the run
continues from parlour's saved step, rows and best score.  What RLlib does not restore
bit for bit: the env runners' episodes in flight and their generators (RLlib seeds the
env runners from the config's seed when they are built, so a resumed run samples
different games than the uninterrupted one would have) and torch's generator for the
action sampling.  A resumed run is therefore a faithful continuation, not a replay;
SB3 runs (``backend = "sb3"``) are exact.

League: with ``league`` among the opponents, the learning modules are frozen at step 0
and every ``snapshot_every`` steps into every env's league (``league.py``) and into
``snapshots/step_N.npz``; a resumed run pushes back the latest ``max_snapshots`` of
those taken up to its checkpoint.

Ray: ``rllib.address`` (or ``RAY_ADDRESS``) joins a running cluster; otherwise the run
starts a local Ray bound to 127.0.0.1 and stops it at the end.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from parlour.baselines.learned.rllib import RLlibPolicy, require_rllib_extra
from parlour.ray_cluster import connect
from parlour.training.rllib.checkpoint import save_checkpoint, swap_in, unzip_checkpoint, zip_directory
from parlour.training.rllib.league import add_league_snapshot, load_snapshot, push_snapshot, save_snapshot
from parlour.training.opponents import LEAGUE
from parlour.training.run_files import read_evaluations, write_atomic, write_checkpoint, write_evaluations
from parlour.training.train import Trainer, TrainResult, best_evaluated_step, progress_bar
from parlour.evaluation.win_rates import rates_deterministic


class RLlibTrainer(Trainer):
    """One RLlib run in ``out``; the same constructor and result as ``Trainer``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.total = self.config.timesteps
        self.segment_steps = self.config.eval_every

    def require_extra(self) -> None:
        require_rllib_extra()

    @property
    def best_path(self) -> Path:
        return self.files.root / "best"

    @property
    def module_ids(self) -> list[str]:
        if self.config.rllib["policies"] == "shared":
            return ["shared"]
        return [f"player_{seat}" for seat in range(self.game.num_players)]

    def learner_spec(self, path: str) -> str:
        return f"rllib:{path}" if rates_deterministic(self.game) else f"rllib:{path},deterministic=false"

    def algorithm_config(self) -> Any:
        """The ``PPOConfig`` of this run (``ppo_config`` with the run's settings)."""
        from parlour.training.rllib.algo import ppo_config

        config, rl = self.config, self.config.rllib
        model = {"network": self.network, "hidden": list(config.ppo["net_arch"]), "channels": config.cnn_channels,
                 "blocks": config.cnn_blocks}
        algo_config = ppo_config(
            config.game, config.game_options, policies=rl["policies"], opponents=list(config.opponents),
            opponent_weights=config.opponent_weights, seat=config.seat, model=model,
            max_snapshots=config.max_snapshots, num_env_runners=rl["num_env_runners"], num_learners=rl["num_learners"],
            seed=config.seed,            train_batch_size=rl["train_batch_size"], minibatch_size=rl["minibatch_size"], num_epochs=rl["num_epochs"],
            lr=rl["learning_rate"],
        )
        algo_config.training(entropy_coeff=rl["entropy_coeff"])
        algo_config.env_runners(num_envs_per_env_runner=rl["num_envs_per_env_runner"])
        return algo_config

    # -- the run ---------------------------------------------------------------------

    def run(self) -> TrainResult:
        import ray
        from torch.utils.tensorboard import SummaryWriter

        start = time.perf_counter()
        files = self.files
        started = connect(self.config.rllib["address"])
        algo = None
        writer = None
        bar = None
        try:
            algo = self.algorithm_config().build_algo()
            if self.resume:
                step, rows, best_score = self._restore(algo)
            else:
                files.root.mkdir(parents=True, exist_ok=True)
                write_atomic(files.config, self.config.to_toml())
                step = 0
                self._snapshot(algo, step)
                rows, best_score = self._evaluate_and_save(algo, step, [], -np.inf)
            writer = SummaryWriter(str(files.tensorboard / "rllib"))
            bar = progress_bar(self.total, step, self.progress)
            while step < self.total:
                result = algo.train()
                sampled = int(result["env_runners"]["num_env_steps_sampled"])
                before, step = step, step + sampled
                self._log_result(writer, result, step)
                if bar is not None:
                    bar.update(sampled)
                if step // self.config.snapshot_every > before // self.config.snapshot_every:
                    self._snapshot(algo, step)
                if step // self.segment_steps > before // self.segment_steps or step >= self.total:
                    count = len(rows)
                    rows, best_score = self._evaluate_and_save(algo, step, rows, best_score)
                    for row in rows[count:]:
                        writer.add_scalar(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"], step)
        finally:
            if bar is not None:
                bar.close()
            if writer is not None:
                writer.close()
            if algo is not None:
                algo.stop()
            if started:
                ray.shutdown()
        self._plot(rows)
        return TrainResult(files.root, step, rows, best_evaluated_step(rows), time.perf_counter() - start)

    @property
    def uses_league(self) -> bool:
        weights = self.config.opponent_weights or [1.0] * len(self.config.opponents)
        return any(spec == LEAGUE and weight > 0 for spec, weight in zip(self.config.opponents, weights))

    def _snapshot(self, algo: Any, step: int) -> None:
        """Freeze the learning modules into every env's league and into snapshots/ (league runs only)."""
        if self.uses_league:
            save_snapshot(self._snapshot_path(step), add_league_snapshot(algo, f"league:step_{step}"))

    def _snapshot_path(self, step: int) -> Path:
        return self.files.snapshot(step).with_suffix(".npz")

    def _restore(self, algo: Any) -> tuple[int, list[dict[str, Any]], float]:
        checkpoint = self.begin_resume()
        files = self.files
        with tempfile.TemporaryDirectory(dir=files.root) as work:
            algo.restore_from_path(str(unzip_checkpoint(checkpoint.model, Path(work))))
        state = checkpoint.state
        step = int(state["step"])
        if self.uses_league:  # the league as it was at the checkpoint: later snapshots are not replayed
            kept = [path for path in sorted(files.snapshots.glob("step_*.npz")) if int(path.stem[5:]) <= step]
            for path in kept[-self.config.max_snapshots:]:
                push_snapshot(algo, f"league:step_{int(path.stem[5:])}", load_snapshot(path))
        rows = read_evaluations(files, up_to=step)
        write_evaluations(files, rows)
        self.log(f"resuming {files.root} at step {step:,} of {self.total:,}")
        return step, rows, float(state["best_score"])

    def _evaluate_and_save(self, algo: Any, step: int, rows: list[dict[str, Any]],
                           best_score: float) -> tuple[list[dict[str, Any]], float]:
        """Save the modules once; rate that save (it becomes best/ if its mean score is the
        best yet) and zip it as the step's checkpoint.  The rows so far and the best score."""
        candidate = self.files.root / ".candidate"
        save_checkpoint(algo, candidate, self.game, self.module_ids, {"step": step})
        try:
            agent = RLlibPolicy(self.game, path=str(candidate), deterministic=rates_deterministic(self.game))
            new_rows, best_score = self.rate_candidate(agent, candidate, step, best_score)
            rows = rows + new_rows
            write_evaluations(self.files, rows)
            state = {"step": step, "best_score": best_score, "backend": "rllib"}
            write_checkpoint(self.files, step, lambda path: zip_directory(candidate, path), state)
        finally:
            shutil.rmtree(candidate, ignore_errors=True)
        return rows, best_score

    def keep_best(self, candidate: Path) -> None:
        """The candidate directory becomes best/ (a copy, swapped in whole)."""
        fresh = Path(tempfile.mkdtemp(prefix=".best.", suffix=".tmp", dir=self.files.root))
        try:
            shutil.copytree(candidate, fresh / "best")
            swap_in(fresh / "best", self.best_path)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)

    @staticmethod
    def _log_result(writer: Any, result: dict[str, Any], step: int) -> None:
        """RLlib's episode returns and each module's losses, as TensorBoard scalars."""
        runners = result.get("env_runners", {})
        for key in ("episode_return_mean", "episode_len_mean"):
            if key in runners:
                writer.add_scalar(f"rollout/{key}", float(runners[key]), step)
        for module, values in result.get("learners", {}).items():
            if not isinstance(values, dict):
                continue
            for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss"):
                if key in values:
                    writer.add_scalar(f"learner/{module}/{key}", float(values[key]), step)
