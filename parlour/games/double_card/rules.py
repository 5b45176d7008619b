"""Double Card's rules: legal moves, the move, wins and returns.

The rules, the action ids and the observation planes are documented in
docs/double_card.md; the board's layout and tables are in :mod:`.board`, the move
notation and the text form of a position in :mod:`.notation`, the planes' encoding in
:mod:`.observation`; its picture is
``parlour.render.double_card``.

A recycling move is two steps by the same seat (take a card, then place it), so that
the action space stays ``Discrete(864)``; the move counter counts it once.  Wins are
found incrementally: before a placement no line existed, so only the 4-cell windows
through the two cells just filled can hold one (taking a card away cannot make one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.base import (
    Game,
    GameInfo,
    JointAction,
    Option,
    PerfectInfoState,
    State,
)
from parlour.games.bitmask import bits_list, iter_bits
from parlour.games.double_card import notation
from parlour.games.double_card.board import (
    CARDS,
    CELLS,
    COLS,
    COLUMN_A,
    COLUMN_LETTERS,
    EMPTY,
    FULL,
    HORIZONTAL,
    LAST_COLUMN,
    NUM_ACTIONS,
    OBJECTIVES,
    PICK_BASE,
    PLACEMENT_OF,
    R_DOT,
    R_RING,
    RECYCLE_RULES,
    ROW_1,
    ROWS,
    SEG_ANCHOR,
    SEG_OTHER,
    TOP_ROW,
    W_DOT,
    WINDOWS,
    cell_name,
    other_cell,
    partner,
    phase_of,
)
from parlour.games.double_card.observation import NUM_PLANES, observation_planes, read_planes

_BASES_AND_KINDS = tuple(((p - 1) * CELLS, p & 1) for p in range(1, 9))  # (first id, horizontal?)
_NOT_LAST_COLUMN = FULL & ~LAST_COLUMN
_BELOW_TOP_ROW = FULL & ~TOP_ROW


MAX_MOVES = 1000
"""The longest game allowed: after the 24 regular moves every move recycles a card, and
a recycling move is two steps, so a game lasts at most 1,976 steps (docs/double_card.md)."""


class DoubleCardGame(Game):
    name = "double_card"
    summary = ("Double Card: two players place two-cell cards on an 8 x 12 board, then recycle them; "
               "four in a row of a colour or of a dot kind wins.")
    options = {
        "max_moves": Option(40, "moves (regular + recycling) before a draw: 40 (the original report's tournament) "
                                "or 60 (the course assignment)", low=1, high=MAX_MOVES),
        "recycle_rule": Option("same_cells", "what a recycled card may not do: same_cells (not back onto its two cells), "
                                             "same_placement, none", choices=RECYCLE_RULES),
        "first_player": Option("colors", "objective of the first mover (player_0): colors or dots", choices=OBJECTIVES),
    }
    notation = (
        "a regular move (the first 24) is '0 P C R': a card with placement P (1-8) on cell C R, "
        "its bottom-left cell (column A-H, row 1-12; 'A 1' or 'A1'), e.g. '0 1 A 1'. Placements, "
        "the bottom-left cell first: horizontal 1 R* Wo, 3 Wo R*, 5 Ro W*, 7 W* Ro; vertical "
        "(bottom, top) 2 Wo R*, 4 R* Wo, 6 W* Ro, 8 Ro W*. A card needs both cells empty and "
        "nothing hanging over an empty cell. Once all 24 cards are down, every move recycles one: "
        "'C1 R1 C2 R2 P C R' takes the card on C1 R1 and C2 R2 (not the one just moved, nothing "
        "resting on it) and puts it down with placement P on C R, {where}; it may also be typed in two steps, 'C1 R1 C2 R2', then 'P C R'. "
        "On the board R and W are the colours, * a filled dot and o an empty one; '>' or '^' after "
        "a cell joins it to the card's other cell, on its right or above it"
    )
    start_options = {
        "moves": "list of moves in the assignment's notation ('0 5 A 2', 'F 2 F 3 3 A 2') played from the empty board",
    }

    def notation_help(self) -> str:
        where = {
            "same_cells": "but not back onto the same two cells",
            "same_placement": "but not with the same placement on the same cell",
            "none": "wherever it fits",
        }[self.recycle_rule]
        return self.notation.format(where=where)

    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)  # each option stands alone: Game checked them against their bounds

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
    def returns_bounds(self) -> tuple[float, float]:
        """+1 the winner, -1 the loser, 0 each for a draw."""
        return (-1.0, 1.0)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (NUM_PLANES, ROWS, COLS)

    @property
    def action_planes(self) -> int:
        """Nine: placement ``p`` (1-8) with its bottom-left cell at ``c`` is ``(p - 1) * 96 + c``
        and taking the card on cell ``c`` is ``768 + c``; a cell is ``row * 8 + column``,
        the observation's ``[:, row, column]`` (row 0 = row 1)."""
        return NUM_ACTIONS // CELLS

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
        """The position that ``to_text`` printed as ``text`` (:func:`.notation.parse_position`),
        or a ``ValueError`` naming the first inconsistency: one the text shows, a line on
        the board of a game in progress, no recycling move left, a text that is not the
        position's own form."""
        p = notation.parse_position(text, self.max_moves, self.config["first_player"])
        state = DoubleCardState.from_board(self, p.seg, p.hanch, p.vanch, moves=p.moves, to_move=p.to_move,
                                           last=p.last, taken=p.taken, winner=p.winner)
        if p.winner < 0:
            if any(state.lines()):
                raise ValueError("the board has a line of four but the game is not over")
            if p.taken is None and p.cards >= CARDS and p.last >= 0 and not state.legal_actions(p.to_move):
                raise ValueError("the player to move has no legal recycling move: the game must be a draw")
        notation.check_canonical(text, state.to_text())
        return state

    def state_from_observation(self, observation: np.ndarray, mask: np.ndarray) -> DoubleCardState:
        """The position behind the observation of the seat to move (see
        :meth:`DoubleCardState.observation_tensor`): the planes give every segment, card,
        the last card and the recycled card's cells, whose side the seat plays, and the
        move count.  The recycled card's placement is not in the planes; ``mask`` gives it
        where the rules depend on it (``recycle_rule=same_placement``), elsewhere it does
        not change a move.  ``ValueError`` unless the observation and mask are exactly
        those of a position where that seat moves."""
        obs = np.asarray(observation)
        if obs.shape != self.observation_shape:
            raise ValueError(f"a double_card observation has shape {self.observation_shape}, got {obs.shape}")
        legal = np.asarray(mask)
        if legal.shape != (NUM_ACTIONS,):
            raise ValueError(f"a double_card legal mask has shape ({NUM_ACTIONS},), got {legal.shape}")
        legal = legal.astype(bool)
        if not legal.any():
            raise ValueError("the legal mask allows no move: the game is over or it is not this seat's turn")
        seen = read_planes(obs, self.max_moves)
        red, white, filled, ring, hanch, vanch, last_cells, taken_cells = seen.boards
        seg = [EMPTY] * CELLS
        for cell in iter_bits(red | white):
            seg[cell] = 1 + 2 * (white >> cell & 1) + (ring >> cell & 1)
        colors_seat = self.colors_seat
        to_move = colors_seat if seen.colors else 1 - colors_seat
        moves = seen.moves
        anchors = last_cells & (hanch | vanch)
        last = anchors.bit_length() - 1 if anchors else -1
        candidates: list[tuple[int, int] | None] = [None]
        if seen.placing and taken_cells:
            anchor = (taken_cells & -taken_cells).bit_length() - 1
            horizontal = bool(taken_cells >> (anchor + 1) & 1) and anchor % COLS != COLS - 1
            candidates = [(anchor, p) for p in range(1, 9) if HORIZONTAL[p] == horizontal]
        refused = "the observation and legal mask are not those of a double_card position where the observing seat moves"
        for taken in candidates:
            state = DoubleCardState.from_board(self, seg, hanch, vanch, moves=moves, to_move=to_move, last=last, taken=taken)
            if (np.array_equal(state.observation_tensor(to_move), obs.astype(np.float32, copy=False))
                    and np.array_equal(state.legal_mask(to_move), legal)):
                try:
                    self.state_from_text(state.to_text())  # the text parser's checks: whole cards, no gaps, turn
                except ValueError as error:
                    raise ValueError(f"{refused}: {error}") from None
                return state
        raise ValueError(f"{refused} (the observation of the seat not to move, or a damaged one)")


