"""The configuration of a training run: one dataclass, readable from TOML and the
command line, written into the run directory so that ``--resume`` needs nothing else.

Precedence: defaults < the ``--config`` TOML file < command-line flags and
``--set key=value`` overrides.  A TOML file has top-level run keys (``game``,
``timesteps``, ...) and tables: ``[game_options]`` and one per backend, ``[ppo]``,
``[alphazero]``, ``[rllib]``, ``[ntuple]`` (the registry's: each backend declares its
settings, ``parlour.training.registry``).  The configuration itself holds only what every
backend reads (the game, the algo and backend, the length, seed, evaluations, device, and
the opponents the loop checks); PPO's games and threads, the networks and the snapshots
are settings of the backends that read them.  TOML rather than YAML: it is in the standard
library (``tomllib``; its backport ``tomli`` on Python 3.10, ``parlour.toml_read``), and a
run's configuration is flat enough for it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from parlour import toml_read
from parlour.training import registry
from parlour.training.backend_settings import RunView

if TYPE_CHECKING:
    from parlour.training.backend import Backend

DEVICES = ("auto", "cpu", "cuda")

MOVED_SETTINGS = ("n_envs", "vec_env", "opponent_workers", "snapshot_every", "max_snapshots", "network", "cnn_channels",
                  "cnn_blocks", "cnn_shared", "cnn_precision", "torch_threads")
"""Settings that were top-level before the backends declared them in their tables (PPO's
games, threads and network, the snapshots PPO and RLlib take, the network AlphaZero and
RLlib train too).  Given at the top level (an old run's config.toml, ``TrainConfig(n_envs=8)``,
``--set n_envs=8``, a flag such as ``--n-envs``), one goes into every backend table that
declares it, unless that table sets it itself."""


@dataclass(init=False)
class TrainConfig:
    """Everything a run needs (see the module docstring for files and precedence): what
    every backend reads here, and each backend's own settings in its table (``tables``,
    read as attributes: ``config.ppo["n_envs"]``, ``config.alphazero``);
    ``TrainConfig(alphazero={...})`` gives one, and a setting of :data:`MOVED_SETTINGS`
    given at the top level goes into the tables that declare it."""

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
    """Policy specs for the other seats, or ``"self"`` for snapshots of the learner (read by
    the backends that learn against opponents, PPO and RLlib, and checked by the loop for
    every run; ``parlour train`` refuses ``--opponents`` for a backend that learns by
    self-play alone: ``Backend.learns_against_opponents``)."""
    opponent_weights: list[float] | None = None
    seat: int | str = "random"
    timesteps: int = 20_000
    seed: int = 0
    eval_every: int = 10_000
    """Steps between evaluations; each one is also a checkpoint."""
    eval_games: int = 100
    eval_opponents: list[str] | None = None
    """Specs the agent is rated against (default: random and the game's quick strong
    reference player, ``win_rates.quick_opponents``)."""
    device: str = "auto"
    """Where torch runs the learner's network (the backends that declare ``uses_device``):
    ``cpu``, ``cuda``, or ``auto`` (``cuda`` when torch sees a GPU).  Results are
    reproducible per device."""
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Every backend's table (``{"ppo": {...}, "alphazero": {...}, ...}``: the registry's
    ``tables()``), each complete and resolved for the run: unset settings take the
    backend's defaults, and those that depend on the run (``ppo.vec_env = "auto"``) are
    made concrete (``BackendSettings.resolve``)."""

    def __init__(self, tables: dict[str, dict[str, Any]] | None = None, **settings: Any) -> None:
        names = registry.tables()
        tables = {name: dict(values) for name, values in (tables or {}).items()}
        tables.update({name: dict(settings.pop(name) or {}) for name in list(settings) if name in names})
        moved = {name: settings.pop(name) for name in MOVED_SETTINGS if name in settings}
        for name, Settings in names.items():
            declared = Settings.defaults()
            for key, value in moved.items():
                if key in declared and key not in tables.get(name, {}):
                    tables.setdefault(name, {})[key] = value
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
        if name in MOVED_SETTINGS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}: it is a backend's setting now, "
                                 f"in its table (config.value({name!r}) for the run's backend's)")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __post_init__(self) -> None:
        self.backend = registry.canonical_place(self.backend) if isinstance(self.backend, str) else self.backend
        self.tables = {**{name: self.tables.get(name, {}) for name in registry.tables()}, **self.tables}
        try:
            run_backend: type[Backend] | None = registry.backend_class(self.algo, self.backend)
        except ValueError:  # a bad pair: validate() says so
            run_backend = None
        batched = ", ".join(f"{cls.algo}/{'/'.join(cls.runs_on)}" for cls in registry.backends() if cls.batched_engine)
        opponents, weights = self.opponents, self.opponent_weights  # as given: validate() checks them
        run = RunView(self.game, self.game_options, self.algo, self.backend,
                      batched_engine=run_backend is not None and run_backend.batched_engine, batched_backends=batched,
                      opponents=tuple(opponents) if isinstance(opponents, (list, tuple)) else (str(opponents),),
                      opponent_weights=tuple(weights) if isinstance(weights, (list, tuple)) else None)
        for name, Settings in registry.tables().items():
            try:
                self.tables[name] = Settings.resolve(self.tables[name], run)
            except ValueError as error:
                raise ValueError(f"{name}.{error}") from None
        self.validate()

    @property
    def table(self) -> dict[str, Any]:
        """The run's backend's table (``config.ppo`` for ``algo = "ppo"`` on ``local``)."""
        return self.tables[registry.backend_class(self.algo, self.backend).table_name()]

    def value(self, key: str) -> Any:
        """A setting by its name as a command line gives it: ``eval_every``, a table's
        ``ppo.n_steps``, or a setting of :data:`MOVED_SETTINGS` (``n_envs``: the run's
        backend's, ``None`` if its backend has no such setting)."""
        head, _, sub = key.partition(".")
        if head in MOVED_SETTINGS and not sub:
            return self.table.get(head)
        value = self.tables[head] if head in self.tables else getattr(self, head)
        return value.get(sub) if sub else value

    def validate(self) -> None:
        """``ValueError`` naming the first bad value and what is allowed."""
        for name in ("timesteps", "eval_every", "eval_games"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
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

    def to_dict(self) -> dict[str, Any]:
        """The settings as one dict, the tables among them (``{"game": ..., "ppo": {...}}``)."""
        settings = dataclasses.asdict(self)
        return {**{key: value for key, value in settings.items() if key != "tables"}, **settings["tables"]}

    def to_toml(self) -> str:
        """The configuration as TOML (``load_config`` reads it back; TOML has no ``None``:
        a setting that is ``None`` is left out, and read back as its default)."""
        lines = []
        tables = {"game_options": self.game_options, **self.tables}
        for key, value in self.to_dict().items():
            if key not in tables and value is not None:
                lines.append(f"{key} = {_toml_value(value)}")
        for table, values in tables.items():
            lines.append(f"\n[{table}]")
            lines.extend(f"{key} = {_toml_value(value)}" for key, value in values.items() if value is not None)
        return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value)


