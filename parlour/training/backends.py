"""Which backend trains a run: ``BACKENDS`` maps a configuration's ``(algo, backend)``
to the class that does it, named by module so that choosing one imports only its own
libraries (SB3, torch, Ray).  A new backend is a ``Backend`` subclass in its own module
and a line here."""

from __future__ import annotations

import importlib

from parlour.training.backend import Backend

BACKENDS: dict[tuple[str, str], str] = {
    ("ppo", "sb3"): "parlour.training.ppo:PPOBackend",
    ("ppo", "rllib"): "parlour.training.rllib.backend:RLlibBackend",
    ("alphazero", "sb3"): "parlour.training.alphazero:AlphaZeroBackend",  # local self-play processes
    ("alphazero", "ray"): "parlour.training.alphazero:AlphaZeroBackend",  # self-play on Ray actors
    ("ntuple", "sb3"): "parlour.training.ntuple:NTupleBackend",  # local processes, numpy only
}
"""``(algo, backend)`` -> ``"module:Class"``; ``TrainConfig.validate`` refuses any other pair."""


def backend_class(algo: str, backend: str) -> type[Backend]:
    """The backend class of a run's ``algo`` and ``backend``."""
    try:
        module, _, name = BACKENDS[(algo, backend)].partition(":")
    except KeyError:
        pairs = ", ".join(f"{a}/{b}" for a, b in BACKENDS)
        raise ValueError(f"no training backend for algo {algo!r} with backend {backend!r}; there are {pairs}") from None
    return getattr(importlib.import_module(module), name)
