"""What ``import parlour`` registers: every game with PettingZoo and with Gymnasium.

Registration goes by entry-point strings (``"parlour.envs.sticks_v0:env"``), so
importing ``parlour`` loads the rules modules and the two registries only: the env
adapter, the baselines and the training layer are imported when an env is made.
PettingZoo's registry has no plugin hook, hence the call at import.
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from parlour.games import GAMES

VERSION = 0


def env_id(game_name: str) -> str:
    """The PettingZoo id of a game's env, e.g. ``parlour/goofspiel-v0``."""
    return f"parlour/{game_name}-v{VERSION}"


def gym_id(game_name: str) -> str:
    """The Gymnasium id of a game's single-agent view, e.g. ``parlour/TidesOfTime-v0``."""
    return "parlour/" + "".join(part.capitalize() for part in game_name.split("_")) + f"-v{VERSION}"


GYM_IDS = {name: gym_id(name) for name in GAMES}
"""Gymnasium ids: ``parlour/Goofspiel-v0``, ``parlour/Sticks-v0``, ``parlour/TidesOfTime-v0``,
``parlour/Tribolo-v0``, ``parlour/DoubleCard-v0``."""


def register_all() -> None:
    """Register ``parlour/<game>-v0`` with PettingZoo (AEC; Parallel too for simultaneous
    games) and the single-agent views with Gymnasium; idempotent."""
    for name, game_cls in GAMES.items():
        module = f"parlour.envs.{name}_v{VERSION}"
        if env_id(name) not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id(name), entry_point=f"{module}:env")
        if game_cls.simultaneous and env_id(name) not in pettingzoo.parallel_registry:
            pettingzoo.register("parallel", env_id(name), entry_point=f"{module}:parallel_env")
        if gym_id(name) not in gymnasium.registry:
            gymnasium.register(gym_id(name), entry_point="parlour.training.single_agent:SingleAgentEnv", kwargs={"game": name})
    # OpenSpiel's games, wrapped by parlour.interop.openspiel (needs the openspiel extra
    # when an env is made): one id, the OpenSpiel game string as the option ``game``
    openspiel = env_id("openspiel")
    if openspiel not in pettingzoo.aec_registry:
        pettingzoo.register("aec", openspiel, entry_point="parlour.envs.openspiel_v0:env")
    if openspiel not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", openspiel, entry_point="parlour.envs.openspiel_v0:parallel_env")
