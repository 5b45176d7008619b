"""What the pictures share: the colours of the seats and cards, a seat's name with who
sits in it (the legends), and a card drawn as a rounded rectangle with its value (the
pictures of Goofspiel and Tides of Time)."""

from __future__ import annotations

from collections.abc import Sequence

from parlour.render.drawing import Colour, Drawing

INK: Colour = (30, 30, 30)
MUTED: Colour = (120, 120, 120)
TABLE: Colour = (236, 240, 233)
CARD: Colour = (255, 255, 252)
CARD_BACK: Colour = (70, 90, 140)
HIGHLIGHT: Colour = (230, 160, 20)
SEATS: tuple[Colour, ...] = ((40, 90, 200), (200, 50, 50), (40, 150, 70), (150, 80, 170), (200, 130, 30), (60, 150, 160))
"""player_0 blue, player_1 red, player_2 green, then more for larger games."""

CARD_W, CARD_H = 34, 48


def seat_colour(seat: int) -> Colour:
    return SEATS[seat % len(SEATS)]


def seat_name(s: int, who: Sequence[str]) -> str:
    """``player_1 (alphabeta)``: the seat and who sits in it (``who[s]``, as
    :func:`parlour.render.picture` gives it), or the seat alone where nobody is named."""
    return f"player_{s} ({who[s]})" if who[s] else f"player_{s}"


def text_width(text: str, size: float) -> float:
    """About how wide ``text`` is drawn at ``size`` (DejaVu Sans averages 0.6 of the size
    a character; a bold face a little more): enough to lay out a legend's entries."""
    return 0.64 * size * len(text)


def card(d: Drawing, x: float, y: float, label: str, *, w: float = CARD_W, h: float = CARD_H, face_up: bool = True,
         colour: Colour = INK, border: Colour = MUTED, corner: str = "", marked: bool = False, target: str | None = None) -> None:
    """A card with its top-left corner at ``(x, y)``: ``label`` large in the middle,
    ``corner`` small at the top left; face down it is a plain back; ``marked`` outlines
    it (the last move); ``target`` makes it clickable on the web page."""
    if not face_up:
        d.rect(x, y, w, h, fill=CARD_BACK, stroke=(40, 50, 80), width=1.5, radius=4)
        return
    d.rect(x, y, w, h, fill=CARD, stroke=HIGHLIGHT if marked else border, width=3 if marked else 1.5, radius=4, target=target)
    d.text(x + w / 2, y + h / 2 + 2, label, size=min(w, h) * 0.5, fill=colour, anchor="middle", bold=True)
    if corner:
        d.text(x + 4, y + 8, corner, size=9, fill=colour)
