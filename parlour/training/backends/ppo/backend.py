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

Self-play: every ``ppo.snapshot_every`` steps (at the end of a rollout) the learner is
frozen into ``snapshots/`` and every environment's opponent pool (the batch's one mix)
is told about it.
"""

from __future__ import annotations

import functools
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from parlour.baselines.learned.network_choice import PRECISIONS, check_precision, choose_network, native_bfloat16
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
from parlour.training.backend import LOCAL, Backend, RunConfig, RunContext
from parlour.training.backend_settings import NetworkSettings, RunView, SnapshotSettings, setting
from parlour.training.opponents import OpponentPool, describe_entries, parse_opponents
from parlour.training.pretrain import TeacherGames, teacher_games
from parlour.training.pretrain_lockstep import lockstep_refusal
from parlour.training.run_files import Checkpoint
from parlour.training.seeds import segment_seed
from parlour.training.single_agent import SingleAgentEnv
from parlour.training.starts import OpeningSeats, Starts, parse_players
from parlour.training.teacher import SCHEDULES, BatchedTeacher, SingleTeacher, check_teacher, teacher_weight

PRETRAIN_STREAM = 7_004_900
"""The pretraining fit's own stream of the run's seed (its order and symmetries)."""

BATCHED_N_ENVS = 256
"""Games of a batched run when ``n_envs`` is not given (``vec_env = "batched"``, or ``auto``
where it chooses the engine)."""
BATCHED_N_STEPS = 64
"""``n_steps`` of a batched run when not given: a rollout of 64 steps of every game."""
BATCHED_TORCH_THREADS = 2
"""torch's threads in a batched run when not given (its large minibatches use both cores
of the machine the defaults were measured on)."""
BATCHED_MINIBATCHES = 4
"""A batched run's ``batch_size`` when not given, for a dense network: the rollout in
this many minibatches (torch's dense layers are fastest per position in the largest)."""
BATCHED_CNN_BATCH = 256
"""A batched run's ``batch_size`` when not given, for a board network: the
convolutions' activations of a minibatch of thousands overflow the caches (per position
2.2x slower at 4,096 than at 256, measured)."""
SINGLE_N_ENVS = 4
"""Single-game envs of a ``dummy`` or ``subproc`` run when ``n_envs`` is not given."""
VEC_KINDS = ("auto", "dummy", "subproc", "batched")
"""``vec_env``'s values; ``auto`` is resolved when the configuration is made
(:meth:`PPOSettings.resolve`), so a run's config.toml names the kind it ran on."""
ALGORITHM = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef",
             "vf_coef", "max_grad_norm")
"""The settings that are MaskablePPO's keyword arguments (the others place its games,
threads and network)."""


