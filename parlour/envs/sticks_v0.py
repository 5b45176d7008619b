"""Pick-up sticks as a PettingZoo AEC env (turn-based subtraction game).

| | |
|---|---|
| Import | ``from parlour.envs import sticks_v0`` or ``pettingzoo.make("aec", "parlour/sticks-v0")`` |
| Actions | ``Discrete(max_take)``: action ``a`` takes ``a + 1`` sticks, masked to the pile |
| Agents | ``player_0`` (moves first), ``player_1`` |
| Observation | ``[sticks left, max_take, one-hot of sticks left]`` and ``action_mask`` |
| Rewards | +1 winner, -1 loser at the end |
| Reset options | ``{"sticks": n}`` or ``{"position": text}`` |
| Render modes | ``"ansi"`` / ``"human"`` (the text form), ``"rgb_array"`` (the pile, the sticks taken, the last move) |

Options: see ``parlour list`` or docs/sticks.md.  Version history: v0, first release.
"""

from parlour.envs.adapter import aec_constructors
from parlour.games.sticks import SticksGame

env, raw_env = aec_constructors(SticksGame)
