"""Double Card's ``reach`` n-tuple features: every four-cell window of the board, its
empty cells told apart by how soon a card can fill them, its weight shared by the
windows the game's symmetries make equivalent; and a count of the threats each side can
complete with its next card.  A learned evaluation inside ``double-card-best``'s search
(``parlour.baselines.learned.ntuple``; ``parlour train --algo ntuple --game double_card``).

Why these, and not the ``windows`` features (one weight table over the 625 segment codes
of a window, docs/double_card.md): Double Card's games between searchers are short
tactical fights (eight to twelve moves at depth 4: a line of four is forced early), so
what a search needs to know at its horizon is which lines a card can finish *soon*.  A
card is two cells: a horizontal one needs two surface cells side by side, a vertical one
fills a surface cell *and the cell above it*.  So a window's empty cell is coded by its
height above its column's surface: 0 (a card can fill it now), 1 (only the top of a
vertical card can fill it now) or 2 and more.  With the four segments that is seven
symbols a cell, 2,401 codes a window (cells in order of rising row, then column).

The rules do not change under three symmetries (docs/double_card.md): the left-right
mirror (a horizontal card read backwards is another card: R● W○ is W○ R●), swapping red
and white (R● for W●, R○ for W○: the colours seat still needs four of one colour) and
swapping filled and empty dots.  Windows related by them share one weight: a code's
*class* is the smallest code of its orbit.  The mirror turns a rising diagonal into a
falling one with its rows in the same order, so the two diagonals are one orientation,
and it reverses a row's window.  Three orientations (row, column, diagonal) each with its
own classes, times who is to move, index the window weights.

**Threats.**  Beside the windows, one more tuple counts each objective's windows with
three of its segments and the fourth cell fillable now (height 0 or 1): colours' count
(0, 1, 2, 3+) by dots' count by who is to move, 32 weights.  A window sum cannot see
that two threats are worth more than twice one; this can.

Indices are from the colours seat's view (the model predicts its result); a position's
is one row of 223 (222 windows and the threat tuple): :func:`reach_indices`.

This module registers Double Card's feature sets with the n-tuple player
(``register_features``): ``reach``, the default, and the earlier ``windows`` (one weight
table over ``parlour.baselines.players.double_card.window_features``), whose models
still load.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.learned.ntuple import NTupleFeatures, register_features
from parlour.baselines.players.double_card import WINDOW_FEATURES, window_features
from parlour.games.double_card import COLS, R_DOT, R_RING, ROWS, W_DOT, W_RING, DoubleCardState

WINDOW = 4
SYMBOLS = 7
"""Per cell: 0 empty at the surface, 1-4 the segments (``R_DOT`` .. ``W_RING``), 5 empty
one above the surface, 6 empty two or more above it."""
EMPTY_BY_HEIGHT = (0, 5, 6)
"""An empty cell's symbol by its height above its column's surface (capped at 2)."""
CODES = SYMBOLS**WINDOW
ORIENTATIONS = ("row", "column", "diagonal")
THREAT_COUNTS = 4
"""Threat counts told apart per objective: 0, 1, 2, 3 or more."""

_POWERS = np.array([SYMBOLS ** (WINDOW - 1 - k) for k in range(WINDOW)], dtype=np.intp)
_COLOUR_SWAP = (0, W_DOT, W_RING, R_DOT, R_RING, 5, 6)
_DOT_SWAP = (0, R_RING, R_DOT, W_RING, W_DOT, 5, 6)
_IS_RED = {R_DOT: True, R_RING: True, W_DOT: False, W_RING: False}
_IS_FILLED = {R_DOT: True, R_RING: False, W_DOT: True, W_RING: False}


def _digits(code: int) -> tuple[int, ...]:
    return tuple(code // int(p) % SYMBOLS for p in _POWERS)


def _code(digits: tuple[int, ...]) -> int:
    return int(sum(d * int(p) for d, p in zip(digits, _POWERS)))


def orbit(code: int, orientation: str) -> set[int]:
    """The codes a window's code becomes under the symmetries of the rules (the mirror
    reverses only a row's window)."""
    digits = _digits(code)
    found = set()
    for colour in (False, True):
        for dot in (False, True):
            d = tuple(_COLOUR_SWAP[x] for x in digits) if colour else digits
            d = tuple(_DOT_SWAP[x] for x in d) if dot else d
            found.add(_code(d))
            if orientation == "row":
                found.add(_code(d[::-1]))
    return found


def _window_cells() -> tuple[np.ndarray, np.ndarray]:
    """Every window's cells (rising row, then column) and its orientation's index."""
    steps = {"row": [(0, 1)], "column": [(1, 0)], "diagonal": [(1, 1), (1, -1)]}
    cells, orientations = [], []
    for o, name in enumerate(ORIENTATIONS):
        for dr, dc in steps[name]:
            for r in range(ROWS):
                for c in range(COLS):
                    window = [(r + k * dr, c + k * dc) for k in range(WINDOW)]
                    if all(0 <= rr < ROWS and 0 <= cc < COLS for rr, cc in window):
                        cells.append([rr * COLS + cc for rr, cc in window])
                        orientations.append(o)
    return np.array(cells, dtype=np.intp), np.array(orientations, dtype=np.intp)


