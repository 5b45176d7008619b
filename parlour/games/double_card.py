"""Double Card: two players, 24 two-segment cards on an 8 x 12 board, four in a row of
colours or of dots wins (the COMP 472/6721 Winter 2019 game; seed 002).

Board: columns ``A``-``H``, rows ``1``-``12`` (row 1 at the bottom); cell index
``row * 8 + col`` with 0-based row and column.  A segment is red or white (its
*colour*) and a filled dot or an empty circle (its *dot*); codes ``1 = R●, 2 = R○,
3 = W●, 4 = W○`` (ASCII ``R*``, ``Ro``, ``W*``, ``Wo``).  The eight placements put a
card's two faces in the four rotations; odd ones are horizontal (anchor and the cell to
its right), even ones vertical (anchor and the cell above it), see :data:`PLACEMENTS`.

Actions (one ``Discrete(864)``):

* ``(p - 1) * 96 + anchor`` for ``p`` in 1..8, ``anchor`` a cell: put a card with
  placement ``p`` and that bottom-left cell (a regular move, or the second sub-step of a
  recycling move);
* ``768 + anchor``: take the card whose bottom-left cell is ``anchor`` (the first
  sub-step of a recycling move).

A recycling move is two consecutive steps by the same seat (take, then place) because a
flat encoding would need 96 x 768 = 73,728 ids, nearly all illegal, and its masks would
dwarf the board; the two sub-steps keep both the action space and the masks small and
the observation says which sub-step it is.  The move counter counts the whole recycling
move once.  While a card is being moved it is off the board: the placement is checked
on the board without it (rule 10 of the rules file).

Wins are found incrementally: before the move no line existed, so only the 4-cell
windows through the two cells just filled can hold one (taking a card away cannot
create a line).  ``WINDOWS[cell]`` lists, pgx style, the bitmask of every window of the
board through ``cell``; ``LINES`` lists every row, column and diagonal of 4 or more
cells (the index table the evaluations of ``parlour.baselines.players.double_card``
share).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.base import (
    Game,
    GameInfo,
    Option,
    PerfectInfoState,
    State,
    check_choice,
    check_int,
)

COLS, ROWS = 8, 12
CELLS = COLS * ROWS
CARDS = 24
REGULAR_ACTIONS = 8 * CELLS  # 768
PICK_BASE = REGULAR_ACTIONS
NUM_ACTIONS = REGULAR_ACTIONS + CELLS  # 864
COLUMN_LETTERS = "ABCDEFGH"

EMPTY, R_DOT, R_RING, W_DOT, W_RING = 0, 1, 2, 3, 4
SEG_TEXT = {EMPTY: "..", R_DOT: "R*", R_RING: "Ro", W_DOT: "W*", W_RING: "Wo"}
SEG_FROM_TEXT = {v: k for k, v in SEG_TEXT.items()}
SEG_UNICODE = {EMPTY: "··", R_DOT: "R●", R_RING: "R○", W_DOT: "W●", W_RING: "W○"}

PLACEMENTS: dict[int, tuple[bool, int, int]] = {
    1: (True, R_DOT, W_RING),
    2: (False, W_RING, R_DOT),
    3: (True, W_RING, R_DOT),
    4: (False, R_DOT, W_RING),
    5: (True, R_RING, W_DOT),
    6: (False, W_DOT, R_RING),
    7: (True, W_DOT, R_RING),
    8: (False, R_RING, W_DOT),
}
"""placement -> (horizontal, segment at the anchor, segment at the other cell)."""
_PLACEMENT_OF = {(h, a): p for p, (h, a, _) in PLACEMENTS.items()}
_H_PLACEMENTS = (1, 3, 5, 7)
_V_PLACEMENTS = (2, 4, 6, 8)
_SEG_ANCHOR = [0] * 9
_SEG_OTHER = [0] * 9
_HORIZONTAL = [False] * 9
for _p, (_h, _a, _o) in PLACEMENTS.items():
    _SEG_ANCHOR[_p], _SEG_OTHER[_p], _HORIZONTAL[_p] = _a, _o, _h

OBJECTIVES = ("colors", "dots")
RECYCLE_RULES = ("same_cells", "same_placement", "none")


def cell_name(cell: int) -> str:
    """``"F 2"`` for the cell in column F, row 2 (the assignment's notation)."""
    return f"{COLUMN_LETTERS[cell % COLS]} {cell // COLS + 1}"


def _build_lines() -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Every row, column and diagonal of >= 4 cells; the windows through each cell."""
    lines: list[tuple[int, ...]] = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(ROWS):
            for c in range(COLS):
                pr, pc = r - dr, c - dc
                if 0 <= pr < ROWS and 0 <= pc < COLS:
                    continue  # not the start of a line
                cells = []
                rr, cc = r, c
                while 0 <= rr < ROWS and 0 <= cc < COLS:
                    cells.append(rr * COLS + cc)
                    rr, cc = rr + dr, cc + dc
                if len(cells) >= 4:
                    lines.append(tuple(cells))
    windows: list[list[int]] = [[] for _ in range(CELLS)]
    for line in lines:
        for i in range(len(line) - 3):
            mask = 0
            for cell in line[i : i + 4]:
                mask |= 1 << cell
            for cell in line[i : i + 4]:
                windows[cell].append(mask)
    lines_of: list[list[int]] = [[] for _ in range(CELLS)]
    for index, line in enumerate(lines):
        for cell in line:
            lines_of[cell].append(index)
    return lines, [tuple(w) for w in windows], [tuple(x) for x in lines_of]


LINES, WINDOWS, LINES_OF = _build_lines()
"""``LINES``: every line of >= 4 cells (rows, columns, both diagonals), cells in order.
``WINDOWS[cell]``: bitmasks of the 4-cell windows through ``cell``.
``LINES_OF[cell]``: indices into ``LINES`` of the lines through ``cell``."""


class DoubleCardGame(Game):
    name = "double_card"
    summary = "Double Card: two players place two-cell cards on an 8 x 12 board, then recycle them; four in a row of a colour or of a dot kind wins."
    options = {
        "max_moves": Option(40, "moves (regular + recycling) before a draw: 40 (the seed's tournament) or 60 (the assignment)"),
        "recycle_rule": Option("same_cells", "what a recycled card may not do: same_cells (not back onto its two cells), same_placement, none"),
        "first_player": Option("colors", "objective of the first mover (player_0): colors or dots"),
    }
    start_options = {
        "moves": "list of moves in the assignment's notation ('0 5 A 2', 'F 2 F 3 3 A 2') played from the empty board",
    }
    rgb_render = True

    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        return {
            "max_moves": check_int("max_moves", values["max_moves"], 1, 1000),
            "recycle_rule": check_choice("recycle_rule", values["recycle_rule"], RECYCLE_RULES),
            "first_player": check_choice("first_player", values["first_player"], OBJECTIVES),
        }

    def _info(self) -> GameInfo:
        max_moves = self.config["max_moves"]
        return self._game_info(
            num_players=2,
            num_actions=NUM_ACTIONS,
            perfect_information=True,
            zero_sum=True,
            has_chance=False,
            max_game_length=max_moves + max(0, max_moves - CARDS),
        )

    @property
    def max_moves(self) -> int:
        return self.config["max_moves"]

    @property
    def recycle_rule(self) -> str:
        return self.config["recycle_rule"]

    @property
    def colors_seat(self) -> int:
        """The seat that plays colors (player_0 is the first mover)."""
        return 0 if self.config["first_player"] == "colors" else 1

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (NUM_PLANES, ROWS, COLS)

    def new_initial_state(self, seed: int | np.random.Generator | None = None, **start: Any) -> DoubleCardState:
        """The empty board, player_0 to move; ``moves=[...]`` plays those moves first.

        No chance: ``seed`` is accepted for the protocol and ignored.
        """
        self._check_start(start)
        state = DoubleCardState(self)
        if "moves" in start:
            moves = start["moves"]
            if isinstance(moves, str) or not isinstance(moves, Sequence):
                raise ValueError(f"start option moves must be a list of moves in notation, got {moves!r}")
            for index, move in enumerate(moves):
                if not isinstance(move, str):
                    raise ValueError(f"start option moves[{index}] must be a string such as '0 5 A 2', got {move!r}")
                try:
                    state.play(move)
                except ValueError as error:
                    raise ValueError(f"start option moves[{index}] = {move!r}: {error}") from None
        return state

    def state_from_text(self, text: str) -> DoubleCardState:
        return _parse_text(self, text)


NUM_PLANES = 12
"""Observation planes (channels first, ``(12, 12 rows, 8 columns)``, row 0 = row 1)."""


class DoubleCardState(State):
    """One position.  ``seg``: segment code per cell; ``heights``: filled cells per column
    (columns never have gaps); bitboards ``occ``, ``red``, ``filled`` (segments),
    ``hanch`` / ``vanch`` (bottom-left cells of horizontal / vertical cards: the card
    identity); ``last``: bottom-left cell of the card moved last (-1 before the first
    move); ``taken``: ``(anchor, placement)`` of the card being recycled between the two
    sub-steps, else ``None``; ``winner``: -1 while playing, 0 or 1, 2 for a draw.

    ``aux`` and ``dirty`` serve incremental evaluations: ``clone`` copies the ``aux``
    reference and ``apply`` ORs the bits of every cell it changes into ``dirty``.
    """

    __slots__ = (
        "game", "seg", "heights", "occ", "red", "filled", "hanch", "vanch", "cards",
        "moves", "to_move", "last", "taken", "winner", "aux", "dirty",
    )

    def __init__(self, game: DoubleCardGame) -> None:
        self.game = game
        self.seg = [0] * CELLS
        self.heights = [0] * COLS
        self.occ = self.red = self.filled = self.hanch = self.vanch = 0
        self.cards = 0
        self.moves = 0
        self.to_move = 0
        self.last = -1
        self.taken: tuple[int, int] | None = None
        self.winner = -1
        self.aux: Any = None
        self.dirty = 0

    # --- protocol -----------------------------------------------------------------------

    def clone(self) -> DoubleCardState:
        new = DoubleCardState.__new__(DoubleCardState)
        new.game = self.game
        new.seg = self.seg[:]
        new.heights = self.heights[:]
        new.occ, new.red, new.filled = self.occ, self.red, self.filled
        new.hanch, new.vanch, new.cards = self.hanch, self.vanch, self.cards
        new.moves, new.to_move, new.last = self.moves, self.to_move, self.last
        new.taken, new.winner = self.taken, self.winner
        new.aux, new.dirty = self.aux, self.dirty
        return new

    def key(self) -> tuple:
        return (self.occ, self.red, self.filled, self.hanch, self.to_move, self.moves, self.last, self.taken)

    def current_players(self) -> tuple[int, ...]:
        return () if self.winner >= 0 else (self.to_move,)

    def is_terminal(self) -> bool:
        return self.winner >= 0

    def returns(self) -> np.ndarray:
        result = np.zeros(2)
        if 0 <= self.winner <= 1:
            result[self.winner], result[1 - self.winner] = 1.0, -1.0
        return result

    @property
    def phase(self) -> str:
        """``"regular"``, ``"pick"`` (first sub-step of recycling), ``"place"`` (second), ``"over"``."""
        if self.winner >= 0:
            return "over"
        if self.taken is not None:
            return "place"
        return "regular" if self.cards < CARDS else "pick"

    def objective(self, seat: int) -> str:
        return "colors" if seat == self.game.colors_seat else "dots"

    def info_state(self, player: int) -> PerfectInfoState:
        return PerfectInfoState(player, self.clone())

    def legal_actions(self, player: int) -> list[int]:
        if self.winner >= 0 or player != self.to_move:
            return []
        if self.taken is None and self.cards >= CARDS:
            return self._picks()
        return self._placements()

    def _placements(self) -> list[int]:
        """Placement ids legal now (regular move or the place sub-step), ascending."""
        heights = self.heights
        horizontal = [r * COLS + c for c in range(COLS - 1) if (r := heights[c]) == heights[c + 1] and r < ROWS]
        vertical = [h * COLS + c for c in range(COLS) if (h := heights[c]) < ROWS - 1]
        horizontal.sort()
        vertical.sort()
        forbid = -1
        taken = self.taken
        if taken is not None and self.game.recycle_rule != "none":
            forbid_anchor, forbid_p = taken
            forbid = (forbid_anchor, forbid_p, self.game.recycle_rule == "same_cells")
        actions = []
        for p in range(1, 9):
            base = (p - 1) * CELLS
            anchors = horizontal if p & 1 else vertical
            if forbid != -1 and _HORIZONTAL[p] == _HORIZONTAL[forbid[1]] and (forbid[2] or p == forbid[1]):
                actions.extend(base + a for a in anchors if a != forbid[0])
            else:
                actions.extend(base + a for a in anchors)
        return actions

    def _picks(self) -> list[int]:
        """Take ids legal now: cards not moved last whose cells have nothing above."""
        heights = self.heights
        actions = []
        cards = self.hanch | self.vanch
        last = self.last
        hanch = self.hanch
        while cards:
            low = cards & -cards
            anchor = low.bit_length() - 1
            cards ^= low
            if anchor == last:
                continue
            row, col = anchor >> 3, anchor & 7
            if hanch & low:
                if heights[col] == row + 1 and heights[col + 1] == row + 1:
                    actions.append(PICK_BASE + anchor)
            elif heights[col] == row + 2:
                actions.append(PICK_BASE + anchor)
        return actions

    def _placement_error(self, p: int, anchor: int) -> str | None:
        """Why placement ``p`` at ``anchor`` is illegal now (``None`` if legal)."""
        row, col = anchor >> 3, anchor & 7
        heights = self.heights
        if _HORIZONTAL[p]:
            if col == COLS - 1:
                return f"its right cell would be off the board (column {COLUMN_LETTERS[col]} is the last)"
            for c in (col, col + 1):
                if heights[c] > row:
                    return f"cell {cell_name(row * COLS + c)} is occupied"
                if heights[c] < row:
                    return f"cell {cell_name(row * COLS + c)} would hang over the empty {cell_name((row - 1) * COLS + c)}"
        else:
            if row == ROWS - 1:
                return "its top cell would be off the board (row 12 is the last)"
            if heights[col] > row:
                return f"cell {cell_name(anchor)} is occupied"
            if heights[col] < row:
                return f"cell {cell_name(anchor)} would hang over the empty {cell_name(anchor - COLS)}"
        if self.taken is not None:
            forbid_anchor, forbid_p = self.taken
            rule = self.game.recycle_rule
            if rule == "same_cells" and anchor == forbid_anchor and _HORIZONTAL[p] == _HORIZONTAL[forbid_p]:
                return "the recycled card may not go back onto the same two cells (recycle_rule=same_cells)"
            if rule == "same_placement" and anchor == forbid_anchor and p == forbid_p:
                return "the recycled card may not go back with the same placement (recycle_rule=same_placement)"
        return None

    def _pick_error(self, anchor: int) -> str | None:
        low = 1 << anchor
        if not (self.hanch | self.vanch) & low:
            return f"no card has its bottom-left cell at {cell_name(anchor)}"
        if anchor == self.last:
            return "that card was the opponent's last move and may not be taken"
        row, col = anchor >> 3, anchor & 7
        heights = self.heights
        if self.hanch & low:
            for c in (col, col + 1):
                if heights[c] > row + 1:
                    return f"taking it would leave {cell_name((row + 1) * COLS + c)} hanging"
        elif heights[col] > row + 2:
            return f"taking it would leave {cell_name((row + 2) * COLS + col)} hanging"
        return None

    def apply(self, action) -> None:
        player, action = self._single_action(action)
        phase = "regular" if self.taken is None and self.cards < CARDS else ("place" if self.taken is not None else "pick")
        if not 0 <= action < NUM_ACTIONS:
            reason = f"outside 0..{NUM_ACTIONS - 1}"
        elif action >= PICK_BASE:
            reason = None if phase == "pick" else f"taking a card is only allowed when recycling starts a move (now: {phase} phase)"
            if reason is None:
                reason = self._pick_error(action - PICK_BASE)
        else:
            reason = None if phase != "pick" else "all 24 cards are on the board: a recycling move starts by taking a card"
            if reason is None:
                reason = self._placement_error(action // CELLS + 1, action % CELLS)
        if reason is not None:
            raise IllegalActionError(
                f"double_card: action {action} ({self._describe(action)}) is illegal for seat {player}: {reason}",
                action=action,
                player=player,
                legal=self.legal_actions(player),
            )
        if action >= PICK_BASE:
            self._take(action - PICK_BASE)
        else:
            self._place(action // CELLS + 1, action % CELLS)

    def _take(self, anchor: int) -> None:
        low = 1 << anchor
        if self.hanch & low:
            other, p_horizontal = anchor + 1, True
        else:
            other, p_horizontal = anchor + COLS, False
        p = _PLACEMENT_OF[(p_horizontal, self.seg[anchor])]
        mask = low | (1 << other)
        self.seg[anchor] = self.seg[other] = EMPTY
        self.occ &= ~mask
        self.red &= ~mask
        self.filled &= ~mask
        self.hanch &= ~low
        self.vanch &= ~low
        self.heights[anchor & 7] -= 1
        self.heights[other & 7] -= 1
        self.cards -= 1
        self.taken = (anchor, p)
        self.dirty |= mask

    def _place(self, p: int, anchor: int) -> None:
        horizontal = _HORIZONTAL[p]
        other = anchor + 1 if horizontal else anchor + COLS
        a_seg, o_seg = _SEG_ANCHOR[p], _SEG_OTHER[p]
        seg = self.seg
        seg[anchor], seg[other] = a_seg, o_seg
        low = 1 << anchor
        high = 1 << other
        self.occ |= low | high
        if a_seg <= R_RING:
            self.red |= low
        else:
            self.red |= high
        if a_seg & 1:  # R_DOT = 1, W_DOT = 3
            self.filled |= low
        else:
            self.filled |= high
        if horizontal:
            self.hanch |= low
        else:
            self.vanch |= low
        heights = self.heights
        heights[anchor & 7] += 1
        heights[other & 7] += 1
        self.cards += 1
        self.moves += 1
        self.last = anchor
        self.taken = None
        self.dirty |= low | high
        mover = self.to_move
        self.to_move = 1 - mover
        colour, dot = self._lines_through(anchor, other)
        if colour or dot:
            if colour and dot:
                self.winner = mover
            elif colour:
                self.winner = self.game.colors_seat
            else:
                self.winner = 1 - self.game.colors_seat
        elif self.moves >= self.game.max_moves:
            self.winner = 2
        elif self.cards >= CARDS and not self._picks():
            self.winner = 2  # rule 11: no legal recycling move

    def _lines_through(self, a: int, b: int) -> tuple[bool, bool]:
        """(a colour line, a dot line) among the windows through cells ``a`` and ``b``."""
        occ, red, filled = self.occ, self.red, self.filled
        colour = dot = False
        for cell in (a, b):
            for w in WINDOWS[cell]:
                if occ & w == w:
                    r = red & w
                    if r == 0 or r == w:
                        colour = True
                    f = filled & w
                    if f == 0 or f == w:
                        dot = True
        return colour, dot

    def lines(self) -> tuple[bool, bool]:
        """(any colour line, any dot line) on the whole board (slow; for tests)."""
        colour = dot = False
        for cell in range(CELLS):
            c, d = self._lines_through(cell, cell)
            colour |= c
            dot |= d
        return colour, dot

    # --- cards -------------------------------------------------------------------------

    def card_cells(self) -> list[tuple[int, int]]:
        """Every card on the board as (bottom-left cell, other cell), by bottom-left cell."""
        out = []
        for anchor in range(CELLS):
            if self.hanch >> anchor & 1:
                out.append((anchor, anchor + 1))
            elif self.vanch >> anchor & 1:
                out.append((anchor, anchor + COLS))
        return out

    def partner(self, cell: int) -> int:
        """The other cell of the card covering ``cell`` (-1 if empty)."""
        if self.hanch >> cell & 1:
            return cell + 1
        if cell % COLS and self.hanch >> (cell - 1) & 1:
            return cell - 1
        if self.vanch >> cell & 1:
            return cell + COLS
        if cell >= COLS and self.vanch >> (cell - COLS) & 1:
            return cell - COLS
        return -1

    def placement_of(self, anchor: int) -> int:
        """The placement (1-8) of the card whose bottom-left cell is ``anchor``."""
        return _PLACEMENT_OF[(bool(self.hanch >> anchor & 1), self.seg[anchor])]

    # --- notation ----------------------------------------------------------------------

    def _describe(self, action: int) -> str:
        try:
            return repr(self.action_to_text(action))
        except ValueError:
            return "not an action"

    def action_to_text(self, action: int) -> str:
        """``'0 5 A 2'`` (regular), ``'F 2 F 3'`` (take), ``'F 2 F 3 3 A 2'`` (place after a take)."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"double_card actions are 0..{NUM_ACTIONS - 1}, got {action!r}")
        action = int(action)
        if action >= PICK_BASE:
            anchor = action - PICK_BASE
            other = self.partner(anchor)
            if other < anchor:  # no card anchored here: name the anchor only
                return f"take {cell_name(anchor)}"
            return f"{cell_name(anchor)} {cell_name(other)}"
        p, anchor = action // CELLS + 1, action % CELLS
        if self.taken is not None:
            t_anchor, t_p = self.taken
            t_other = t_anchor + 1 if _HORIZONTAL[t_p] else t_anchor + COLS
            return f"{cell_name(t_anchor)} {cell_name(t_other)} {p} {cell_name(anchor)}"
        return f"0 {p} {cell_name(anchor)}"

    def text_to_action(self, text: str) -> int:
        """The action for a move in notation, for the current sub-step.

        Accepts ``0 P C R`` (a regular move), ``C1 R1 C2 R2`` (take a card),
        ``P C R`` (place the card taken) and the whole recycling move
        ``C1 R1 C2 R2 P C R`` (its take before the take, its placement after).
        """
        kind, parts = parse_notation(text)
        phase = self.phase
        if phase == "over":
            raise ValueError(f"the game is over; no move {text!r} can be played")
        if kind == "regular":
            if phase != "regular":
                raise ValueError(
                    f"{text!r} is a regular move, but all {CARDS} cards are on the board: "
                    f"recycle with 'C1 R1 C2 R2 P C R', e.g. 'F 2 F 3 3 A 2'"
                    if phase == "pick" else
                    f"{text!r} is a regular move, but a card was taken: place it with 'P C R' or the whole recycling move"
                )
            p, anchor = parts
            return (p - 1) * CELLS + anchor
        if phase == "regular":
            raise ValueError(
                f"{text!r} is a recycling move, but only {self.cards} of {CARDS} cards are on the board: "
                f"play a regular move '0 P C R', e.g. '0 5 A 2'"
            )
        if kind == "place":
            if phase != "place":
                raise ValueError(f"{text!r} places a card, but none was taken: start with the card's cells 'C1 R1 C2 R2'")
            p, anchor = parts
            return (p - 1) * CELLS + anchor
        cells = parts[0]
        anchor = min(cells)
        if phase == "pick":
            if self.partner(cells[0]) != cells[1]:
                raise ValueError(f"{text!r}: cells {cell_name(cells[0])} and {cell_name(cells[1])} do not hold one card")
            return PICK_BASE + anchor
        t_anchor, t_p = self.taken
        t_other = t_anchor + 1 if _HORIZONTAL[t_p] else t_anchor + COLS
        if kind == "take":
            raise ValueError(
                f"{text!r} takes a card, but the card from {cell_name(t_anchor)} {cell_name(t_other)} "
                f"was already taken: place it with 'P C R'"
            )
        if sorted(cells) != [t_anchor, t_other]:
            raise ValueError(
                f"{text!r}: the card being recycled came from {cell_name(t_anchor)} {cell_name(t_other)}"
            )
        p, anchor = parts[1], parts[2]
        return (p - 1) * CELLS + anchor

    def play(self, move: str) -> None:
        """Apply one whole move in notation (a recycling move's two sub-steps at once)."""
        kind, _ = parse_notation(move)
        action = self.text_to_action(move)
        if kind == "recycle" and self.phase == "pick":
            backup = self.clone()
            self.apply(action)
            try:
                self.apply(self.text_to_action(move))
            except ValueError:
                self._restore(backup)
                raise
        else:
            self.apply(action)

    def _restore(self, other: DoubleCardState) -> None:
        for name in DoubleCardState.__slots__:
            value = getattr(other, name)
            setattr(self, name, value[:] if isinstance(value, list) else value)

    # --- observation, text, image ---------------------------------------------------------

    def observation_tensor(self, player: int) -> np.ndarray:
        """Planes (channels, row, column), row 0 = row 1, float32 in [0, 1]:

        0 red, 1 white, 2 filled dot, 3 empty circle (segments);
        4 bottom-left cell of a horizontal card, 5 bottom-left cell of a vertical card
        (with the segment planes this gives every card's two cells);
        6 the two cells of the card moved last; 7 the cells the card being recycled was
        taken from (second sub-step only); 8 all ones if ``player`` plays colors (zeros:
        dots); 9 all ones in the second sub-step of a recycling move (place);
        10 all ones once all 24 cards are on the board (recycling); 11 moves played /
        ``max_moves`` everywhere.
        """
        obs = np.zeros((NUM_PLANES, CELLS), dtype=np.float32)
        seg = np.asarray(self.seg)
        obs[0] = (seg == R_DOT) | (seg == R_RING)
        obs[1] = (seg == W_DOT) | (seg == W_RING)
        obs[2] = (seg == R_DOT) | (seg == W_DOT)
        obs[3] = (seg == R_RING) | (seg == W_RING)
        for anchor, other in self.card_cells():
            obs[4 if other == anchor + 1 else 5, anchor] = 1.0
        if self.last >= 0:
            obs[6, self.last] = 1.0
            obs[6, self.partner(self.last)] = 1.0
        if self.taken is not None:
            t_anchor, t_p = self.taken
            obs[7, t_anchor] = 1.0
            obs[7, t_anchor + 1 if _HORIZONTAL[t_p] else t_anchor + COLS] = 1.0
            obs[9] = 1.0
        if player == self.game.colors_seat:
            obs[8] = 1.0
        if self.cards >= CARDS or self.taken is not None:
            obs[10] = 1.0
        obs[11] = min(1.0, self.moves / self.game.max_moves)
        return obs.reshape(NUM_PLANES, ROWS, COLS)

    def status(self) -> str:
        if self.winner == 2:
            return "draw"
        if self.winner >= 0:
            return f"player_{self.winner} wins"
        if self.taken is not None:
            t_anchor, t_p = self.taken
            return f"player_{self.to_move} to place the card taken from {cell_name(t_anchor)} (placement {t_p})"
        return f"player_{self.to_move} to move"

    def to_text(self) -> str:
        """Header, then rows 12 down to 1: each cell is its segment (``R*`` ``Ro`` ``W*``
        ``Wo`` or ``..``) and a link: ``>`` the card continues to the right, ``^`` it
        continues upwards, a space otherwise."""
        last = "none" if self.last < 0 else f"{cell_name(self.last)} {cell_name(self.partner(self.last))}"
        header = (
            f"double_card | move {self.moves}/{self.game.max_moves} | player_0 {self.objective(0)} | "
            f"{self.status()} | last {last}"
        )
        lines = [header]
        for row in range(ROWS - 1, -1, -1):
            tokens = []
            for col in range(COLS):
                cell = row * COLS + col
                link = ">" if self.hanch >> cell & 1 else "^" if self.vanch >> cell & 1 else " "
                tokens.append(SEG_TEXT[self.seg[cell]] + link)
            lines.append(f"{row + 1:>2} " + " ".join(tokens).rstrip())
        lines.append("   " + " ".join(f"{c}  " for c in COLUMN_LETTERS).rstrip())
        return "\n".join(lines)

    def to_rgb_array(self) -> np.ndarray:
        """uint8 (12 * 24, 8 * 24, 3): red / white squares, a black dot or a ring, a dark
        border around each card, the card moved last outlined in gold."""
        size = 24
        img = np.empty((ROWS * size, COLS * size, 3), dtype=np.uint8)
        img[:] = (40, 110, 60)  # felt
        disc, ring = _MASKS
        colours = {R_DOT: (200, 40, 40), R_RING: (200, 40, 40), W_DOT: (235, 235, 225), W_RING: (235, 235, 225)}
        for cell in range(CELLS):
            code = self.seg[cell]
            y0 = (ROWS - 1 - cell // COLS) * size
            x0 = (cell % COLS) * size
            block = img[y0 : y0 + size, x0 : x0 + size]
            if code == EMPTY:
                block[1:-1, 1:-1] = (55, 130, 75)
                continue
            block[:] = colours[code]
            block[disc if code in (R_DOT, W_DOT) else ring] = (20, 20, 20)
        for anchor, other in self.card_cells():
            colour = (230, 180, 20) if anchor == self.last else (60, 60, 60)
            ra, ca = anchor // COLS, anchor % COLS
            ro, co = other // COLS, other % COLS
            top = (ROWS - 1 - ro) * size
            bottom = (ROWS - ra) * size
            left, right = ca * size, (co + 1) * size
            img[top : top + 2, left:right] = colour
            img[bottom - 2 : bottom, left:right] = colour
            img[top:bottom, left : left + 2] = colour
            img[top:bottom, right - 2 : right] = colour
        return img


def _masks(size: int = 24) -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0:size, 0:size]
    dist = np.hypot(yy - (size - 1) / 2, xx - (size - 1) / 2)
    return dist <= size * 0.25, (dist <= size * 0.28) & (dist >= size * 0.18)


_MASKS = _masks()


# --- notation and text parsing ------------------------------------------------------------

_CELL = r"([A-Ha-h])\s+(\d{1,2})"
_REGULAR = re.compile(r"0\s+(\d)\s+" + _CELL)
_TAKE = re.compile(_CELL + r"\s+" + _CELL)
_PLACE = re.compile(r"(\d)\s+" + _CELL)
_RECYCLE = re.compile(_CELL + r"\s+" + _CELL + r"\s+(\d)\s+" + _CELL)
_HELP = "expected '0 P C R' (regular, e.g. '0 5 A 2') or 'C1 R1 C2 R2 P C R' (recycling, e.g. 'F 2 F 3 3 A 2')"


def _cell(text: str, col: str, row: str) -> int:
    r = int(row)
    if not 1 <= r <= ROWS:
        raise ValueError(f"malformed move {text!r}: row {row} is not 1..{ROWS}")
    return (r - 1) * COLS + COLUMN_LETTERS.index(col.upper())


def _placement(text: str, p: str) -> int:
    if not 1 <= int(p) <= 8:
        raise ValueError(f"malformed move {text!r}: placement {p} is not 1..8")
    return int(p)


def parse_notation(text: str) -> tuple[str, tuple]:
    """Parse a move: ``("regular", (p, anchor))``, ``("take", ((c1, c2),))``,
    ``("place", (p, anchor))`` or ``("recycle", ((c1, c2), p, anchor))``.

    ``anchor`` is the named cell; a placement's fit on the board is checked by the state.
    """
    if not isinstance(text, str):
        raise ValueError(f"a move must be a string in notation; {_HELP}; got {text!r}")
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
    raise ValueError(f"malformed move {text!r}; {_HELP}")


_HEADER = re.compile(
    r"double_card \| move (?P<moves>\d+)/(?P<max>\d+) \| player_0 (?P<obj>colors|dots) \| "
    r"(?P<status>player_(?P<seat>[01]) to move|player_(?P<pseat>[01]) to place the card taken from "
    r"(?P<tc>[A-H]) (?P<tr>\d{1,2}) \(placement (?P<tp>[1-8])\)|player_(?P<wseat>[01]) wins|draw) \| "
    r"last (?P<last>none|[A-H] \d{1,2})(?: [A-H] \d{1,2})?"
)


def _parse_text(game: DoubleCardGame, text: str) -> DoubleCardState:
    if not isinstance(text, str):
        raise ValueError(f"a double_card position must be text, got {text!r}")
    lines = text.strip("\n").split("\n")
    if len(lines) != ROWS + 2:
        raise ValueError(f"malformed double_card position: expected a header, {ROWS} rows and the column line; got {len(lines)} lines")
    header = _HEADER.fullmatch(lines[0].strip())
    if not header:
        raise ValueError(f"malformed double_card header {lines[0]!r}; expected e.g. "
                         f"'double_card | move 0/40 | player_0 colors | player_0 to move | last none'")
    if int(header["max"]) != game.max_moves:
        raise ValueError(f"position is for max_moves={header['max']}, this game has max_moves={game.max_moves}")
    if header["obj"] != game.config["first_player"]:
        raise ValueError(f"position has player_0 playing {header['obj']}, this game has first_player={game.config['first_player']!r}")
    state = DoubleCardState(game)
    for i, line in enumerate(lines[1 : ROWS + 1]):
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
            state.seg[cell] = SEG_FROM_TEXT[seg_text]
            if link == ">":
                state.hanch |= 1 << cell
            elif link == "^":
                state.vanch |= 1 << cell
    # cards: each occupied cell in exactly one card with a real face
    covered = 0
    for anchor in range(CELLS):
        bit = 1 << anchor
        if not (state.hanch | state.vanch) & bit:
            continue
        horizontal = bool(state.hanch & bit)
        if horizontal and anchor % COLS == COLS - 1 or not horizontal and anchor // COLS == ROWS - 1:
            raise ValueError(f"card at {cell_name(anchor)} runs off the board")
        other = anchor + 1 if horizontal else anchor + COLS
        pair = bit | 1 << other
        if covered & pair:
            raise ValueError(f"card at {cell_name(anchor)} overlaps another card")
        covered |= pair
        key = (horizontal, state.seg[anchor])
        if key not in _PLACEMENT_OF or _SEG_OTHER[_PLACEMENT_OF[key]] != state.seg[other]:
            raise ValueError(f"card at {cell_name(anchor)} {cell_name(other)} is not a Double Card face "
                             f"({SEG_TEXT[state.seg[anchor]]} {SEG_TEXT[state.seg[other]]})")
    occ = 0
    for cell in range(CELLS):
        code = state.seg[cell]
        if code:
            occ |= 1 << cell
            if code <= R_RING:
                state.red |= 1 << cell
            if code in (R_DOT, W_DOT):
                state.filled |= 1 << cell
    if occ != covered:
        stray = [cell_name(c) for c in range(CELLS) if (occ ^ covered) >> c & 1]
        raise ValueError(f"segments at {stray} belong to no card (mark a card's bottom-left cell with '>' or '^')")
    state.occ = occ
    for col in range(COLS):
        height = 0
        while height < ROWS and occ >> (height * COLS + col) & 1:
            height += 1
        if any(occ >> (r * COLS + col) & 1 for r in range(height, ROWS)):
            raise ValueError(f"column {COLUMN_LETTERS[col]} has a segment hanging over an empty cell")
        state.heights[col] = height
    state.cards = bin(occ).count("1") // 2
    state.moves = int(header["moves"])
    if state.moves > game.max_moves:
        raise ValueError(f"move {state.moves} is past max_moves={game.max_moves}")
    if header["last"] != "none":
        col, row = header["last"].split()[:2]
        last = _cell(header["last"], col, row)
        if not (state.hanch | state.vanch) >> last & 1:
            raise ValueError(f"last moved card {header['last']} is not the bottom-left cell of a card")
        state.last = last
    status = header["status"]
    if header["pseat"] is not None:
        t_anchor = _cell(status, header["tc"], header["tr"])
        t_p = int(header["tp"])
        state.taken = (t_anchor, t_p)
        state.to_move = int(header["pseat"])
        if state.cards != CARDS - 1:
            raise ValueError(f"a card is being recycled, so {CARDS - 1} cards must be on the board, not {state.cards}")
    elif header["seat"] is not None:
        state.to_move = int(header["seat"])
    elif status == "draw":
        state.winner = 2
    else:
        state.winner = int(header["wseat"])
    if state.winner >= 0:
        state.to_move = state.moves % 2
    elif state.to_move != state.moves % 2:
        raise ValueError(f"after {state.moves} moves player_{state.moves % 2} is to move, not player_{state.to_move}")
    expected = CARDS - 1 if state.taken is not None else min(state.moves, CARDS)
    if state.cards != expected or state.taken is not None and state.moves < CARDS:
        raise ValueError(f"{state.cards} cards on the board do not fit move {state.moves} (expected {expected})")
    if state.winner < 0:
        if state.moves >= game.max_moves:
            raise ValueError(f"move {state.moves} reached max_moves={game.max_moves}: the game must be over")
        if any(state.lines()):
            raise ValueError("the board has a line of four but the game is not over")
        if state.winner < 0 and state.taken is None and state.cards >= CARDS and state.last >= 0 and not state._picks():
            raise ValueError("the player to move has no legal recycling move: the game must be a draw")
    if state.to_text() != "\n".join(line.rstrip() for line in lines).strip("\n"):
        raise ValueError(f"malformed double_card position; did you mean:\n{state.to_text()}")
    return state