class DoubleCardState(State):
    """One position.

    ``seg``: segment code per cell (:mod:`.board`); bitboards ``occ``, ``red``,
    ``filled`` (the cells holding a segment, a red one, a filled dot) and ``hanch`` /
    ``vanch`` (the anchors, bottom-left cells, of horizontal / vertical cards: the card
    identity); ``moves``: moves played; ``to_move``; ``last``: anchor of the card
    moved last (-1 before the first move); ``taken``: ``(anchor, placement)`` of the
    card being recycled between the two sub-steps, else ``None``; ``winner``: -1 while
    playing, 0 or 1, 2 for a draw.

    Kept for speed although derivable, and written only by ``_place`` and ``_take``:
    ``seg`` (it is ``occ``/``red``/``filled`` cell by cell; the evaluations and the text
    read segments cell by cell, and rebuilding the list costs several times the copy
    ``clone`` makes) and ``occ`` (``hanch | hanch << 1 | vanch | vanch << 8``; every
    move generation and win test reads it).  Derived when asked: ``cards`` (a popcount
    of the anchors), ``heights`` and ``surface`` (from ``occ``: columns have no gaps;
    move generation works on ``surface``), and the phase (from ``moves``: the first 24
    moves place the 24 cards, every later one recycles one, so outside a recycling
    move ``cards == min(moves, 24)``).
    """

    game: DoubleCardGame
    __slots__ = ("game", "seg", "occ", "red", "filled", "hanch", "vanch", "moves", "to_move", "last", "taken", "winner")

    def __init__(self, game: DoubleCardGame) -> None:
        self.game = game
        self.seg = [EMPTY] * CELLS
        self.occ = self.red = self.filled = self.hanch = self.vanch = 0
        self.moves = 0
        self.to_move = 0
        self.last = -1
        self.taken: tuple[int, int] | None = None
        self.winner = -1

    @classmethod
    def from_board(cls, game: DoubleCardGame, seg: Sequence[int], hanch: int, vanch: int, *, moves: int = 0,
                   to_move: int = 0, last: int = -1, taken: tuple[int, int] | None = None, winner: int = -1) -> DoubleCardState:
        """A position from its segments and card anchors, as given (the text parser checks
        that they are consistent); the bitboards are derived from ``seg``."""
        state = cls(game)
        state.seg = list(seg)
        for cell, code in enumerate(state.seg):
            if code:
                state.occ |= 1 << cell
                state.red |= (code <= R_RING) << cell
                state.filled |= (code in (R_DOT, W_DOT)) << cell
        state.hanch, state.vanch = hanch, vanch
        state.moves, state.to_move, state.last, state.taken, state.winner = moves, to_move, last, taken, winner
        return state

    # --- derived -----------------------------------------------------------------------

    @property
    def cards(self) -> int:
        """Cards on the board."""
        return (self.hanch | self.vanch).bit_count()

    @property
    def heights(self) -> list[int]:
        """Segments per column, A to H (a column has no gaps)."""
        occ = self.occ
        return [(occ >> col & COLUMN_A).bit_count() for col in range(COLS)]

    @property
    def surface(self) -> int:
        """Bitboard of the cells a segment may go on now: empty, in row 1 or on a segment."""
        occ = self.occ
        return (occ << COLS | ROW_1) & ~occ & FULL

    @property
    def phase(self) -> str:
        """``"regular"``, ``"pick"`` (first sub-step of recycling), ``"place"`` (second), ``"over"``."""
        return phase_of(self.winner, self.taken, self.moves)

    def objective(self, seat: int) -> str:
        return "colors" if seat == self.game.colors_seat else "dots"

    # --- protocol -----------------------------------------------------------------------

    def clone(self) -> DoubleCardState:
        new = DoubleCardState.__new__(DoubleCardState)
        new.game = self.game
        new.seg = self.seg[:]
        new.occ, new.red, new.filled, new.hanch, new.vanch = self.occ, self.red, self.filled, self.hanch, self.vanch
        new.moves, new.to_move, new.last, new.taken, new.winner = self.moves, self.to_move, self.last, self.taken, self.winner
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

    def info_state(self, player: int) -> PerfectInfoState:
        return PerfectInfoState(player, self.clone())

    def legal_actions(self, player: int) -> list[int]:
        if self.winner >= 0 or player != self.to_move:
            return []
        if self.taken is None and self.moves >= CARDS:
            return self._picks()
        return self._placements()

    def _placements(self) -> list[int]:
        """Placement ids legal now (regular move or the place sub-step), ascending: a
        horizontal card needs two surface cells side by side, a vertical one a surface
        cell below row 12."""
        surface = self.surface
        horizontal = surface & surface >> 1 & _NOT_LAST_COLUMN
        vertical = surface & _BELOW_TOP_ROW
        anchors = (bits_list(vertical), bits_list(horizontal))
        taken = self.taken
        if taken is None or self.game.recycle_rule == "none":
            return [base + a for base, h in _BASES_AND_KINDS for a in anchors[h]]
        forbid_anchor, forbid_p = taken
        same_cells = self.game.recycle_rule == "same_cells"
        actions = []
        for p, (base, h) in enumerate(_BASES_AND_KINDS, 1):
            if h == HORIZONTAL[forbid_p] and (same_cells or p == forbid_p):
                actions += [base + a for a in anchors[h] if a != forbid_anchor]
            else:
                actions += [base + a for a in anchors[h]]
        return actions

    def _picks(self) -> list[int]:
        """Take ids legal now: cards not moved last with nothing on top of them."""
        occ = self.occ
        free = self.hanch & ~(occ >> COLS | occ >> (COLS + 1)) | self.vanch & ~(occ >> (2 * COLS))
        if self.last >= 0:
            free &= ~(1 << self.last)
        return [PICK_BASE + anchor for anchor in iter_bits(free)]

    def placement_error(self, p: int, anchor: int) -> str | None:
        """Why placement ``p`` (1-8) at ``anchor`` is illegal on this board, or ``None``:
        the cells, their support and the recycle rule (not the phase: ``apply`` checks
        that first)."""
        horizontal = HORIZONTAL[p]
        if horizontal and anchor & 7 == COLS - 1:
            return f"its right cell would be off the board (column {COLUMN_LETTERS[COLS - 1]} is the last)"
        if not horizontal and anchor >= CELLS - COLS:
            return "its top cell would be off the board (row 12 is the last)"
        occ = self.occ
        cells = (3 if horizontal else 1) << anchor  # a vertical card holds up its own top cell
        if cells & ~occ & (occ << COLS | ROW_1) != cells:  # not both empty and supported
            for cell in iter_bits(cells):
                height = (occ >> (cell & 7) & COLUMN_A).bit_count()
                if height > cell >> 3:
                    return f"cell {cell_name(cell)} is occupied"
                if height < cell >> 3:
                    return f"cell {cell_name(cell)} would hang over the empty {cell_name(cell - COLS)}"
        if self.taken is not None:
            forbid_anchor, forbid_p = self.taken
            rule = self.game.recycle_rule
            if rule == "same_cells" and anchor == forbid_anchor and HORIZONTAL[p] == HORIZONTAL[forbid_p]:
                return "the recycled card may not go back onto the same two cells (recycle_rule=same_cells)"
            if rule == "same_placement" and anchor == forbid_anchor and p == forbid_p:
                return "the recycled card may not go back with the same placement (recycle_rule=same_placement)"
        return None

    def pick_error(self, anchor: int) -> str | None:
        """Why taking the card anchored at ``anchor`` is illegal on this board, or
        ``None`` (not the phase: ``apply`` checks that first)."""
        low = 1 << anchor
        if not (self.hanch | self.vanch) & low:
            return f"no card has its bottom-left cell at {cell_name(anchor)}"
        if anchor == self.last:
            return "that card was the opponent's last move and may not be taken"
        above = [anchor + COLS, anchor + COLS + 1] if self.hanch & low else [anchor + 2 * COLS]
        for cell in above:
            if self.occ >> cell & 1:
                return f"taking it would leave {cell_name(cell)} hanging"
        return None

    def apply(self, action: int | JointAction) -> None:
        player, action = self._single_action(action)
        picking = self.taken is None and self.moves >= CARDS
        reason: str | None
        if not 0 <= action < NUM_ACTIONS:
            reason = f"outside 0..{NUM_ACTIONS - 1}"
        elif action >= PICK_BASE:
            reason = self.pick_error(action - PICK_BASE) if picking else (
                f"taking a card is only allowed when recycling starts a move (now: {self.phase} phase)")
        elif picking:
            reason = "all 24 cards are on the board: a recycling move starts by taking a card"
        else:
            reason = self.placement_error(action // CELLS + 1, action % CELLS)
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
        horizontal = bool(self.hanch & low)
        other = other_cell(anchor, horizontal)
        self.taken = (anchor, PLACEMENT_OF[(horizontal, self.seg[anchor])])
        self.seg[anchor] = self.seg[other] = EMPTY
        keep = ~(low | 1 << other)
        self.occ &= keep
        self.red &= keep
        self.filled &= keep
        self.hanch &= ~low
        self.vanch &= ~low

    def _place(self, p: int, anchor: int) -> None:
        horizontal = HORIZONTAL[p]
        other = anchor + 1 if horizontal else anchor + COLS
        a_seg = SEG_ANCHOR[p]
        seg = self.seg
        seg[anchor], seg[other] = a_seg, SEG_OTHER[p]
        low, high = 1 << anchor, 1 << other
        self.occ |= low | high
        self.red |= low if a_seg <= R_RING else high  # one red and one filled segment per card
        self.filled |= low if a_seg & 1 else high  # R_DOT = 1, W_DOT = 3
        if horizontal:
            self.hanch |= low
        else:
            self.vanch |= low
        self.moves += 1
        self.last = anchor
        self.taken = None
        mover = self.to_move
        self.to_move = 1 - mover
        colour, dot = self._lines_through(anchor, other)
        if colour or dot:
            if colour and dot:
                self.winner = mover
            else:
                self.winner = self.game.colors_seat if colour else 1 - self.game.colors_seat
        elif self.moves >= self.game.max_moves:
            self.winner = 2
        elif self.moves >= CARDS and not self._picks():
            self.winner = 2  # no legal recycling move

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

    def play(self, move: str) -> None:
        """Apply one whole move in notation (a recycling move's two sub-steps at once)."""
        kind, _ = notation.parse_notation(move)
        action = self.text_to_action(move)
        if kind == "recycle" and self.phase == "pick":
            backup = self.clone()
            self.apply(action)
            try:
                self.apply(self.text_to_action(move))
            except ValueError:
                for name in DoubleCardState.__slots__:
                    setattr(self, name, getattr(backup, name))
                raise
        else:
            self.apply(action)

    # --- cards -------------------------------------------------------------------------

    def card_cells(self) -> list[tuple[int, int]]:
        """Every card on the board as (bottom-left cell, other cell), by bottom-left cell."""
        hanch = self.hanch
        return [(a, a + 1 if hanch >> a & 1 else a + COLS) for a in iter_bits(hanch | self.vanch)]

    def partner(self, cell: int) -> int:
        """The other cell of the card covering ``cell`` (-1 if empty)."""
        return partner(self.hanch, self.vanch, cell)

    def placement_of(self, anchor: int) -> int:
        """The placement (1-8) of the card whose bottom-left cell is ``anchor``."""
        return PLACEMENT_OF[(bool(self.hanch >> anchor & 1), self.seg[anchor])]

    # --- observation, notation, text, image ---------------------------------------------

    def observation_tensor(self, player: int) -> np.ndarray:
        """Planes (channels, row, column), row 0 = row 1, float32 in [0, 1]; the planes are
        listed in :mod:`.observation`."""
        occ, red, filled = self.occ, self.red, self.filled
        last = 1 << self.last | 1 << self.partner(self.last) if self.last >= 0 else 0
        taken = 0
        if self.taken is not None:
            t_anchor, t_p = self.taken
            taken = 1 << t_anchor | 1 << other_cell(t_anchor, HORIZONTAL[t_p])
        boards = (red, occ & ~red, filled, occ & ~filled, self.hanch, self.vanch, last, taken)
        return observation_planes(boards, player == self.game.colors_seat, self.taken is not None,
                                  self.taken is not None or self.moves >= CARDS, min(1.0, self.moves / self.game.max_moves))

    def _describe(self, action: int) -> str:
        try:
            return repr(self.action_to_text(action))
        except ValueError:
            return "not an action"

    def position(self) -> notation.Position:
        """This position's data, as the text forms read it (:class:`.notation.Position`)."""
        game = self.game
        return notation.Position(self.seg, self.hanch, self.vanch, self.moves, self.to_move, self.last, self.taken,
                                 self.winner, game.max_moves, game.config["first_player"])

    def example_moves(self) -> dict[str, str]:
        """Moves that are legal now, in notation, for messages: ``"move"`` (a whole move,
        typed at once), and in a recycling move ``"take"`` (its first step) and ``"place"``
        (its second step as ``P C R``).  Empty once the game is over."""
        legal = self.legal_actions(self.to_move)
        if not legal:
            return {}
        if self.phase == "pick":
            after = self.clone()
            after.apply(legal[0])
            places = after.legal_actions(after.to_move)  # a card taken always fits somewhere
            return {"move": after.action_to_text(places[0]), "take": self.action_to_text(legal[0])}
        examples = {"move": self.action_to_text(legal[0])}
        if self.phase == "place":
            examples["place"] = notation.place_text(legal[0])
        return examples

    def action_to_text(self, action: int) -> str:
        """``'0 5 A 2'`` (regular), ``'F 2 F 3'`` (take), ``'F 2 F 3 3 A 2'`` (place after a take)."""
        return notation.action_text(self.position(), action)

    def text_to_action(self, text: str) -> int:
        """The action for a move in notation, for the current sub-step (see
        :func:`.notation.action_from_text`)."""
        return notation.action_from_text(self.position(), text, self.example_moves)

    def to_text(self) -> str:
        """The text form (:func:`.notation.position_text`)."""
        return notation.position_text(self.position())

    def view_text(self, seat: int) -> str:
        """What a person at ``seat`` sees (:func:`.notation.view_text`)."""
        return notation.view_text(self.position(), seat)

    def legal_moves_text(self, player: int) -> str:
        """The legal moves, grouped for a person (:func:`.notation.legal_moves_text`)."""
        return notation.legal_moves_text(self.position(), self.legal_actions(player), self.example_moves)