def _classes() -> tuple[np.ndarray, int]:
    """``[orientation, code]``: the code's class (dense, numbered by orientation, then the
    smallest code of each orbit), and how many classes there are."""
    table = np.empty((len(ORIENTATIONS), CODES), dtype=np.intp)
    count = 0
    for o, name in enumerate(ORIENTATIONS):
        number: dict[int, int] = {}
        for code in range(CODES):
            smallest = min(orbit(code, name))
            if smallest not in number:
                number[smallest] = count
                count += 1
            table[o, code] = number[smallest]
    return table, count


def _threat_tables() -> tuple[np.ndarray, np.ndarray]:
    """Per code: whether it holds three segments of one colour (of one dot kind) and its
    fourth cell is empty at height 0 or 1."""
    colour, dot = np.zeros(CODES, dtype=np.intp), np.zeros(CODES, dtype=np.intp)
    for code in range(CODES):
        digits = _digits(code)
        held = [d for d in digits if d in _IS_RED]
        if len(held) == 3 and any(d in (0, 5) for d in digits):
            colour[code] = len({_IS_RED[d] for d in held}) == 1
            dot[code] = len({_IS_FILLED[d] for d in held}) == 1
    return colour, dot


WINDOW_CELLS, WINDOW_ORIENTATION = _window_cells()
"""``[window, 4]``: the cells of each of the 222 windows; and each window's orientation."""
CLASS_OF, WINDOW_CLASSES = _classes()
"""``CLASS_OF[orientation, code]``: a window code's weight class; how many classes."""
THREAT_COLOUR, THREAT_DOT = _threat_tables()
REACH_FEATURES = 2 * WINDOW_CLASSES + THREAT_COUNTS * THREAT_COUNTS * 2
"""Weights of the table: each class with the colours seat to move or not, and the threat tuple."""

_CLASS_FLAT = CLASS_OF.ravel()
_CODE_OFFSET = WINDOW_ORIENTATION * CODES
_THREAT_BASE = 2 * WINDOW_CLASSES
_THREATS = THREAT_COLOUR + 256 * THREAT_DOT
"""Both threat tables in one: a sum over the windows holds colours' count below 256 (222
windows at most) and dots' above."""
_ROW_MINUS_COLUMN_HEIGHT = np.repeat(np.arange(ROWS), COLS) + ROWS
_COLUMN = np.tile(np.arange(COLS), ROWS)
_EMPTY_SYMBOL = np.array([EMPTY_BY_HEIGHT[min(h, 2)] if h >= 0 else 0 for h in range(-ROWS, ROWS + 1)], dtype=np.intp)
"""By a cell's height above its column's surface, plus ``ROWS``: an occupied cell's
(negative) reads 0, to be added to its segment."""
for _array in (WINDOW_CELLS, WINDOW_ORIENTATION, CLASS_OF, THREAT_COLOUR, THREAT_DOT, _CLASS_FLAT, _CODE_OFFSET, _THREATS,
               _ROW_MINUS_COLUMN_HEIGHT, _COLUMN, _EMPTY_SYMBOL):
    _array.flags.writeable = False


def cell_symbols(state: DoubleCardState) -> np.ndarray:
    """Every cell's symbol (see :data:`SYMBOLS`), cell by cell (row 1 first): its segment,
    plus for an empty one the symbol of its height above its column's top segment (the
    rules' ``heights``)."""
    heights = np.array(state.heights)
    segments = np.frombuffer(bytes(state.seg), dtype=np.uint8)  # the fastest way from the list to an array
    return segments + _EMPTY_SYMBOL[_ROW_MINUS_COLUMN_HEIGHT - heights[_COLUMN]]


def window_codes(state: DoubleCardState) -> np.ndarray:
    """The base-7 code of every window (:data:`WINDOW_CELLS`)."""
    return cell_symbols(state)[WINDOW_CELLS] @ _POWERS


def _threat_index(codes: np.ndarray, colours_to_move: bool) -> int:
    both = int(_THREATS[codes].sum())
    colour = min(both & 255, THREAT_COUNTS - 1)
    dot = min(both >> 8, THREAT_COUNTS - 1)
    return _THREAT_BASE + 2 * (THREAT_COUNTS * colour + dot) + colours_to_move


def reach_indices(state: DoubleCardState) -> np.ndarray:
    """The weight index of every window and of the threat tuple, from the colours seat's
    view: one row of 223 (see the module docstring)."""
    codes = window_codes(state)
    colours_to_move = state.to_move == state.game.colors_seat
    indices = np.empty(len(codes) + 1, dtype=np.intp)
    indices[:-1] = _CLASS_FLAT[_CODE_OFFSET + codes]
    if colours_to_move:
        indices[:-1] += WINDOW_CLASSES
    indices[-1] = _threat_index(codes, colours_to_move)
    return indices[np.newaxis]


