"""Everything one game knows about playing it, a module per game.

``players/<game>.py`` holds that game's original AI (from the document the game came
from), its own players and leaf heuristics, and its reference opponents; Goofspiel's
exact solver has a module of its own, and so have Tribolo's n-tuple features
(``tribolo_ntuple``, read by ``parlour.baselines.learned.ntuple``), and the batched
forms of players that a learner meets on the batched engines (``<game>_batched``:
``goofspiel_batched``, ``tides_of_time_batched``, ``tribolo_batched``,
``double_card_batched``, registered with ``parlour.baselines.batched``).  Each module
registers what it defines with the generic registries (policies, heuristics, solvers,
references) when imported, so the generic code looks a game up by name and never
branches on it; this package imports every module named after a registered game
(``<game>`` and ``<game>_*``).
"""

import pkgutil
from importlib import import_module

from parlour.games import GAMES

GAME_MODULES = sorted(info.name for info in pkgutil.iter_modules(__path__)
                      if any(info.name == game or info.name.startswith(f"{game}_") for game in GAMES))
"""The modules of the registered games (``parlour.games.GAMES``): ``<game>`` and its
companions ``<game>_*``, all imported with this package (each registers what it defines)."""

for _module in GAME_MODULES:
    import_module(f"{__name__}.{_module}")
