"""Training runs: MaskablePPO on a single-agent view, self-play snapshots, periodic
evaluation through the arena, atomic checkpoints, and exact resumption.

A run is a sequence of *segments* of ``eval_every`` steps (rounded to whole PPO
rollouts), after an evaluation and a checkpoint of the untrained model at step 0.  Each segment starts every environment afresh from seeds derived from the
run's seed and the segment's number; at its end the run evaluates the model,
keeps the best one, and writes a checkpoint (model with optimizer state, the global
RNG states SB3 draws from, the snapshot list).  ``--resume`` restores the latest
checkpoint and continues with the next segment, so a run killed at any moment and
resumed ends with exactly the model an uninterrupted run would have produced (same
steps, same updates, same opponents, same evaluation rows; a test shows it).

Self-play: every ``snapshot_every`` steps (at the end of a rollout) the learner is
frozen into ``snapshots/`` and every environment's opponent pool is told about it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from parlour.baselines import make_from_spec
from parlour.baselines.learned.ppo import (
    PPOPolicy,
    global_rng_state,
    preserved_global_rng,
    require_train_extra,
    save_model,
    set_global_rng_state,
)
from parlour.games import load_game
from parlour.games.base import Game
from parlour.locks import LOCK_FILE, DirectoryLock
from parlour.processes import die_with_parent
from parlour.training.config import TrainConfig, choose_network
from parlour.training.opponents import LEAGUE, SELF, OpponentPool, parse_opponents
from parlour.training.devices import resolve_device
from parlour.training.run_files import (
    Checkpoint,
    RunFiles,
    copy_atomic,
    read_checkpoint,
    read_evaluations,
    write_atomic,
    write_checkpoint,
    write_evaluations,
    write_pointer,
)
from parlour.training.single_agent import SingleAgentEnv
from parlour.evaluation.win_rates import learner_spec, quick_opponents, rates_deterministic, win_rates


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


def make_vec_env(config: TrainConfig, snapshots: list[str]) -> Any:
    """The run's ``n_envs`` learner envs: ``DummyVecEnv`` or ``SubprocVecEnv`` of
    ``SingleAgentEnv``, or (``vec_env = "batched"``) one batched numpy engine for all of
    them against its batched opponent (``parlour.vector``), with SB3's episode statistics."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if config.vec_env == "batched":
        from parlour.vector.sb3_env import BatchedSB3VecEnv

        return VecMonitor(BatchedSB3VecEnv(config.game, config.n_envs, opponent=config.opponents[0], seat=config.seat,
                                           seed=config.seed, **config.game_options))

    subprocess = config.vec_env == "subproc"
    fns = [functools.partial(make_env, config.to_dict(), list(snapshots), rank, subprocess) for rank in range(config.n_envs)]
    return SubprocVecEnv(fns) if subprocess else DummyVecEnv(fns)


def segment_seed(seed: int, segment: int) -> int:
    """The environments' seed for a segment (``SeedSequence``, independent per segment)."""
    return int(np.random.SeedSequence(seed, spawn_key=(2, segment)).generate_state(1)[0])


@dataclass
class TrainResult:
    run_dir: Path
    steps: int
    evaluations: list[dict[str, Any]]
    best_step: int | None
    seconds: float
    warnings: list[str] = field(default_factory=list)
    """What the user must know about the result (e.g. that best.zip is the untrained network)."""


def _warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr)


