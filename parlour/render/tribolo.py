"""Tribolo's picture: the board with its column letters and row numbers as the move
notation names cells (``a1`` top left), each seat's stones in its colour, walls dark,
the last stone placed ringed, the seats (who sits in each) with their cell counts and
whose turn it is (the legal cells of the seat to move dotted)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlour.games.bitmask import iter_bits
from parlour.games.tribolo import EMPTY, SYMBOLS, WALL
from parlour.render.drawing import Drawing
from parlour.render.registry import register, register_targets
from parlour.render.style import HIGHLIGHT, INK, MUTED, TABLE, seat_colour, seat_name, text_width

BOARD, GRID, WALL_COLOUR = (226, 214, 180), (150, 140, 110), (70, 70, 75)


@register("tribolo")
def draw(state: Any, seat: int | None, last: Any, who: Sequence[str]) -> Drawing:
    geo = state.geo
    w, h = geo.width, geo.height
    cell = max(22, min(40, 600 // max(w, h)))
    left, top = 36, 70
    counts = state.counts()
    legend = [f"{seat_name(s, who)}: {counts[s]}" for s in range(3)]
    starts = [16.0]
    for text in legend:
        starts.append(starts[-1] + max(130, 20 + text_width(text, 12) + 14))
    d = Drawing(max(left + w * cell + 20, 460, int(starts[-1])), top + h * cell + 24, background=TABLE)
    if state.to_move < 0:
        won = state.winners()
        winners = " and ".join(f"player_{s}" for s in won) + (" wins" if len(won) == 1 else " win")
        status = "game over: " + ("draw" if len(won) == 3 else winners)
        colour = INK
    else:
        mover = state.to_move
        status = f"player_{mover} ({SYMBOLS[mover]})" + (f" ({who[mover]})" if who[mover] else "") + " to move"
        colour = seat_colour(state.to_move)
    d.text(16, 20, f"Tribolo · {status}", size=16, fill=colour, bold=True)
    for s in range(3):
        x = starts[s]
        d.circle(x + 8, 46, 7, fill=seat_colour(s))
        d.text(x + 20, 46, legend[s], size=12, fill=INK)
    for x in range(w):
        d.text(left + x * cell + cell / 2, top - 10, chr(97 + x), size=11, fill=MUTED, anchor="middle")
    for y in range(h):
        d.text(left - 8, top + y * cell + cell / 2, str(y + 1), size=11, fill=MUTED, anchor="end")
    d.rect(left, top, w * cell, h * cell, fill=BOARD, stroke=GRID, width=1)
    for i in range(1, w):
        d.line(left + i * cell, top, left + i * cell, top + h * cell, stroke=GRID, width=1)
    for i in range(1, h):
        d.line(left, top + i * cell, left + w * cell, top + i * cell, stroke=GRID, width=1)
    legal = set(iter_bits(state.legal)) if state.to_move >= 0 else set()
    last_cell = state.history[-1][0] if state.history else None
    board = state.board
    for c in range(w * h):
        x0, y0 = left + (c % w) * cell, top + (c // w) * cell
        code = board[c]
        if code == WALL:
            d.rect(x0 + 1, y0 + 1, cell - 2, cell - 2, fill=WALL_COLOUR)
        elif code != EMPTY:
            d.circle(x0 + cell / 2, y0 + cell / 2, cell * 0.38, fill=seat_colour(code), stroke=(255, 255, 255), width=1)
        elif c in legal:
            if state.to_move == seat:
                d.rect(x0 + 1, y0 + 1, cell - 2, cell - 2, fill=BOARD, target=f"cell-{c}")
            d.circle(x0 + cell / 2, y0 + cell / 2, cell * 0.1, fill=seat_colour(state.to_move))
        if c == last_cell:
            d.circle(x0 + cell / 2, y0 + cell / 2, cell * 0.45, stroke=HIGHLIGHT, width=3)
    return d


@register_targets("tribolo")
def targets(state: Any, seat: int) -> dict[int, list[str]]:
    """A move is the cell played."""
    return {action: [f"cell-{action}"] for action in state.legal_actions(seat)}
