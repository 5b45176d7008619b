"""Tribolo's n-tuple features: every window of four consecutive cells along the four
line directions, seen from each seat, for a learned evaluation inside ``paranoid``
(``parlour.baselines.learned.ntuple``; ``parlour train --algo ntuple --game tribolo``).

A window is four cells in a row going east, south-east, south or south-west (the other
four of the eight king directions, ``parlour.games.tribolo.DIRECTIONS``, read the same
windows backwards): on the default 16 x 11 board, 143 + 104 + 128 + 104 = 479 windows.
Captures run along these lines, so a window's content says which runs can be flanked,
by whom, and which cells are safe.  Each cell is coded relative to a *perspective*
seat, so that one table serves every seat: mine 0, the next seat's 1 (the one who moves
after me), the previous seat's 2, empty 3, wall 4 -- the board's own owner codes for
seat 0, rotated for the others -- giving 625 codes a window.  Two small contexts
multiply them:

- **where the window lies** (3): inside the board, touching its edge, or along it (all
  four cells in the first or last row or column).  A border cell can only be captured
  along the border (there is no cell beyond it to close a run across it), so edge cells
  are the stable ones, as in Othello, and corners are never taken; a window's content
  means something else there.  Walls have the same effect but are coded in the
  window itself.
- **who moves** (3): the perspective seat, the next seat or the previous one.  With
  three players and skipped turns the tempo is worth much, and a leaf of the search is
  reached with any of the three to move.

So a window's weight index is ``code + 625 * place + 1875 * mover``: 5,625 weights.
The window cells of a board size are computed once (:func:`window_tables`, cached by
``(width, height)``), so :func:`tribolo_window_indices` is a handful of numpy operations
on the board's bytes for all three seats at once (an absolute code per window, then a
625-entry relabelling per seat): it runs at every leaf of the search.  This module
registers the set with the n-tuple player (``register_features``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from parlour.baselines.learned.ntuple import NTupleFeatures, register_features
from parlour.games.tribolo import DIRECTIONS, NUM_PLAYERS, TriboloState

WINDOW = 4
"""Cells in a window."""
LINES = DIRECTIONS[:4]
"""The window directions ``(dx, dy)``: east, south-east, south, south-west."""
CODES = 5**WINDOW
"""Contents of a window: five states a cell (mine, next, previous, empty, wall)."""
PLACES = 3
"""Where a window lies: 0 inside the board, 1 touching its edge, 2 along it."""
MOVERS = NUM_PLAYERS
"""Who is to move, relative to the perspective seat: 0 itself, 1 the next, 2 the previous."""
TRIBOLO_FEATURES = CODES * PLACES * MOVERS
"""Weights of the table (5,625)."""

_POWERS = np.array([5 ** (WINDOW - 1 - k) for k in range(WINDOW)], dtype=np.intp)
"""Base-5 place value of each cell of a window, the first cell most significant."""


def relative_owner(owner: int, seat: int) -> int:
    """An owner code of the board (0-2 a seat, 3 ``EMPTY``, 4 ``WALL``) as ``seat`` sees
    it: 0 its own, 1 the next seat's, 2 the previous seat's, 3 empty, 4 wall."""
    return (owner - seat) % NUM_PLAYERS if owner < NUM_PLAYERS else owner


def _relabel_table() -> np.ndarray:
    """``[seat, absolute code]``: a window's code as ``seat`` sees it (owner codes are the
    digits, so seat 0's relative code is the absolute one)."""
    table = np.empty((NUM_PLAYERS, CODES), dtype=np.intp)
    for code in range(CODES):
        digits = [code // int(power) % 5 for power in _POWERS]
        for seat in range(NUM_PLAYERS):
            table[seat, code] = sum(relative_owner(d, seat) * int(p) for d, p in zip(digits, _POWERS))
    return table


RELABEL = _relabel_table()
"""``RELABEL[seat, code]``: the absolute window code relabelled for ``seat``."""


@dataclass(frozen=True)
class WindowTables:
    """One board size's windows: ``cells[k, w]`` the k-th cell of window ``w`` (windows by
    direction, E, SE, S, SW, then by first cell), ``places[w]`` where it lies, and
    ``offsets[to_move]``, ``[seat, window]``, the part of each index that does not
    depend on the window's content (its place and who is to move, for each seat)."""

    cells: np.ndarray
    places: np.ndarray
    offsets: np.ndarray

    @property
    def windows(self) -> int:
        return self.cells.shape[1]


def window_cells(width: int, height: int) -> list[tuple[tuple[int, int], ...]]:
    """Every window as its four ``(x, y)`` cells, by direction (E, SE, S, SW), then by first cell."""
    windows = []
    for dx, dy in LINES:
        for y in range(height):
            for x in range(width):
                cells = tuple((x + k * dx, y + k * dy) for k in range(WINDOW))
                if all(0 <= cx < width and 0 <= cy < height for cx, cy in cells):
                    windows.append(cells)
    return windows


def window_place(cells: tuple[tuple[int, int], ...], width: int, height: int) -> int:
    """0 inside the board, 1 touching its edge, 2 along it (every cell in one border row or column)."""
    xs, ys = {x for x, _ in cells}, {y for _, y in cells}
    if xs <= {0} or xs <= {width - 1} or ys <= {0} or ys <= {height - 1}:
        return 2
    if xs & {0, width - 1} or ys & {0, height - 1}:
        return 1
    return 0


@lru_cache(maxsize=16)
def window_tables(width: int, height: int) -> WindowTables:
    """The windows of a ``width`` x ``height`` board (built once per size)."""
    windows = window_cells(width, height)
    cells = np.ascontiguousarray(np.array([[y * width + x for x, y in w] for w in windows], dtype=np.intp)
                                 .reshape(len(windows), WINDOW).T)
    places = np.array([window_place(w, width, height) for w in windows], dtype=np.intp)
    seats = np.arange(NUM_PLAYERS)
    offsets = np.empty((NUM_PLAYERS, NUM_PLAYERS, len(windows)), dtype=np.intp)
    for to_move in range(NUM_PLAYERS):
        movers = (to_move - seats) % NUM_PLAYERS
        offsets[to_move] = CODES * places[None, :] + CODES * PLACES * movers[:, None]
    for array in (cells, places, offsets):
        array.flags.writeable = False
    return WindowTables(cells, places, offsets)


def tribolo_window_indices(state: TriboloState) -> np.ndarray:
    """The weight index of every window from each seat's view: ``[seat, window]``
    (seats 0, 1, 2; see the module docstring).  Defined while someone is to move."""
    to_move = state.to_move
    if to_move < 0:
        raise ValueError("tribolo: a finished game has no n-tuple features (its returns are known)")
    tables = window_tables(state.geo.width, state.geo.height)
    codes = _POWERS.dot(np.frombuffer(state.board, dtype=np.uint8).take(tables.cells))
    return RELABEL.take(codes, axis=1) + tables.offsets[to_move]  # take: about twice as fast as [] here


class WindowChildLogits:
    """The summed weights of :func:`tribolo_window_indices` for one seat of each of many
    games at once, for the batched form of the n-tuple player at depth 1
    (``parlour.baselines.learned.ntuple_batched``): the windows' codes read from a
    ``TriboloBatch``'s owner codes, relabelled for each game's perspective seat, and one
    sum per game over the same values in the same order as the single game's row (so
    the same float)."""

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = weights

    def __call__(self, engine: Any, count: int, perspective: np.ndarray) -> np.ndarray:
        """Seat ``perspective[i]``'s logit of game ``i`` of ``engine`` (the first ``count``
        games; a finished game's is meaningless: its returns are known)."""
        tables = window_tables(engine.width, engine.height)
        cells = engine.codes[:count, : engine.width * engine.height].astype(np.int16)  # int16: codes < 625, fast gathers
        codes = cells.take(tables.cells[0], axis=1) * np.int16(_POWERS[0])
        for k in range(1, WINDOW):
            codes += cells.take(tables.cells[k], axis=1) * np.int16(_POWERS[k])
        to_move = np.maximum(engine.to_move[:count], 0)
        relabelled = RELABEL.reshape(-1).take(codes + (perspective * CODES).astype(np.int16)[:, None])
        indices = relabelled + tables.offsets.reshape(NUM_PLAYERS * NUM_PLAYERS, -1).take(to_move * NUM_PLAYERS + perspective, axis=0)
        return self.weights.take(indices).sum(axis=1)


def tribolo_seats(game: object) -> tuple[int, ...]:
    """The perspective seats of the rows of :func:`tribolo_window_indices`: every seat."""
    return tuple(range(NUM_PLAYERS))


WINDOWS = register_features("tribolo", NTupleFeatures("windows", tribolo_window_indices, TRIBOLO_FEATURES, "paranoid",
                                                      tribolo_seats))
"""Tribolo's feature set, registered with the n-tuple player (its only one: the default)."""
