"""Tribolo: three players capture cells by Othello-like jumps on a board with walls.

Rules (in full in docs/tribolo.md): a ``width`` x
``height`` board (default 16 x 11) starts with ``start_cells`` random cells per player
and ``walls`` random walls.  A move for P is an empty cell ``e`` such that in at least
one of the 8 king directions the cells next to ``e`` are a run of ONE opponent closed
by a cell of P; every such run (in every direction at once, possibly of different
opponents) and ``e`` become P's.  Players move in the order 0 -> 1 -> 2 -> 0, a player
without a move is skipped (the mover plays again if both others are blocked), and the
game ends when nobody can move.  Most cells wins; tied leaders share the win.

The package splits what a reader looks for, as ``parlour.games.double_card`` does:

========================  ==================================================================
:mod:`.board`             seats, owner codes and their symbols, the largest board, the eight
                          directions
:mod:`.movegen`           the move generator, compiled for one board size from shifts and
                          masks over packed bitboards
:mod:`.geometry`          ``Geometry``: the tables of one board size (rays, packed cells, the
                          generator), cached; a move's jumps and captures
:mod:`.rules`             ``TriboloGame`` and ``TriboloState``: options, the setup, moves,
                          flips, skipped turns, undo, returns, the observation tensor
:mod:`.scoring`           the returns of a finished game from the cell counts
:mod:`.observation`       the five observation planes and each seat's order of them
:mod:`.symmetry`          the board's mirror images and rotations
:mod:`.notation`          cell names, the text form of a position and its parser, the
                          terminal view
:mod:`.engine`            ``TriboloBatch``, B games at once in numpy
========================  ==================================================================

Every public name is re-exported here: ``from parlour.games.tribolo import
TriboloGame, TriboloState, Geometry, SYMBOLS, ...``.
"""

from parlour.games.entry import GameEntry
from parlour.games.tribolo.board import (
    DIRECTIONS,
    EMPTY,
    MAX_CELLS,
    MAX_HEIGHT,
    MAX_WIDTH,
    NUM_PLAYERS,
    SYMBOLS,
    WALL,
)
from parlour.games.tribolo.engine import TriboloBatch
from parlour.games.tribolo.geometry import Geometry
from parlour.games.tribolo.movegen import REVERSED_BYTE, compile_moves
from parlour.games.tribolo.notation import (
    cell_text,
    parse_position,
    position_text,
    read_rows,
    text_to_cell,
    view_text,
)
from parlour.games.tribolo.observation import PLANE_ORDER, observation_planes
from parlour.games.tribolo.rules import SETUP_ATTEMPTS, TriboloGame, TriboloState
from parlour.games.tribolo.scoring import RETURN_TYPES, counts_to_returns
from parlour.games.tribolo.symmetry import board_symmetries

ENTRY = GameEntry(TriboloGame, TriboloBatch)
"""The game's registration (``parlour.games.entry``)."""

__all__ = [
    "ENTRY",
    "TriboloBatch",
    "DIRECTIONS",
    "EMPTY",
    "MAX_CELLS",
    "MAX_HEIGHT",
    "MAX_WIDTH",
    "NUM_PLAYERS",
    "PLANE_ORDER",
    "RETURN_TYPES",
    "REVERSED_BYTE",
    "SETUP_ATTEMPTS",
    "SYMBOLS",
    "WALL",
    "Geometry",
    "TriboloGame",
    "TriboloState",
    "board_symmetries",
    "cell_text",
    "compile_moves",
    "counts_to_returns",
    "observation_planes",
    "parse_position",
    "position_text",
    "read_rows",
    "text_to_cell",
    "view_text",
]