def batched_ppo_defaults(n_envs: int, n_steps: int | None, board_network: bool) -> dict[str, int]:
    """The PPO settings a batched run gets unless given (chosen by measurement,
    benchmarks/RESULTS.md "Self-play on the batched engines"): ``n_steps``, and
    ``batch_size``: ``BATCHED_CNN_BATCH`` for a board network, else a
    ``BATCHED_MINIBATCHES``-th of the rollout."""
    steps = BATCHED_N_STEPS if n_steps is None else n_steps
    rollout = steps * n_envs
    batch = min(BATCHED_CNN_BATCH, rollout) if board_network else max(1, rollout // BATCHED_MINIBATCHES)
    return {"n_steps": steps, "batch_size": batch}


@dataclass(frozen=True)
class PPOSettings(NetworkSettings, SnapshotSettings):
    """The ``[ppo]`` table.  MaskablePPO's keyword arguments (:data:`ALGORITHM`), and
    ``net_arch``, the policy network's hidden layers: set for short board-game runs, a
    smaller rollout (``n_steps`` per env) than SB3's 2048 so that a few-minute run still
    makes many updates, a little entropy bonus against early collapse onto one move, and a
    128-128 network (on the batched engine ``n_steps`` and ``batch_size`` default
    otherwise: :func:`batched_ppo_defaults`).  RLlib's PPO reads ``net_arch`` too.

    Where its games are played: ``vec_env``, ``batched`` (one numpy engine steps all
    ``n_envs`` games against the opponent mix, ``parlour.training.opponent_mix``), ``dummy``
    or ``subproc`` (SB3's vector envs of single-game ``SingleAgentEnv``), or ``auto``:
    ``batched`` wherever the game has a batched engine and the run's backend trains on it,
    else ``dummy``; ``n_envs`` games at once (``None``: 256 batched, else 4);
    ``opponent_workers`` processes for the batched run's opponents that play through the
    rules module (searches without a batched form; 0: in this process).

    ``torch_threads`` (``None``: 2 on the batched engine, whose minibatches of thousands of
    positions use a second core, else 1, fastest for the single games' small batches and
    steady when the machine is shared: benchmarks/RESULTS.md); a fixed number, not the
    machine's count, so that a run is the same on any machine.

    The board network (``NetworkSettings``): ``cnn_shared``, one ``BoardCNN`` read by both
    the policy and the value heads (SB3's ``share_features_extractor``) or one each;
    ``cnn_precision``, its convolutions in ``float32`` or under ``bfloat16`` autocast (half
    the update's cost per position where the CPU has bfloat16 instructions, the same
    learning: benchmarks/RESULTS.md), ``auto``: ``bfloat16`` for the board network on the
    batched engine where the CPU computes it natively (``native_bfloat16``: elsewhere
    torch emulates it, several times slower than float32), else ``float32``; config.toml
    keeps the choice, so a resumed run computes as it began.  Self-play snapshots:
    ``SnapshotSettings``.

    Diverse starts (``parlour.training.starts``): ``start_share`` of the episodes (drawn
    for each) start from a position ``start_plies_min`` to ``start_plies_max`` plies deep
    (uniform), reached by one of ``start_players`` (drawn for each) at every seat; 0, the
    default, plays every episode from the deal and draws nothing.

    Teacher (``parlour.training.teacher``): ``teacher``, a policy spec whose move
    distribution on the learner's positions pulls the learner's policy (kickstarting: the
    cross-entropy term of ``kickstart.KickstartedPPO``), weighted by ``teacher_weight``,
    falling to 0 over ``teacher_steps`` (``teacher_schedule = "linear"``) or not
    (``constant``); on the batched engine the teacher is its batched form.

    Pretraining (``parlour.training.pretrain``): ``pretrain``, a policy spec (any player,
    a deep search included: it is asked once per recorded position, not at every step)
    that plays ``pretrain_games`` games against itself, ``pretrain_explore`` of its moves
    random; the network is fitted to its moves and the games' results for
    ``pretrain_epochs`` passes (``pretrain_fit``) before the first rollout, in
    ``pretrain_workers`` processes, one game at a time each, or for an ``az`` search
    ``pretrain_lockstep`` games at once on the vectorised search (``pretrain_lockstep``).
    Then, with ``pretrain_student_games``, the fitted network plays that many games whose
    positions the teacher labels (DAgger), and the network is fitted again, for
    ``pretrain_student_epochs`` passes over both sets.  ``pretrain_start_share`` of these
    games start deep, as the episodes' diverse starts do (``start_plies_min`` /
    ``start_plies_max``, ``start_players``), the opening's plies not recorded: a
    deterministic teacher in a game without chance (Double Card) otherwise replays one
    game but for its exploring moves.  Its time counts in the run's.

    ``eval_opening``: the evaluations' games open with that many uniformly random plies, so
    that a learner that plays (almost) deterministically against deterministic evaluation
    opponents is rated on several games a seat, not one replayed."""

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
    n_envs: int | None = setting(None, kind=int, low=1)
    vec_env: str = setting("auto", choices=VEC_KINDS)
    opponent_workers: int = setting(0, low=0)
    torch_threads: int | None = setting(None, kind=int, low=1)
    cnn_shared: bool = setting(True)
    cnn_precision: str = setting("auto", choices=("auto", *PRECISIONS))
    cnn_lines: int = setting(0, low=0, help="with the board policy, each residual block's first convolution sees this many "
                                            "cells either side along the cell's row, column and diagonals (3: a four in a "
                                            "row through it); 0: its 3x3 neighbours")
    start_share: float = setting(0.0, low=0.0, high=1.0,
                                 help="the share of episodes that start some plies deep (0: every one from the deal)")
    start_plies_min: int = setting(1, low=0, help="the fewest plies a deep start's opening plays")
    start_plies_max: int = setting(20, low=0, help="the most plies a deep start's opening plays")
    start_players: str = setting("random", help="who plays the openings: policy specs, comma-separated (batched forms "
                                                "on the batched engine)")
    teacher: str = setting("", help="a policy spec the learner is distilled towards early on (kickstarting; '': none)")
    teacher_weight: float = setting(1.0, low=0.0, help="the distillation term's weight at step 0")
    teacher_schedule: str = setting("linear", choices=SCHEDULES, help="linear: the weight falls to 0 over teacher_steps; "
                                                                       "constant: it stays")
    teacher_steps: int = setting(1_000_000, low=1, help="the steps over which a linear schedule falls to 0")
    pretrain: str = setting("", help="a policy spec whose own games the network is fitted to before the first rollout "
                                     "(supervised; '': none)")
    pretrain_games: int = setting(1000, low=1, help="the pretraining teacher's games (against itself at every seat)")
    pretrain_explore: float = setting(0.1, low=0.0, high=1.0, help="the share of the teacher's moves played at random")
    pretrain_epochs: int = setting(5, low=1, help="passes of the supervised fit over the teacher's positions")
    pretrain_learning_rate: float = setting(1e-3, low=0.0, help="the supervised fit's Adam step (cosine to 0)")
    pretrain_workers: int = setting(1, low=1, help="processes playing the teacher's games (the games do not depend on it)")
    pretrain_lockstep: int = setting(0, low=0, help="an az search teacher's games played this many at once on the vectorised "
                                                    "search (about 8x faster for Tides of Time; other games from the "
                                                    "same seed); 0: one at a time by the player itself")
    pretrain_student_games: int = setting(0, low=0, help="games the fitted network plays, the teacher labelling its "
                                                         "positions, before a second fit over both sets (DAgger); 0: none")
    pretrain_student_epochs: int = setting(2, low=1, help="passes of the second fit, over the teacher's and the student games")
    pretrain_start_share: float = setting(0.0, low=0.0, high=1.0,
                                          help="the share of the teacher's (and student) games that start some plies deep, "
                                               "as start_plies_min/max and start_players say (0: every one from the deal)")
    eval_opening: int = setting(0, low=0, help="random plies that open every evaluation game (against deterministic "
                                               "opponents a deterministic learner would replay one game a seat)")

    legacy: ClassVar[dict[str, Any]] = {"cnn_precision": "float32"}
    """Runs from before ``cnn_precision`` computed in float32."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.n_envs is not None and self.batch_size > self.n_steps * self.n_envs:
            raise ValueError(f"batch_size={self.batch_size} is larger than a rollout (n_steps {self.n_steps} x n_envs {self.n_envs})")
        if self.start_plies_min > self.start_plies_max:
            raise ValueError(f"start_plies_min={self.start_plies_min} is larger than start_plies_max={self.start_plies_max}")
        parse_players(self.start_players)

    @classmethod
    def resolve(cls, values: dict[str, Any], run: RunView) -> dict[str, Any]:
        """``vec_env = "auto"``, ``n_envs``, ``torch_threads``, a batched run's ``n_steps`` and
        ``batch_size`` and ``cnn_precision = "auto"`` made concrete for ``run`` (see the
        class docstring); ``ValueError`` for a batched run that cannot be, or bfloat16 off
        the board network."""
        from parlour.vector import ENGINES

        table = dict(values)
        if table.get("vec_env", "auto") == "auto":
            table["vec_env"] = "batched" if run.batched_engine and run.game in ENGINES else "dummy"
        batched = table["vec_env"] == "batched"
        if batched and run.game not in ENGINES:
            raise ValueError(f"vec_env 'batched' needs a game with a batched engine ({sorted(ENGINES)}), got game {run.game!r}")
        if batched and not run.batched_engine:
            raise ValueError(f"vec_env 'batched' is for a backend that trains on the batched engine ({run.batched_backends}), "
                             f"got algo {run.algo!r} on backend {run.backend!r}")
        if table.get("n_envs") is None:
            table["n_envs"] = BATCHED_N_ENVS if batched else SINGLE_N_ENVS
        if table.get("torch_threads") is None:
            table["torch_threads"] = BATCHED_TORCH_THREADS if batched else 1
        bfloat16 = table.get("cnn_precision") == "bfloat16"
        shape = _game_shape(run) if batched or bfloat16 else None  # the batched defaults depend on the network
        network = _chosen_network(table.get("network", "auto"), run, shape)
        board = batched and network == "cnn"
        n_envs, n_steps = table["n_envs"], table.get("n_steps")
        if batched and isinstance(n_envs, int) and isinstance(n_steps if n_steps is not None else 1, int):
            table = {**batched_ppo_defaults(n_envs, n_steps, board), **table}
        if table.get("cnn_precision", "auto") == "auto":
            native = board and run.algo == "ppo" and native_bfloat16()
            table["cnn_precision"] = "bfloat16" if native else "float32"
        if table["cnn_precision"] == "bfloat16" and shape is not None:
            check_precision("bfloat16", (network or "mlp") if run.algo == "ppo" else "mlp", shape[1], name="cnn_precision")
        return table


def _game_shape(run: RunView) -> tuple[tuple[int, ...], int | None] | None:
    """The run's game's observation shape and action planes (``None`` when the game cannot
    be loaded: the configuration's own check says why)."""
    try:
        game = load_game(run.game, **run.game_options)
    except Exception:  # noqa: BLE001 (a bad game or option: reported where it is checked)
        return None
    return tuple(game.observation_shape), game.action_planes


def _chosen_network(network: Any, run: RunView, shape: tuple[tuple[int, ...], int | None] | None) -> str | None:
    """``mlp`` or ``cnn`` for the run (``None`` when the game or the network is bad: reported
    where they are checked)."""
    if shape is None:
        return None
    try:
        return choose_network(network, shape[0], run.game)
    except ValueError:
        return None


def rollout_steps(ppo: dict[str, Any]) -> int:
    """Environment steps per PPO update (all envs together) of a resolved ``[ppo]`` table."""
    return int(ppo["n_steps"]) * int(ppo["n_envs"])


def round_to_rollouts(ppo: dict[str, Any], steps: int) -> int:
    """``steps`` rounded up to whole rollouts (updates happen only between them)."""
    size = rollout_steps(ppo)
    return -(-steps // size) * size


def make_env(config: dict[str, Any], snapshots: list[str], rank: int, subprocess: bool = False) -> Any:
    """One learner environment (top-level, so that ``SubprocVecEnv`` can pickle it);
    ``subprocess``: it is made in a ``SubprocVecEnv`` worker, which must end with the trainer."""
    import torch
    from stable_baselines3.common.monitor import Monitor

    if subprocess:  # even on a SIGKILL of the trainer
        die_with_parent()
    ppo = config["ppo"]
    torch.set_num_threads(ppo["torch_threads"])  # in SubprocVecEnv workers, for snapshot opponents
    game = load_game(config["game"], **config["game_options"])
    pool = OpponentPool(game, parse_opponents(config["opponents"], config["opponent_weights"]), snapshots, ppo["max_snapshots"])
    return Monitor(SingleAgentEnv(game, pool, seat=config["seat"], starts=Starts.from_settings(ppo)))


def make_vec_env(config: RunConfig, snapshots: list[str], device: str = "cpu") -> Any:
    """The run's ``ppo.n_envs`` learner envs: ``DummyVecEnv`` or ``SubprocVecEnv`` of
    ``SingleAgentEnv``, or (``vec_env = "batched"``) one batched numpy engine for all of
    them against the opponent mix (``parlour.training.opponent_mix``; the snapshots'
    network on ``device``), with SB3's episode statistics."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    ppo = config.ppo
    if ppo["vec_env"] == "batched":
        from parlour.training.opponent_mix import OpponentMix
        from parlour.vector.sb3_env import BatchedSB3VecEnv

        game = load_game(config.game, **config.game_options)
        mix = OpponentMix(game, parse_opponents(config.opponents, config.opponent_weights), snapshots, ppo["max_snapshots"],
                          device=device, workers=ppo["opponent_workers"])
        starts = Starts.from_settings(ppo)
        players = mix if starts is None else OpeningSeats(mix, starts)
        try:
            return VecMonitor(BatchedSB3VecEnv(config.game, ppo["n_envs"], opponent=players, seat=config.seat,
                                               seed=config.seed, **config.game_options))
        except BaseException:
            mix.close()
            raise

    subprocess = ppo["vec_env"] == "subproc"
    fns: list[Callable[[], Any]] = [functools.partial(make_env, config.to_dict(), list(snapshots), rank, subprocess)
                                    for rank in range(ppo["n_envs"])]
    return SubprocVecEnv(fns) if subprocess else DummyVecEnv(fns)


def describe_envs(config: RunConfig) -> str:
    """The line a run starts with: where its games are played, by whom, and from where."""
    ppo = config.ppo
    starts = Starts.from_settings(ppo)
    deep = "" if starts is None else f"; {starts.describe()}"
    if ppo["teacher"]:
        decay = f"falling to 0 over {ppo['teacher_steps']} steps" if ppo["teacher_schedule"] == "linear" else "constant"
        deep += f"; teacher {ppo['teacher']} (weight {ppo['teacher_weight']:g}, {decay})"
    if ppo["vec_env"] != "batched":
        return (f"environments: {ppo['n_envs']} single games ({ppo['vec_env']}: SB3's "
                f"{'DummyVecEnv' if ppo['vec_env'] == 'dummy' else 'SubprocVecEnv'} of SingleAgentEnv){deep}")
    entries = parse_opponents(config.opponents, config.opponent_weights)
    return f"environments: {ppo['n_envs']} games on the batched engine (vec_env batched); {describe_entries(entries)}{deep}"


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

    def __init__(self, run: RunContext) -> None:
        super().__init__(run)
        self.eval_opening = self.config.ppo["eval_opening"]

    def round_steps(self, steps: int) -> int:
        return round_to_rollouts(self.config.ppo, steps)

    def untrained_best_warning(self) -> str:
        """With pretraining the step-0 model is the fitted network, not an untrained one:
        the warning says that PPO's own steps are what did not show."""
        spec = self.config.ppo["pretrain"]
        if not spec:
            return super().untrained_best_warning()
        return (f"{self.best_path.name} is the step-0 model, the network fitted to the games of {spec} (--pretrain): "
                "no evaluation after PPO's steps scored above it (see evaluations.csv); PPO added nothing at this budget")

    def learner_spec(self, path: str) -> str:
        """The ``ppo:`` spec of a model: deterministic where evaluations rate it so (``rates_deterministic``)."""
        return f"ppo:{path}" if rates_deterministic(self.game) else f"ppo:{path},deterministic=false"

    def check_settings(self) -> None:
        for key in ("teacher", "pretrain"):  # a bad spec fails here, before anything is written or replaced
            if self.config.ppo[key]:
                check_teacher(self.config.ppo[key], self.game)
        ppo = self.config.ppo
        if ppo["pretrain"] and ppo["pretrain_lockstep"] and (refusal := lockstep_refusal(self.game, ppo["pretrain"])):
            raise ValueError(f"ppo.pretrain_lockstep={ppo['pretrain_lockstep']}: {refusal}")

    @property
    def teacher(self) -> BatchedTeacher | SingleTeacher | None:
        """The run's teacher (``ppo.teacher``), made with the vector env; ``None`` without one."""
        return getattr(self, "_teacher", None)

    def _with_teacher(self, vec_env: Any) -> Any:
        """``vec_env`` wrapped to ask the run's teacher at every step (``kickstart.TeacherVecEnv``);
        as it is without a teacher."""
        spec = self.config.ppo["teacher"]
        if not spec:
            self._teacher: BatchedTeacher | SingleTeacher | None = None
            return vec_env
        from parlour.training.backends.ppo.kickstart import TeacherVecEnv

        batched = self.config.ppo["vec_env"] == "batched"
        teacher = (BatchedTeacher if batched else SingleTeacher)(spec, self.game, seed=self.config.seed)
        self._teacher = teacher
        try:
            env = TeacherVecEnv(vec_env, teacher)
            if isinstance(teacher, BatchedTeacher):  # a spec without a batched form is refused now, not at the first step
                teacher.form(vec_env.unwrapped.core.engine)
        except BaseException:
            vec_env.close()
            raise
        return env

    def _algorithm(self) -> Any:
        """MaskablePPO, or (with a teacher) ``kickstart.KickstartedPPO``, its loss with the distillation term."""
        if self.teacher is None:
            from sb3_contrib import MaskablePPO

            return MaskablePPO
        from parlour.training.backends.ppo.kickstart import KickstartedPPO

        return KickstartedPPO

    def _attach_teacher(self) -> None:
        if self.teacher is not None:
            ppo = dict(self.config.ppo)
            self.model.attach(self.vec_env, lambda step: teacher_weight(ppo, step))

    @property
    def uses_self(self) -> bool:
        return any(spec == "self" for spec in self.config.opponents)

    def start(self) -> None:
        import torch

        from parlour.baselines.learned.networks import ppo_policy

        config, files, ppo = self.config, self.files, self.config.ppo
        torch.set_num_threads(ppo["torch_threads"])
        self.snapshot_steps = self.round_steps(ppo["snapshot_every"])
        self.snapshots: list[str] = [str(files.snapshot(0))] if self.uses_self else []
        self.vec_env = self._with_teacher(make_vec_env(config, [], self.run.device))
        self.run.log(describe_envs(config))
        cnn = {"channels": ppo["cnn_channels"], "blocks": ppo["cnn_blocks"], "lines": ppo["cnn_lines"]}
        policy, kwargs = ppo_policy(self.run.network, ppo["net_arch"], cnn,
                                    shared=ppo["cnn_shared"], action_planes=self.game.action_planes,
                                    precision=ppo["cnn_precision"])
        self.model = self._algorithm()(policy, self.vec_env, seed=config.seed, device=self.run.device, verbose=0,
                                       tensorboard_log=str(files.tensorboard), policy_kwargs=kwargs,
                                       **{key: ppo[key] for key in ALGORITHM})
        self._attach_teacher()
        if ppo["pretrain"]:
            self._pretrain()
        if self.uses_self:
            save_model(self.model, files.snapshot(0), self.game)
            self.vec_env.env_method("add_snapshot", self.snapshots[0])
        self._rng: dict[str, Any] | None = None  # step 0's checkpoint keeps the generators as they are after its evaluation

    def _pretrain(self) -> None:
        """Fit the fresh network to the pretraining teacher's games (``ppo.pretrain``), before
        snapshot 0 and step 0's checkpoint, which a resumed run starts from."""
        from parlour.training.backends.ppo.pretrain_fit import fit_policy

        ppo = self.config.ppo
        started = time.perf_counter()
        starts = Starts.from_settings(ppo, share_key="pretrain_start_share")
        play = functools.partial(teacher_games, self.game, ppo["pretrain"], seed=self.config.seed, explore=ppo["pretrain_explore"],
                                 gamma=ppo["gamma"], workers=ppo["pretrain_workers"], lockstep=ppo["pretrain_lockstep"],
                                 starts=starts)
        data = play(ppo["pretrain_games"])
        deep = "" if starts is None else f" ({starts.share:.0%} of them from {starts.low}..{starts.high} plies deep)"
        self.run.log(f"pretraining: {ppo['pretrain_games']} games of {ppo['pretrain']}{deep}, {len(data)} positions "
                     f"in {time.perf_counter() - started:.0f} s")
        rng = np.random.default_rng(np.random.SeedSequence([self.config.seed, PRETRAIN_STREAM]))
        fit = functools.partial(fit_policy, self.model.policy, game=self.game, learning_rate=ppo["pretrain_learning_rate"],
                                vf_coef=ppo["vf_coef"], rng=rng, log=self.run.log)
        fit(data, epochs=ppo["pretrain_epochs"])
        if ppo["pretrain_student_games"]:
            with tempfile.TemporaryDirectory() as folder:
                student = save_model(self.model, Path(folder) / "student.zip", self.game)
                played = time.perf_counter()
                more = play(ppo["pretrain_student_games"], student=str(student), first=ppo["pretrain_games"])
            self.run.log(f"pretraining: {ppo['pretrain_student_games']} games of the fitted network labelled by the teacher, "
                         f"{len(more)} positions in {time.perf_counter() - played:.0f} s")
            fit(TeacherGames.join([data, more]), epochs=ppo["pretrain_student_epochs"])
        self.run.log(f"pretraining done in {time.perf_counter() - started:.0f} s")

    def restore(self, checkpoint: Checkpoint) -> None:
        import torch

        config, files, state = self.config, self.files, checkpoint.state
        torch.set_num_threads(config.ppo["torch_threads"])
        self.snapshot_steps = self.round_steps(config.ppo["snapshot_every"])
        # Snapshots live in snapshots/ (the saved paths may be relative to another working directory).
        self.snapshots = [str(files.snapshots / Path(path).name) for path in state["snapshots"]]
        self.vec_env = self._with_teacher(make_vec_env(config, self.snapshots, self.run.device))
        self.run.log(describe_envs(config))
        with preserved_global_rng():
            self.model = self._algorithm().load(checkpoint.model, env=self.vec_env, device=self.run.device,
                                                tensorboard_log=str(files.tensorboard))
        self._attach_teacher()
        set_global_rng_state(state["rng"])
        self._rng = None

    def train(self, step: int, until: int, advance: Callable[[int], None]) -> int:
        from parlour.training.backends.ppo.callback import TrainingCallback

        model = self.model
        segment = segment_seed(self.config.seed, step // self.round_steps(self.config.eval_every))
        self.vec_env.seed(segment)
        if self.teacher is not None:
            self.teacher.reset(segment + 1)  # its own draws, from the segment's seed as the games' are
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
