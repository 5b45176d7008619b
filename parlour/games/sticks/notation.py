"""Sticks' notation: a move is how many sticks are taken (``3``), a position is
``7 sticks | player_1 to move`` (``0 sticks | player_0 took the last stick | player_1
wins`` at the end); both written and read back here, from the game's numbers."""

from __future__ import annotations

import re

from parlour.games.base import shown

_TEXT = re.compile(
    r"(?P<sticks>\d+) sticks? \| player_(?P<seat>\d) (?P<verb>to move|took the last stick)"
    r"(?: \| player_\d wins)?"
)
_OLD_ONE = re.compile(r"^1 sticks ")
"""One stick left was once written ``1 sticks``; ``parse_position`` still reads that form."""


def action_text(action: int, max_take: int) -> str:
    """Action ``a`` written as the sticks it takes, ``a + 1``."""
    if not 0 <= action < max_take:
        raise ValueError(f"sticks action must be 0..{max_take - 1}, got {action!r}")
    return str(action + 1)


def text_action(text: str, max_take: int) -> int:
    """The action of a move written as how many sticks to take."""
    text = text.strip()
    if not text.isdigit() or not 1 <= int(text) <= max_take:
        raise ValueError(
            f"a sticks move is how many to take, 1..{max_take}; got {shown(text)}"
        )
    return int(text) - 1


def position_text(sticks: int, to_move: int, winner: int | None) -> str:
    """The text form of ``sticks`` left and the seat ``to_move`` (``winner`` once over)."""
    if sticks:
        return f"{sticks} stick{'s' if sticks != 1 else ''} | player_{to_move} to move"
    return (
        f"0 sticks | player_{1 - to_move} took the last stick | "
        f"player_{winner} wins"
    )


def parse_position(text: str, num_sticks: int) -> tuple[int, int]:
    """``(sticks, to_move)`` of a text form (``position_text``) in a game of at most
    ``num_sticks``; ``ValueError`` for a malformed one (the caller checks the round trip
    with :func:`check_written`, which needs the winner the rules decide)."""
    match = _TEXT.fullmatch(text.strip())
    if not match:
        raise ValueError(
            f"malformed sticks position {shown(text)}; expected e.g. "
            f"'7 sticks | player_1 to move', '1 stick | player_0 to move' or "
            f"'0 sticks | player_0 took the last stick'"
        )
    sticks, seat, verb = int(match["sticks"]), int(match["seat"]), match["verb"]
    if sticks > num_sticks or seat > 1:
        raise ValueError(
            f"position {shown(text)} does not fit this game: at most {num_sticks} "
            f"sticks and seats player_0, player_1"
        )
    if (sticks == 0) != (verb == "took the last stick"):
        raise ValueError(
            f"malformed sticks position {shown(text)}: 'to move' needs sticks left, "
            f"'took the last stick' needs 0 sticks"
        )
    return sticks, (seat if sticks else 1 - seat)


def check_written(text: str, written: str) -> None:
    """``ValueError`` unless ``text`` is ``written`` (the position read, written again),
    or its old form."""
    if written not in (text.strip(), _OLD_ONE.sub("1 stick ", text.strip())):
        raise ValueError(f"malformed sticks position {shown(text)}; did you mean {written!r}?")