class ReachLogit:
    """The summed weights of :func:`reach_indices` without building the indices: the
    weights laid out once per code (a table per side to move, 7,203 entries each), so a
    position costs one gather from its window codes.  What the search calls at its
    leaves; equal to ``weights[reach_indices(state)].sum()`` up to the order of the sum."""

    def __init__(self, weights: np.ndarray) -> None:
        self.by_code = [np.ascontiguousarray(weights[_CLASS_FLAT + side * WINDOW_CLASSES]) for side in (0, 1)]
        self.weights = weights

    def __call__(self, state: DoubleCardState) -> float:
        codes = window_codes(state)
        colours_to_move = state.to_move == state.game.colors_seat
        total = self.by_code[colours_to_move].take(codes + _CODE_OFFSET).sum()
        return float(total) + float(self.weights[_threat_index(codes, colours_to_move)])


_WINDOW_CELL_COLUMNS = np.ascontiguousarray(WINDOW_CELLS.T)
"""``[k, window]``: the k-th cell of every window."""
_EMPTY_SYMBOL_BYTES = _EMPTY_SYMBOL.astype(np.uint8)
""":data:`_EMPTY_SYMBOL` in bytes: the batched symbols are computed in small integers
(several times faster to gather than ``intp``; every code fits in an ``int16``)."""


class ReachChildLogits:
    """:class:`ReachLogit` of many boards at once, for the batched form of the n-tuple
    player at depth 1 (``parlour.baselines.learned.ntuple_batched``): the cell symbols
    read from a ``DoubleCardBatch``'s row words (segment lanes and column heights), the
    window codes, one gather from the code tables of each game's side to move and one
    sum per game (over the same 222 values in the same order as the single game's, so
    the same float), plus the threat tuple's weight."""

    def __init__(self, weights: np.ndarray) -> None:
        single = ReachLogit(weights)
        self.by_code = np.concatenate(single.by_code)
        self.weights = weights

    def __call__(self, engine: Any, count: int, perspective: np.ndarray) -> np.ndarray:
        """The colours seat's logits of the first ``count`` games of ``engine`` (the
        model's only perspective: ``perspective`` is always the colours seat)."""
        board = engine.board[:count]
        lanes = np.unpackbits(board.view(np.uint8).reshape(count, ROWS, 8)[:, :, :4], axis=2, bitorder="little")
        red, white, ring = (lanes[:, :, 8 * lane : 8 * lane + COLS].reshape(count, ROWS * COLS)
                            for lane in (0, 1, 3))  # lanes: red, white, filled dot, empty circle
        occupied = red | white
        segments = occupied * (1 + 2 * white + ring)  # R_DOT 1, R_RING 2, W_DOT 3, W_RING 4
        heights = occupied.reshape(count, ROWS, COLS).sum(axis=1, dtype=np.intp)
        symbols = (segments + _EMPTY_SYMBOL_BYTES[_ROW_MINUS_COLUMN_HEIGHT - heights[:, _COLUMN]]).astype(np.int16)
        codes16 = symbols.take(_WINDOW_CELL_COLUMNS[0], axis=1) * np.int16(_POWERS[0])  # int16: codes < 2,401
        for k in range(1, WINDOW):
            codes16 += symbols.take(_WINDOW_CELL_COLUMNS[k], axis=1) * np.int16(_POWERS[k])
        codes = codes16.astype(np.intp)
        colours_to_move = (engine.to_move[:count] == engine.game.colors_seat).astype(np.intp)
        table = codes + _CODE_OFFSET + (colours_to_move * len(_CLASS_FLAT))[:, None]
        total = self.by_code.take(table).sum(axis=1)
        both = _THREATS[codes].sum(axis=1)
        colour = np.minimum(both & 255, THREAT_COUNTS - 1)
        dot = np.minimum(both >> 8, THREAT_COUNTS - 1)
        return total + self.weights[_THREAT_BASE + 2 * (THREAT_COUNTS * colour + dot) + colours_to_move]


def double_card_indices(state: Any) -> np.ndarray:
    """Double Card's ``windows`` features, one row: the colours seat's view."""
    return window_features(state)[np.newaxis]


def double_card_seats(game: Any) -> tuple[int, ...]:
    """Double Card's model predicts the colours seat's win."""
    return (game.colors_seat,)


REACH = register_features("double_card", NTupleFeatures("reach", reach_indices, REACH_FEATURES, "double-card-best",
                                                        double_card_seats, ReachLogit))
"""The default feature set (registered first)."""
WINDOWS = register_features("double_card", NTupleFeatures("windows", double_card_indices, WINDOW_FEATURES,
                                                          "double-card-best", double_card_seats))
"""The earlier feature set, whose models keep loading."""
