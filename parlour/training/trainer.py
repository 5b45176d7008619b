"""The one training loop: a run directory, segments of training, an evaluation and a
checkpoint after each, the best model kept, exact resumption.  What is trained and how
is a :class:`~parlour.training.backend.Backend`'s (SB3's MaskablePPO, parlour's
AlphaZero, Ray RLlib's PPO; ``parlour.training.registry`` says which backend a
configuration uses), which sees the run through a ``RunContext``.

A run is a sequence of *segments* of ``eval_every`` steps (the backend may round them,
PPO to whole rollouts), after an evaluation and a checkpoint of the untrained model at
step 0.  At the end of each segment the loop rates the model against the evaluation
opponents (``win_rates``), lets the backend judge whether it becomes ``best`` (a better
mean score, or AlphaZero's gating match), and writes a checkpoint: the model the
evaluation rated, the backend's state (optimizer, generators, replay buffer, ...) and the
loop's own (step, best).  ``resume=True`` continues from the newest intact checkpoint;
the backend's restore makes the continuation exact where its library allows (SB3 and
AlphaZero: bit for bit; RLlib: see its backend).

Everything a run may get wrong is checked before anything is written or replaced: the
configuration, the opponents' specs, the run directory (one job writes a run at a time,
a lock held until :meth:`Trainer.close`), a resumed run's checkpoint and the settings a
resume was given (``parlour.training.settings``).
"""

from __future__ import annotations

import contextlib
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
from parlour.baselines.learned.network_choice import choose_network
from parlour.evaluation.win_rates import quick_opponents, win_rates
from parlour.games import load_game
from parlour.games.base import Game
from parlour.locks import LOCK_FILE, DirectoryLock
from parlour.training.backend import Backend, BestSoFar, RunContext
from parlour.training.config import TrainConfig, make_config, saved_config
from parlour.training.devices import resolve_device
from parlour.training.learning_curve import plot_learning_curve, run_title
from parlour.training.opponents import OpponentPool, parse_opponents
from parlour.training.registry import address_setting, address_settings, backend_class
from parlour.training.run_files import (
    Checkpoint,
    DamagedRun,
    RunFiles,
    copy_atomic,
    read_checkpoint,
    read_evaluations,
    write_atomic,
    write_checkpoint,
    write_evaluations,
    write_pointer,
)
from parlour.training.seeds import segment_seed
from parlour.training.settings import SettingsGiven, check_backend_settings, resume_changes


@dataclass
class TrainResult:
    run_dir: Path
    steps: int
    evaluations: list[dict[str, Any]]
    best_step: int | None
    seconds: float
    warnings: list[str] = field(default_factory=list)
    """What the user must know about the result (e.g. that best.zip is the untrained network)."""


def best_evaluated_step(rows: list[dict[str, Any]]) -> int | None:
    """The step whose evaluation rows score best on average (the earlier of a tie), or
    ``None`` before the first evaluation."""
    by_step: dict[int, list[float]] = {}
    for row in rows:
        by_step.setdefault(row["step"], []).append(row["score"])
    if not by_step:
        return None
    return max(by_step, key=lambda s: (float(np.mean(by_step[s])), -s))


