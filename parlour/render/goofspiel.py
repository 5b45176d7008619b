"""Goofspiel's picture: the prize card and the pot in the middle, then a row per seat
(who sits there, its points, its hand as cards, the card it bid last round, the round's winner marked)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlour.games.base import counted
from parlour.games.bitmask import set_bits
from parlour.render.drawing import Drawing
from parlour.render.registry import register, register_targets
from parlour.render.style import CARD_H, CARD_W, HIGHLIGHT, INK, MUTED, TABLE, card, seat_colour

ROW = CARD_H + 34
NAME_CHARS = 14
"""The characters of who sits in a seat that fit left of its hand."""


@register("goofspiel")
def draw(state: Any, seat: int | None, last: Any, who: Sequence[str]) -> Drawing:
    game = state.game
    players, n = game.num_players, game.num_cards
    width = max(560, 150 + (game.num_actions + 2) * (CARD_W + 4))
    d = Drawing(width, 150 + players * ROW, background=TABLE)
    over = state.is_terminal()
    title = "game over" if over else f"round {state.round + 1} of {n}: every seat bids at once"
    d.text(16, 20, f"Goofspiel · {title}", size=17, fill=INK, bold=True)
    if not over:
        prize = state.prizes[state.round]
        card(d, 16, 42, str(prize), w=54, h=76, colour=(160, 30, 30), corner="prize")
        stake = state.pot + prize
        d.text(84, 62, f"at stake {stake}" + (f" (pot {state.pot})" if state.pot else ""), size=14, fill=INK)
    else:
        d.text(16, 62, "final points: " + ", ".join(f"player_{s} {state.points[s]}" for s in range(players)), size=14, fill=INK)
    if game.config["prize_order"] == "random":
        come = sorted(set(range(1, n + 1)) - set(state.prizes[: state.round + 1]))
        d.text(84, 88, "prizes to come (order hidden): " + (" ".join(map(str, come)) or "-"), size=12, fill=MUTED)
    else:
        d.text(84, 88, "prizes to come: " + (" ".join(map(str, state.prizes[state.round + 1 :])) or "-"), size=12, fill=MUTED)
    bids = state.bids[-1] if state.bids else None
    winner = state.winners[-1] if state.winners else None
    hidden = game.config["imperfect_info"]
    for p in range(players):
        y = 132 + p * ROW
        colour = seat_colour(p)
        d.rect(10, y - 8, width - 20, ROW - 6, fill=(248, 250, 246), stroke=colour, width=2 if p == seat else 1, radius=6)
        d.text(20, y + 8, f"player_{p}", size=14, fill=colour, bold=True)
        if who[p]:
            d.text(20, y + 26, who[p] if len(who[p]) <= NAME_CHARS else who[p][: NAME_CHARS - 1] + "…", size=12, fill=colour)
        d.text(20, y + 44 if who[p] else y + 28, counted(state.points[p], "point"), size=13, fill=INK)
        hand = set_bits(state.hands[p])
        show = seat is None or p == seat or not hidden
        for i, action in enumerate(hand):
            card(d, 130 + i * (CARD_W + 4), y, str(action + 1) if show else "", face_up=show, colour=colour,
                 target=f"card-{action}" if p == seat else None)
        if bids is not None:
            x = width - 20 - CARD_W
            visible = seat is None or p == seat or not hidden
            d.text(x - 8, y + 8, "last bid", size=11, fill=MUTED, anchor="end")
            card(d, x, y, str(bids[p] + 1) if visible else "?", colour=colour, marked=winner == p)
            if winner == p:
                d.text(x - 8, y + 28, f"won {state.prizes[state.round - 1]}", size=11, fill=HIGHLIGHT, anchor="end", bold=True)
    if winner is not None and winner < 0:
        d.text(width - 20, 88, "last round tied", size=12, fill=MUTED, anchor="end")
    return d


@register_targets("goofspiel")
def targets(state: Any, seat: int) -> dict[int, list[str]]:
    """A bid is the card of the seat's hand."""
    return {action: [f"card-{action}"] for action in state.legal_actions(seat)}
