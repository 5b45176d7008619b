"""Double Card: two players, 24 two-segment cards on an 8 x 12 board; four in a row of
colours or of dots wins (the COMP 472/6721 Winter 2019 course project; the players
follow Shao and Ding's COMP 6721 report).  Rules, options, actions, observation, text
form and players: docs/double_card.md.

The package splits what a reader looks for:

========================  ==================================================================
:mod:`.board`             sizes, segment codes, the eight placements, the board layout, the
                          bitboard masks and the line / window index tables
:mod:`.rules`             ``DoubleCardGame`` and ``DoubleCardState``: legal moves, the move,
                          wins, returns, the observation tensor
:mod:`.notation`          the move notation (``0 5 A 2``, ``F 2 F 3 3 A 2``) and the text form
                          of a position, with its parser
:mod:`.engine`            ``DoubleCardBatch``, B games at once in numpy
========================  ==================================================================

Every public name is re-exported here: ``from parlour.games.double_card import
DoubleCardGame, DoubleCardState, LINES, ...``.
"""

from parlour.games.double_card.board import (
    CARDS,
    CELLS,
    COLS,
    COLUMN_A,
    COLUMN_LETTERS,
    EMPTY,
    FULL,
    HORIZONTAL,
    LAST_COLUMN,
    LINES,
    LINES_OF,
    NUM_ACTIONS,
    OBJECTIVES,
    PICK_BASE,
    PLACEMENT_OF,
    PLACEMENTS,
    R_DOT,
    R_RING,
    RECYCLE_RULES,
    REGULAR_ACTIONS,
    ROW_1,
    ROWS,
    SEG_ANCHOR,
    SEG_FROM_TEXT,
    SEG_OTHER,
    SEG_TEXT,
    SEG_UNICODE,
    TOP_ROW,
    W_DOT,
    W_RING,
    WINDOWS,
    cell_name,
    other_cell,
)
from parlour.games.double_card.engine import DoubleCardBatch
from parlour.games.double_card.notation import parse_notation
from parlour.games.double_card.observation import NUM_PLANES, ObservedPosition, observation_planes, read_planes
from parlour.games.double_card.rules import DoubleCardGame, DoubleCardState
from parlour.games.entry import GameEntry

ENTRY = GameEntry(DoubleCardGame, DoubleCardBatch)
"""The game's registration (``parlour.games.entry``)."""

__all__ = [
    "ENTRY",
    "DoubleCardBatch",
    "CARDS",
    "CELLS",
    "COLS",
    "COLUMN_A",
    "COLUMN_LETTERS",
    "EMPTY",
    "FULL",
    "HORIZONTAL",
    "LAST_COLUMN",
    "LINES",
    "LINES_OF",
    "NUM_ACTIONS",
    "NUM_PLANES",
    "OBJECTIVES",
    "ObservedPosition",
    "PICK_BASE",
    "PLACEMENTS",
    "PLACEMENT_OF",
    "RECYCLE_RULES",
    "REGULAR_ACTIONS",
    "ROWS",
    "ROW_1",
    "R_DOT",
    "R_RING",
    "SEG_ANCHOR",
    "SEG_FROM_TEXT",
    "SEG_OTHER",
    "SEG_TEXT",
    "SEG_UNICODE",
    "TOP_ROW",
    "WINDOWS",
    "W_DOT",
    "W_RING",
    "DoubleCardGame",
    "DoubleCardState",
    "cell_name",
    "observation_planes",
    "other_cell",
    "parse_notation",
    "read_planes",
]
