"""Double Card's observation encoding (planes in docs/double_card.md): a position as
twelve ``float32`` planes ``(12, 12 rows, 8 columns)``, row 0 = row 1, and the way back.

0 red, 1 white, 2 filled dot, 3 empty circle (segments); 4 bottom-left cell of a
horizontal card, 5 of a vertical card (with the segment planes this gives every card's
two cells); 6 the two cells of the card moved last; 7 the cells the card being recycled
was taken from (second sub-step only); 8 all ones if the observing seat plays colors
(zeros: dots); 9 all ones in the second sub-step of a recycling move (place); 10 all
ones once all 24 cards are on the board (recycling); 11 moves played / ``max_moves``
everywhere.

The functions take bitboards (bit ``c`` = cell ``row * 8 + column``), not the state, so
the rules import this module and not the other way round.  The batched engine writes
the same planes with array operations (``DoubleCardBatch``); the engine differential
suite checks that the two agree.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from parlour.games.double_card.board import CELLS, COLS, ROWS

NUM_PLANES = 12
"""Observation planes (channels first, ``(12, 12 rows, 8 columns)``, row 0 = row 1)."""
BOARD_PLANES = 8
"""The planes that are bitboards (0-7); the last four are flags, one value everywhere."""


def observation_planes(boards: tuple[int, ...], colors: bool, placing: bool, recycling: bool,
                       moves_fraction: float) -> np.ndarray:
    """The planes of a position: ``boards`` the eight bitboards of planes 0-7 in order,
    then the flags of planes 8-11 (``moves_fraction`` is moves / ``max_moves``, at most 1)."""
    raw = b"".join(board.to_bytes(CELLS // 8, "little") for board in boards)
    obs = np.empty((NUM_PLANES, CELLS), dtype=np.float32)
    obs[:BOARD_PLANES] = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little").reshape(BOARD_PLANES, CELLS)
    obs[8] = colors
    obs[9] = placing
    obs[10] = recycling
    obs[11] = moves_fraction
    return obs.reshape(NUM_PLANES, ROWS, COLS)


class ObservedPosition(NamedTuple):
    """What the planes say, read back: the eight bitboards of planes 0-7 and the flags."""

    boards: tuple[int, ...]
    colors: bool
    placing: bool
    moves: int


def read_planes(observation: np.ndarray, max_moves: int) -> ObservedPosition:
    """The bitboards and flags of ``observation`` (shape ``(12, 12, 8)``, checked by the
    caller); a plane entry counts as set above 0.5 and the flags are read on cell 0."""
    values = np.asarray(observation).reshape(NUM_PLANES, CELLS)
    planes = values > 0.5
    boards = tuple(int.from_bytes(np.packbits(plane, bitorder="little").tobytes(), "little")
                   for plane in planes[:BOARD_PLANES])
    moves = int(round(float(values[11, 0]) * max_moves))
    return ObservedPosition(boards, bool(planes[8, 0]), bool(planes[9, 0]), moves)
