"""parlour: multi-agent RL environments for card and board games, with search baselines.

Importing ``parlour`` registers every game with PettingZoo's registry, so
``pettingzoo.make("aec", "parlour/goofspiel-v0")`` works after ``import parlour``, and
registers the single-agent views with Gymnasium:
``gymnasium.make("parlour/Goofspiel-v0", opponent="random")``.
"""

from parlour.errors import IllegalActionError

__version__ = "0.1.0"

from parlour.envs.registration import register_envs as _register_envs  # noqa: E402

_register_envs()

try:  # the Gymnasium single-agent views (gymnasium is a core dependency)
    from parlour.training.single_agent import register_gymnasium as _register_gymnasium
except ImportError:  # pragma: no cover
    pass
else:
    _register_gymnasium()

__all__ = ["IllegalActionError", "__version__"]
