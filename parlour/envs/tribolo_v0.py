"""Tribolo as a PettingZoo AEC env (3 players, Othello-like jumps, skipped turns).

| | |
|---|---|
| Import | ``from parlour.envs import tribolo_v0`` or ``pettingzoo.make("aec", "parlour/tribolo-v0")`` |
| Actions | ``Discrete(width * height)``: action ``y * width + x`` plays cell (x, y), masked to the legal cells |
| Agents | ``player_0`` (blue), ``player_1`` (red), ``player_2`` (green); ``agent_selection`` skips blocked seats |
| Observation | ``Box(0, 1, (5, height, width))`` planes: own, next seat's, the one after, walls, empty; and ``action_mask`` |
| Rewards | the game's returns at the end (``win_loss`` or ``cell_share``); 0 before |
| Reset options | ``{"position": text}`` (the ansi text form) |
| Render modes | ``"ansi"`` / ``"human"`` (the text form; it parses back), ``"rgb_array"`` (the board's picture) |

Options: see ``parlour list`` or docs/tribolo.md.  Version history: v0, first release.
"""

from parlour.envs.adapter import aec_constructors
from parlour.games.tribolo import TriboloGame

env, raw_env = aec_constructors(TriboloGame)
