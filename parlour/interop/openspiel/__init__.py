"""parlour and OpenSpiel, both ways (needs ``open_spiel``: the ``openspiel`` extra).

- :func:`register_parlour_games` registers every parlour game with pyspiel as
  ``parlour_<name>`` (``pyspiel.load_game("parlour_goofspiel", {"num_cards": 4})``), so
  OpenSpiel's algorithms (CFR, ``exploitability.nash_conv``, best response, MCTS,
  ``evaluate_bots``) run on them unchanged; :func:`parlour_state` reads a parlour state
  back from any state of such a game (or of its turn-based conversion).
- :func:`load_openspiel` wraps any pyspiel game as a parlour ``Game``
  (``load_game("openspiel:connect_four")`` does the same), so parlour's baselines, arena,
  PettingZoo envs and training run on OpenSpiel's games.

docs/integrations.md shows both directions.
"""

from parlour.interop.openspiel.as_openspiel import PREFIX, ParlourPolicy, parlour_state, register_parlour_games
from parlour.interop.openspiel.from_openspiel import OpenSpielGame, OpenSpielState, load_openspiel

__all__ = ["PREFIX", "OpenSpielGame", "ParlourPolicy", "OpenSpielState", "load_openspiel", "parlour_state", "register_parlour_games"]
