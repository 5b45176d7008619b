"""A backend's settings: one frozen dataclass per backend, its fields the keys of the
backend's table in a run's configuration (``[alphazero]``, ``--set alphazero.workers=2``),
each with its default and its bounds (:func:`setting`).  The registry derives the
configuration's tables from these classes, so that a setting is declared once, beside
the code that reads it, and checked with a message naming the value and what is allowed.

Settings that several backends read but not all are declared once here, as the bases
their settings share: :class:`NetworkSettings` (the learner's network: PPO, AlphaZero,
RLlib) and :class:`SnapshotSettings` (self-play snapshots: PPO, RLlib).  Each backend's
table holds its own copy, so a run's config.toml names what its backend ran with.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from parlour.baselines.learned.network_choice import NETWORKS


def setting(default: Any, *, low: float | None = None, high: float | None = None, positive: bool = False,
            choices: tuple[Any, ...] | None = None, kind: type | None = None, help: str = "") -> Any:
    """A settings field with its ``default`` and bounds: at least ``low``, at most ``high``,
    above zero (``positive``), or one of ``choices``.  A list default is copied per instance.
    A ``None`` default means *resolved for the run* (:meth:`BackendSettings.resolve`); its
    values are then of ``kind``.  ``help``: what it sets, in a line (a command's flag
    derived from the field shows it: ``parlour train-ntuple --help``)."""
    bounds = {"low": low, "high": high, "positive": positive, "choices": choices, "kind": kind, "help": help}
    if isinstance(default, list):
        return dataclasses.field(default_factory=lambda: list(default), metadata=bounds)
    return dataclasses.field(default=default, metadata=bounds)


def field_default(field: dataclasses.Field[Any]) -> Any:
    """A field's default value (a fresh one for a ``default_factory``)."""
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


@dataclass(frozen=True)
class RunView:
    """What a backend's settings may depend on when they are resolved for a run: its
    ``game`` (with ``game_options``), ``algo`` and ``backend``, and whether the run's backend
    trains on a game's batched engine (``batched_engine``; ``batched_backends`` names those
    that do, ``ppo/local``), and its ``opponents`` with their ``opponent_weights`` (the
    RLlib backend's batched path cannot seat a live ``self``).  Every table is resolved,
    the run's backend's and the others."""

    game: str
    game_options: dict[str, Any]
    algo: str
    backend: str
    batched_engine: bool
    batched_backends: str
    opponents: tuple[str, ...] = ()
    opponent_weights: tuple[float, ...] | None = None


@dataclass(frozen=True)
class BackendSettings:
    """The base of a backend's settings: checks every field against its bounds when made
    (a ``ValueError`` such as ``"workers must be at least 1, got 0"``); a subclass adds
    checks between fields in ``__post_init__`` (calling this one first), and settings
    that depend on the run (``auto``, ``None``) in :meth:`resolve`."""

    legacy: ClassVar[dict[str, Any]] = {}
    """What a run's config.toml written before a setting existed ran with, where that
    differs from the setting's default (read by ``config.saved_config``)."""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            check_bounds(field.name, getattr(self, field.name), field.metadata)

    @classmethod
    def resolve(cls, values: dict[str, Any], run: RunView) -> dict[str, Any]:
        """``values`` (the table as given, before defaults) with the settings that depend on
        the run made concrete (``vec_env = "auto"`` -> ``batched``); ``ValueError`` if the
        run cannot have them.  Called again on a resolved table, it changes nothing."""
        return values

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every setting with its default, in declaration order."""
        return {field.name: field_default(field) for field in dataclasses.fields(cls)}

    @classmethod
    def complete(cls, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` (a table of a configuration) with the defaults of the settings not
        given, each coerced to its default's type and checked; ``ValueError`` naming an
        unknown setting or a bad value (without the table's name: the caller adds it)."""
        defaults = cls.defaults()
        unknown = sorted(set(values) - set(defaults))
        if unknown:
            raise ValueError(f"unknown setting(s) {unknown}; settings are {sorted(defaults)}")
        kinds = {field.name: field.metadata.get("kind") for field in dataclasses.fields(cls)}
        table = {key: _given(key, values.get(key, default), default, kinds[key]) for key, default in defaults.items()}
        cls(**table)
        return table


@dataclass(frozen=True)
class NoSettings(BackendSettings):
    """The settings of a backend that has none."""


@dataclass(frozen=True)
class NetworkSettings(BackendSettings):
    """The learner's network, for the backends that train one (PPO, AlphaZero, RLlib):
    ``network`` (``mlp``, ``cnn``: the residual CNN over board planes, or ``auto``: ``cnn``
    for games whose observation is board planes, Tribolo and Double Card), and the CNN's
    ``cnn_channels`` filters per convolution and ``cnn_blocks`` residual blocks."""

    network: str = setting("auto", choices=NETWORKS)
    cnn_channels: int = setting(32, low=1)
    cnn_blocks: int = setting(2, low=0)


@dataclass(frozen=True)
class SnapshotSettings(BackendSettings):
    """Self-play snapshots, for the backends that play frozen copies of the learner (PPO's
    ``self``, RLlib's ``league``): one every ``snapshot_every`` steps, the newest
    ``max_snapshots`` of them in the pool."""

    snapshot_every: int = setting(10_000, low=1)
    max_snapshots: int = setting(20, low=1)


def check_bounds(name: str, value: Any, bounds: Any) -> None:
    """``ValueError`` if ``value`` is outside the ``bounds`` of :func:`setting` (``None``,
    a setting not yet resolved, is inside)."""
    if value is None:
        return
    choices, low, high = bounds.get("choices"), bounds.get("low"), bounds.get("high")
    if choices is not None and value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    if bounds.get("positive") and not value > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    if low is not None and high is not None and not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value!r}")
    if low is not None and value < low:
        raise ValueError(f"{name} must be at least {low}, got {value!r}")


def _given(name: str, value: Any, default: Any, kind: type | None) -> Any:
    """A table's value coerced to its setting's type; ``None`` where the default is
    ``None`` (not resolved yet: :func:`setting`)."""
    if value is None and default is None:
        return None
    return coerce(name, value, kind or type(default))


def coerce(name: str, value: Any, kind: type) -> Any:
    """``value`` as a setting of ``kind`` (an int is a float where a float is wanted);
    ``ValueError`` naming ``name`` if it is not one."""
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
