"""Tides of Time's picture: a row per seat with its kingdom (the cards drafted this round
and its relics, each card with its number, suit colour and name) and its hand (face down
where the viewing seat does not know it), the round, the step and the scores; the two
cards picked last are outlined."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlour.games.bitmask import set_bits
from parlour.games.tides_of_time import CARDS, PHASES
from parlour.render.drawing import Drawing
from parlour.render.registry import register, register_targets
from parlour.render.style import HIGHLIGHT, INK, MUTED, TABLE, card, seat_colour, seat_name

SUIT_COLOURS = {"Palace": (170, 120, 20), "Library": (40, 90, 170), "Garden": (40, 140, 60), "Temple": (150, 60, 150),
                "Stronghold": (170, 50, 40), None: (90, 90, 90)}
W, H = 58, 74
ROW = 2 * H + 70


def _card(d: Drawing, x: float, y: float, action: int, face_up: bool = True, marked: bool = False, relic: bool = False,
          target: str | None = None) -> None:
    info = CARDS[action]
    colour = SUIT_COLOURS[info.suit]
    card(d, x, y, str(info.number), w=W, h=H, face_up=face_up, colour=colour, marked=marked, target=target)
    if face_up:
        d.text(x + W / 2, y + 9, info.suit or "no suit", size=8, fill=colour, anchor="middle")
        if relic:
            d.text(x + W / 2, y + 19, "relic", size=8, fill=(120, 120, 120), anchor="middle", bold=True)
        name = info.name if len(info.name) <= 11 else info.name[:10] + "…"
        d.text(x + W / 2, y + H - 9, name, size=7, fill=colour, anchor="middle")


@register("tides_of_time")
def draw(state: Any, seat: int | None, last: Any, who: Sequence[str]) -> Drawing:
    game = state.game
    width = 60 + 10 * (W + 6)
    d = Drawing(width, 60 + 2 * ROW, background=TABLE)
    phase = PHASES[state.phase]
    step = {"draft": f"pick {state.pick + 1} of 5", "relic": "choose a relic", "discard": "choose a discard", "over": "game over"}[phase]
    head = "game over" if phase == "over" else f"round {state.round + 1} of {game.rounds}: {step} (both seats at once)"
    d.text(16, 20, f"Tides of Time · {head}", size=16, fill=INK, bold=True)
    totals = state.totals()
    d.text(width - 16, 20, f"score {totals[0]} : {totals[1]}", size=14, fill=INK, anchor="end", bold=True)
    picks = state.picks[state.round] if state.round < len(state.picks) and state.picks[state.round] else []
    last_pick = picks[-1] if picks else (None, None)
    knows = state.info_state(seat) if seat is not None else None
    for p in range(2):
        y = 46 + p * ROW
        colour = seat_colour(p)
        d.rect(8, y, width - 16, ROW - 10, fill=(248, 250, 246), stroke=colour, width=2 if p == seat else 1, radius=6)
        scores = " + ".join(str(s[p]) for s in state.scores) or "-"
        d.text(18, y + 14, f"{seat_name(p, who)} · round scores: {scores}", size=13, fill=colour,
               bold=True)
        d.text(18, y + 34, "kingdom", size=11, fill=MUTED)
        kingdom = [(a, False) for a in set_bits(state.drafted[p])] + [(a, True) for a in set_bits(state.relics[p])]
        for i, (action, relic) in enumerate(kingdom):
            _card(d, 80 + i * (W + 6), y + 24, action, marked=action == last_pick[p], relic=relic,
                  target=f"card-{action}" if p == seat and not relic else None)
        d.text(18, y + 34 + H + 10, "hand", size=11, fill=MUTED)
        hand = set_bits(state.hands[p])
        if knows is None or p == seat:
            shown = set(hand)
        else:
            shown = set(set_bits(knows.opp_hand))
        for i, action in enumerate(hand):
            face_up = action in shown
            _card(d, 80 + i * (W + 6), y + 30 + H, action if face_up else 0, face_up=face_up,
                  target=f"card-{action}" if p == seat else None)
    if phase == "over":
        t0, t1 = totals
        result = "draw" if t0 == t1 else f"player_{0 if t0 > t1 else 1} wins"
        d.text(width / 2, 20 + 2 * ROW + 26, result, size=15, fill=HIGHLIGHT, anchor="middle", bold=True)
    return d



@register_targets("tides_of_time")
def targets(state: Any, seat: int) -> dict[int, list[str]]:
    """A pick is a card of the hand; a relic or a discard a card drafted this round."""
    return {action: [f"card-{action}"] for action in state.legal_actions(seat)}
