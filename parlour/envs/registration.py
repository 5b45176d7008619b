"""Register every parlour env with PettingZoo's registry (done on ``import parlour``)."""

from __future__ import annotations

from pettingzoo import aec_registry, parallel_registry, register

from parlour.games import GAMES

VERSION = 0


def env_id(game_name: str) -> str:
    """The registry id of a game's env, e.g. ``parlour/goofspiel-v0``."""
    return f"parlour/{game_name}-v{VERSION}"


def register_envs() -> None:
    """Add ``parlour/<game>-v0`` (AEC, and Parallel for simultaneous games); idempotent."""
    for name, game_cls in GAMES.items():
        module = f"parlour.envs.{name}_v{VERSION}"
        if env_id(name) not in aec_registry:
            register("aec", env_id(name), entry_point=f"{module}:env")
        if game_cls.simultaneous and env_id(name) not in parallel_registry:
            register("parallel", env_id(name), entry_point=f"{module}:parallel_env")
