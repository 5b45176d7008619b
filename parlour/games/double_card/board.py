"""Double Card's board: sizes, segment codes, the eight placements, and index tables.

Everything here is a constant or a function of a board's numbers (cells, card anchors,
the move count); :mod:`.rules`, :mod:`.notation` and :mod:`.render` read it.  The rules are documented in docs/double_card.md.

Cells and bitboards (bit ``cell`` of an int stands for that cell)::

              A   B   C   D   E   F   G   H
        12   88  89  90  91  92  93  94  95     TOP_ROW: a vertical card cannot start here
        11   80  81  82  83  84  85  86  87
        ..   ..                          ..
         2    8   9  10  11  12  13  14  15
         1    0   1   2   3   4   5   6   7     ROW_1: no support needed
                                         LAST_COLUMN: a horizontal card cannot start here

    cell = row * 8 + column (0-based; row 0 is row 1, at the bottom), so cell + 1 is the
    cell to the right and cell + 8 the cell above.

A segment has a colour (red R, white W) and a dot (filled ●, ASCII ``*``; empty circle
○, ASCII ``o``); its code is ``1 + 2 * white + ring``::

    EMPTY 0    R_DOT 1 (R●)    R_RING 2 (R○)    W_DOT 3 (W●)    W_RING 4 (W○)

A placement puts one face of a card on its anchor (bottom-left cell) and the cell to its
right (odd placements) or above it (even ones)::

    1: R● W○    3: W○ R●    5: R○ W●    7: W● R○         2: R●   4: W○   6: R○   8: W●
                                                            W○      R●      W●      R○
       anchor on the left                                   anchor at the bottom
"""

from __future__ import annotations

COLS, ROWS = 8, 12
CELLS = COLS * ROWS  # 96
CARDS = 24
REGULAR_ACTIONS = 8 * CELLS  # 768: (placement - 1) * 96 + anchor
PICK_BASE = REGULAR_ACTIONS  # 768 + anchor: take the card anchored there
NUM_ACTIONS = REGULAR_ACTIONS + CELLS  # 864
COLUMN_LETTERS = "ABCDEFGH"

EMPTY, R_DOT, R_RING, W_DOT, W_RING = 0, 1, 2, 3, 4
SEG_TEXT = {EMPTY: "..", R_DOT: "R*", R_RING: "Ro", W_DOT: "W*", W_RING: "Wo"}
SEG_FROM_TEXT = {v: k for k, v in SEG_TEXT.items()}
SEG_UNICODE = {EMPTY: "··", R_DOT: "R●", R_RING: "R○", W_DOT: "W●", W_RING: "W○"}

PLACEMENTS: dict[int, tuple[bool, int, int]] = {
    1: (True, R_DOT, W_RING),
    2: (False, W_RING, R_DOT),
    3: (True, W_RING, R_DOT),
    4: (False, R_DOT, W_RING),
    5: (True, R_RING, W_DOT),
    6: (False, W_DOT, R_RING),
    7: (True, W_DOT, R_RING),
    8: (False, R_RING, W_DOT),
}
"""placement -> (horizontal, segment at the anchor, segment at the other cell)."""
PLACEMENT_OF = {(h, a): p for p, (h, a, _) in PLACEMENTS.items()}
"""(horizontal, segment at the anchor) -> placement: a card on the board is one of the eight."""
HORIZONTAL = (False, *(PLACEMENTS[p][0] for p in range(1, 9)))
SEG_ANCHOR = (EMPTY, *(PLACEMENTS[p][1] for p in range(1, 9)))
SEG_OTHER = (EMPTY, *(PLACEMENTS[p][2] for p in range(1, 9)))
"""Indexed by placement 1..8 (index 0 unused): the same facts as tuples, for the hot path."""

OBJECTIVES = ("colors", "dots")
RECYCLE_RULES = ("same_cells", "same_placement", "none")

FULL = (1 << CELLS) - 1
ROW_1 = (1 << COLS) - 1
TOP_ROW = ROW_1 << (CELLS - COLS)
LAST_COLUMN = sum(1 << (row * COLS + COLS - 1) for row in range(ROWS))
COLUMN_A = sum(1 << (row * COLS) for row in range(ROWS))
"""Bitboards: every cell, row 1, row 12, column H, column A (shift by c for column c)."""


def cell_name(cell: int) -> str:
    """``"F 2"`` for the cell in column F, row 2 (the assignment's notation)."""
    return f"{COLUMN_LETTERS[cell % COLS]} {cell // COLS + 1}"


def other_cell(anchor: int, horizontal: bool) -> int:
    """The second cell of a card anchored at ``anchor``: to the right or above."""
    return anchor + 1 if horizontal else anchor + COLS


def partner(hanch: int, vanch: int, cell: int) -> int:
    """The other cell of the card covering ``cell`` (-1 if empty), from the anchors
    (bottom-left cells) of the horizontal (``hanch``) and vertical (``vanch``) cards."""
    if hanch >> cell & 1:
        return cell + 1
    if cell % COLS and hanch >> (cell - 1) & 1:
        return cell - 1
    if vanch >> cell & 1:
        return cell + COLS
    if cell >= COLS and vanch >> (cell - COLS) & 1:
        return cell - COLS
    return -1


def phase_of(winner: int, taken: tuple[int, int] | None, moves: int) -> str:
    """``"regular"``, ``"pick"`` (first sub-step of recycling), ``"place"`` (second) or
    ``"over"``: the first 24 moves place the cards, every later one recycles one."""
    if winner >= 0:
        return "over"
    if taken is not None:
        return "place"
    return "regular" if moves < CARDS else "pick"


def _build_lines() -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Every row, column and diagonal of >= 4 cells; the windows through each cell."""
    lines: list[tuple[int, ...]] = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(ROWS):
            for c in range(COLS):
                pr, pc = r - dr, c - dc
                if 0 <= pr < ROWS and 0 <= pc < COLS:
                    continue  # not the start of a line
                cells = []
                rr, cc = r, c
                while 0 <= rr < ROWS and 0 <= cc < COLS:
                    cells.append(rr * COLS + cc)
                    rr, cc = rr + dr, cc + dc
                if len(cells) >= 4:
                    lines.append(tuple(cells))
    windows: list[list[int]] = [[] for _ in range(CELLS)]
    for line in lines:
        for i in range(len(line) - 3):
            mask = 0
            for cell in line[i : i + 4]:
                mask |= 1 << cell
            for cell in line[i : i + 4]:
                windows[cell].append(mask)
    lines_of: list[list[int]] = [[] for _ in range(CELLS)]
    for index, line in enumerate(lines):
        for cell in line:
            lines_of[cell].append(index)
    return lines, [tuple(w) for w in windows], [tuple(x) for x in lines_of]


LINES, WINDOWS, LINES_OF = _build_lines()
"""``LINES``: every line of >= 4 cells (rows, columns, both diagonals), cells in order.
``WINDOWS[cell]``: bitmasks of the 4-cell windows through ``cell`` (pgx style: four in a
row is ``occ & w == w`` and one colour, or one dot kind, in ``w``).
``LINES_OF[cell]``: indices into ``LINES`` of the lines through ``cell``."""
