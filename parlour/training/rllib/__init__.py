"""parlour on Ray RLlib (the ``rllib`` extra): every game as an RLlib multi-agent env,
a masked PPO module with the board network, and ready PPO configurations.

Importing this package imports Ray; ``pip install "parlour[rllib]"`` provides it.
"""

from __future__ import annotations

try:
    import ray  # noqa: F401
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError('parlour.training.rllib needs Ray RLlib: pip install "parlour[rllib]"') from error

from parlour.training.rllib.algo import ppo_config
from parlour.training.rllib.checkpoint import save_checkpoint
from parlour.training.rllib.env import ParlourMultiAgentEnv
from parlour.baselines.learned.rllib_module import MaskedPPOModule

__all__ = ["MaskedPPOModule", "ParlourMultiAgentEnv", "ppo_config", "save_checkpoint"]
