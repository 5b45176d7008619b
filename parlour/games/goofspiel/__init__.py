"""Goofspiel (GOPS), the simultaneous bidding card game (rules: docs/goofspiel.md).

Each of ``num_players`` players holds the cards ``1..N``; the prizes ``1..N`` are
revealed one per round and every player bids one card from hand at the same time.
The unique highest bid takes the prize; a tie for the highest bid either carries the
prize into a growing pot (``tie_rule="carry"``, the rule of "Making the Tree Search") or discards it
(``"discard"``, OpenSpiel's).  Action ``a`` bids the card ``a + 1``.

The package splits what a reader looks for, as ``parlour.games.double_card`` does:

========================  ==================================================================
:mod:`.rules`             ``GoofspielGame`` and ``GoofspielState``: options, the bid, the
                          returns
:mod:`.observation`       the observation vector, built once and updated after each round
:mod:`.information`       ``GoofspielInfoState``: what a seat knows, and states sampled from it
:mod:`.scoring`           who takes a round, what it settles, a finished game's returns
:mod:`.notation`          the text form of a position read back
:mod:`.engine`            ``GoofspielBatch``, B games at once in numpy
========================  ==================================================================

Every public name is re-exported here: ``from parlour.games.goofspiel import
GoofspielGame, GoofspielState, GoofspielInfoState, settle_round, ...``.
"""

from parlour.games.entry import GameEntry
from parlour.games.goofspiel.engine import GoofspielBatch
from parlour.games.goofspiel.information import GoofspielInfoState
from parlour.games.goofspiel.rules import (
    MAX_CARD,
    MAX_PLAYERS,
    PRIZE_ORDERS,
    RETURN_TYPES,
    TIE_RULES,
    GoofspielGame,
    GoofspielState,
)
from parlour.games.goofspiel.scoring import (
    points_to_returns,
    round_winner,
    settle_round,
)

ENTRY = GameEntry(GoofspielGame, GoofspielBatch)
"""The game's registration (``parlour.games.entry``)."""

__all__ = [
    "ENTRY",
    "GoofspielBatch",
    "MAX_CARD",
    "MAX_PLAYERS",
    "PRIZE_ORDERS",
    "RETURN_TYPES",
    "TIE_RULES",
    "GoofspielGame",
    "GoofspielInfoState",
    "GoofspielState",
    "points_to_returns",
    "round_winner",
    "settle_round",
]
