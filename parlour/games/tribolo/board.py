"""Tribolo's board vocabulary: the seats, what a cell holds and how it is written, the
largest board, and the eight directions a jump can take.  Constants only, so that every
other module of the game (and the batched engine, the pictures) reads them from one place."""

from __future__ import annotations

NUM_PLAYERS = 3
EMPTY, WALL = 3, 4
"""Owner codes in ``TriboloState.board``: 0, 1, 2 are the seats."""
SYMBOLS = "BRG.#"
"""Text symbol of each owner code: Blue, Red, Green, empty, wall."""
MAX_WIDTH, MAX_HEIGHT, MAX_CELLS = 26, 26, 400
"""The largest board: columns are lettered a..z in the notation, and the move tables
precomputed for one board size (:class:`Geometry`) grow with the cells to the power of
about 2.5: 1 MB at the original 16 x 11, 6.6 MB at 400 cells (20 x 20), 23 MB at 26 x 26
and 200 MB at the former 26 x 64 (docs/tribolo.md)."""

DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
"""The eight king directions ``(dx, dy)``, east first and then clockwise (y grows
downwards); the first four are the ones that shift a bitboard to higher bits."""
