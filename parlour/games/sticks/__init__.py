"""Pick-up sticks: a single-pile subtraction game (rules: docs/sticks.md).

Two players alternate taking 1..``max_take`` sticks from one pile; under ``misere``
(the default, the rule of the 2007 minimax tutorial the game comes from) whoever
takes the last stick loses, otherwise wins.  Action ``a`` takes ``a + 1`` sticks.
Perfect information, no chance, no draws.

Closed form (docs/sticks.md, "Losing positions"): the player to move loses with
perfect play exactly when ``sticks % (max_take + 1) == 1`` (misère) or ``== 0``
(normal play); see :func:`losing_position`.

The package has every game's template:

========================  ==================================================================
:mod:`.rules`             ``SticksGame`` and ``SticksState``: options, the move, the winner,
                          the returns
:mod:`.notation`          the move (how many to take) and the text form of a position, with
                          its parser
:mod:`.observation`       the observation vector
:mod:`.engine`            ``SticksBatch``, B games at once in numpy
========================  ==================================================================

Every public name is re-exported here: ``from parlour.games.sticks import SticksGame,
SticksState, losing_position, ...``.
"""

from parlour.games.entry import GameEntry
from parlour.games.sticks.engine import SticksBatch
from parlour.games.sticks.observation import observation_vector
from parlour.games.sticks.rules import MAX_STICKS, SticksGame, SticksState, losing_position

ENTRY = GameEntry(SticksGame, SticksBatch)
"""The game's registration (``parlour.games.entry``)."""

__all__ = ["ENTRY", "MAX_STICKS", "SticksBatch", "SticksGame", "SticksState", "losing_position", "observation_vector"]