class Trainer:
    """One training run in ``out`` (see the module docstring).

    ``log`` gets the progress lines (evaluations), ``warn`` what a resume passed over
    (a damaged checkpoint); ``timesteps`` extends a resumed run (and is saved in its
    config.toml).  Construction checks everything it can (the configuration, the specs,
    the run directory, a resumed run's checkpoint) before anything is written."""

    def __init__(
        self,
        config: TrainConfig | None,
        out: str | Path,
        resume: bool = False,
        force: bool = False,
        progress: bool = True,
        log: Callable[[str], None] = print,
        timesteps: int | None = None,
        warn: Callable[[str], None] = _warn,
    ) -> None:
        self.require_extra()
        self.files = RunFiles(Path(out))
        self.progress = progress
        self.log = log
        self.warn = warn
        root = self.files.root
        if root.exists() and not root.is_dir():
            raise ValueError(f"run directory {str(root)!r} is a file, not a directory")
        # One job writes a run at a time: the lock is held until close() (or this process ends).
        created = not root.exists()
        self._lock = DirectoryLock(root, "parlour train").acquire()
        try:
            self._open(config, resume, force, timesteps)
        except BaseException:
            # Leave the directory as it was: what this start made goes, while the lock is held.
            if created:
                with contextlib.suppress(OSError):
                    (root / LOCK_FILE).unlink(missing_ok=True)
                    root.rmdir()
            self._lock.release(remove=self._lock.new_file)
            raise

    def _open(self, config: TrainConfig | None, resume: bool, force: bool, timesteps: int | None) -> None:
        """The rest of the constructor, with the run's lock held."""
        root = self.files.root
        self.checkpoint: Checkpoint | None = None
        self.extended = False
        if resume:
            if not self.files.config.exists():
                raise ValueError(f"cannot resume: {str(root)!r} is not a training run (no config.toml)")
            from parlour.training.config import load_config, make_config

            if config is not None:
                raise ValueError("a resumed run uses its saved config.toml; pass timesteps= to extend it")
            self.config = make_config(load_config(self.files.config))
            if timesteps is not None and timesteps != self.config.timesteps:
                self.config.timesteps = timesteps  # the only setting a resume may change
                self.config.validate()
                self.extended = True
            self.checkpoint = read_checkpoint(self.files)  # DamagedRun if nothing is intact
        else:
            if config is None:
                raise ValueError("a new run needs a configuration")
            self.config = config
            if timesteps is not None:
                self.config.timesteps = timesteps
                self.config.validate()
        self.resume = resume
        self.game: Game = load_game(self.config.game, **self.config.game_options)
        self.total = self.config.round_to_rollouts(self.config.timesteps)
        self.segment_steps = self.config.round_to_rollouts(self.config.eval_every)
        self.snapshot_steps = self.config.round_to_rollouts(self.config.snapshot_every)
        self.eval_opponents = self.config.eval_opponents or quick_opponents(self.game)
        self.network = choose_network(self.config.network, self.game.observation_shape, self.config.game)
        # Bad specs fail here, before anything is written or replaced.
        special = (SELF, LEAGUE) if self.config.backend == "rllib" else (SELF,)
        OpponentPool(self.game, parse_opponents(self.config.opponents, self.config.opponent_weights), special=special)
        for spec in self.eval_opponents:
            make_from_spec(spec, self.game)
        self.device = resolve_device(self.config.device)
        self.check_settings()
        contents = [path for path in root.iterdir() if path.name != LOCK_FILE] if root.exists() else []
        if not resume and contents:
            if not force:
                raise FileExistsError(
                    f"run directory {str(root)!r} already exists and is not empty; "
                    "use --resume to continue it or --force to replace it"
                )
            for path in contents:  # all but the lock, which this run holds
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()

    def move(self, key: str, value: Any) -> None:
        """Run a resumed run elsewhere: ``device``, or a backend's ``rllib.address`` or
        ``alphazero.address`` (config.toml keeps what the run was started with)."""
        if key == "device":
            self.device = resolve_device(value)
            self.config.device = value
        elif key in ("rllib.address", "alphazero.address"):
            table, _, name = key.partition(".")
            getattr(self.config, table)[name] = value
        else:
            raise ValueError(f"a resumed run may move its device or address, not {key!r}")

    def check_settings(self) -> None:
        """A backend's own checks of the configuration, made before anything is written
        or replaced (a ``ValueError`` says what is wrong)."""

    def close(self) -> None:
        """Give back the run directory's lock (another job may then write it)."""
        lock = getattr(self, "_lock", None)
        if lock is not None:
            lock.release()

    def __del__(self) -> None:
        self.close()

    def require_extra(self) -> None:
        """An ``ImportError`` naming the extra to install if this backend's libraries are missing."""
        require_train_extra()

    @property
    def best_path(self) -> Path:
        """The best evaluated model (what the final arena plays)."""
        return self.files.best

    def begin_resume(self) -> Checkpoint:
        """Before a resumed run continues: report the damaged checkpoints passed over (and
        point checkpoint.json at the intact one), and save an extended config."""
        checkpoint = self.checkpoint
        assert checkpoint is not None
        if checkpoint.damaged:
            self.warn(f"{'; '.join(checkpoint.damaged)}; resuming from {checkpoint.folder}, the newest intact checkpoint "
                      f"(step {checkpoint.step:,})")
            write_pointer(self.files, checkpoint.folder, checkpoint.step)
        if self.extended:
            write_atomic(self.files.config, self.config.to_toml())
        return checkpoint

    def learner_spec(self, path: str) -> str:
        """How the final arena plays a model of this run."""
        return learner_spec(path, self.game)

    def saved_step(self) -> int | None:
        """The step of the checkpoint ``checkpoint.json`` names now (None: none yet)."""
        try:
            return int(json.loads(self.files.pointer.read_text())["step"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    # -- the run ---------------------------------------------------------------------

    def run(self) -> TrainResult:
        import torch
        from sb3_contrib import MaskablePPO

        from parlour.baselines.learned.networks import ppo_policy
        from parlour.training.callback import TrainingCallback

        start = time.perf_counter()
        config = self.config
        files = self.files
        torch.set_num_threads(config.torch_threads)
        uses_self = any(spec == "self" for spec in config.opponents)
        if self.resume:
            checkpoint = self.checkpoint
            assert checkpoint is not None
            step, state = checkpoint.step, checkpoint.state
            if checkpoint.damaged:
                self.warn(
                    f"{'; '.join(checkpoint.damaged)}; resuming from {checkpoint.folder}, the newest intact checkpoint "
                    f"(step {step:,}): the steps after it are trained again and the damaged files replaced"
                )
                write_pointer(files, checkpoint.folder, step)
            if self.extended:
                write_atomic(files.config, config.to_toml())  # a plain --resume continues to the new total
            # Snapshots live in snapshots/ (the saved paths may be relative to another working directory).
            snapshots = [str(files.snapshots / Path(path).name) for path in state["snapshots"]]
            rows = read_evaluations(files, up_to=step)
            write_evaluations(files, rows)
            vec_env = make_vec_env(config, snapshots)
            with preserved_global_rng():
                model = MaskablePPO.load(checkpoint.model, env=vec_env, device=self.device, tensorboard_log=str(files.tensorboard))
            set_global_rng_state(state["rng"])
            best_score = state["best_score"]
            self.log(f"resuming {files.root} at step {step:,} of {self.total:,}")
        else:
            files.root.mkdir(parents=True, exist_ok=True)
            write_atomic(files.config, config.to_toml())
            snapshots = []
            if uses_self:
                snapshots.append(str(files.snapshot(0)))
            vec_env = make_vec_env(config, [])
            ppo = dict(config.ppo)
            net_arch = ppo.pop("net_arch")
            policy, kwargs = ppo_policy(self.network, net_arch, {"channels": config.cnn_channels, "blocks": config.cnn_blocks},
                                        shared=config.cnn_shared, action_planes=self.game.action_planes)
            model = MaskablePPO(
                policy,
                vec_env,
                seed=config.seed,
                device=self.device,
                verbose=0,
                tensorboard_log=str(files.tensorboard),
                policy_kwargs=kwargs,
                **ppo,
            )
            if uses_self:
                save_model(model, files.snapshot(0), self.game)
                vec_env.env_method("add_snapshot", snapshots[0])
            rows, best_score = self._evaluate(model, 0, -np.inf)  # the untrained start of the curve
            self._checkpoint(model, rows, snapshots, best_score, global_rng_state())
        bar = progress_bar(self.total, model.num_timesteps, self.progress)
        finished = False
        try:
            while model.num_timesteps < self.total:
                segment = model.num_timesteps // self.segment_steps
                end = min(self.total, (segment + 1) * self.segment_steps)
                vec_env.seed(segment_seed(config.seed, segment))
                model._last_obs = None  # start every env afresh from the seeds just set
                callback = TrainingCallback(self, vec_env, snapshots, bar)
                model.learn(end - model.num_timesteps, reset_num_timesteps=False, callback=callback, tb_log_name="ppo")
                rng = global_rng_state()
                new_rows, best_score = self._evaluate(model, model.num_timesteps, best_score)
                rows.extend(new_rows)
                self._checkpoint(model, rows, snapshots, best_score, rng)
            finished = True
        finally:
            if bar is not None:
                bar.close()
            try:
                vec_env.close()
            except Exception:
                if finished:
                    raise
                # interrupted (Ctrl-C reaches SubprocVecEnv's workers too): the interruption is what to report
        self._plot(rows)
        return TrainResult(files.root, model.num_timesteps, rows, best_evaluated_step(rows), time.perf_counter() - start)

    def _checkpoint(self, model: Any, rows: list[dict[str, Any]], snapshots: list[str], best_score: float, rng: dict[str, Any]) -> None:
        """The evaluation log, then a checkpoint (``rng``: the global generators' states
        when the segment ended), then last.zip."""
        step = model.num_timesteps
        write_evaluations(self.files, rows)
        state = {"step": step, "snapshots": list(snapshots), "rng": rng, "best_score": best_score}
        write_checkpoint(self.files, step, lambda path: save_model(model, path, self.game), state)
        copy_atomic(self.files.checkpoint_dir(step) / "model.zip", self.files.last)

    def _evaluate(self, model: Any, step: int, best_score: float) -> tuple[list[dict[str, Any]], float]:
        """Rate the current model; keep it as best.zip if its mean score is the best yet."""
        candidate = self.files.root / ".candidate.zip"
        save_model(model, candidate, self.game)
        try:
            agent = PPOPolicy(self.game, path=str(candidate), deterministic=rates_deterministic(self.game))
            rows, best_score = self.rate_candidate(agent, candidate, step, best_score)
            if getattr(model, "_logger", None) is not None:  # SB3 makes it in the first learn()
                for row in rows:
                    model.logger.record(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"])
                model.logger.dump(step)
        finally:
            candidate.unlink(missing_ok=True)
        return rows, best_score

    def rate_candidate(self, agent: Any, candidate: Path, step: int, best_score: float, workers: int = 1) -> tuple[list[dict[str, Any]], float]:
        """The evaluation rows of ``agent`` (the model in ``candidate``) at ``step``, logged;
        ``candidate`` becomes best.zip if its mean score beats ``best_score``."""
        rows = self.evaluation_rows(agent, step, workers)
        score = float(np.mean([row["score"] for row in rows]))
        if score > best_score:
            self.keep_best(candidate)
            best_score = score
        return rows, best_score

    def evaluation_rows(self, agent: Any, step: int, workers: int = 1) -> list[dict[str, Any]]:
        """``agent``'s rows against the evaluation opponents at ``step``, logged."""
        results = win_rates(self.game, agent, self.eval_opponents, self.config.eval_games,
                            seed=segment_seed(self.config.seed, 10**6 + step), workers=workers)
        rows = [{"step": step, **row} for row in results]
        self.log(f"step {step:,}: win rate vs " + ", ".join(f"{row['opponent']} {row['win_rate']:.0%}" for row in rows))
        return rows

    def keep_best(self, candidate: Path) -> None:
        """Make the rated ``candidate`` the run's best model."""
        copy_atomic(candidate, self.files.best)

    def snapshot_due(self, steps: int) -> bool:
        return steps % self.snapshot_steps == 0 and any(spec == "self" for spec in self.config.opponents)

    def snapshot(self, model: Any, vec_env: Any, snapshots: list[str]) -> None:
        """Freeze the learner into snapshots/ and tell every environment's pool."""
        path = self.files.snapshot(model.num_timesteps)
        save_model(model, path, self.game)
        snapshots.append(str(path))
        vec_env.env_method("add_snapshot", str(path))

    def _plot(self, rows: list[dict[str, Any]]) -> None:
        try:
            plot_learning_curve(rows, self.files.curve, _title(self.game))
        except ImportError:
            self.log("matplotlib is not installed: no learning_curve.png (pip install 'parlour[plot]')")


def best_evaluated_step(rows: list[dict[str, Any]]) -> int | None:
    """The step whose evaluation rows score best on average (the earlier of a tie), or
    ``None`` before the first evaluation: every backend's ``TrainResult.best_step``."""
    by_step: dict[int, list[float]] = {}
    for row in rows:
        by_step.setdefault(row["step"], []).append(row["score"])
    if not by_step:
        return None
    return max(by_step, key=lambda s: (float(np.mean(by_step[s])), -s))


def progress_bar(total: int, done: int, enabled: bool) -> Any:
    """The run's progress bar (tqdm), or ``None`` when it is off; every backend's."""
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=done, unit="step", desc="training", dynamic_ncols=True)


def _title(game: Game) -> str:
    import textwrap

    options = ", ".join(f"{key}={value}" for key, value in game.config.items())
    return "\n".join(textwrap.wrap(f"{game.name} ({options})", 80))


def plot_learning_curve(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    """Win rate against each evaluation opponent over training steps, with 95% bands."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for opponent in dict.fromkeys(row["opponent"] for row in rows):
        mine = [row for row in rows if row["opponent"] == opponent]
        steps = [row["step"] for row in mine]
        axes.plot(steps, [row["win_rate"] for row in mine], marker="o", label=f"vs {opponent}")
        axes.fill_between(steps, [row["win_low"] for row in mine], [row["win_high"] for row in mine], alpha=0.2)
    axes.set_xlabel("training steps")
    axes.set_ylabel("win rate (95% interval)")
    axes.set_ylim(0, 1)
    axes.set_title(title, fontsize=9)
    axes.grid(alpha=0.3)
    axes.legend(loc="best", fontsize=8)
    figure.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    figure.savefig(tmp)
    plt.close(figure)
    tmp.replace(path)
