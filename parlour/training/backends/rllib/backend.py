"""``parlour train --backend rllib``: PPO on Ray RLlib, a backend of the one training loop
(``parlour.training.trainer``).

The run directory is the one of the SB3 runs (``run_files``): config.toml,
evaluations.csv and the learning curve, TensorBoard scalars (``tb/rllib``), checkpoints
at every evaluation with their SHA-256 (``checkpoints/step_N/model.zip`` is the RLlib
checkpoint directory zipped, ``state.pkl`` parlour's counters), and ``best/``, the best
evaluated checkpoint as a plain directory, which ``rllib:runs/NAME`` plays.

Steps are environment steps (``step()`` calls of the multi-agent env, whatever the
number of seats moving in them; on the batched path, the learner's moves, one per game
of the engine per step); RLlib rounds each iteration to whole batches of
``rllib.train_batch_size``, so evaluations fall on the first iteration that crosses
each multiple of ``eval_every``.

Resume: RLlib restores its whole algorithm state from a checkpoint (module weights,
optimizer moments, learner and env-runner connector states, metrics), and the run
continues from parlour's saved step, rows and best score.  What RLlib does not restore
bit for bit: the env runners' episodes in flight and their generators (RLlib seeds the
env runners from the config's seed when they are built, so a resumed run samples
different games than the uninterrupted one would have) and torch's generator for the
action sampling.  A resumed run is therefore a faithful continuation, not a replay;
local runs (``backend = "local"``) are exact.

League: with ``league`` among the opponents, the learning modules are frozen at step 0
and every ``snapshot_every`` steps into every env's league (``league.py``) and into
``snapshots/step_N.npz``; a resumed run pushes back the latest ``max_snapshots`` of
those taken up to its checkpoint.

Where the games are played (``rllib.vec_env``): ``batched``, the default for a game with a
batched engine and opponents without a live ``self`` seat, steps one batched numpy engine
of ``num_envs_per_env_runner`` games in each env runner (RLlib's single-agent env runner
over a Gymnasium vector env: ``batched_env`` says why that path), the learner at one
seat of each game against the opponent mix (``league``: its frozen snapshots), one
module ``default_policy``; ``dummy`` steps ``ParlourMultiAgentEnv``, one game per env,
every ``self`` seat learning (``policies``).

Ray: ``rllib.address`` (or ``RAY_ADDRESS``) joins a running cluster; otherwise the run
starts a local Ray bound to 127.0.0.1 and stops it at the end.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from parlour.baselines.learned.rllib import SINGLE, RLlibPolicy, require_rllib_extra
from parlour.evaluation.win_rates import rates_deterministic
from parlour.ray_cluster import connect
from parlour.training.backend import Backend, RunContext
from parlour.training.backend_settings import NetworkSettings, RunView, SnapshotSettings, setting
from parlour.training.backends.rllib.checkpoint import save_checkpoint, swap_in, unzip_checkpoint, zip_directory
from parlour.training.backends.rllib.league import add_league_snapshot, load_snapshot, push_snapshot, save_snapshot
from parlour.training.opponents import LEAGUE, SELF, describe_entries, parse_opponents
from parlour.training.run_files import Checkpoint

VEC_KINDS = ("auto", "dummy", "subproc", "batched")
"""``rllib.vec_env``'s values, the ppo backend's (one ``--vec-env`` sets both): ``dummy``, RLlib's
multi-agent env runners stepping single games; ``batched``, one batched engine per env
runner (``batched_env``); ``subproc`` is refused for an RLlib run."""
PLACE = "rllib"
"""Where this backend runs (``--backend rllib``)."""
BATCHED_ENVS_PER_RUNNER = 256
"""Games of one env runner's batched engine when ``num_envs_per_env_runner`` is not given."""
BATCHED_STEPS = 64
"""A batched run's ``train_batch_size`` when not given: 64 steps of every game of one
engine (the SB3 batched runs' rollout, ``ppo.n_steps``), so that RLlib's episode chunks
are as long as SB3's rollouts; with more env runners each samples its share."""
BATCHED_MINIBATCHES = 4
"""A batched run's ``minibatch_size`` when not given: a quarter of the batch (the SB3
batched runs' dense-network rule)."""
SINGLE_BATCH, SINGLE_MINIBATCH = 2000, 250
"""``train_batch_size`` and ``minibatch_size`` of a ``dummy`` run when not given."""


