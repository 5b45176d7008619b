"""Double Card's notation: moves in the assignment's notation and the text form of a
position (both documented in docs/double_card.md).

Moves: ``0 P C R`` (a regular move: placement ``P`` anchored on column ``C``, row
``R``, e.g. ``0 5 A 2``); ``C1 R1 C2 R2 P C R`` (a recycling move: the two cells of the
card taken, then where it goes, e.g. ``F 2 F 3 3 A 2``); its two sub-steps alone are
``C1 R1 C2 R2`` (take) and ``P C R`` (place).  A cell may also be written without the
space (``A2``), as the terminal's lists of legal moves write it.

The functions read a position's data (:class:`Position`: the state's fields and the
game's options), never a state, and depend on :mod:`.board` only; what needs the rules
(the legal moves, examples of them, whether a position read from text could arise) is
passed in or checked by the state's ``action_to_text``, ``text_to_action``, ``to_text``
and the game's ``state_from_text``, which call them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from parlour.games.base import shown
from parlour.games.double_card.board import (
    CARDS,
    CELLS,
    COLS,
    COLUMN_A,
    COLUMN_LETTERS,
    HORIZONTAL,
    NUM_ACTIONS,
    OBJECTIVES,
    PICK_BASE,
    PLACEMENT_OF,
    ROW_1,
    ROWS,
    SEG_FROM_TEXT,
    SEG_OTHER,
    SEG_TEXT,
    cell_name,
    other_cell,
    partner,
    phase_of,
)


class Position(NamedTuple):
    """A position's data, as the text forms write and read it: the fields of
    ``DoubleCardState`` of the same names, and the game's options ``max_moves`` and
    ``first_player`` (the objective of player_0)."""

    seg: Sequence[int]
    hanch: int
    vanch: int
    moves: int
    to_move: int
    last: int
    taken: tuple[int, int] | None
    winner: int
    max_moves: int
    first_player: str

    @property
    def phase(self) -> str:
        return phase_of(self.winner, self.taken, self.moves)

    @property
    def cards(self) -> int:
        return (self.hanch | self.vanch).bit_count()

    def partner(self, cell: int) -> int:
        return partner(self.hanch, self.vanch, cell)

    def objective(self, seat: int) -> str:
        """``"colors"`` or ``"dots"``: what ``seat`` plays."""
        return self.first_player if seat == 0 else OBJECTIVES[1 - OBJECTIVES.index(self.first_player)]


Examples = Callable[[], dict[str, str]]
"""Moves legal now, in notation, for messages (``DoubleCardState.example_moves``):
called only when a message needs them, since finding one plays a move."""

_CELL = r"([A-Ha-h])\s*(\d{1,2})"
_REGULAR = re.compile(r"0\s+(\d)\s+" + _CELL)
_TAKE = re.compile(_CELL + r"\s+" + _CELL)
_PLACE = re.compile(r"(\d)\s+" + _CELL)
_RECYCLE = re.compile(_CELL + r"\s+" + _CELL + r"\s+(\d)\s+" + _CELL)
_HELP = "expected '0 P C R' (regular, e.g. '0 5 A 2') or 'C1 R1 C2 R2 P C R' (recycling, e.g. 'F 2 F 3 3 A 2')"


def _cell(text: str, col: str, row: str) -> int:
    r = int(row)
    if not 1 <= r <= ROWS:
        raise ValueError(f"malformed move {shown(text)}: row {row} is not 1..{ROWS}")
    return (r - 1) * COLS + COLUMN_LETTERS.index(col.upper())


def _placement(text: str, p: str) -> int:
    if not 1 <= int(p) <= 8:
        raise ValueError(f"malformed move {shown(text)}: placement {p} is not 1..8")
    return int(p)


def parse_notation(text: str, expected: str = _HELP) -> tuple[str, tuple]:
    """Parse a move: ``("regular", (p, anchor))``, ``("take", ((c1, c2),))``,
    ``("place", (p, anchor))`` or ``("recycle", ((c1, c2), p, anchor))``.

    ``anchor`` is the named cell; a placement's fit on the board is checked by the state.
    ``expected``: what a malformed move's error says is expected (a state passes the forms
    of its phase, with examples that are legal now).
    """
    if not isinstance(text, str):
        raise ValueError(f"a move must be a string in notation; {expected}; got {shown(text)}")
    s = " ".join(text.split())
    if m := _REGULAR.fullmatch(s):
        return "regular", (_placement(text, m[1]), _cell(text, m[2], m[3]))
    if m := _RECYCLE.fullmatch(s):
        cells = (_cell(text, m[1], m[2]), _cell(text, m[3], m[4]))
        return "recycle", (cells, _placement(text, m[5]), _cell(text, m[6], m[7]))
    if m := _TAKE.fullmatch(s):
        return "take", ((_cell(text, m[1], m[2]), _cell(text, m[3], m[4])),)
    if m := _PLACE.fullmatch(s):
        return "place", (_placement(text, m[1]), _cell(text, m[2], m[3]))
    raise ValueError(f"malformed move {shown(text)}; {expected}")


def _taken_cells(taken: tuple[int, int]) -> tuple[int, int]:
    t_anchor, t_p = taken
    return t_anchor, other_cell(t_anchor, HORIZONTAL[t_p])


def action_text(position: Position, action: int) -> str:
    """``'0 5 A 2'`` (regular), ``'F 2 F 3'`` (take), ``'F 2 F 3 3 A 2'`` (place after a take)."""
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"double_card actions are 0..{NUM_ACTIONS - 1}, got {action!r}")
    action = int(action)
    if action >= PICK_BASE:
        anchor = action - PICK_BASE
        other = position.partner(anchor)
        if other < anchor:  # no card anchored here: name the anchor only
            return f"take {cell_name(anchor)}"
        return f"{cell_name(anchor)} {cell_name(other)}"
    p, anchor = action // CELLS + 1, action % CELLS
    if position.taken is not None:
        t_anchor, t_other = _taken_cells(position.taken)
        return f"{cell_name(t_anchor)} {cell_name(t_other)} {p} {cell_name(anchor)}"
    return f"0 {p} {cell_name(anchor)}"


def place_text(action: int) -> str:
    """``'3 A 2'``: the second step of a recycling move alone (``P C R``)."""
    return f"{action // CELLS + 1} {cell_name(action % CELLS)}"


def _compact(cell: int) -> str:
    """``"F2"``: a cell without the space, for lists of many cells."""
    return cell_name(cell).replace(" ", "")


def expected_forms(position: Position, examples: dict[str, str]) -> str:
    """What a move looks like in the current phase, with ``examples`` that are legal now."""
    if not examples:
        return _HELP
    phase = position.phase
    if phase == "regular":
        return (f"expected '0 P C R' (a regular move: placement P, 1-8, with its bottom-left cell "
                f"on column C, row R), e.g. {examples['move']!r}")
    if phase == "pick":
        return (f"expected 'C1 R1 C2 R2 P C R' (a recycling move: take the card on C1 R1 and "
                f"C2 R2, then put it down with placement P on C R), e.g. {examples['move']!r}, "
                f"or its first step alone, e.g. {examples['take']!r}")
    assert position.taken is not None  # the place phase
    t_anchor, t_other = _taken_cells(position.taken)
    return (f"expected 'P C R' (put the card taken from {cell_name(t_anchor)} {cell_name(t_other)} "
            f"down with placement P on C R), e.g. {examples['place']!r}, or the whole recycling "
            f"move, e.g. {examples['move']!r}")


def action_from_text(position: Position, text: str, example_moves: Examples) -> int:
    """The action for a move in notation, for the current sub-step.

    Accepts ``0 P C R`` (a regular move), ``C1 R1 C2 R2`` (take a card),
    ``P C R`` (place the card taken) and the whole recycling move
    ``C1 R1 C2 R2 P C R`` (its take before the take, its placement after).  Errors
    give examples that are legal in this position (``example_moves()``).
    """
    try:
        kind, parts = parse_notation(text)
    except ValueError:  # parse again to raise the error with this position's forms and examples
        kind, parts = parse_notation(text, expected_forms(position, example_moves()))
    phase = position.phase
    if phase == "over":
        raise ValueError(f"the game is over; no move {shown(text)} can be played")
    if kind == "regular":
        if phase != "regular":
            raise ValueError(
                f"{shown(text)} is a regular move, but all {CARDS} cards are on the board: "
                f"recycle with 'C1 R1 C2 R2 P C R', e.g. {example_moves()['move']!r}"
                if phase == "pick" else
                f"{shown(text)} is a regular move, but a card was taken: place it with 'P C R', "
                f"e.g. {example_moves()['place']!r}, or the whole recycling move"
            )
        p, anchor = parts
        return (p - 1) * CELLS + anchor
    if phase == "regular":
        raise ValueError(
            f"{shown(text)} is a recycling move, but only {position.cards} of {CARDS} cards are on the board: "
            f"play a regular move '0 P C R', e.g. {example_moves()['move']!r}"
        )
    if kind == "place":
        if phase != "place":
            raise ValueError(
                f"{shown(text)} places a card, but none was taken: start with the card's cells "
                f"'C1 R1 C2 R2', e.g. {example_moves()['take']!r}, or type the whole "
                f"recycling move, e.g. {example_moves()['move']!r}"
            )
        p, anchor = parts
        return (p - 1) * CELLS + anchor
    cells = parts[0]
    if phase == "pick":
        if position.partner(cells[0]) != cells[1]:
            raise ValueError(f"{shown(text)}: cells {cell_name(cells[0])} and {cell_name(cells[1])} do not hold one card; "
                             f"a card that may be taken now: e.g. {example_moves()['take']!r}")
        return PICK_BASE + min(cells)
    assert position.taken is not None  # the place phase
    t_anchor, t_other = _taken_cells(position.taken)
    if kind == "take":
        raise ValueError(
            f"{shown(text)} takes a card, but the card from {cell_name(t_anchor)} {cell_name(t_other)} "
            f"was already taken: place it with 'P C R', e.g. {example_moves()['place']!r}"
        )
    if sorted(cells) != [t_anchor, t_other]:
        raise ValueError(f"{shown(text)}: the card being recycled came from {cell_name(t_anchor)} {cell_name(t_other)}")
    p, anchor = parts[1], parts[2]
    return (p - 1) * CELLS + anchor


def legal_moves_text(position: Position, legal: list[int], example_moves: Examples) -> str:
    """The moves ``legal`` of a seat for a person, a line per group that reads at a
    glance: the form of a move with a legal example, then either the cards that may be
    taken (first step of a recycling move) or, for each set of placements that fit the
    same cells, those placements and their bottom-left cells::

        '0 P C R' puts a card with placement P on cell C R (its bottom-left cell), e.g. '0 1 A 1'
          placements 1 3 5 7 (horizontal) at A1 B1 C1 D1 E1 F1 G1
          placements 2 4 6 8 (vertical) at A1 B1 C1 D1 E1 F1 G1 H1
    """
    if not legal:
        return "none"
    examples = example_moves()
    if position.phase == "pick":
        cards = ", ".join(f"{_compact(a - PICK_BASE)} {_compact(position.partner(a - PICK_BASE))}" for a in legal)
        return (
            f"'C1 R1 C2 R2 P C R' takes the card on C1 R1 and C2 R2 and puts it down with placement P "
            f"on C R, e.g. {examples['move']!r} (or type the take first, e.g. {examples['take']!r})\n"
            f"  cards you may take: {cards}"
        )
    anchors: dict[int, list[int]] = {}
    for action in legal:
        anchors.setdefault(action // CELLS + 1, []).append(action % CELLS)
    groups: dict[tuple[int, ...], list[int]] = {}
    for p, anchor_cells in anchors.items():
        groups.setdefault(tuple(anchor_cells), []).append(p)
    if position.phase == "regular":
        lines = [f"'0 P C R' puts a card with placement P on cell C R (its bottom-left cell), e.g. {examples['move']!r}"]
    else:
        assert position.taken is not None  # the place phase
        t_anchor, t_other = _taken_cells(position.taken)
        head = (f"'P C R' puts the card taken from {cell_name(t_anchor)} {cell_name(t_other)} down with placement P "
                f"on cell C R (its bottom-left cell), e.g. {examples['place']!r}")
        lines = [head]
    for cells, ps in sorted(groups.items(), key=lambda item: item[1][0] % 2 == 0):
        kind = "horizontal" if all(HORIZONTAL[p] for p in ps) else "vertical" if not any(HORIZONTAL[p] for p in ps) else ""
        name = f"placement{'s' if len(ps) > 1 else ''} {' '.join(map(str, ps))}" + (f" ({kind})" if kind else "")
        lines.append(f"  {name} at {' '.join(_compact(c) for c in cells)}")
    return "\n".join(lines)


def view_text(position: Position, seat: int) -> str:
    """What the person at ``seat`` sees in the terminal: their objective and the
    opponent's, then the text form (:func:`position_text`)."""
    if seat not in (0, 1):
        raise ValueError(f"double_card: no seat {seat!r}; seats are 0, 1")
    goals = {"colors": "four R or four W in a line", "dots": "four * or four o in a line"}
    mine, theirs = position.objective(seat), position.objective(1 - seat)
    return (f"you are player_{seat} and play {mine} ({goals[mine]}); player_{1 - seat} plays {theirs} "
            f"({goals[theirs]})\n{position_text(position)}")


