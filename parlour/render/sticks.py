"""Pick-up sticks' picture: the sticks still in the pile upright, those taken lying
greyed, whose turn it is, and the last move when the caller knows it (``last``:
``(seat, action)``; the state keeps only the pile)."""

from __future__ import annotations

from typing import Any

from parlour.render.drawing import Drawing
from parlour.render.registry import register, register_targets
from parlour.render.style import HIGHLIGHT, INK, MUTED, TABLE, seat_colour

WOOD, TAKEN = (150, 100, 50), (205, 200, 190)


@register("sticks")
def draw(state: Any, seat: int | None, last: Any) -> Drawing:
    game = state.game
    total, left = game.num_sticks, state.sticks
    step = max(6, min(22, 560 // max(total, 1)))
    width = max(480, 40 + total * step)
    d = Drawing(width, 190, background=TABLE)
    rule = "whoever takes the last stick loses" if game.config["misere"] else "whoever takes the last stick wins"
    d.text(16, 20, f"Pick-up sticks · take 1 to {game.max_take}; {rule}", size=15, fill=INK, bold=True)
    taken_now = last[1] + 1 if last is not None else 0
    for i in range(total):
        x = 24 + i * step
        if i < left:
            take = left - i  # clicking a stick takes it and every stick to its right
            if seat is not None and take <= game.max_take:
                d.rect(x - step / 2, 56, step, 88, fill=TABLE, target=f"stick-{i}")
            d.line(x, 60, x, 140, stroke=WOOD, width=max(2, step * 0.35))
        else:
            marked = i < left + taken_now
            d.line(x, 140, x, 132, stroke=HIGHLIGHT if marked else TAKEN, width=max(2, step * 0.35))
    if state.is_terminal():
        winner = int(state.returns().argmax())
        status = f"game over: player_{winner} wins"
    else:
        you = " (you)" if state.to_move == seat else ""
        status = f"{left} stick{'s' if left != 1 else ''} left · player_{state.to_move}{you} to move"
    d.text(16, 165, status, size=14, fill=seat_colour(state.to_move) if not state.is_terminal() else INK, bold=True)
    if last is not None:
        mover, action = last
        d.text(width - 16, 165, f"player_{mover} took {action + 1}", size=13, fill=MUTED, anchor="end")
    return d


@register_targets("sticks")
def targets(state: Any, seat: int) -> dict[int, list[str]]:
    """Taking k sticks is clicking the k-th stick from the right end of the pile."""
    return {action: [f"stick-{state.sticks - action - 1}"] for action in state.legal_actions(seat)}
