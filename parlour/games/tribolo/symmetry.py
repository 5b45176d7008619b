"""Tribolo's board symmetries: the mirror images of a board and, on a square board, its
rotations and diagonal mirrors, as cell permutations and array maps for
``TriboloGame.symmetries`` (data augmentation and the symmetry tests)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from parlour.games.base import Symmetry


def board_symmetries(width: int, height: int) -> list[Symmetry]:
    """Every symmetry of a ``width`` x ``height`` board but the identity: the flips of x
    and y and, when the board is square, the transpose with them."""
    ys, xs = np.indices((height, width))
    found = []
    for transpose in (False, True) if width == height else (False,):
        for flip_x in (False, True):
            for flip_y in (False, True):
                if not (transpose or flip_x or flip_y):
                    continue
                nx, ny = (ys, xs) if transpose else (xs, ys)
                nx = width - 1 - nx if flip_x else nx
                ny = height - 1 - ny if flip_y else ny
                name = "+".join(n for n, on in (("transpose", transpose), ("flip_x", flip_x), ("flip_y", flip_y)) if on)
                found.append(Symmetry(name, (ny * width + nx).reshape(-1), _board_transform(transpose, flip_x, flip_y)))
    return found


def _board_transform(transpose: bool, flip_x: bool, flip_y: bool) -> Callable[[np.ndarray], np.ndarray]:
    """The map of an array's last two axes (rows y, columns x) that moves cell (x, y)
    where the symmetry sends it: first the transpose, then the flips."""

    def transform(array: np.ndarray) -> np.ndarray:
        out = np.swapaxes(array, -1, -2) if transpose else array
        if flip_x:
            out = out[..., ::-1]
        if flip_y:
            out = out[..., ::-1, :]
        return out

    return transform
