"""The configuration of a training run: one dataclass, readable from TOML and the
command line, written into the run directory so that ``--resume`` needs nothing else.

Precedence: defaults < the ``--config`` TOML file < command-line flags and
``--set key=value`` overrides.  A TOML file has top-level run keys (``game``,
``timesteps``, ...) and tables: ``[game_options]`` and one per backend, ``[ppo]``,
``[alphazero]``, ``[rllib]``, ``[ntuple]`` (the registry's: each backend declares its
settings, ``parlour.training.registry``).  TOML rather than YAML: it is in the standard
library (``tomllib``), and a run's configuration is flat enough for it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

from parlour.training import registry

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


@dataclass(init=False)
class TrainConfig:
    """Everything a run needs (see the module docstring for files and precedence).  The
    backends' tables are in ``tables`` and read as attributes (``config.alphazero``);
    ``TrainConfig(alphazero={...})`` gives one."""

    game: str = "sticks"
    algo: str = "ppo"
    """``ppo`` (MaskablePPO against ``opponents``), ``alphazero`` (self-play with PUCT
    search) or ``ntuple`` (an n-tuple evaluation by TD(lambda) inside alpha-beta): the
    registry's algos."""
    backend: str = "local"
    """Where the run runs: ``local`` (this machine's processes: SB3 in this process, or
    AlphaZero's and the n-tuple learner's local workers), ``rllib`` (Ray RLlib: every
    ``self`` seat learns, see ``parlour.training.backends.rllib``; ``ppo`` only) or ``ray``
    (``alphazero`` only: self-play workers as Ray actors, see
    ``parlour.training.backends.alphazero.workers``).  ``sb3``, the local backend's old name, is
    read as ``local`` (``registry.ALIASES``)."""
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
    batched engine and the run's backend trains on it (``algo = "ppo"``, backend
    ``local``), else ``dummy``."""
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
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Every backend's table (``{"ppo": {...}, "alphazero": {...}, ...}``: the registry's
    ``tables()``), each complete: unset settings take the backend's defaults (on the
    batched engine ``ppo.n_steps`` and ``ppo.batch_size`` are :func:`batched_ppo_defaults`)."""

    def __init__(self, tables: dict[str, dict[str, Any]] | None = None, **settings: Any) -> None:
        names = registry.tables()
        tables = {name: dict(values) for name, values in (tables or {}).items()}
        tables.update({name: dict(settings.pop(name) or {}) for name in list(settings) if name in names})
        for spec in dataclasses.fields(self):
            if spec.name == "tables":
                continue
            if spec.name in settings:
                value = settings.pop(spec.name)
            elif spec.default_factory is not dataclasses.MISSING:
                value = spec.default_factory()
            else:
                value = spec.default
            setattr(self, spec.name, value)
        if settings:
            raise TypeError(f"unexpected setting(s) {sorted(settings)}")
        self.tables = tables
        self.__post_init__()

    def __getattr__(self, name: str) -> Any:
        """A backend's table by its name (``config.alphazero``)."""
        tables = self.__dict__.get("tables")
        if tables is not None and name in tables:
            return tables[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __post_init__(self) -> None:
        self.backend = registry.canonical_place(self.backend) if isinstance(self.backend, str) else self.backend
        self.tables = {**{name: self.tables.get(name, {}) for name in registry.tables()}, **self.tables}
        if self.vec_env == "auto":
            self.vec_env = resolve_vec_env(self.game, self.algo, self.backend)
        if self.n_envs is None:
            self.n_envs = BATCHED_N_ENVS if self.vec_env == "batched" else SINGLE_N_ENVS
        if self.torch_threads is None:
            self.torch_threads = BATCHED_TORCH_THREADS if self.vec_env == "batched" else 1
        # the batched defaults depend on the network; loading the game once tells which
        board = self.vec_env == "batched" and self._board_network()
        ppo = self.tables["ppo"]
        if self.vec_env == "batched" and isinstance(self.n_envs, int) and isinstance(ppo.get("n_steps", 1), int):
            self.tables["ppo"] = {**batched_ppo_defaults(self.n_envs, ppo.get("n_steps"), board), **ppo}
        if self.cnn_precision == "auto":
            self.cnn_precision = "bfloat16" if board and self.algo == "ppo" else "float32"
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
        registry.check_pair(self.algo, self.backend)
        backend = registry.backend_class(self.algo, self.backend)
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {list(DEVICES)}, got {self.device!r}")
        if self.device != "auto" and not backend.uses_device:
            raise ValueError(f"device {self.device!r} is not for backend {self.backend!r}, which places its learners itself")
        for special in ("self", "league"):
            if special in self.opponents and special not in backend.opponents:
                users = [cls for cls in registry.backends() if special in cls.opponents]
                algos = " or ".join(dict.fromkeys(repr(cls.algo) for cls in users))
                places = " or ".join(dict.fromkeys(repr(place) for cls in users for place in cls.runs_on))
                raise ValueError(f"opponent {special!r} (for algo {algos}) needs backend {places}, got algo {self.algo!r} on backend "
                                 f"{self.backend!r}" + (", where the learner's snapshots are 'self'" if special == "league" else ""))
        unknown = sorted(set(self.tables) - set(registry.tables()))
        if unknown:
            raise ValueError(f"unknown setting table(s) {unknown}; tables are {sorted(registry.tables())}")
        for name, settings in registry.tables().items():
            try:
                self.tables[name] = settings.complete(self.tables[name])
            except ValueError as error:
                message = str(error)
                raise ValueError(f"unknown {name} {message.removeprefix('unknown ')}" if message.startswith("unknown setting")
                                 else f"{name}.{message}") from None
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
        if not registry.backend_class(self.algo, self.backend).batched_engine:
            pairs = ", ".join(f"{cls.algo}/{'/'.join(cls.runs_on)}" for cls in registry.backends() if cls.batched_engine)
            raise ValueError(f"vec_env 'batched' is for a backend that trains on the batched engine ({pairs}), "
                             f"got algo {self.algo!r} on backend {self.backend!r}")

    @property
    def rollout_steps(self) -> int:
        """Environment steps per PPO update (all envs together)."""
        return self.ppo["n_steps"] * self.n_envs

    def round_to_rollouts(self, steps: int) -> int:
        """``steps`` rounded up to whole rollouts (updates happen only between them)."""
        size = self.rollout_steps
        return -(-steps // size) * size

    def to_dict(self) -> dict[str, Any]:
        """The settings as one dict, the tables among them (``{"game": ..., "ppo": {...}}``)."""
        settings = dataclasses.asdict(self)
        return {**{key: value for key, value in settings.items() if key != "tables"}, **settings["tables"]}

    def to_toml(self) -> str:
        """The configuration as TOML (``load_config`` reads it back)."""
        lines = []
        tables = {"game_options": self.game_options, **self.tables}
        for key, value in self.to_dict().items():
            if key not in tables and value is not None:
                lines.append(f"{key} = {_toml_value(value)}")
        for table, values in tables.items():
            lines.append(f"\n[{table}]")
            lines.extend(f"{key} = {_toml_value(value)}" for key, value in values.items())
        return "\n".join(lines) + "\n"


def resolve_vec_env(game: str, algo: str, backend: str) -> str:
    """What ``vec_env = "auto"`` means for a run: ``batched`` where its backend trains on
    the batched engine (PPO in this process) and the game has one (any opponent mix plays
    there), else ``dummy``."""
    from parlour.vector import ENGINES

    try:
        batched = registry.backend_class(algo, backend).batched_engine
    except ValueError:  # a bad pair: validate() says so
        return "dummy"
    return "batched" if batched and game in ENGINES else "dummy"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value)


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


def setting_names() -> set[str]:
    """The top-level settings of a configuration: its fields and the backends' tables."""
    return {f.name for f in dataclasses.fields(TrainConfig) if f.name != "tables"} | set(registry.tables())


def load_config(path: str | Path) -> dict[str, Any]:
    """The settings in a TOML file (unknown keys are an error naming the allowed ones)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"config file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"config file {str(path)!r} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - setting_names())
    if unknown:
        raise ValueError(f"unknown setting(s) {unknown} in {str(path)!r}; settings are {sorted(setting_names())}")
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
    names, tables = setting_names(), ["game_options", *registry.tables()]
    if head not in names:
        subkeys = ", ".join(f"{table}.<name>" for table in tables)
        raise ValueError(f"unknown setting {key!r}; settings are {sorted(names)} (and {subkeys})")
    if rest:
        if head not in tables:
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