# --- the text form of a position -------------------------------------------------------------


def status_text(winner: int, taken: tuple[int, int] | None, to_move: int) -> str:
    """``player_0 to move``, ``player_1 to place the card taken from D 1 (placement 6)``,
    ``player_0 wins`` or ``draw``."""
    if winner == 2:
        return "draw"
    if winner >= 0:
        return f"player_{winner} wins"
    if taken is not None:
        t_anchor, t_p = taken
        return f"player_{to_move} to place the card taken from {cell_name(t_anchor)} (placement {t_p})"
    return f"player_{to_move} to move"


def position_text(position: Position) -> str:
    """Header, then rows 12 down to 1: each cell is its segment (``R*`` ``Ro`` ``W*``
    ``Wo`` or ``..``) and a link: ``>`` the card continues to the right, ``^`` it
    continues upwards, a space otherwise."""
    p = position
    last = "none" if p.last < 0 else f"{cell_name(p.last)} {cell_name(p.partner(p.last))}"
    header = (
        f"double_card | move {p.moves}/{p.max_moves} | player_0 {p.objective(0)} | "
        f"{status_text(p.winner, p.taken, p.to_move)} | last {last}"
    )
    lines = [header]
    seg, hanch, vanch = p.seg, p.hanch, p.vanch
    for row in range(ROWS - 1, -1, -1):
        tokens = []
        for cell in range(row * COLS, row * COLS + COLS):
            link = ">" if hanch >> cell & 1 else "^" if vanch >> cell & 1 else " "
            tokens.append(SEG_TEXT[seg[cell]] + link)
        lines.append(f"{row + 1:>2} " + " ".join(tokens).rstrip())
    lines.append("   " + " ".join(f"{c}  " for c in COLUMN_LETTERS).rstrip())
    return "\n".join(lines)


