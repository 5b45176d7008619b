"""Double Card's image: ``rgb_array(state)``, the ``rgb_array`` render mode (described in
docs/double_card.md).  Depends on :mod:`.board` only and reads the state's ``seg``,
``card_cells()`` and ``last``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from parlour.games.double_card.board import (
    CELLS,
    COLS,
    EMPTY,
    R_DOT,
    R_RING,
    ROWS,
    W_DOT,
    W_RING,
)

if TYPE_CHECKING:
    from parlour.games.double_card.rules import DoubleCardState

SIZE = 24  # pixels per cell
_FELT, _EMPTY_CELL, _INK = (40, 110, 60), (55, 130, 75), (20, 20, 20)
_COLOURS = {R_DOT: (200, 40, 40), R_RING: (200, 40, 40), W_DOT: (235, 235, 225), W_RING: (235, 235, 225)}
_BORDER, _LAST_BORDER = (60, 60, 60), (230, 180, 20)


def _masks(size: int = SIZE) -> tuple[np.ndarray, np.ndarray]:
    """A filled dot and a ring, as boolean masks of one cell."""
    yy, xx = np.mgrid[0:size, 0:size]
    dist = np.hypot(yy - (size - 1) / 2, xx - (size - 1) / 2)
    return dist <= size * 0.25, (dist <= size * 0.28) & (dist >= size * 0.18)


_DISC, _RING = _masks()


def rgb_array(state: DoubleCardState) -> np.ndarray:
    """uint8 (12 * 24, 8 * 24, 3): red / white squares, a black dot or a ring, a dark
    border around each card, the card moved last outlined in gold."""
    size = SIZE
    img = np.empty((ROWS * size, COLS * size, 3), dtype=np.uint8)
    img[:] = _FELT
    for cell in range(CELLS):
        code = state.seg[cell]
        y0 = (ROWS - 1 - cell // COLS) * size
        x0 = (cell % COLS) * size
        block = img[y0 : y0 + size, x0 : x0 + size]
        if code == EMPTY:
            block[1:-1, 1:-1] = _EMPTY_CELL
            continue
        block[:] = _COLOURS[code]
        block[_DISC if code in (R_DOT, W_DOT) else _RING] = _INK
    for anchor, other in state.card_cells():
        colour = _LAST_BORDER if anchor == state.last else _BORDER
        ra, ca = anchor // COLS, anchor % COLS
        ro, co = other // COLS, other % COLS
        top = (ROWS - 1 - ro) * size
        bottom = (ROWS - ra) * size
        left, right = ca * size, (co + 1) * size
        img[top : top + 2, left:right] = colour
        img[bottom - 2 : bottom, left:right] = colour
        img[top:bottom, left : left + 2] = colour
        img[top:bottom, right - 2 : right] = colour
    return img
