"""The training backends, in one registry: each backend class declares what it trains
(``algo``), where it runs (``runs_on``) and its settings (``Settings``, the fields of its
table in a run's configuration: ``parlour.training.backend.Backend``), and everything
else is derived from the classes registered here: the configuration's tables and their
defaults, the valid ``(algo, backend)`` pairs, the ``--set`` names, the settings a Ray
``--address`` sets, and the choices of ``parlour train --algo`` and ``--backend``.

A new backend is one module with its ``Backend`` subclass and one registration:
``register(MyBackend)`` (the built-in ones are named in :data:`BUILT_IN` and imported
when the registry is first read; their modules import SB3, torch or Ray only when a run
starts, so reading the registry stays light).
"""

from __future__ import annotations

import importlib

from parlour.training.backend import LOCAL, Backend
from parlour.training.backend_settings import BackendSettings

BUILT_IN = (
    "parlour.training.backends.ppo.backend:PPOBackend",
    "parlour.training.backends.alphazero.backend:AlphaZeroBackend",
    "parlour.training.backends.rllib.backend:RLlibBackend",
    "parlour.training.backends.ntuple:NTupleBackend",
)
"""The backends parlour ships, ``"module:Class"``, in the order of the configuration's
tables (``[ppo]``, ``[alphazero]``, ``[rllib]``, ``[ntuple]``)."""

ALIASES = {"sb3": LOCAL}
"""Old names of a run's ``backend``, read from old files (config.toml, zoo cards): the
local backend was called ``sb3`` before it also ran AlphaZero and the n-tuple learner."""

_REGISTERED: list[type[Backend]] = []
_LOADED = False


def register(backend: type[Backend]) -> type[Backend]:
    """Add ``backend`` (a ``Backend`` subclass with its declaration) to the registry; the
    class, so that it may decorate.  ``ValueError`` if one of its ``(algo, backend)``
    pairs is taken, or its table is another backend's with other settings."""
    _load_built_in()
    _add(backend)
    return backend


def unregister(backend: type[Backend]) -> None:
    """Take ``backend`` out of the registry again (a test's backend, after the test)."""
    if backend in _REGISTERED:
        _REGISTERED.remove(backend)


def _add(backend: type[Backend]) -> None:
    if not getattr(backend, "algo", "") or not backend.runs_on:
        raise ValueError(f"backend {backend.__name__} must declare its algo and where it runs (runs_on)")
    for other in _REGISTERED:
        taken = set(other.runs_on) & set(backend.runs_on) if other.algo == backend.algo else set()
        if other is not backend and taken:
            raise ValueError(f"{backend.__name__}: algo {backend.algo!r} on {sorted(taken)} is already {other.__name__}'s")
        if other.table_name() == backend.table_name() and other.Settings is not backend.Settings:
            raise ValueError(f"{backend.__name__}: table [{backend.table_name()}] is already {other.__name__}'s")
    if backend not in _REGISTERED:
        _REGISTERED.append(backend)


def _load_built_in() -> None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        for target in BUILT_IN:
            module, _, name = target.partition(":")
            _add(getattr(importlib.import_module(module), name))


def backends() -> list[type[Backend]]:
    """Every registered backend class, the built-in ones first."""
    _load_built_in()
    return list(_REGISTERED)


def algos() -> tuple[str, ...]:
    """The ``algo`` values some backend trains."""
    return tuple(dict.fromkeys(backend.algo for backend in backends()))


def places() -> tuple[str, ...]:
    """The ``backend`` values (where a run runs): ``local`` first."""
    return tuple(dict.fromkeys([LOCAL, *(place for backend in backends() for place in backend.runs_on)]))


def pairs() -> list[tuple[str, str]]:
    """Every valid ``(algo, backend)``."""
    return [(backend.algo, place) for backend in backends() for place in backend.runs_on]


def tables() -> dict[str, type[BackendSettings]]:
    """The configuration's backend tables (``{"ppo": PPOSettings, ...}``), in order."""
    return {backend.table_name(): backend.Settings for backend in backends()}


def canonical_place(backend: str) -> str:
    """A run's ``backend`` under its current name (``sb3`` -> ``local``: :data:`ALIASES`)."""
    return ALIASES.get(backend, backend)


def backend_class(algo: str, backend: str) -> type[Backend]:
    """The backend class of a run's ``algo`` and ``backend``; ``ValueError`` naming the
    allowed values otherwise."""
    check_pair(algo, backend)
    backend = canonical_place(backend)
    return next(cls for cls in backends() if cls.algo == algo and backend in cls.runs_on)


def check_pair(algo: str, backend: str) -> None:
    """``ValueError`` unless some backend trains ``algo`` on ``backend``."""
    backend = canonical_place(backend)
    if algo not in algos():
        raise ValueError(f"algo must be one of {list(algos())}, got {algo!r}")
    if backend not in places():
        raise ValueError(f"backend must be one of {list(places())}, got {backend!r}")
    if (algo, backend) not in pairs():
        where = [place for name, place in pairs() if name == algo]
        runs = [name for name, place in pairs() if place == backend]
        raise ValueError(f"algo {algo!r} runs on backend {' or '.join(map(repr, where))}, got backend {backend!r} "
                         f"(which trains {' or '.join(map(repr, runs))})")


def address_setting(algo: str, backend: str) -> str | None:
    """The setting a Ray ``--address`` sets for a run of ``algo`` on ``backend``
    (``rllib.address``, ``alphazero.address``), or ``None`` where it runs on this machine."""
    cls = backend_class(algo, backend)
    if cls.address is None or canonical_place(backend) == LOCAL:
        return None
    return f"{cls.table_name()}.{cls.address}"


def address_settings() -> tuple[str, ...]:
    """Every setting that names a Ray cluster (where a resumed run may move)."""
    return tuple(dict.fromkeys(f"{cls.table_name()}.{cls.address}" for cls in backends() if cls.address))


def settings_names() -> list[str]:
    """Every ``--set`` name of a backend table (``alphazero.workers``, ...)."""
    return [f"{table}.{key}" for table, settings in tables().items() for key in settings.defaults()]


def describe() -> str:
    """``parlour train --help``'s text of the algos: each with its summary, backends and table."""
    lines = []
    for algo in algos():
        classes = [cls for cls in backends() if cls.algo == algo]
        where = "/".join(place for cls in classes for place in cls.runs_on)
        tables_ = ", ".join(dict.fromkeys(f"[{cls.table_name()}]" for cls in classes))
        lines.append(f"{algo} ({classes[0].summary}; backend {where}; settings in {tables_})")
    return "; ".join(lines)
