"""Any OpenSpiel game as a PettingZoo env (needs open_spiel: the ``openspiel`` extra).

| | |
|---|---|
| Import | ``from parlour.envs import openspiel_v0`` or ``pettingzoo.make("aec", "parlour/openspiel-v0", game=...)`` |
| Game | option ``game``: an OpenSpiel game string, e.g. ``"connect_four"``, ``"leduc_poker(players=3)"`` |
| Actions | ``Discrete(num_distinct_actions)``, masked to OpenSpiel's legal actions |
| Agents | ``player_0``, ``player_1``, ...; chance nodes are resolved inside (from the reset seed) |
| Observation | OpenSpiel's observation tensor (else its information-state tensor), unbounded; and ``action_mask`` |
| Rewards | OpenSpiel's returns at the end; 0 before |
| Parallel | ``parallel_env`` for games with simultaneous nodes (OpenSpiel's goofspiel, oshi_zumo, ...) |
| Render modes | ``"ansi"`` / ``"human"`` (the state's text) |

The game is wrapped by ``parlour.interop.openspiel`` (docs/integrations.md).  Version
history: v0, first release.
"""

from parlour.envs.adapter import aec_constructors, parallel_constructors
from parlour.interop.openspiel.from_openspiel import OpenSpielGame, OpenSpielSimultaneousGame

env, raw_env = aec_constructors(OpenSpielGame)
parallel_env, raw_parallel_env = parallel_constructors(OpenSpielSimultaneousGame)
