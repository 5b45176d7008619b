"""The configuration of a training run: one dataclass, readable from TOML and the
command line, written into the run directory so that ``--resume`` needs nothing else.

Precedence: defaults < the ``--config`` TOML file < command-line flags and
``--set key=value`` overrides.  A TOML file has top-level run keys (``game``,
``timesteps``, ...) and two tables: ``[game_options]`` and ``[ppo]`` (MaskablePPO's
keyword arguments, e.g. ``learning_rate``, ``n_steps``, ``ent_coef``, and ``net_arch``
for the policy network's hidden layers).  TOML rather than YAML: it is in the
standard library (``tomllib``), and a run's configuration is flat enough for it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

from parlour.baselines.learned.alphazero import INFERENCE

PPO_DEFAULTS: dict[str, Any] = {
    "learning_rate": 3e-4,
    "n_steps": 256,
    "batch_size": 256,
    "n_epochs": 4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
    "net_arch": [128, 128],
}
"""MaskablePPO settings for short board-game runs: a smaller rollout (``n_steps`` per
env) than SB3's 2048 so that a few-minute run still makes many updates, a little
entropy bonus against early collapse onto one move, and a 128-128 network."""

PPO_TYPES: dict[str, type] = {key: type(value) for key, value in PPO_DEFAULTS.items()}

BATCHED_N_ENVS = 256
"""Games of a batched run when ``n_envs`` is not given (``--vec-env batched``, or ``auto``
where it chooses the engine)."""
BATCHED_N_STEPS = 64
"""``ppo.n_steps`` of a batched run when not given: a rollout of 64 steps of every game."""
BATCHED_TORCH_THREADS = 2
"""torch's threads in a batched run when not given (its large minibatches use both cores
of the machine the defaults were measured on)."""
BATCHED_MINIBATCHES = 4
"""A batched run's ``ppo.batch_size`` when not given, for a dense network: the rollout in
this many minibatches (torch's dense layers are fastest per position in the largest)."""
BATCHED_CNN_BATCH = 256
"""A batched run's ``ppo.batch_size`` when not given, for a board network: the
convolutions' activations of a minibatch of thousands overflow the caches (per position
2.2x slower at 4,096 than at 256, measured)."""


def batched_ppo_defaults(n_envs: int, n_steps: int | None, board_network: bool) -> dict[str, int]:
    """The PPO settings a batched run gets unless given (chosen by measurement,
    benchmarks/RESULTS.md "Self-play on the batched engines"): ``n_steps``, and
    ``batch_size``: ``BATCHED_CNN_BATCH`` for a board network, else a
    ``BATCHED_MINIBATCHES``-th of the rollout."""
    steps = BATCHED_N_STEPS if n_steps is None else n_steps
    rollout = steps * n_envs
    batch = min(BATCHED_CNN_BATCH, rollout) if board_network else max(1, rollout // BATCHED_MINIBATCHES)
    return {"n_steps": steps, "batch_size": batch}


AZ_DEFAULTS: dict[str, Any] = {
    "simulations": 64,
    "c": 1.5,
    "dirichlet_alpha": 10.0,
    "dirichlet_fraction": 0.25,
    "temperature_moves": 8,
    "games_per_iteration": 16,
    "train_steps": 32,
    "batch_size": 128,
    "buffer_size": 20_000,
    "learning_rate": 1e-3,
    "weight_decay": 1e-4,
    "hidden": 128,
    "workers": 1,
    "eval_simulations": 64,
    "rollout_mix": 0.0,
    "teacher": "",
    "teacher_positions": 0,
    "gate_games": 40,
    "gate_threshold": 0.55,
    "address": "",
    "gumbel": False,
    "gumbel_considered": 16,
    "fast_simulations": 0,
    "full_fraction": 0.25,
    "symmetries": True,
    "cell_policy": False,
    "inference": "float32",
}
"""Settings of ``algo = "alphazero"`` (the ``[alphazero]`` table): PUCT ``simulations`` per
self-play decision with exploration ``c``; Dirichlet noise ``dirichlet_alpha`` (divided by
the number of legal moves: AlphaZero's 0.3 for chess's ~30) mixed in at
``dirichlet_fraction``; each seat's first ``temperature_moves`` moves drawn from the
visits; per iteration ``games_per_iteration`` self-play games, then ``train_steps``
minibatches of ``batch_size`` from the newest ``buffer_size`` positions (Adam,
``learning_rate``, ``weight_decay``); ``hidden`` units in the heads; self-play in
``workers`` processes (the results do not depend on it); the evaluations and the final
arena play with ``eval_simulations`` per move; ``rollout_mix`` (lambda in [0, 1]) mixes one
random playout into every leaf's value, AlphaGo's way (see ``NetworkEvaluator``);
``teacher`` (a policy spec, e.g. ``paranoid:depth=2``) plays the self-play games of the
first ``teacher_positions`` positions instead of the search, and the network learns its
moves (expert iteration's warm start, see ``self_play.play_teacher_game``); at every
evaluation after the first, the network becomes best only by scoring at least
``gate_threshold`` against the current best in a gating match of ``gate_games`` games at
``eval_simulations`` each (``alphazero.gate``); with ``backend = "ray"``, ``address`` of
the Ray cluster whose actors play the self-play games (empty: ``RAY_ADDRESS`` if set,
else a local Ray on 127.0.0.1); ``gumbel``: the self-play searches choose at their roots
by Gumbel sampling and sequential halving over at most ``gumbel_considered`` actions and
target the improved policy (``engines.gumbel``) instead of Dirichlet noise and visit
counts; ``fast_simulations`` > 0: playout cap randomization (KataGo), a fraction
``full_fraction`` of the decisions searched with ``simulations`` and used as policy
targets, the others with ``fast_simulations`` and used for the values only;
``symmetries``: every training example is replaced by a random symmetric image of it
where the game's rules have symmetries (``Game.symmetries``: Tribolo's board);
``cell_policy``: with the board CNN, where the moves are cells (``Game.action_planes``),
each move's logit from its own cell's features (``PolicyValueNet``'s ``action_planes``);
``inference``: ``"bfloat16"`` runs self-play's network calls on a bfloat16 copy of the
network (``az_model.InferenceCopy``: about twice the board network's speed on a CPU with
native bfloat16), ``"float32"`` on the network itself."""

AZ_TYPES: dict[str, type] = {key: type(value) for key, value in AZ_DEFAULTS.items()}
UNIT_INTERVAL = ("dirichlet_fraction", "rollout_mix", "gate_threshold", "full_fraction")

RLLIB_DEFAULTS: dict[str, Any] = {
    "policies": "shared",
    "num_env_runners": 0,
    "num_envs_per_env_runner": 1,
    "num_learners": 0,
    "address": "",
    "train_batch_size": 2000,
    "minibatch_size": 250,
    "num_epochs": 6,
    "learning_rate": 3e-4,
    "entropy_coeff": 0.01,
}
"""Settings of ``backend = "rllib"`` (the ``[rllib]`` table): ``policies`` ``shared`` (one
module for every seat) or ``per_seat``; ``num_env_runners`` sampling processes (0: in
the driver) with ``num_envs_per_env_runner`` envs each, ``num_learners`` learner
processes (0: in the driver); ``address`` of a Ray cluster to join (empty: ``RAY_ADDRESS``
if set, else a local Ray on 127.0.0.1); PPO's ``train_batch_size`` env steps per update,
``minibatch_size``, ``num_epochs``, ``learning_rate`` and ``entropy_coeff``."""

RLLIB_TYPES: dict[str, type] = {key: type(value) for key, value in RLLIB_DEFAULTS.items()}

@dataclass(frozen=True)
class NTupleSettings:
    """Settings of ``algo = "ntuple"`` (the ``[ntuple]`` table; ``parlour.training.ntuple``):
    the self-play games' search ``depth`` and ``opening`` random plies; ``play_depth``: the
    depth of the evaluations and gating matches, the depth the model will play at (0:
    ``depth``; a deeper search can rank two evaluations otherwise); ``teacher``: the
    first generation plays with the search's own evaluation (else with all weights zero);
    TD(``lam``) fits of ``epochs`` full-batch Adam steps (``learning_rate``, L2 ``l2``) on
    the newest ``window`` generations' games; a generation becomes best by scoring at
    least ``gate_threshold`` in ``gate_games`` games against the best (0: always);
    self-play and gating in ``workers`` processes (the results do not depend on it);
    ``features``: the game's n-tuple feature set (empty: its default,
    ``baselines.learned.ntuple.NTUPLE_FEATURE_SETS``).  A generation is a segment of the
    run: ``eval_every`` games; ``timesteps`` counts games."""

    depth: int = 2
    opening: int = 4
    play_depth: int = 0
    teacher: bool = True
    lam: float = 0.7
    epochs: int = 300
    learning_rate: float = 0.01
    l2: float = 1e-5
    window: int = 3
    gate_games: int = 100
    gate_threshold: float = 0.55
    workers: int = 1
    features: str = ""

    def __post_init__(self) -> None:
        for key in ("depth", "epochs", "window", "workers"):
            if getattr(self, key) < 1:
                raise ValueError(f"{key} must be at least 1, got {getattr(self, key)}")
        for key in ("opening", "gate_games", "play_depth"):
            if getattr(self, key) < 0:
                raise ValueError(f"{key} must be at least 0, got {getattr(self, key)}")
        for key in ("lam", "gate_threshold"):
            if not 0 <= getattr(self, key) <= 1:
                raise ValueError(f"{key} must be in [0, 1], got {getattr(self, key)}")
        if not self.learning_rate > 0 or self.l2 < 0:
            raise ValueError(f"learning_rate must be positive and l2 at least 0, got {self.learning_rate} and {self.l2}")


NTUPLE_DEFAULTS: dict[str, Any] = dataclasses.asdict(NTupleSettings())
NTUPLE_TYPES: dict[str, type] = {key: type(value) for key, value in NTUPLE_DEFAULTS.items()}

ALGOS = ("ppo", "alphazero", "ntuple")
BACKENDS = ("sb3", "rllib", "ray")
DEVICES = ("auto", "cpu", "cuda")

VEC_KINDS = ("auto", "dummy", "subproc", "batched")
"""``TrainConfig.vec_env``'s values; ``auto`` is resolved when the configuration is made
(:func:`resolve_vec_env`), so a run's config.toml names the kind it ran on."""
SINGLE_N_ENVS = 4
"""Single-game envs of a ``dummy`` or ``subproc`` run when ``n_envs`` is not given."""
NETWORKS = ("auto", "mlp", "cnn")
"""``TrainConfig.network``'s values (``parlour.baselines.learned.networks`` builds them)."""
CNN_PRECISIONS = ("auto", "float32", "bfloat16")
"""``TrainConfig.cnn_precision``'s values."""


@dataclass
class TrainConfig:
    """Everything a run needs (see the module docstring for files and precedence)."""

    game: str = "sticks"
    algo: str = "ppo"
    """``ppo`` (MaskablePPO against ``opponents``), ``alphazero`` (self-play with PUCT
    search) or ``ntuple`` (an n-tuple evaluation by TD(lambda) inside alpha-beta)."""
    backend: str = "sb3"
    """``sb3`` (Stable-Baselines3, one process; for ``alphazero``: self-play in local worker
    processes), ``rllib`` (Ray RLlib: every ``self`` seat learns, see
    ``parlour.training.rllib``; ``ppo`` only) or ``ray`` (``alphazero`` only: self-play
    workers as Ray actors, see ``parlour.training.self_play_workers``)."""
    game_options: dict[str, Any] = field(default_factory=dict)
    opponents: list[str] = field(default_factory=lambda: ["random"])
    """Policy specs for the other seats, or ``"self"`` for snapshots of the learner."""
    opponent_weights: list[float] | None = None
    seat: int | str = "random"
    timesteps: int = 20_000
    n_envs: int | None = None
    """Games played at once (``None``: 256 on the batched engine, else 4)."""
    vec_env: str = "auto"
    """``batched`` (one numpy engine steps all ``n_envs`` games against the opponent mix:
    ``parlour.training.opponent_mix``), ``dummy`` or ``subproc`` (SB3's vector envs of
    single-game ``SingleAgentEnv``), or ``auto``: ``batched`` wherever the game has a
    batched engine and the run is PPO on this process (``algo = "ppo"``, backend
    ``sb3``), else ``dummy``."""
    opponent_workers: int = 0
    """With ``vec_env = "batched"``: worker processes for the opponents that play through
    the rules module (searches without a batched form, e.g. ``original-strategy``); 0 plays
    them in this process."""
    seed: int = 0
    snapshot_every: int = 10_000
    max_snapshots: int = 20
    eval_every: int = 10_000
    """Steps between evaluations; each one is also a checkpoint."""
    eval_games: int = 100
    eval_opponents: list[str] | None = None
    """Specs the agent is rated against (default: random and the game's quick strong
    reference player, ``win_rates.quick_opponents``)."""
    network: str = "auto"
    """The policy's network: ``mlp`` (``ppo.net_arch`` hidden layers on the flat
    observation), ``cnn`` (``BoardCNN`` over board planes, then ``ppo.net_arch``), or
    ``auto``: ``cnn`` for games whose observation is board planes (Tribolo, Double Card)."""
    cnn_channels: int = 32
    """Filters of each ``BoardCNN`` convolution."""
    cnn_blocks: int = 2
    """Residual blocks of ``BoardCNN`` after its first convolution."""
    cnn_shared: bool = True
    """PPO: one ``BoardCNN`` read by both the policy and the value heads (SB3's
    ``share_features_extractor``), or, ``false``, one for each."""
    cnn_precision: str = "auto"
    """PPO's board network: its convolutions in ``float32`` or under ``bfloat16`` autocast
    (half the update's cost per position where the CPU has bfloat16 instructions, the
    same learning: benchmarks/RESULTS.md); ``auto``: ``bfloat16`` for the board network
    on the batched engine, else ``float32``."""
    torch_threads: int | None = None
    """Threads torch may use (``None``: 2 on the batched engine, whose minibatches of
    thousands of positions use a second core, else 1, fastest for the single games'
    small batches and steady when the machine is shared: benchmarks/RESULTS.md,
    training throughput and "Self-play on the batched engines").  A fixed number, not
    the machine's count, so that a run is the same on any machine."""
    device: str = "auto"
    """Where torch runs the learner's network (``ppo`` and ``alphazero``): ``cpu``, ``cuda``,
    or ``auto`` (``cuda`` when torch sees a GPU).  Results are reproducible per device."""
    ppo: dict[str, Any] = field(default_factory=dict)
    """MaskablePPO's settings; unset ones are ``PPO_DEFAULTS`` (on the batched engine,
    ``n_steps`` and ``batch_size`` are :func:`batched_ppo_defaults`)."""
    alphazero: dict[str, Any] = field(default_factory=lambda: dict(AZ_DEFAULTS))
    rllib: dict[str, Any] = field(default_factory=lambda: dict(RLLIB_DEFAULTS))
    ntuple: dict[str, Any] = field(default_factory=lambda: dict(NTUPLE_DEFAULTS))

    def __post_init__(self) -> None:
        if self.vec_env == "auto":
            self.vec_env = resolve_vec_env(self.game, self.algo, self.backend)
        if self.n_envs is None:
            self.n_envs = BATCHED_N_ENVS if self.vec_env == "batched" else SINGLE_N_ENVS
        if self.torch_threads is None:
            self.torch_threads = BATCHED_TORCH_THREADS if self.vec_env == "batched" else 1
        # the batched defaults depend on the network; loading the game once tells which
        board = self.vec_env == "batched" and self._board_network()
        if self.vec_env == "batched" and isinstance(self.n_envs, int) and isinstance(self.ppo.get("n_steps", 1), int):
            self.ppo = {**batched_ppo_defaults(self.n_envs, self.ppo.get("n_steps"), board), **self.ppo}
        if self.cnn_precision == "auto":
            self.cnn_precision = "bfloat16" if board and self.algo == "ppo" else "float32"
        self.ppo = {**PPO_DEFAULTS, **self.ppo}
        self.alphazero = {**AZ_DEFAULTS, **self.alphazero}
        self.rllib = {**RLLIB_DEFAULTS, **self.rllib}
        self.ntuple = {**NTUPLE_DEFAULTS, **self.ntuple}
        self.validate()

    def _board_network(self) -> bool:
        """Whether the policy will be the board network (``choose_network``; False when the
        game cannot be loaded: ``validate`` and the trainer say why)."""
        try:
            from parlour.games import load_game

            shape = load_game(self.game, **self.game_options).observation_shape
            return choose_network(self.network, shape, self.game) == "cnn"
        except Exception:  # noqa: BLE001 (a bad game, option or network: reported where it is checked)
            return False

    def validate(self) -> None:
        """``ValueError`` naming the first bad value and what is allowed."""
        for name in ("timesteps", "n_envs", "snapshot_every", "max_snapshots", "eval_every", "eval_games", "torch_threads", "cnn_channels"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if isinstance(self.opponent_workers, bool) or not isinstance(self.opponent_workers, int) or self.opponent_workers < 0:
            raise ValueError(f"opponent_workers must be a non-negative integer, got {self.opponent_workers!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        if isinstance(self.cnn_blocks, bool) or not isinstance(self.cnn_blocks, int) or self.cnn_blocks < 0:
            raise ValueError(f"cnn_blocks must be a non-negative integer, got {self.cnn_blocks!r}")
        if not isinstance(self.cnn_shared, bool):
            raise ValueError(f"cnn_shared must be true or false, got {self.cnn_shared!r}")
        if self.cnn_precision not in CNN_PRECISIONS:
            raise ValueError(f"cnn_precision must be one of {list(CNN_PRECISIONS)}, got {self.cnn_precision!r}")
        if self.cnn_precision == "bfloat16" and not (self.algo == "ppo" and self._board_network()):
            raise ValueError("cnn_precision 'bfloat16' is for PPO's board network (network 'cnn' on Tribolo or Double Card); use 'float32'")
        if self.network not in NETWORKS:
            raise ValueError(f"network must be one of {list(NETWORKS)}, got {self.network!r}")
        if self.vec_env not in VEC_KINDS:
            raise ValueError(f"vec_env must be one of {list(VEC_KINDS)}, got {self.vec_env!r}")
        if self.vec_env == "batched":
            self._validate_batched()
        if not self.opponents:
            raise ValueError("opponents must name at least one policy spec or 'self'")
        if self.algo not in ALGOS:
            raise ValueError(f"algo must be one of {list(ALGOS)}, got {self.algo!r}")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {list(BACKENDS)}, got {self.backend!r}")
        if self.backend == "ray" and self.algo != "alphazero":
            raise ValueError(f"backend 'ray' plays alphazero's self-play on Ray actors, got algo {self.algo!r} "
                             "(PPO on Ray is backend 'rllib')")
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {list(DEVICES)}, got {self.device!r}")
        if self.device != "auto" and self.backend == "rllib":
            raise ValueError(f"device {self.device!r} is for the sb3 and ray backends; RLlib places its learners itself")
        if self.backend != "rllib" and "league" in self.opponents:
            raise ValueError(f"opponent 'league' (frozen snapshots of the RLlib modules) needs backend 'rllib', got backend "
                             f"{self.backend!r}, where the learner's snapshots are 'self'")
        if self.backend == "rllib" and self.algo != "ppo":
            raise ValueError(f"backend 'rllib' trains algo 'ppo' only, got algo {self.algo!r} (alphazero runs on parlour's own search)")
        if self.algo == "ntuple" and self.backend != "sb3":
            raise ValueError(f"algo 'ntuple' runs in this process and local workers (backend 'sb3'), got backend {self.backend!r}")
        self._validate_rllib()
        self._validate_ntuple()
        unknown = sorted(set(self.ppo) - set(PPO_DEFAULTS))
        if unknown:
            raise ValueError(f"unknown ppo setting(s) {unknown}; settings are {sorted(PPO_DEFAULTS)}")
        for key, value in self.ppo.items():
            self.ppo[key] = _coerce(f"ppo.{key}", value, PPO_TYPES[key])
        unknown = sorted(set(self.alphazero) - set(AZ_DEFAULTS))
        if unknown:
            raise ValueError(f"unknown alphazero setting(s) {unknown}; settings are {sorted(AZ_DEFAULTS)}")
        for key, value in self.alphazero.items():
            self.alphazero[key] = value = _coerce(f"alphazero.{key}", value, AZ_TYPES[key])
            if key == "inference" and value not in INFERENCE:
                raise ValueError(f"alphazero.inference must be one of {list(INFERENCE)}, got {value!r}")
            if key in ("teacher", "address", "gumbel", "symmetries", "cell_policy", "inference"):
                continue
            low = 0 if key in ("temperature_moves", "c", "dirichlet_fraction", "weight_decay", "eval_simulations", "rollout_mix",
                                "teacher_positions", "gate_threshold", "fast_simulations", "full_fraction") else 1
            if key in ("learning_rate", "dirichlet_alpha"):
                if not value > 0:
                    raise ValueError(f"alphazero.{key} must be positive, got {value!r}")
            elif value < low or (key in UNIT_INTERVAL and value > 1):
                allowed = "in [0, 1]" if key in UNIT_INTERVAL else f"at least {low}"
                raise ValueError(f"alphazero.{key} must be {allowed}, got {value!r}")
        if self.alphazero["teacher_positions"] and not self.alphazero["teacher"]:
            raise ValueError(f"alphazero.teacher_positions={self.alphazero['teacher_positions']} needs alphazero.teacher, "
                             "the policy spec that plays those games (e.g. paranoid:depth=2)")
        if self.ppo["batch_size"] > self.ppo["n_steps"] * self.n_envs:
            raise ValueError(
                f"ppo.batch_size={self.ppo['batch_size']} is larger than a rollout "
                f"(n_steps {self.ppo['n_steps']} x n_envs {self.n_envs})"
            )

    def _validate_batched(self) -> None:
        """``vec_env = "batched"``: one numpy engine steps all ``n_envs`` games, so the game
        needs a batched engine and the run is PPO in this process."""
        from parlour.vector import ENGINES

        if self.game not in ENGINES:
            raise ValueError(f"vec_env 'batched' needs a game with a batched engine ({sorted(ENGINES)}), got game {self.game!r}")
        if self.backend != "sb3" or self.algo != "ppo":
            raise ValueError(f"vec_env 'batched' is for backend 'sb3' with algo 'ppo', got backend {self.backend!r}, algo {self.algo!r}")

    def _validate_rllib(self) -> None:
        unknown = sorted(set(self.rllib) - set(RLLIB_DEFAULTS))
        if unknown:
            raise ValueError(f"unknown rllib setting(s) {unknown}; settings are {sorted(RLLIB_DEFAULTS)}")
        for key, value in self.rllib.items():
            self.rllib[key] = value = _coerce(f"rllib.{key}", value, RLLIB_TYPES[key])
            if key == "policies" and value not in ("shared", "per_seat"):
                raise ValueError(f"rllib.policies must be 'shared' or 'per_seat', got {value!r}")
            if key in ("num_env_runners", "num_learners", "entropy_coeff") and value < 0:
                raise ValueError(f"rllib.{key} must be at least 0, got {value!r}")
            if key in ("num_envs_per_env_runner", "train_batch_size", "minibatch_size", "num_epochs") and value < 1:
                raise ValueError(f"rllib.{key} must be at least 1, got {value!r}")
            if key == "learning_rate" and not value > 0:
                raise ValueError(f"rllib.learning_rate must be positive, got {value!r}")
        if self.rllib["minibatch_size"] > self.rllib["train_batch_size"]:
            raise ValueError(f"rllib.minibatch_size={self.rllib['minibatch_size']} is larger than "
                             f"rllib.train_batch_size={self.rllib['train_batch_size']}")

    def _validate_ntuple(self) -> None:
        unknown = sorted(set(self.ntuple) - set(NTUPLE_DEFAULTS))
        if unknown:
            raise ValueError(f"unknown ntuple setting(s) {unknown}; settings are {sorted(NTUPLE_DEFAULTS)}")
        for key, value in self.ntuple.items():
            self.ntuple[key] = _coerce(f"ntuple.{key}", value, NTUPLE_TYPES[key])
        try:
            NTupleSettings(**self.ntuple)
        except ValueError as error:
            raise ValueError(f"ntuple.{error}") from None

    @property
    def ntuple_settings(self) -> NTupleSettings:
        """The ``[ntuple]`` table as the settings the fits and gates read."""
        return NTupleSettings(**self.ntuple)

    @property
    def rollout_steps(self) -> int:
        """Environment steps per PPO update (all envs together)."""
        return self.ppo["n_steps"] * self.n_envs

    def round_to_rollouts(self, steps: int) -> int:
        """``steps`` rounded up to whole rollouts (updates happen only between them)."""
        size = self.rollout_steps
        return -(-steps // size) * size

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_toml(self) -> str:
        """The configuration as TOML (``load_config`` reads it back)."""
        lines = []
        tables = {"game_options": self.game_options, "ppo": self.ppo, "alphazero": self.alphazero, "rllib": self.rllib,
                  "ntuple": self.ntuple}
        for key, value in self.to_dict().items():
            if key not in tables and value is not None:
                lines.append(f"{key} = {_toml_value(value)}")
        for table, values in tables.items():
            lines.append(f"\n[{table}]")
            lines.extend(f"{key} = {_toml_value(value)}" for key, value in values.items())
        return "\n".join(lines) + "\n"


def resolve_vec_env(game: str, algo: str, backend: str) -> str:
    """What ``vec_env = "auto"`` means for a run: ``batched`` for PPO in this process on a
    game with a batched engine (any opponent mix plays there), else ``dummy``."""
    from parlour.vector import ENGINES

    return "batched" if algo == "ppo" and backend == "sb3" and game in ENGINES else "dummy"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value)


def _coerce(name: str, value: Any, kind: type) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is list:
        if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
            raise ValueError(f"{name} must be a list of positive layer sizes, got {value!r}")
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be true or false, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, kind):
        raise ValueError(f"{name} must be a {kind.__name__}, got {value!r}")
    return value


def choose_network(network: str, shape: tuple[int, ...], game: str) -> str:
    """``mlp`` or ``cnn`` for a game whose observation has ``shape`` (``auto``: ``cnn``
    for board planes, i.e. a 3-D observation); ``ValueError`` for ``cnn`` without a board."""
    if network not in NETWORKS:
        raise ValueError(f"network must be one of {list(NETWORKS)}, got {network!r}")
    board = len(shape) == 3
    if network == "auto":
        return "cnn" if board else "mlp"
    if network == "cnn" and not board:
        raise ValueError(
            f"network 'cnn' needs board planes (an observation of shape (channels, rows, columns)); "
            f"{game}'s observation has shape {tuple(shape)}: use 'mlp'"
        )
    return network


FIELDS = {f.name for f in dataclasses.fields(TrainConfig)}


def load_config(path: str | Path) -> dict[str, Any]:
    """The settings in a TOML file (unknown keys are an error naming the allowed ones)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"config file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"config file {str(path)!r} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise ValueError(f"unknown setting(s) {unknown} in {str(path)!r}; settings are {sorted(FIELDS)}")
    return data


LEGACY_SETTINGS = {"cnn_precision": "float32"}
"""What a run's config.toml written before a setting existed ran with, where that differs
from the setting's default."""
LEGACY_NTUPLE = {"features": "windows"}
"""The same for the ``[ntuple]`` table (every game's first feature set was ``windows``)."""


def saved_config(path: str | Path) -> TrainConfig:
    """The configuration of an existing run (its config.toml): settings added since it was
    written take what the run ran with (``LEGACY_SETTINGS``), not today's defaults."""
    data = {**LEGACY_SETTINGS, **load_config(path)}
    data["ntuple"] = {**LEGACY_NTUPLE, **data.get("ntuple", {})}
    return make_config(data)


def parse_override(item: str) -> tuple[str, Any]:
    """``"ppo.ent_coef=0.02"`` or ``"eval_games=50"`` -> (dotted key, TOML-parsed value)."""
    key, eq, text = item.partition("=")
    key = key.strip()
    if not eq or not key:
        raise ValueError(f"--set {item!r} is not key=value (e.g. --set ppo.learning_rate=1e-4)")
    try:
        value = tomllib.loads(f"v = {text.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = text.strip()
    return key, value


def merge(base: dict[str, Any], key: str, value: Any) -> None:
    """Set a dotted key (``ppo.n_steps``) in a settings dict; ``ValueError`` if unknown."""
    head, _, rest = key.partition(".")
    if head not in FIELDS:
        raise ValueError(f"unknown setting {key!r}; settings are {sorted(FIELDS)} (and ppo.<name>, alphazero.<name>, rllib.<name>, ntuple.<name>, game_options.<name>)")
    if rest:
        if head not in ("ppo", "alphazero", "rllib", "ntuple", "game_options"):
            raise ValueError(f"setting {head!r} has no sub-keys (got {key!r})")
        base.setdefault(head, {})[rest] = value
    else:
        base[head] = value


def make_config(settings: dict[str, Any]) -> TrainConfig:
    """A validated ``TrainConfig`` from merged settings."""
    try:
        return TrainConfig(**settings)
    except TypeError as error:
        raise ValueError(f"bad training settings: {error}") from None
