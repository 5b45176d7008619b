"""Tribolo's text forms: a move as a cell name (``c2``, or ``x,y`` counted from 0), a
position as a header and one line of symbols per row (``to_text``, read back by
``state_from_text``), and the board a person sees at the terminal (``view_text``).

Only text lives here, and it reads the board's data (its geometry, owner codes, counts),
never a state: the rules that a position read from text must satisfy (the seat to move
has a move, or nobody has one when the game is over; the header's counts) are checked by
``TriboloGame.state_from_board`` and ``TriboloGame.state_from_text``.
"""

from __future__ import annotations

import re

import numpy as np

from parlour.games.base import shown
from parlour.games.tribolo.board import NUM_PLAYERS, SYMBOLS, WALL
from parlour.games.tribolo.geometry import Geometry

_TO_TEXT = bytes.maketrans(bytes(range(5)), SYMBOLS.encode())
"""``bytes.translate`` table: owner codes to their symbols."""

_HEADER = re.compile(
    r"(?:player_(?P<seat>[0-2]) to move|game over(?: \| (?:player_[0-2](?:, player_[0-2])* wins?|draw))?)"
    r" \| B (?P<B>\d+) R (?P<R>\d+) G (?P<G>\d+)"
)


# --- moves ---------------------------------------------------------------------------------


def cell_text(geo: Geometry, action: int) -> str:
    """Column letter and row number: ``a1`` is (x=0, y=0), ``c2`` is (x=2, y=1)."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or not 0 <= action < geo.cells:
        raise ValueError(f"tribolo action must be a cell index 0..{geo.cells - 1}, got {action!r}")
    y, x = divmod(int(action), geo.width)
    return f"{chr(97 + x)}{y + 1}"


def text_to_cell(geo: Geometry, text: str) -> int:
    """``c2`` (column letter, row from 1) or ``x,y`` / ``(x,y)`` (from 0)."""
    if not isinstance(text, str):
        raise ValueError(f"a tribolo move is text like 'c2' or '2,1', got {shown(text)}")
    t = text.strip().lower()
    m = re.fullmatch(r"([a-z])(\d+)", t)
    if m:
        x, y = ord(m[1]) - 97, int(m[2]) - 1
    else:
        m = re.fullmatch(r"\(?\s*(\d+)\s*,\s*(\d+)\s*\)?", t)
        if not m:
            raise ValueError(
                f"a tribolo move is a cell like 'c2' (column a-{chr(96 + geo.width)}, row 1-{geo.height}) "
                f"or 'x,y' (from 0); got {shown(text)}"
            )
        x, y = int(m[1]), int(m[2])
    if not (0 <= x < geo.width and 0 <= y < geo.height):
        raise ValueError(f"cell {shown(text)} is off the {geo.width} x {geo.height} board")
    return y * geo.width + x


# --- positions -----------------------------------------------------------------------------


def position_text(geo: Geometry, board: bytearray, to_move: int, counts: list[int], winners: list[int]) -> str:
    """Header (whose turn, or game over and the ``winners``; ``counts``: cells per
    player), then one line of ``width`` symbols per row ``y = 0..height-1`` of the owner
    codes ``board``; ``to_move`` is -1 once the game is over."""
    b, r, g = counts
    if to_move >= 0:
        head = f"player_{to_move} to move"
    else:
        head = "game over | " + (
            "draw" if len(winners) == 3 else ", ".join(f"player_{s}" for s in winners) + (" wins" if len(winners) == 1 else " win")
        )
    w = geo.width
    text = board.translate(_TO_TEXT).decode()
    rows = [text[y * w : (y + 1) * w] for y in range(geo.height)]
    return "\n".join([f"{head} | B {b} R {r} G {g}", *rows])


def view_text(position: str, width: int, seat: int) -> str:
    """What the person at ``seat`` sees in the terminal: which letter is theirs, the
    header of the text form ``position`` (:func:`position_text`), then the board with
    column letters and row numbers as the move notation names the cells (``a1`` is the
    top-left cell)::

        you are B (player_0); R is player_1, G is player_2; # is a wall
        player_1 to move | B 2 R 1 G 1
            a b c d
          1 B R . .
          2 . . B G
    """
    check_seat(seat)
    others = ", ".join(f"{SYMBOLS[s]} is player_{s}" for s in range(NUM_PLAYERS) if s != seat)
    head, *rows = position.split("\n")
    pad = len(str(len(rows)))
    lines = [f"you are {SYMBOLS[seat]} (player_{seat}); {others}; # is a wall", head,
             " " * (pad + 1) + " ".join(chr(97 + x) for x in range(width))]
    lines += [f"{y:>{pad}} " + " ".join(row) for y, row in enumerate(rows, 1)]
    return "\n".join(lines)


def check_seat(seat: object) -> None:
    """``ValueError`` unless ``seat`` is one of Tribolo's three seats."""
    if seat not in (0, 1, 2):
        raise ValueError(f"tribolo: no seat {seat!r}; seats are 0, 1, 2")


def read_rows(geo: Geometry, rows: list[str] | str) -> tuple[bytearray, list[int], int]:
    """Board rows of symbols (``.#BRG``; a string is split on white space) as the owner
    codes of the cells, each seat's bitboard and the walls' bitboard; ``ValueError`` if
    they do not fit the board or hold another symbol."""
    if isinstance(rows, str):
        rows = rows.split()
    if len(rows) != geo.height or any(len(r) != geo.width for r in rows):
        raise ValueError(
            f"a tribolo board here is {geo.height} rows of {geo.width} characters, got "
            f"{len(rows)} rows of lengths {[len(r) for r in rows]}"
        )
    board = bytearray(geo.cells)
    own, walls = [0, 0, 0], 0
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            code = SYMBOLS.find(ch)
            if code < 0:
                raise ValueError(
                    f"unknown symbol {ch!r} at x={x}, y={y}; use . (empty), # (wall), "
                    f"B (player_0), R (player_1), G (player_2)"
                )
            c = y * geo.width + x
            board[c] = code
            if code < 3:
                own[code] |= 1 << c
            elif code == WALL:
                walls |= 1 << c
    return board, own, walls


def parse_position(text: str) -> tuple[int | None, list[int], list[str]]:
    """Read :func:`position_text` as ``(to_move, counts, rows)``: the header gives the
    seat to move (``None`` once the game is over) and the cells per player, which
    ``TriboloGame.state_from_text`` checks against the board ``rows`` that follow."""
    if not isinstance(text, str):
        raise ValueError(f"a tribolo position is text, got {shown(text)}")
    lines = [line.strip() for line in text.strip().splitlines()]
    example = "player_0 to move | B 12 R 12 G 12  (or: game over | B 20 R 15 G 9)"
    if not lines:
        raise ValueError(f"empty tribolo position; expected a header like {example!r} and the board rows")
    match = _HEADER.fullmatch(lines[0])
    if not match:
        raise ValueError(f"malformed tribolo header {lines[0]!r}; expected e.g. {example!r}")
    to_move = None if match["seat"] is None else int(match["seat"])
    return to_move, [int(match[s]) for s in "BRG"], lines[1:]