_HEADER = re.compile(
    r"double_card \| move (?P<moves>\d+)/(?P<max>\d+) \| player_0 (?P<obj>colors|dots) \| "
    r"(?P<status>player_(?P<seat>[01]) to move|player_(?P<pseat>[01]) to place the card taken from "
    r"(?P<tc>[A-H]) (?P<tr>\d{1,2}) \(placement (?P<tp>[1-8])\)|player_(?P<wseat>[01]) wins|draw) \| "
    r"last (?P<last>none|[A-H] \d{1,2})(?: [A-H] \d{1,2})?"
)


def _board(lines: list[str]) -> tuple[list[int], int, int]:
    """Segments and card anchors (horizontal, vertical) of the 12 board lines, row 12
    first; checks the cells' syntax, that every card has a real face, that each segment
    is in one card and that none hangs."""
    seg, hanch, vanch = [0] * CELLS, 0, 0
    for i, line in enumerate(lines):
        row = ROWS - 1 - i
        prefix = f"{row + 1:>2} "
        if not line.startswith(prefix):
            raise ValueError(f"malformed double_card row {line!r}: expected it to start with {prefix!r}")
        body = line[len(prefix):].ljust(COLS * 4 - 1)
        if len(body) != COLS * 4 - 1:
            raise ValueError(f"malformed double_card row {line!r}: expected {COLS} cells of 3 characters")
        for col in range(COLS):
            token = body[col * 4 : col * 4 + 3]
            if col < COLS - 1 and body[col * 4 + 3] != " ":
                raise ValueError(f"malformed double_card row {line!r}: cells must be separated by one space")
            seg_text, link = token[:2], token[2]
            if seg_text not in SEG_FROM_TEXT or link not in " >^":
                raise ValueError(f"malformed cell {token!r} in row {row + 1}: expected one of R* Ro W* Wo .. followed by '>', '^' or ' '")
            cell = row * COLS + col
            seg[cell] = SEG_FROM_TEXT[seg_text]
            if link == ">":
                hanch |= 1 << cell
            elif link == "^":
                vanch |= 1 << cell
    covered = 0  # each occupied cell in exactly one card with a real face
    for anchor in range(CELLS):
        bit = 1 << anchor
        if not (hanch | vanch) & bit:
            continue
        horizontal = bool(hanch & bit)
        if horizontal and anchor % COLS == COLS - 1 or not horizontal and anchor // COLS == ROWS - 1:
            raise ValueError(f"card at {cell_name(anchor)} runs off the board")
        other = other_cell(anchor, horizontal)
        pair = bit | 1 << other
        if covered & pair:
            raise ValueError(f"card at {cell_name(anchor)} overlaps another card")
        covered |= pair
        key = (horizontal, seg[anchor])
        if key not in PLACEMENT_OF or SEG_OTHER[PLACEMENT_OF[key]] != seg[other]:
            raise ValueError(f"card at {cell_name(anchor)} {cell_name(other)} is not a Double Card face "
                             f"({SEG_TEXT[seg[anchor]]} {SEG_TEXT[seg[other]]})")
    occ = sum(1 << cell for cell in range(CELLS) if seg[cell])
    if occ != covered:
        stray = [cell_name(c) for c in range(CELLS) if (occ ^ covered) >> c & 1]
        raise ValueError(f"segments at {stray} belong to no card (mark a card's bottom-left cell with '>' or '^')")
    hanging = occ & ~(occ << COLS | ROW_1)
    if hanging:
        col = min(c for c in range(COLS) if hanging >> c & COLUMN_A)
        raise ValueError(f"column {COLUMN_LETTERS[col]} has a segment hanging over an empty cell")
    return seg, hanch, vanch


