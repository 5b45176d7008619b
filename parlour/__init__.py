"""parlour: multi-agent RL environments for card and board games, with search baselines.

Importing ``parlour`` registers every game with PettingZoo's registry, so
``pettingzoo.make("aec", "parlour/goofspiel-v0")`` works after ``import parlour``.
"""

from parlour.errors import IllegalActionError

__version__ = "0.1.0"

from parlour.envs.registration import register_envs as _register_envs  # noqa: E402

_register_envs()

__all__ = ["IllegalActionError", "__version__"]
