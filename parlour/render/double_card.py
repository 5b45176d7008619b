"""Double Card's picture: the 8 x 12 board with its column letters and row numbers (row
1 at the bottom, as the notation names cells), each card's two halves in their colour
with a dot or a ring, a frame around each card, the card moved last framed in gold, the
two objectives, the move count and whose turn it is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlour.games.double_card.board import CARDS, CELLS, COLS, EMPTY, HORIZONTAL, PICK_BASE, R_DOT, R_RING, ROWS, W_DOT, other_cell
from parlour.games.double_card.notation import status_text
from parlour.render.drawing import Drawing
from parlour.render.registry import register, register_targets
from parlour.render.style import HIGHLIGHT, INK, MUTED, TABLE, seat_colour, seat_name

CELL = 40
FELT, EMPTY_CELL, DOT = (40, 110, 60), (60, 135, 80), (20, 20, 20)
RED, WHITE = (200, 45, 45), (238, 236, 226)
FRAME = (35, 35, 35)


@register("double_card")
def draw(state: Any, seat: int | None, last: Any, who: Sequence[str]) -> Drawing:
    left, top = 34, 92
    d = Drawing(left + COLS * CELL + 24, top + ROWS * CELL + 34, background=TABLE)
    status = status_text(state.winner, state.taken, state.to_move)
    colour = seat_colour(state.to_move) if state.winner < 0 else INK
    you = " (you)" if seat is not None and state.winner < 0 and state.to_move == seat else ""
    d.text(16, 20, f"Double Card · {status}{you}", size=15, fill=colour, bold=True)
    for s in range(2):
        d.text(16, 44 + s * 18, f"{seat_name(s, who)} plays {state.objective(s)}",
               size=12, fill=seat_colour(s))
    placed = min(state.moves, CARDS)
    d.text(d.width - 16, 44, f"move {state.moves} of {state.game.max_moves}", size=12, fill=INK, anchor="end")
    d.text(d.width - 16, 62, f"cards left {CARDS - placed}" if state.moves < CARDS else "recycling cards", size=12, fill=MUTED,
           anchor="end")
    d.rect(left, top, COLS * CELL, ROWS * CELL, fill=FELT)
    for c in range(COLS * ROWS):
        x0, y0 = left + (c % COLS) * CELL, top + (ROWS - 1 - c // COLS) * CELL
        code = state.seg[c]
        target = f"cell-{c}" if seat is not None else None
        if code == EMPTY:
            d.rect(x0 + 2, y0 + 2, CELL - 4, CELL - 4, fill=EMPTY_CELL, radius=2, target=target)
            continue
        d.rect(x0, y0, CELL, CELL, fill=RED if code in (R_DOT, R_RING) else WHITE, target=target)
        if code in (R_DOT, W_DOT):
            d.circle(x0 + CELL / 2, y0 + CELL / 2, CELL * 0.22, fill=DOT)
        else:
            d.circle(x0 + CELL / 2, y0 + CELL / 2, CELL * 0.22, stroke=DOT, width=3)
    for anchor, other in state.card_cells():
        rows, cols = sorted((anchor // COLS, other // COLS)), sorted((anchor % COLS, other % COLS))
        x0, x1 = left + cols[0] * CELL, left + (cols[1] + 1) * CELL
        y0, y1 = top + (ROWS - 1 - rows[1]) * CELL, top + (ROWS - rows[0]) * CELL
        gold = anchor == state.last
        d.rect(x0 + 1, y0 + 1, x1 - x0 - 2, y1 - y0 - 2, stroke=HIGHLIGHT if gold else FRAME, width=4 if gold else 2)
    for x in range(COLS):
        d.text(left + x * CELL + CELL / 2, top + ROWS * CELL + 14, chr(65 + x), size=12, fill=MUTED, anchor="middle")
    for y in range(ROWS):
        d.text(left - 8, top + (ROWS - 1 - y) * CELL + CELL / 2, str(y + 1), size=12, fill=MUTED, anchor="end")
    return d


@register_targets("double_card")
def targets(state: Any, seat: int) -> dict[int, list[str]]:
    """A placement is the two cells the card will cover, a take the two cells of the card
    taken: clicking a cell offers the moves that cover it (its card orientations)."""
    out = {}
    for action in state.legal_actions(seat):
        if action >= PICK_BASE:
            anchor = action - PICK_BASE
            cells = (anchor, state.partner(anchor))
        else:
            placement, anchor = action // CELLS + 1, action % CELLS
            cells = (anchor, other_cell(anchor, HORIZONTAL[placement]))
        out[action] = [f"cell-{c}" for c in cells]
    return out