def progress_bar(total: int, done: int, enabled: bool) -> Any:
    """The run's progress bar (tqdm), or ``None`` when it is off."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # a backend without the train extra (the n-tuple learner): no bar
        return None

    return tqdm(total=total, initial=done, unit="step", desc="training", dynamic_ncols=True)


def _warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr)


class Trainer:
    """One training run in ``out`` (see the module docstring), with the backend that
    ``config.algo`` and ``config.backend`` name (for a resume: the saved config's).

    ``config`` is a new run's configuration; a resumed run (``resume=True``) uses its saved
    config.toml, which ``timesteps`` may extend and ``given`` (the settings a command line
    gave) may only repeat, except for the run's length and where it runs (``device``,
    a Ray ``address``).  ``force`` replaces an existing run directory.  ``log`` gets the
    progress lines (evaluations, gating), ``warn`` what a resume passed over."""

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
        given: SettingsGiven | None = None,
    ) -> None:
        self.files = RunFiles(Path(out))
        self.progress = progress
        self.log = log
        self.warn = warn
        root = self.files.root
        if resume and not root.is_dir():
            raise ValueError(f"cannot resume: there is no run directory {str(root)!r}")
        if root.exists() and not root.is_dir():
            raise ValueError(f"run directory {str(root)!r} is a file, not a directory")
        # One job writes a run at a time: the lock is held until close() (or this process ends).
        created = not root.exists()
        self._lock = DirectoryLock(root, "parlour train").acquire()
        try:
            self._open(config, resume, force, timesteps, given)
        except BaseException:
            # Leave the directory as it was: what this start made goes, while the lock is held.
            if created:
                with contextlib.suppress(OSError):
                    (root / LOCK_FILE).unlink(missing_ok=True)
                    root.rmdir()
            self._lock.release(remove=self._lock.new_file)
            raise

    # -- opening a run -----------------------------------------------------------------

    def _open(self, config: TrainConfig | None, resume: bool, force: bool, timesteps: int | None,
              given: SettingsGiven | None) -> None:
        """The rest of the constructor, with the run's lock held."""
        self.checkpoint: Checkpoint | None = None
        self.extended = False
        self.resume = resume
        moves: dict[str, Any] = {}
        if resume:
            if config is not None:
                raise ValueError("a resumed run uses its saved config.toml; pass timesteps= to extend it")
            self.config, given_steps, moves = self._resumed_config(given)
            timesteps = timesteps if given_steps is None else given_steps
            if timesteps is not None and timesteps != self.config.timesteps:
                self.config.timesteps = timesteps  # the only setting a resume may change
                self.config.validate()
                self.extended = True
        else:
            if config is None:
                raise ValueError("a new run needs a configuration")
            self.config = config
            if timesteps is not None:
                self.config.timesteps = timesteps
                self.config.validate()
        backend = backend_class(self.config.algo, self.config.backend)
        backend.require_extra()
        self.game: Game = load_game(self.config.game, **self.config.game_options)
        self.eval_opponents = self.config.eval_opponents or quick_opponents(self.game)
        # a backend that trains no network of these (the n-tuple learner) has no network setting: auto
        self.network = choose_network(self.config.table.get("network", "auto"), self.game.observation_shape, self.config.game)
        self.device = resolve_device(self.config.device)
        for key, value in moves.items():
            self.move(key, value)
        self.backend: Backend = backend.open(RunContext(self.config, self.files, self.game, self.network, self.device, self.log))
        self.total = self.backend.round_steps(self.config.timesteps)
        self.segment_steps = self.backend.round_steps(self.config.eval_every)
        # Bad specs fail here, before anything is written or replaced.
        OpponentPool(self.game, parse_opponents(self.config.opponents, self.config.opponent_weights), special=backend.opponents)
        for spec in self.eval_opponents:
            make_from_spec(spec, self.game)
        self.backend.check_settings()
        if resume:
            self.checkpoint = read_checkpoint(self.files)  # DamagedRun if nothing is intact
        else:
            self._clear(force)

    def _resumed_config(self, given: SettingsGiven | None) -> tuple[TrainConfig, int | None, dict[str, Any]]:
        """The saved configuration of the run being resumed; the timesteps ``given`` sets
        (``None``: not given) and where it moves the run (``{"device": "cpu", ...}``).
        ``ValueError`` naming every other setting ``given`` would change."""
        files = self.files
        if not files.config.exists():
            raise ValueError(f"cannot resume: {str(files.root)!r} is not a training run (no config.toml)")
        try:
            saved = saved_config(files.config)
        except ValueError as error:
            raise DamagedRun(f"cannot resume {str(files.root)!r}: {error}; repair it, or start a new run with another --out") from None
        if given is None:
            return saved, None, {}
        settings = saved.to_dict()
        sources = given.apply(settings)
        wanted = make_config(settings)
        check_backend_settings(wanted, sources)
        changes = resume_changes(saved, wanted, sources)
        if changes:
            raise ValueError(f"--resume continues the run with the settings in {str(files.config)!r}, where only --timesteps "
                             "(and --address, --device) may change: " + "; ".join(changes))
        moves = {key: value for key, value in (("device", wanted.device),
                                                (address_setting(wanted.algo, wanted.backend), given.address)) if key in sources}
        return saved, (wanted.timesteps if "timesteps" in sources else None), moves

    def _clear(self, force: bool) -> None:
        """A new run: its directory must be empty, or be emptied (``force``)."""
        root = self.files.root
        contents = [path for path in root.iterdir() if path.name != LOCK_FILE] if root.exists() else []
        if not contents:
            return
        if not force:
            raise FileExistsError(f"run directory {str(root)!r} already exists and is not empty; "
                                  "use --resume to continue it or --force to replace it")
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
        elif key in address_settings():
            table, _, name = key.partition(".")
            getattr(self.config, table)[name] = value
        else:
            raise ValueError(f"a resumed run may move its device or address, not {key!r}")

    def close(self) -> None:
        """Give back the run directory's lock (another job may then write it)."""
        lock = getattr(self, "_lock", None)
        if lock is not None:
            lock.release()

    def __del__(self) -> None:
        self.close()

    # -- what the front ends ask -------------------------------------------------------

    @property
    def best_path(self) -> Path:
        """The best evaluated model (what the final arena plays)."""
        return self.backend.best_path

    def learner_spec(self, path: str) -> str:
        """How the final arena plays a model of this run."""
        return self.backend.learner_spec(path)

    def saved_step(self) -> int | None:
        """The step of the checkpoint ``checkpoint.json`` names now (None: none yet)."""
        try:
            return int(json.loads(self.files.pointer.read_text())["step"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    # -- the run -----------------------------------------------------------------------

    def run(self) -> TrainResult:
        """Train to ``total`` steps, evaluating and checkpointing after every segment."""
        start = time.perf_counter()
        backend, files = self.backend, self.files
        bar = None
        finished = False
        try:
            if self.resume:
                step = self._restore()
            else:
                files.root.mkdir(parents=True, exist_ok=True)
                write_atomic(files.config, self.config.to_toml())
                self.rows: list[dict[str, Any]] = []
                self.best_score, self.best_step = -np.inf, 0
                backend.start()
                step = 0
                self._evaluate_and_save(step)  # the untrained start of the curve
            bar = progress_bar(self.total, step, self.progress)
            advance = (lambda steps: None) if bar is None else bar.update
            while step < self.total:
                until = min(self.total, (step // self.segment_steps + 1) * self.segment_steps)
                step = backend.train(step, until, advance)
                self._evaluate_and_save(step)
            finished = True
        finally:
            if bar is not None:
                bar.close()
            try:
                backend.close()
            except Exception:
                if finished:
                    raise
                # interrupted (Ctrl-C reaches SubprocVecEnv's workers too): the interruption is what to report
        self._plot()
        warnings = [] if self.best_step != 0 or step == 0 else [backend.untrained_best_warning()]
        return TrainResult(files.root, step, self.rows, self.best_step, time.perf_counter() - start, warnings)

    def _restore(self) -> int:
        """A resumed run: report the damaged checkpoints passed over (and point
        checkpoint.json at the intact one), save an extended config, and let the backend
        restore its model and state; the step it continues from."""
        checkpoint, files = self.checkpoint, self.files
        assert checkpoint is not None
        if checkpoint.damaged:
            self.warn(f"{'; '.join(checkpoint.damaged)}; resuming from {checkpoint.folder}, the newest intact checkpoint "
                      f"(step {checkpoint.step:,}): the steps after it are trained again and the damaged files replaced")
            write_pointer(files, checkpoint.folder, checkpoint.step)
        if self.extended:
            write_atomic(files.config, self.config.to_toml())  # a plain --resume continues to the new total
        state = checkpoint.state
        self.rows = read_evaluations(files, up_to=checkpoint.step)
        write_evaluations(files, self.rows)
        self.best_score = float(state.get("best_score", -np.inf))
        best = state.get("best_step", best_evaluated_step(self.rows))  # checkpoints before best_step was saved
        self.best_step = 0 if best is None else int(best)
        self.backend.restore(checkpoint)
        self.log(f"resuming {files.root} at step {checkpoint.step:,} of {self.total:,}")
        return checkpoint.step

    def _evaluate_and_save(self, step: int) -> None:
        """Rate the model of ``step``, keep it as best if the backend judges it so, and
        write the step's checkpoint (the very model rated) and last model."""
        backend, files = self.backend, self.files
        candidate = backend.save_candidate(files.root / ".candidate", step)
        try:
            agent = backend.candidate_agent(candidate)
            rows = self.evaluation_rows(agent, step, backend.eval_workers, backend.eval_opening)
            score = float(np.mean([row["score"] for row in rows]))
            if backend.earns_best(agent, candidate, step, score, BestSoFar(self.best_step, self.best_score)):
                backend.keep_best(candidate)
                self.best_step = step
            self.best_score = max(self.best_score, score)
            backend.record({f"eval/win_rate_vs_{row['opponent']}": row["win_rate"] for row in rows}, step)
            self.rows.extend(rows)
            write_evaluations(files, self.rows)
            state = {"step": step, "best_score": self.best_score, "best_step": self.best_step, **backend.state()}
            folder = write_checkpoint(files, step, lambda path: backend.store_model(candidate, path), state)
            if backend.keeps_last:
                copy_atomic(folder / "model.zip", files.last)
        finally:
            if candidate.is_dir():
                shutil.rmtree(candidate, ignore_errors=True)
            else:
                candidate.unlink(missing_ok=True)

    def evaluation_rows(self, agent: Any, step: int, workers: int = 1, opening: int = 0) -> list[dict[str, Any]]:
        """``agent``'s rows against the evaluation opponents at ``step``, logged."""
        results = win_rates(self.game, agent, self.eval_opponents, self.config.eval_games,
                            seed=segment_seed(self.config.seed, 10**6 + step), workers=workers, opening=opening)
        rows = [{"step": step, **row} for row in results]
        self.log(f"step {step:,}: win rate vs " + ", ".join(f"{row['opponent']} {row['win_rate']:.0%}" for row in rows))
        return rows

    def _plot(self) -> None:
        try:
            plot_learning_curve(self.rows, self.files.curve, run_title(self.game))
        except ImportError:
            self.log("matplotlib is not installed: no learning_curve.png (pip install 'parlour[plot]')")
