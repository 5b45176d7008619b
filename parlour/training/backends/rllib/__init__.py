"""parlour on Ray RLlib (the ``rllib`` extra): every game as an RLlib multi-agent env,
and on the batched engines as a vector env of B games for RLlib's single-agent env
runners (``batched_env``), a masked PPO module with the board network, ready PPO
configurations, and the training backend (``backend.RLlibBackend``, ``parlour train
--backend rllib``).

The names below import Ray when first used (``pip install "parlour[rllib]"`` provides
it), so that the training registry reads the backend's declaration without Ray.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "ppo_config": "parlour.training.backends.rllib.algo",
    "batched_ppo_config": "parlour.training.backends.rllib.algo",
    "BatchedRLlibEnv": "parlour.training.backends.rllib.batched_env",
    "save_checkpoint": "parlour.training.backends.rllib.checkpoint",
    "ParlourMultiAgentEnv": "parlour.training.backends.rllib.env",
    "MaskedPPOModule": "parlour.baselines.learned.rllib_module",
}

__all__ = ["BatchedRLlibEnv", "MaskedPPOModule", "ParlourMultiAgentEnv", "batched_ppo_config", "ppo_config", "save_checkpoint"]


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        import ray  # noqa: F401
    except ImportError as error:  # pragma: no cover - the message is the point
        raise ImportError('parlour.training.backends.rllib needs Ray RLlib: pip install "parlour[rllib]"') from error
    return getattr(importlib.import_module(_NAMES[name]), name)
