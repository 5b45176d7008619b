"""parlour: multi-agent RL environments for card and board games, with search baselines.

Importing ``parlour`` registers every game with PettingZoo's registry, so
``pettingzoo.make("aec", "parlour/goofspiel-v0")`` works after ``import parlour``, and
registers the single-agent views with Gymnasium:
``gymnasium.make("parlour/Goofspiel-v0", opponent="random")``.  It imports the rules
modules and the two registries only (see ``parlour.registration``).

Layers, each importing only those below it: ``games`` (pure rules, numpy only) <
``envs`` (PettingZoo faces) < ``baselines`` (policies) < ``training`` (SB3 views,
arena, ``parlour train``) < ``cli``.
"""

from parlour._version import __version__
from parlour.errors import IllegalActionError
from parlour.registration import register_all as _register_all

_register_all()

__all__ = ["IllegalActionError", "__version__"]