def setting_names() -> set[str]:
    """The top-level settings of a configuration: its fields, the backends' tables and the
    settings that were top-level before the backends declared them (:data:`MOVED_SETTINGS`)."""
    return {f.name for f in dataclasses.fields(TrainConfig) if f.name != "tables"} | set(registry.tables()) | set(MOVED_SETTINGS)


def load_config(path: str | Path) -> dict[str, Any]:
    """The settings in a TOML file (unknown keys are an error naming the allowed ones)."""
    path = Path(path)
    try:
        data = toml_read.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"config file {str(path)!r} does not exist") from None
    except toml_read.TOMLDecodeError as error:
        raise ValueError(f"config file {str(path)!r} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - setting_names())
    if unknown:
        raise ValueError(f"unknown setting(s) {unknown} in {str(path)!r}; settings are {sorted(setting_names())}")
    return data


def saved_config(path: str | Path) -> TrainConfig:
    """The configuration of an existing run (its config.toml): see :func:`saved_settings`."""
    return saved_settings(load_config(path))


def saved_settings(data: dict[str, Any]) -> TrainConfig:
    """The configuration a run was saved with (its config.toml's settings, or a zoo card's
    ``config``): settings added since it was written take what the run ran with (each
    backend's ``Settings.legacy``), not today's defaults, and the settings it kept at the
    top level (:data:`MOVED_SETTINGS`, ``n_envs = 256``) go into the backends' tables."""
    data = {key: dict(value) if isinstance(value, dict) else value for key, value in data.items()}
    for name, settings in registry.tables().items():
        for key, value in settings.legacy.items():
            if key not in data.get(name, {}) and key not in data:
                data.setdefault(name, {})[key] = value
    return make_config(data)


def parse_override(item: str) -> tuple[str, Any]:
    """``"ppo.ent_coef=0.02"`` or ``"eval_games=50"`` -> (dotted key, TOML-parsed value)."""
    key, eq, text = item.partition("=")
    key = key.strip()
    if not eq or not key:
        raise ValueError(f"--set {item!r} is not key=value (e.g. --set ppo.learning_rate=1e-4)")
    try:
        value = toml_read.loads(f"v = {text.strip()}")["v"]
    except toml_read.TOMLDecodeError:
        value = text.strip()
    return key, value


def merge(base: dict[str, Any], key: str, value: Any) -> None:
    """Set a dotted key (``ppo.n_steps``) in a settings dict; ``ValueError`` if unknown.  A
    setting of :data:`MOVED_SETTINGS` by its top-level name (``n_envs``) is set in every
    backend table that declares it, over what the dict's tables held (a flag over a
    ``--config`` file's ``[ppo]``, a resume's setting over the saved one)."""
    head, _, rest = key.partition(".")
    names, tables = setting_names(), ["game_options", *registry.tables()]
    if head not in names:
        subkeys = ", ".join(f"{table}.<name>" for table in tables)
        raise ValueError(f"unknown setting {key!r}; settings are {sorted(names)} (and {subkeys})")
    if rest:
        if head not in tables:
            raise ValueError(f"setting {head!r} has no sub-keys (got {key!r})")
        base.setdefault(head, {})[rest] = value
    elif head in MOVED_SETTINGS:
        for table, settings in registry.tables().items():
            if head in settings.defaults():
                base.setdefault(table, {})[head] = value
    else:
        base[head] = value


def make_config(settings: dict[str, Any]) -> TrainConfig:
    """A validated ``TrainConfig`` from merged settings."""
    try:
        return TrainConfig(**settings)
    except TypeError as error:
        raise ValueError(f"bad training settings: {error}") from None
