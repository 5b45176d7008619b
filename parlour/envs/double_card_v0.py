"""Double Card as a PettingZoo AEC env (turn-based; recycling moves in two sub-steps).

| | |
|---|---|
| Import | ``from parlour.envs import double_card_v0`` or ``pettingzoo.make("aec", "parlour/double_card-v0")`` |
| Actions | ``Discrete(864)``, masked: ``(p - 1) * 96 + cell`` puts a card, ``768 + cell`` takes one (see below) |
| Agents | ``player_0`` (moves first; its objective is the ``first_player`` option), ``player_1`` |
| Observation | ``Box(0, 1, (12, 12, 8))``, planes listed below; and ``action_mask`` |
| Rewards | +1 winner, -1 loser, 0 each for a draw, at the end |
| Reset options | ``{"moves": ["0 5 A 2", "F 2 F 3 3 A 2", ...]}`` or ``{"position": text}`` |
| Render | ``"ansi"`` / ``"human"`` (the text form, which parses back), ``"rgb_array"`` (the board's picture) |

Actions: ``(p - 1) * 96 + cell`` puts a card with placement ``p`` (1-8) and bottom-left
``cell`` (``row * 8 + col``); ``768 + cell`` takes the card whose bottom-left cell it is
(first sub-step of a recycling move, the same agent then places it).

Observation planes: colour (red, white), dot (filled, empty), card pairing (bottom-left
cells of horizontal / vertical cards), last-moved card, cells of the card being recycled,
own objective, place sub-step, recycling phase, moves / max_moves.

Options: ``max_moves`` (40 or 60), ``recycle_rule``, ``first_player``; see docs/double_card.md.
Version history: v0, first release.
"""

from parlour.envs.adapter import aec_constructors
from parlour.games.double_card import DoubleCardGame

env, raw_env = aec_constructors(DoubleCardGame)