def parse_position(text: str, max_moves: int, first_player: str) -> Position:
    """The position that :func:`position_text` printed as ``text``, for a game with
    these options; a ``ValueError`` naming the first inconsistency the text shows (a
    stray segment, an impossible face, a hanging cell, a card count that does not fit
    the move number, the wrong player to move).  ``DoubleCardGame.state_from_text``
    checks what needs the rules (a line on the board of a game in progress, a recycling
    move left) and that the text is the position's own (:func:`check_canonical`)."""
    if not isinstance(text, str):
        raise ValueError(f"a double_card position must be text, got {shown(text)}")
    lines = text.strip("\n").split("\n")
    if len(lines) != ROWS + 2:
        raise ValueError(f"malformed double_card position: expected a header, {ROWS} rows and the column line; got {len(lines)} lines")
    header = _HEADER.fullmatch(lines[0].strip())
    if not header:
        raise ValueError(f"malformed double_card header {lines[0]!r}; expected e.g. "
                         f"'double_card | move 0/40 | player_0 colors | player_0 to move | last none'")
    if int(header["max"]) != max_moves:
        raise ValueError(f"position is for max_moves={header['max']}, this game has max_moves={max_moves}")
    if header["obj"] != first_player:
        raise ValueError(f"position has player_0 playing {header['obj']}, this game has first_player={first_player!r}")
    seg, hanch, vanch = _board(lines[1 : ROWS + 1])
    cards = (hanch | vanch).bit_count()
    moves = int(header["moves"])
    if moves > max_moves:
        raise ValueError(f"move {moves} is past max_moves={max_moves}")
    last = -1
    if header["last"] != "none":
        col, row = header["last"].split()[:2]
        last = _cell(header["last"], col, row)
        if not (hanch | vanch) >> last & 1:
            raise ValueError(f"last moved card {header['last']} is not the bottom-left cell of a card")
    status = header["status"]
    taken, winner, to_move = None, -1, moves % 2
    if header["pseat"] is not None:
        taken = (_cell(status, header["tc"], header["tr"]), int(header["tp"]))
        to_move = int(header["pseat"])
        if cards != CARDS - 1:
            raise ValueError(f"a card is being recycled, so {CARDS - 1} cards must be on the board, not {cards}")
    elif header["seat"] is not None:
        to_move = int(header["seat"])
    else:
        winner = 2 if status == "draw" else int(header["wseat"])
    if winner < 0 and to_move != moves % 2:
        raise ValueError(f"after {moves} moves player_{moves % 2} is to move, not player_{to_move}")
    expected = CARDS - 1 if taken is not None else min(moves, CARDS)
    if cards != expected or taken is not None and moves < CARDS:
        raise ValueError(f"{cards} cards on the board do not fit move {moves} (expected {expected})")
    if winner < 0 and moves >= max_moves:
        raise ValueError(f"move {moves} reached max_moves={max_moves}: the game must be over")
    return Position(seg, hanch, vanch, moves, to_move, last, taken, winner, max_moves, first_player)


def check_canonical(text: str, canonical: str) -> None:
    """``ValueError`` unless ``text`` is the text form ``canonical`` of the position it
    was read as (up to blank lines around it and spaces at line ends)."""
    lines = text.strip("\n").split("\n")
    if canonical != "\n".join(line.rstrip() for line in lines).strip("\n"):
        raise ValueError(f"malformed double_card position; did you mean:\n{canonical}")
