"""Goofspiel as PettingZoo envs (simultaneous bidding; AEC and Parallel).

| | |
|---|---|
| Import | ``from parlour.envs import goofspiel_v0`` or ``pettingzoo.make("parallel", "parlour/goofspiel-v0")`` |
| Actions | ``Discrete(num_actions)``: action ``a`` bids card ``a + 1``, masked to the hand |
| Agents | ``player_0`` .. ``player_{num_players-1}`` |
| Observation | ``{"observation": Box(0, 1), "action_mask": int8}``, layout in docs/goofspiel.md |
| Rewards | the game's returns at the end (``returns`` option); 0 before |
| Reset options | ``{"prizes": [...], "hands": [[...], ...]}`` or ``{"position": text}`` |
| Render modes | ``"ansi"`` / ``"human"`` (the text form), ``"rgb_array"`` (the prize, the hands as cards, the last bids) |

Options: see ``parlour list`` or docs/goofspiel.md.  Version history: v0, first release.
"""

from parlour.envs.adapter import aec_constructors, parallel_constructors
from parlour.games.goofspiel import GoofspielGame

env, raw_env = aec_constructors(GoofspielGame)
parallel_env, raw_parallel_env = parallel_constructors(GoofspielGame)
