"""PettingZoo faces of the games, built by the one generic adapter in ``adapter``.

``from parlour.envs import goofspiel_v0, sticks_v0``; each module has ``env``,
``raw_env`` and, for simultaneous games, ``parallel_env`` and ``raw_parallel_env``.
"""

from parlour.envs import (
    double_card_v0,
    goofspiel_v0,
    sticks_v0,
    tides_of_time_v0,
    tribolo_v0,
)
from parlour.envs.adapter import ParlourAECEnv, ParlourParallelEnv

__all__ = ["ParlourAECEnv", "ParlourParallelEnv", "double_card_v0", "goofspiel_v0", "sticks_v0", "tides_of_time_v0", "tribolo_v0"]
