"""Batched numpy engines: B games of one configuration stepped at once (issue 15).

``make_engine(name, num_envs, seed, **options)`` builds the engine of a game;
``parlour.vector.gym_env`` and ``parlour.vector.sb3_env`` turn one into a
single-agent vector env for learners, and ``torchrl_env`` one TorchRL env of B games
(``parlour.vector.torchrl_native``; torch and torchrl are imported only when it is
called, so ``import parlour.vector`` stays numpy-only).  Observations, masks and returns are exactly
the single-game engines' (tests/vector).  The engines themselves and their contract
(``BatchedEngine``, ``parlour.games.engine``) live in the games layer, each in its
game's package (``parlour.games.<game>.engine``); ``ENGINES`` is read from the games'
registrations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.games import ENTRIES
from parlour.games.engine import BatchedEngine, BatchStep, uniform_legal

ENGINES: dict[str, type[BatchedEngine]] = {name: entry.engine for name, entry in ENTRIES.items() if entry.engine is not None}
"""Each game's batched engine class, by the game's name."""


def make_engine(name: str, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True,
                **options: Any) -> BatchedEngine:
    """The batched engine of the game ``name``; a clear error for a game without one."""
    try:
        cls = ENGINES[name]
    except KeyError:
        raise ValueError(f"no batched engine for game {name!r}; batched games are {sorted(ENGINES)}") from None
    return cls(num_envs, seed, autoreset=autoreset, **options)


def torchrl_env(game: str, num_envs: int, *, seed: int | np.random.Generator | None = None, device: Any = "cpu",
                **options: Any) -> Any:
    """``num_envs`` games of ``game`` as one native TorchRL ``EnvBase`` (batch_size
    ``[num_envs]``, PettingZooWrapper's layout): ``parlour.vector.torchrl_native.torchrl_env``,
    imported here only when called (torch and torchrl are extras)."""
    from parlour.vector.torchrl_native import torchrl_env as make

    return make(game, num_envs, seed=seed, device=device, **options)


__all__ = ["ENGINES", "BatchStep", "BatchedEngine", "make_engine", "torchrl_env", "uniform_legal"]
