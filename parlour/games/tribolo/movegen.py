"""Tribolo's move generator: Python code written for one board size and compiled, so
that finding the legal moves of a seat is a few big-int operations with the shifts and
masks as constants, with no loop over directions and no per-cell Python loop.  This is
the hot path of every search; :class:`~parlour.games.tribolo.geometry.Geometry` holds
one generator per board size."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

REVERSED_BYTE = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))
"""``bytes.translate`` table: each byte with its 8 bits in reverse order."""


def compile_moves(width: int, height: int) -> Callable[[int, int, int, int], int]:
    """The move generator of one board size, compiled for it (shifts and masks are
    constants of the generated code: no loop over directions, no tuple unpacking).

    ``moves4(me, a, b, empty)`` takes *packed* boards (see :meth:`Geometry.pack`) of
    the seat to move, its two opponents and the empty cells, and returns the plain
    bitboard of the empty cells where ``me``'s owner has a jump.  A packed board holds
    four copies of a board ``S = (height + 1) * width`` bits apart, so that the row
    after each copy is always empty: the board, the board again, then the board
    turned by 180 degrees (bit ``c`` -> ``cells - 1 - c``) twice.  The opponents'
    board takes ``a`` in copies 0 and 2 and ``b`` in copies 1 and 3, so a run mixing
    two opponents never counts; a shift to higher bits goes east, south-east,
    south or south-west in copies 0-1 and west, north-west, north or north-east in
    the turned copies 2-3.  So four floods cover the 8 directions and both
    opponents, where the plain way takes sixteen.  Per direction (as in bitboard
    Othello engines): ``run = shift(me) & opp`` grown while it stays on ``opp``, then
    ``shift(run) & empty`` are the moves.  A step off the bottom of a copy lands in
    its empty row; a step off the east (west) edge lands in the west (east) column,
    which ``opp`` and ``empty`` are masked out of for the directions with a step east
    (west).  The turned copies' moves are turned back at the end.
    """
    n = width * height
    s = (height + 1) * width
    full = (1 << n) - 1
    nbytes = (n + 7) // 8
    col0 = sum(1 << (y * width) for y in range(height))
    last = col0 << (width - 1)
    four = lambda m: hex(m | m << s | m << 2 * s | m << 3 * s)  # noqa: E731
    lines = [
        "def moves4(me, a, b, e):",
        f"    o = (a & {hex(full | full << 2 * s)}) | (b & {hex(full << s | full << 3 * s)})",
    ]
    floods = []
    for dx, dy in ((1, 0), (1, 1), (0, 1), (-1, 1)):  # the directions that shift to higher bits
        if (dx and width < 3) or (dy and height < 3):
            continue  # no run and closing cell fit in that direction
        floods.append((dy * width + dx, *{1: ("oe", "ee"), -1: ("ow", "ew"), 0: ("o", "e")}[dx]))
    if any(f[1] == "oe" for f in floods):
        lines += [f"    oe = o & {four(full & ~col0)}", f"    ee = e & {four(full & ~col0)}"]
    if any(f[1] == "ow" for f in floods):
        lines += [f"    ow = o & {four(full & ~last)}", f"    ew = e & {four(full & ~last)}"]
    lines.append("    m = 0")
    for step, opp, empty in floods:
        if step == 1:
            # Runs along a row are consecutive bits: adding the run's first cell to the
            # opponent's cells carries through the run to the cell just past it.
            lines.append(f"    m |= (((me << 1) & {opp}) + {opp}) & {empty}")
            continue
        lines += [
            f"    x = (me << {step}) & {opp}",
            f"    f = (x << {step}) & {opp}",
            "    while f:",
            "        x |= f",
            f"        f = (f << {step}) & {opp}",
            f"    m |= (x << {step}) & {empty}",
        ]
    turn = f" >> {8 * nbytes - n}" if 8 * nbytes > n else ""
    lines += [
        f"    m |= m >> {s}",
        f"    t = (m >> {2 * s}) & {hex(full)}",
        f"    return m & {hex(full)} | int.from_bytes(t.to_bytes({nbytes}, 'big').translate(REVERSED_BYTE), 'little'){turn}",
    ]
    namespace: dict[str, Any] = {"REVERSED_BYTE": REVERSED_BYTE}
    exec(compile("\n".join(lines), f"<tribolo moves {width}x{height}>", "exec"), namespace)
    moves4 = namespace["moves4"]
    moves4.__doc__ = "Plain bitboard of ``me``'s moves from packed boards (see parlour.games.tribolo.movegen.compile_moves)."
    return moves4
