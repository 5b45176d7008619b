"""Pick-up sticks' picture: the sticks still in the pile upright, those taken lying
greyed, who sits where (when the caller names anyone), whose turn it is, and the last
move when the caller knows it (``last``: ``(seat, action)``; the state keeps only the
pile)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlour.games.base import counted
from parlour.render.drawing import Drawing
from parlour.render.registry import register, register_targets
from parlour.render.style import HIGHLIGHT, INK, MUTED, TABLE, seat_colour, seat_name, text_width

WOOD, TAKEN = (150, 100, 50), (205, 200, 190)


@register("sticks")
def draw(state: Any, seat: int | None, last: Any, who: Sequence[str]) -> Drawing:
    game = state.game
    total, left = game.num_sticks, state.sticks
    step = max(6, min(22, 560 // max(total, 1)))
    rule = "whoever takes the last stick loses" if game.config["misere"] else "whoever takes the last stick wins"
    title = f"Pick-up sticks · take 1 to {game.max_take}; {rule}"
    if state.is_terminal():
        status = f"game over: {seat_name(int(state.returns().argmax()), who)} wins"
    else:
        status = f"{counted(left, 'stick')} left · {seat_name(state.to_move, who)} to move"
    took = f"{seat_name(last[0], who)} took {last[1] + 1}" if last is not None else ""
    width = int(max(480, 40 + total * step, text_width(title, 15) + 32, text_width(status, 14) + text_width(took, 13) + 56))
    d = Drawing(width, 190, background=TABLE)
    d.text(16, 20, title, size=15, fill=INK, bold=True)
    if any(who):  # who sits where, between the rule and the pile
        x = 16.0
        for s in range(game.num_players):
            d.text(x, 40, seat_name(s, who), size=12, fill=seat_colour(s))
            x += text_width(seat_name(s, who), 12) + 24
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
    d.text(16, 165, status, size=14, fill=seat_colour(state.to_move) if not state.is_terminal() else INK, bold=True)
    if took:
        d.text(width - 16, 165, took, size=13, fill=MUTED, anchor="end")
    return d


@register_targets("sticks")
def targets(state: Any, seat: int) -> dict[int, list[str]]:
    """Taking k sticks is clicking the k-th stick from the right end of the pile."""
    return {action: [f"stick-{state.sticks - action - 1}"] for action in state.legal_actions(seat)}