@dataclass(frozen=True)
class RLlibSettings(NetworkSettings, SnapshotSettings):
    """The ``[rllib]`` table (and ``ppo.net_arch``, the network's hidden layers): ``policies`` ``shared`` (one
    module for every seat) or ``per_seat``; ``vec_env``, where the env runners' games are
    played: ``batched`` (one batched engine of ``num_envs_per_env_runner`` games per env
    runner, default 256, one learning seat per game against the opponent mix, one module:
    ``batched_env``), ``dummy`` (``num_envs_per_env_runner`` multi-agent envs of one game
    each, default 1, every ``self`` seat learning) or ``auto`` (``batched`` for a game with a
    batched engine and opponents without ``self``; a run's config.toml written before this
    setting ran ``dummy``); ``num_env_runners`` sampling processes (0: in
    the driver), ``num_learners`` learner
    processes (0: in the driver); ``address`` of a Ray cluster to join (empty: ``RAY_ADDRESS``
    if set, else a local Ray on 127.0.0.1); PPO's ``train_batch_size`` env steps per update
    (default: batched, 64 steps of every game of one engine; else 2000), ``minibatch_size``
    (a quarter of the batch, else 250), ``num_epochs``, ``learning_rate`` and
    ``entropy_coeff``; the network's shape (``NetworkSettings``) and the league's snapshots
    (``SnapshotSettings``)."""

    policies: str = setting("shared", choices=("shared", "per_seat"))
    vec_env: str = setting("auto", choices=VEC_KINDS)
    num_env_runners: int = setting(0, low=0)
    num_envs_per_env_runner: int | None = setting(None, kind=int, low=1)
    num_learners: int = setting(0, low=0)
    address: str = setting("")
    train_batch_size: int | None = setting(None, kind=int, low=1)
    minibatch_size: int | None = setting(None, kind=int, low=1)
    num_epochs: int = setting(6, low=1)
    learning_rate: float = setting(3e-4, positive=True)
    entropy_coeff: float = setting(0.01, low=0)

    legacy: ClassVar[dict[str, Any]] = {"vec_env": "dummy", "num_envs_per_env_runner": 1, "train_batch_size": 2000,
                                        "minibatch_size": 250}

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.minibatch_size is not None and self.train_batch_size is not None and self.minibatch_size > self.train_batch_size:
            raise ValueError(f"minibatch_size={self.minibatch_size} is larger than rllib.train_batch_size={self.train_batch_size}")

    @classmethod
    def resolve(cls, values: dict[str, Any], run: RunView) -> dict[str, Any]:
        """``vec_env = "auto"``: ``batched`` for an RLlib run of a game with a batched engine
        whose opponents seat no live ``self``, with ``policies = "shared"``, else ``dummy``;
        ``num_envs_per_env_runner``: 256 games batched, else 1; ``train_batch_size`` and
        ``minibatch_size``: 64 steps of every game and a quarter of that batched, else 2000
        and 250.  ``ValueError`` for a batched RLlib run that cannot be (naming what is
        missing) and for ``subproc`` (the ppo backend's)."""
        from parlour.training.backends.rllib.batched_env import batched_problem, live_self
        from parlour.vector import ENGINES

        table = dict(values)
        ours = run.backend == PLACE
        if table.get("vec_env", "auto") == "auto":
            batched = (ours and run.game in ENGINES and table.get("policies", "shared") == "shared"
                       and not live_self(list(run.opponents), run.opponent_weights))
            table["vec_env"] = "batched" if batched else "dummy"
        kind = table["vec_env"]
        if ours and kind == "subproc":
            raise ValueError("vec_env 'subproc' is the ppo backend's (SB3's SubprocVecEnv); RLlib samples in its env runners "
                             "(rllib.num_env_runners): vec_env must be one of ['auto', 'dummy', 'batched']")
        if ours and kind == "batched" and table.get("policies", "shared") != "shared":
            raise ValueError(f"vec_env 'batched' trains one module (one learning seat per game): policies must be 'shared', "
                             f"got {table['policies']!r}")
        problem = batched_problem(run.game, list(run.opponents), run.opponent_weights) if ours and kind == "batched" else None
        if problem:
            raise ValueError(problem)
        if table.get("num_envs_per_env_runner") is None:
            table["num_envs_per_env_runner"] = BATCHED_ENVS_PER_RUNNER if kind == "batched" else 1
        envs = table["num_envs_per_env_runner"]
        batched = ours and kind == "batched" and isinstance(envs, int) and not isinstance(envs, bool)
        if table.get("train_batch_size") is None:
            table["train_batch_size"] = BATCHED_STEPS * envs if batched else SINGLE_BATCH
        if table.get("minibatch_size") is None:
            size = table["train_batch_size"]
            table["minibatch_size"] = max(1, size // BATCHED_MINIBATCHES) if batched and isinstance(size, int) else SINGLE_MINIBATCH
        return table


class RLlibBackend(Backend):
    """PPO on Ray RLlib (see the module docstring)."""

    algo = "ppo"
    runs_on = (PLACE,)
    Settings = RLlibSettings
    table = "rllib"
    address = "address"
    opponents = (SELF, LEAGUE)
    learns_against_opponents = True
    uses_device = False
    batched_engine = True

    keeps_last = False  # the checkpoints are RLlib directories; best/ is what rllib: plays

    def __init__(self, run: RunContext) -> None:
        super().__init__(run)
        self.eval_opening = self.config.ppo["eval_opening"]
        self.algorithm: Any = None
        self.started_ray = False

    @classmethod
    def require_extra(cls) -> None:
        require_rllib_extra()

    @property
    def best_path(self) -> Path:
        return self.files.root / "best"

    @property
    def batched(self) -> bool:
        """Whether the run samples on the batched engines (``rllib.vec_env = "batched"``)."""
        return self.config.rllib["vec_env"] == "batched"

    @property
    def module_ids(self) -> list[str]:
        if self.batched:
            return [SINGLE]
        if self.config.rllib["policies"] == "shared":
            return ["shared"]
        return [f"player_{seat}" for seat in range(self.game.num_players)]

    def learner_spec(self, path: str) -> str:
        return f"rllib:{path}" if rates_deterministic(self.game) else f"rllib:{path},deterministic=false"

    def algorithm_config(self) -> Any:
        """The ``PPOConfig`` of this run (``ppo_config`` with the run's settings)."""
        from parlour.training.backends.rllib.algo import batched_ppo_config, ppo_config

        config, rl = self.config, self.config.rllib
        model = {"network": self.run.network, "hidden": list(config.ppo["net_arch"]), "channels": rl["cnn_channels"],
                 "blocks": rl["cnn_blocks"]}
        if self.batched:
            algo_config = batched_ppo_config(
                config.game, config.game_options, opponents=list(config.opponents), opponent_weights=config.opponent_weights,
                seat=config.seat, model=model, max_snapshots=rl["max_snapshots"],
                num_envs_per_env_runner=rl["num_envs_per_env_runner"], num_env_runners=rl["num_env_runners"],
                num_learners=rl["num_learners"], seed=config.seed, train_batch_size=rl["train_batch_size"],
                minibatch_size=rl["minibatch_size"], num_epochs=rl["num_epochs"], lr=rl["learning_rate"],
            )
            return algo_config.training(entropy_coeff=rl["entropy_coeff"])
        algo_config = ppo_config(
            config.game, config.game_options, policies=rl["policies"], opponents=list(config.opponents),
            opponent_weights=config.opponent_weights, seat=config.seat, model=model,
            max_snapshots=rl["max_snapshots"], num_env_runners=rl["num_env_runners"], num_learners=rl["num_learners"],
            seed=config.seed, train_batch_size=rl["train_batch_size"], minibatch_size=rl["minibatch_size"],
            num_epochs=rl["num_epochs"], lr=rl["learning_rate"],
        )
        algo_config.training(entropy_coeff=rl["entropy_coeff"])
        algo_config.env_runners(num_envs_per_env_runner=rl["num_envs_per_env_runner"])
        return algo_config

    def describe_envs(self) -> str:
        """The line a run starts with: where its games are played."""
        rl = self.config.rllib
        runners = f"{rl['num_env_runners']} env runner(s)" if rl["num_env_runners"] else "sampling in the driver"
        if self.batched:
            entries = parse_opponents(self.config.opponents, self.config.opponent_weights)
            return (f"environments: {rl['num_envs_per_env_runner']} games on the batched engine per env runner, {runners} "
                    f"(rllib.vec_env batched), module default_policy; {describe_entries(entries)}")
        return (f"environments: {rl['num_envs_per_env_runner']} multi-agent env(s) of one game per env runner, {runners} "
                f"(rllib.vec_env dummy)")

    # -- the model ---------------------------------------------------------------------

    def _build(self) -> None:
        """Join (or start) Ray and build the algorithm; TensorBoard's writer."""
        self.started_ray = connect(self.config.rllib["address"])
        self.run.log(self.describe_envs())
        self.algorithm = self.algorithm_config().build_algo()
        self.open_writer("rllib")

    def start(self) -> None:
        self._build()
        self._snapshot(0)

    def restore(self, checkpoint: Checkpoint) -> None:
        self._build()
        files, algo = self.files, self.algorithm
        with tempfile.TemporaryDirectory(dir=files.root) as work:
            algo.restore_from_path(str(unzip_checkpoint(checkpoint.model, Path(work))))
        step = checkpoint.step
        if self.uses_league:  # the league as it was at the checkpoint: later snapshots are not replayed
            kept = [path for path in sorted(files.snapshots.glob("step_*.npz")) if int(path.stem[5:]) <= step]
            for path in kept[-self.config.rllib["max_snapshots"]:]:
                push_snapshot(algo, f"league:step_{int(path.stem[5:])}", load_snapshot(path))

    def train(self, step: int, until: int, advance: Callable[[int], None]) -> int:
        """RLlib iterations until ``until`` env steps; league snapshots as they fall due."""
        every = self.config.rllib["snapshot_every"]
        while step < until:
            result = self.algorithm.train()
            sampled = int(result["env_runners"]["num_env_steps_sampled"])
            before, step = step, step + sampled
            self._log_result(result, step)
            advance(sampled)
            if step // every > before // every:
                self._snapshot(step)
        return step

    @property
    def uses_league(self) -> bool:
        weights = self.config.opponent_weights or [1.0] * len(self.config.opponents)
        return any(spec == LEAGUE and weight > 0 for spec, weight in zip(self.config.opponents, weights))

    def _snapshot(self, step: int) -> None:
        """Freeze the learning modules into every env's league and into snapshots/ (league runs only)."""
        if self.uses_league:
            save_snapshot(self.files.snapshot(step).with_suffix(".npz"), add_league_snapshot(self.algorithm, f"league:step_{step}"))

    # -- evaluation and checkpoints ----------------------------------------------------

    def save_candidate(self, path: Path, step: int) -> Path:
        """The modules saved once, as a plain RLlib checkpoint directory (rated, then zipped)."""
        save_checkpoint(self.algorithm, path, self.game, self.module_ids, {"step": step})
        return path

    def candidate_agent(self, candidate: Path) -> Any:
        return RLlibPolicy(self.game, path=str(candidate), deterministic=rates_deterministic(self.game))

    def store_model(self, candidate: Path, path: Path) -> None:
        zip_directory(candidate, path)

    def keep_best(self, candidate: Path) -> None:
        """The candidate directory becomes best/ (a copy, swapped in whole)."""
        fresh = Path(tempfile.mkdtemp(prefix=".best.", suffix=".tmp", dir=self.files.root))
        try:
            shutil.copytree(candidate, fresh / "best")
            swap_in(fresh / "best", self.best_path)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)

    def state(self) -> dict[str, Any]:
        return {"backend": "rllib"}

    def _log_result(self, result: dict[str, Any], step: int) -> None:
        """RLlib's episode returns and each module's losses, as TensorBoard scalars."""
        runners = result.get("env_runners", {})
        for key in ("episode_return_mean", "episode_len_mean"):
            if key in runners:
                self.writer.add_scalar(f"rollout/{key}", float(runners[key]), step)
        for module, values in result.get("learners", {}).items():
            if not isinstance(values, dict):
                continue
            for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss"):
                if key in values:
                    self.writer.add_scalar(f"learner/{module}/{key}", float(values[key]), step)

    def close(self) -> None:
        import ray

        super().close()
        if self.algorithm is not None:
            self.algorithm.stop()
            self.algorithm = None
        if self.started_ray:
            ray.shutdown()
            self.started_ray = False
