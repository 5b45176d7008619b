"""Tides of Time as PettingZoo envs (simultaneous drafting; AEC and Parallel).

| | |
|---|---|
| Import | ``import parlour.envs.tides_of_time_v0`` or ``pettingzoo.make("parallel", "parlour/tides_of_time-v0")`` |
| Actions | ``Discrete(18)``: action ``a`` is card ``a + 1`` (a pick, a relic or a discard), masked to the legal cards |
| Steps | every pick, and after rounds 1 and 2 a relic step then a discard step: both agents act at each |
| Agents | ``player_0``, ``player_1`` |
| Observation | ``{"observation": Box(0, 1, (202,)), "action_mask": int8}``, layout in docs/tides_of_time.md |
| Rewards | the game's returns at the end (``returns``: win_loss or score_difference); 0 before |
| Reset options | ``{"deck": [18 card numbers in dealing order]}`` or ``{"position": text}`` |
| Render | ``ansi``/``human``: hands, kingdoms (relics, card names), round scores with per-card points; ``rgb_array``: the same as cards |

Options: ``rounds`` (3 or 1), ``returns``, ``zero_ties_win``, ``maze_counts_sets``; see
docs/tides_of_time.md.  Version history: v0, first release.
"""

from parlour.envs.adapter import aec_constructors, parallel_constructors
from parlour.games.tides_of_time import TidesOfTimeGame

env, raw_env = aec_constructors(TidesOfTimeGame)
parallel_env, raw_parallel_env = parallel_constructors(TidesOfTimeGame)
