"""Tribolo's observation encoding: the five ``float32`` planes of a board and the order
each seat sees them in.

A state keeps its planes in absolute seat order (seats 0, 1, 2, walls, empty), built
here once from the owner bytes and then updated in place by ``TriboloState.apply``;
``observation_tensor(player)`` is one ``take`` of them in ``PLANE_ORDER[player]``: own
cells, the next seat's (player + 1), the one after (player + 2), walls, empty.
"""

from __future__ import annotations

import numpy as np

from parlour.games.tribolo.board import EMPTY, NUM_PLAYERS, WALL
from parlour.games.tribolo.geometry import Geometry

_PLANE_CODES = np.array([0, 1, 2, WALL, EMPTY], dtype=np.uint8)[:, None]
"""The owner code of each absolute observation plane (seats 0, 1, 2, walls, empty)."""
PLANE_ORDER = tuple(np.array([seat, (seat + 1) % 3, (seat + 2) % 3, 3, 4], dtype=np.intp) for seat in range(NUM_PLAYERS))
"""Each seat's observation planes (own, next, next-but-one, walls, empty) as indices of
the absolute ones."""


def observation_planes(board: bytearray, geo: Geometry) -> np.ndarray:
    """The absolute observation planes (seats 0, 1, 2, walls, empty) of the owner codes
    ``board``: ``float32 (5, height, width)``."""
    codes = np.frombuffer(bytes(board), np.uint8)
    return (codes == _PLANE_CODES).astype(np.float32).reshape((5, *geo.observation_shape[1:]))
