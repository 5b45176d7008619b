"""The generic players: they play any game the protocol describes and never name one.

Each module registers its policies when imported; this package imports them all.
"""

from parlour.baselines.engines import (  # noqa: F401  (registration)
    alphabeta,
    equilibrium,
    ismcts,
    mcts,
    minimax,
    pimc,
    random_policy,
    sm_mcts,
)
