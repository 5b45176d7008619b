"""Everything one game knows about playing it, a module per game.

``players/<game>.py`` holds that game's original AI (from the document the game came
from), its own players and leaf heuristics, and its reference opponents; Goofspiel's
exact solver has a module of its own, and so have Tribolo's n-tuple features
(``tribolo_ntuple``, read by ``parlour.baselines.learned.ntuple``), and the batched
forms of players that a learner meets on the batched engines
(``double_card_batched``, ``tides_of_time_batched``, registered with ``parlour.baselines.batched``).  Each module
registers what it defines with the generic registries (policies, heuristics, solvers,
references) when imported, so the generic code looks a game up by name and never
branches on it.
"""

from parlour.baselines.players import (  # noqa: F401  (registration)
    double_card,
    double_card_batched,
    goofspiel,
    goofspiel_solver,
    sticks,
    tides_of_time,
    tides_of_time_batched,
    tribolo,
)
