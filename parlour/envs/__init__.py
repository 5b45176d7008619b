"""PettingZoo faces of the games, built by the one generic adapter in ``adapter``.

``from parlour.envs import goofspiel_v0, sticks_v0``; each module has ``env``,
``raw_env`` and, for simultaneous games, ``parallel_env`` and ``raw_parallel_env``.
Every registered game (``parlour.games.GAMES``) has its module ``<game>_v0`` here,
imported with this package.
"""

from importlib import import_module

from parlour.envs.adapter import ParlourAECEnv, ParlourParallelEnv
from parlour.games import GAMES

ENV_MODULES = {name: import_module(f"{__name__}.{name}_v0") for name in GAMES}
"""Each game's env module by the game's name (the module is also this package's
attribute ``<game>_v0``)."""

__all__ = ["ENV_MODULES", "ParlourAECEnv", "ParlourParallelEnv", *(f"{name}_v0" for name in GAMES)]
