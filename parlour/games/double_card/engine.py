"""Double Card, B games at once: the mover of every game places (or takes) a card in one ``step``.

The board of a game is 12 ``uint64`` words, one per row (row 0 = row 1), each holding
eight one-byte *lanes* whose bit ``c`` is column ``c`` (A = 0)::

    lane 0 red   1 white   2 filled dot   3 empty circle        (the segments)
    lane 4 anchor of a horizontal card    5 anchor of a vertical card
    lane 6 the cells of the card moved last   7 the cells the card in hand was taken from

which are exactly planes 0-7 of the observation, so those come from the board bytes
(:meth:`DoubleCardBatch._fill`: one table lookup per byte).  Next to the board, per
game: moves played, the seat to move, the anchor of the card moved last, the card in
hand (anchor and placement, between the two sub-steps of a recycling move) and the
winner (-1 playing, 0 or 1, 2 draw): the single game's ``DoubleCardState`` field for
field.

Everything is array operations over the batch, from tables built once:

- legal placements: the row bytes of the playable cells (empty, in row 1 or on a
  segment) give the vertical anchors (below row 12) and the horizontal ones (a playable
  right neighbour); the 8 placements share those two masks, and the recycle rule clears
  the forbidden anchor of the card in hand (``_forbid_table``: the placements it
  applies to);
- legal takes: anchors with nothing resting on the card (row bytes shifted by one and
  two rows), not the card moved last;
- wins: the four directions of four in a row on the segment lanes with shifts (within a
  row: by 1 column; between rows: aligned, or shifted by one column per row for the
  diagonals), masked to the start columns that cannot leak between lanes.  The whole
  board is tested after each placement: before it there was no line (the game would be
  over) and taking a card cannot make one, so any line goes through the new card, as
  the rules module's incremental test assumes;
- a placement action is two ``|=`` on two row words, from per-action tables (the row
  and the lane bits of each of its cells).

Gathers and scatters of one element per game index the flattened array with one index
array (``b * stride + i``) rather than with two (``[rows, i]``): numpy's one-array fancy
indexing is about three times faster.

Observations and final observations are written into buffers that are reused
only once the caller holds no reference to them (:class:`_Buffers`): at B = 1024 the
observations of a step are 9.4 MB, and warm memory is written several times faster.
Final observations are built only when a caller reads them (:class:`_LazyFinalStep`),
from a copy of the finished games' state taken at the step.

No chance (``first_player`` is an option, not a draw): the generator only serves
:meth:`random_actions`.  The single game stays the reference: :meth:`game_state`
rebuilds game ``b`` as a ``DoubleCardState`` (and :meth:`load_state` the reverse), and an
illegal action is explained by it (the same reasons as ``DoubleCardState.apply``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.bitmask import popcount
from parlour.games.double_card.board import (
    CARDS,
    CELLS,
    COLS,
    HORIZONTAL,
    PICK_BASE,
    PLACEMENT_OF,
    REGULAR_ACTIONS,
    ROWS,
    SEG_ANCHOR,
    SEG_OTHER,
)
from parlour.games.double_card.observation import NUM_PLANES
from parlour.games.double_card.rules import DoubleCardGame, DoubleCardState
from parlour.games.engine import BatchStep, OutputBuffers, SearchableEngine

if sys.byteorder != "little":  # pragma: no cover - the lanes are read as the words' bytes
    raise ImportError("parlour.games.double_card.engine needs a little-endian machine")

RED, WHITE, FILLED, RING, HANCH, VANCH, LAST, TAKEN = range(8)
"""The lanes (bytes) of a row word; lane L is observation plane L."""

_U = np.uint64
_BYTE = _U(0xFF)
_SEGMENT_LANES = _U(0xFFFFFFFF)
_ONE = _U(1)
_COLOUR_LANES = _U(0xFFFF)
_CELL_LANES = 0x0000_0101_0101_0101  # lanes 0-5 (segments and anchors) of column 0
_KEEP_NOT_MOVE_LANES = ~_U((0xFF << 8 * LAST) | (0xFF << 8 * TAKEN))
_START_LEFT = _U(0x1F1F1F1F)  # columns A-E of lanes 0-3: a run to the right stays in its lane
_START_RIGHT = _U(0xF8F8F8F8)  # columns D-H: a run to the left stays in its lane


def _seg_bits(code: int) -> int:
    """The lane bits (column 0) of a segment code 1..4: colour and dot."""
    white, ring = (code - 1) >> 1, (code - 1) & 1
    return 1 << 8 * (RED + white) | 1 << 8 * (FILLED + ring)


def _tables() -> dict[str, np.ndarray]:
    """Per-action tables: the row and the lane bits of the two cells of each placement."""
    actions = np.arange(REGULAR_ACTIONS)
    p = actions // CELLS + 1
    anchor = actions % CELLS
    horizontal = np.array(HORIZONTAL, dtype=bool)[p]
    other = np.minimum(anchor + np.where(horizontal, 1, COLS), CELLS - 1)  # (clipped for the illegal ones)
    a_bits = [
        (_seg_bits(SEG_ANCHOR[q]) | 1 << 8 * (HANCH if HORIZONTAL[q] else VANCH) | 1 << 8 * LAST) << (a % COLS)
        for q, a in zip(p.tolist(), anchor.tolist())
    ]
    o_bits = [(_seg_bits(SEG_OTHER[q]) | 1 << 8 * LAST) << (o % COLS) for q, o in zip(p.tolist(), other.tolist())]
    placement_of = np.zeros((2, 5), dtype=np.int64)  # (horizontal, anchor segment) -> placement
    for (h, seg), q in PLACEMENT_OF.items():
        placement_of[int(h), seg] = q
    return {
        "anchor_row": anchor // COLS,
        "anchor_bits": np.array(a_bits, dtype=np.uint64),
        "other_row": other // COLS,
        "other_bits": np.array(o_bits, dtype=np.uint64),
        "placement_of": placement_of,
        "horizontal_p": np.array(HORIZONTAL, dtype=bool),
    }


_T = _tables()


def _forbid_table(rule: str) -> np.ndarray:
    """``(9, 4)``: for the placement ``p`` of the card in hand, the placements (0-based
    rows of the ``(8, 96)`` placement block) whose anchor equal to the card's is
    forbidden by the recycle rule (``-1`` pads; ``none``: no row)."""
    rows = np.full((9, 4), -1, dtype=np.int64)
    for p in range(1, 9):
        if rule == "same_cells":
            same = [q - 1 for q in range(1, 9) if HORIZONTAL[q] == HORIZONTAL[p]]
        elif rule == "same_placement":
            same = [p - 1]
        else:
            same = []
        rows[p, : len(same)] = same
    return rows


_RUNS_H = np.array([1, 1, 2, 2, 3, 3, 4, 4], dtype=np.int16)[:, None]
_RUNS_V = np.array([0, 1, 1, 2, 2, 3, 3, 4], dtype=np.int16)[:, None]
"""The horizontal and vertical pair counts in the legal ids before block 1..8."""
_BLOCK_AFTER = np.arange(10) - 1
"""``running[i]`` counts blocks ``0 .. i - 1``: it includes block ``b`` where ``i - 1 >= b``."""
_PAIR_ITEM = np.dtype((np.void, 2 * ROWS))
"""The row bytes of a horizontal and a vertical placement block as one item."""

_KTH_BIT = np.array([[([c for c in range(8) if i >> c & 1] + [0] * 8)[k] for k in range(8)] for i in range(256)], dtype=np.int64)
"""``_KTH_BIT[byte, k]``: the position of the k-th set bit of ``byte`` (0 past the last)."""


def _count_bits(rows: np.ndarray) -> np.ndarray:
    """``(..., 12)`` uint8 row bytes -> ``(...)``: the set bits of the 12 bytes (three
    32-bit popcounts added, not a sum along a short axis, which costs a call per row)."""
    words = popcount(np.ascontiguousarray(rows).view(np.uint32))
    return words[..., 0] + words[..., 1] + words[..., 2]


def row_shift(rows: np.ndarray, by: int, fill: int) -> np.ndarray:
    """``(n, 12)`` row bytes -> ``out[:, r] = rows[:, r - by]`` (``fill`` where ``r - by`` is
    off the board; ``by`` may be negative).  Done on the flat bytes, one contiguous copy
    and a strided write of the edge rows: several times faster than the 2-d slices."""
    n = len(rows)
    flat, out = rows.reshape(-1), np.empty(n * ROWS, dtype=np.uint8)
    if by > 0:
        out[by:] = flat[:-by]
        edge = range(by)
    else:
        out[:by] = flat[-by:]
        edge = range(ROWS + by, ROWS)
    for r in edge:
        out[r::ROWS] = fill
    return out.reshape(n, ROWS)


def _lane(board: np.ndarray, lane: int) -> np.ndarray:
    """``(n, 12)`` uint8: one lane of every row."""
    return board.view(np.uint8).reshape(*board.shape, 8)[..., lane]


def _pixel_table(max_moves: int) -> np.ndarray:
    """``(256 + max_moves + 1,)`` of 32-byte items, each eight float32: entry ``v < 256``
    the bits of byte ``v`` (bit c -> float c: eight cells of a bit plane), entry
    ``256 + m`` eight copies of plane 11's value after ``m`` moves (``min(1, m /
    max_moves)``, computed as the single game does).  An observation is then one
    ``take`` of a row code per (plane, row): the unpacking, the float conversion and
    plane 11 in one pass over the output."""
    table = np.empty((256 + max_moves + 1, 8), dtype=np.float32)
    table[:256] = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    table[256:] = np.minimum(1.0, np.arange(max_moves + 1) / max_moves).astype(np.float32)[:, None]
    return table.view(np.dtype((np.void, 32))).reshape(-1)


def _bits_96(rows: np.ndarray) -> np.ndarray:
    """``(n, 12)`` uint8 row bytes -> ``(n, 96)`` uint8 0/1, cell order."""
    return np.unpackbits(rows, axis=1, bitorder="little")


class _LazyFinalStep(BatchStep):
    """A ``BatchStep`` whose ``final_observations`` are built on first access.

    About 70 of 1024 games end in a step, and building their two seats' float32
    observations (and scattering them into a ``(B, 2, ...)`` array) is a tenth of a
    step that most callers never read.  What the observations are made of (board
    words, card in hand, moves) is copied at the step instead, a few kB, so the
    engine can move on (reset, step again) before the caller asks."""

    def __init__(self, rewards: np.ndarray, terminated: np.ndarray, done: np.ndarray,
                 snapshot: tuple[np.ndarray, ...], build: Any) -> None:
        self.rewards, self.terminated = rewards, terminated
        self._final: np.ndarray | None = None
        self._pending: tuple[Any, ...] | None = (build, done, snapshot)

    @property
    def final_observations(self) -> np.ndarray | None:
        if self._pending is not None:
            build, done, snapshot = self._pending
            self._final, self._pending = build(done, snapshot), None
        return self._final

    @final_observations.setter
    def final_observations(self, value: np.ndarray | None) -> None:
        self._final, self._pending = value, None


class DoubleCardBatch(SearchableEngine):
    """B Double Card games (options of ``DoubleCardGame``: ``max_moves``,
    ``recycle_rule``, ``first_player``; all supported).  ``step(actions)`` takes the
    movers' actions, shape ``(B,)``: placement ``(p - 1) * 96 + anchor``, or
    ``768 + anchor`` to take a card (first sub-step of a recycling move, after which
    the same seat moves again)."""

    game: DoubleCardGame

    game_class = DoubleCardGame
    STATE = ("board", "moves", "to_move", "last", "taken_anchor", "taken_p", "winner")
    simultaneous = False

    def __init__(self, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True, **options: Any) -> None:
        super().__init__(num_envs, seed, autoreset=autoreset, **options)
        game: DoubleCardGame = self.game
        self.max_moves = game.max_moves
        self.recycle_rule = game.recycle_rule
        self.colors_seat = game.colors_seat
        self._forbid = _forbid_table(self.recycle_rule)
        self._pixels = _pixel_table(self.max_moves)
        self._colors_by_seat = np.array([seat == self.colors_seat for seat in range(2)])
        B = self.num_envs
        self.board = np.zeros((B, ROWS), dtype=np.uint64)
        self.moves = np.zeros(B, dtype=np.int64)
        self.to_move = np.zeros(B, dtype=np.int64)
        self.last = np.full(B, -1, dtype=np.int64)
        self.taken_anchor = np.full(B, -1, dtype=np.int64)
        self.taken_p = np.zeros(B, dtype=np.int64)
        self.winner = np.full(B, -1, dtype=np.int64)
        self._bytes: np.ndarray | None = None
        self._row_starts = self._rows * ROWS  # game b's row words start at b * ROWS in board.reshape(-1)
        self._free: tuple[np.ndarray, np.ndarray] | None = None
        """``(rows, free anchors)`` that ``_place`` found for the games that must take a
        card next, for ``_legal_bytes`` (the same games, the same boards) to reuse."""
        self._running = np.zeros((10, B), dtype=np.int16)
        self._obs_buffers = OutputBuffers((B, 2, NUM_PLANES, CELLS), np.float32)
        self._seat_buffers = OutputBuffers((B, 1, NUM_PLANES, CELLS), np.float32)
        self._final_buffers = OutputBuffers((B, 2, NUM_PLANES, CELLS), np.float32, zeroed=True)
        self.reset()

    # ----- state ---------------------------------------------------------------------

    def _state_changed(self) -> None:
        self._bytes = self._free = None

    def deal(self, rows: np.ndarray, rngs: list[np.random.Generator]) -> None:
        """Start games ``rows`` afresh (the game has no chance: the generators are not drawn from)."""
        self._reset_rows(np.asarray(rows, dtype=np.int64))

    def _reset_rows(self, rows: np.ndarray) -> None:
        self.board[rows] = 0
        self.moves[rows] = 0
        self.to_move[rows] = 0
        self.last[rows] = -1
        self.taken_anchor[rows] = -1
        self.taken_p[rows] = 0
        self.winner[rows] = -1
        self._bytes = self._free = None

    def _lane_int(self, b: int, lane: int) -> int:
        """A lane of game ``b`` as a single-game bitboard (bit = cell)."""
        return int.from_bytes(_lane(self.board[b], lane).tobytes(), "little")

    def game_state(self, b: int) -> DoubleCardState:
        """Game ``b`` as a single-game ``DoubleCardState`` (for debugging, tests and
        the error messages)."""
        red, white, filled = (self._lane_int(b, lane) for lane in (RED, WHITE, FILLED))
        seg = [
            0 if not (red | white) >> cell & 1 else 1 + 2 * (white >> cell & 1) + (1 - (filled >> cell & 1))
            for cell in range(CELLS)
        ]
        taken = None if self.taken_anchor[b] < 0 else (int(self.taken_anchor[b]), int(self.taken_p[b]))
        return DoubleCardState.from_board(
            self.game, seg, self._lane_int(b, HANCH), self._lane_int(b, VANCH),
            moves=int(self.moves[b]), to_move=int(self.to_move[b]), last=int(self.last[b]), taken=taken,
            winner=int(self.winner[b]),
        )

    def load_states(self, states: Sequence[DoubleCardState], rows: np.ndarray | None = None) -> None:
        """Make the games ``rows`` the positions ``states`` (e.g. positions with all 24
        cards down), as they are."""
        for state in states:
            if not isinstance(state, DoubleCardState):
                raise ValueError(f"double_card: load_states needs DoubleCardStates, got {state!r}")
        for b, state in zip(self._load_rows(states, rows).tolist(), states):
            self._load(b, state)
        self._bytes = self._free = None

    def _load(self, b: int, state: DoubleCardState) -> None:
        occ = state.occ
        last_cells = 0 if state.last < 0 else 1 << state.last | 1 << state.partner(state.last)
        taken_cells = 0
        if state.taken is not None:
            a, p = state.taken
            taken_cells = 1 << a | 1 << (a + (1 if HORIZONTAL[p] else COLS))
        lanes = [state.red, occ & ~state.red, state.filled, occ & ~state.filled, state.hanch, state.vanch, last_cells, taken_cells]
        raw = np.array([np.frombuffer(x.to_bytes(ROWS, "little"), dtype=np.uint8) for x in lanes])  # (8 lanes, 12 rows)
        self.board[b] = np.ascontiguousarray(raw.T).view(np.uint64).ravel()
        self.moves[b], self.to_move[b], self.last[b], self.winner[b] = state.moves, state.to_move, state.last, state.winner
        self.taken_anchor[b], self.taken_p[b] = state.taken if state.taken is not None else (-1, 0)

    @property
    def terminated(self) -> np.ndarray:
        return self.winner >= 0

    def movers(self) -> np.ndarray:
        return np.where(self.winner < 0, self.to_move, -1)

    def to_act(self) -> np.ndarray:
        out = np.zeros((self.num_envs, 2), dtype=bool)
        out[self._rows, self.to_move] = self.winner < 0
        return out

    def returns(self) -> np.ndarray:
        out = np.zeros((self.num_envs, 2))
        self._write_returns(out, np.flatnonzero(self.winner >= 0))
        return out

    def _write_returns(self, out: np.ndarray, rows: np.ndarray) -> None:
        rows = rows[self.winner[rows] <= 1]  # draws: 0 for both
        at = 2 * rows + self.winner[rows]  # the winner's entry of out.reshape(-1) (out: a fresh (B, 2))
        flat = out.reshape(-1)
        flat[at] = 1.0
        flat[at ^ 1] = -1.0

    # ----- legal moves ---------------------------------------------------------------

    def _free_cards(self, rows: np.ndarray) -> np.ndarray:
        """``(n, 12)`` uint8 row bytes: the anchors of the cards that may be taken in the
        games ``rows`` (nothing resting on them, not the card moved last: its anchor is
        the one anchor among the cells of lane ``LAST``)."""
        lanes = self.board[rows].view(np.uint8).reshape(len(rows), ROWS, 8)
        occ = lanes[..., RED] | lanes[..., WHITE]
        up1 = row_shift(occ, -1, 0)  # up1[r] = occ[r + 1]
        up2 = row_shift(occ, -2, 0)
        return (lanes[..., HANCH] & ~(up1 | up1 >> 1) | lanes[..., VANCH] & ~up2) & ~lanes[..., LAST]

    def _legal_bytes(self) -> np.ndarray:
        """``(B, 9, 12)`` uint8: the legal actions of each game's mover as row bytes, one
        block of 96 ids (12 rows of 8 columns: bit c of byte r is id 96 * block + 8 * r + c)
        per placement and one for the takes (zeros where the game is over); cached until
        the state changes, with ``_running``, ``(10, B)`` int16: the legal ids in the
        blocks before each block (and in all 9, last), for :meth:`random_actions`."""
        if self._bytes is not None:
            return self._bytes
        B = self.num_envs
        lanes = self.board.view(np.uint8).reshape(B, ROWS, 8)
        occ = lanes[..., RED] | lanes[..., WHITE]
        surface = ~occ
        surface &= row_shift(occ, 1, 0xFF)  # empty and in row 1 or on a segment
        pair = np.empty((B, 2, ROWS), dtype=np.uint8)  # the bytes shared by placements 1, 3, 5, 7 and by 2, 4, 6, 8
        horizontal = pair[:, 0]
        np.bitwise_and(surface, surface >> 1, out=horizontal)  # a playable right neighbour (none for H)
        surface[:, -1] = 0  # vertical: not from row 12
        pair[:, 1] = surface
        # Games with no placement now get zero bytes before they are copied to the 8
        # blocks (and counted): the games that must take a card, and those that are over.
        picking = np.flatnonzero((self.taken_anchor < 0) & (self.moves >= CARDS) & (self.winner < 0))
        if len(picking):
            pair[picking] = 0
        over = self.winner >= 0
        if over.any():
            pair[over] = 0
        holding = np.flatnonzero(self.taken_anchor >= 0)
        recycling = len(holding) and self.recycle_rule != "none"
        if recycling and self.recycle_rule == "same_cells":
            # the card in hand may not go back onto its cells: its anchor in the 4 blocks of
            # its orientation, cleared once in the pair they are copied from
            anchor = self.taken_anchor[holding]
            vertical = (~_T["horizontal_p"][self.taken_p[holding]]).astype(np.intp)
            at = holding * (2 * ROWS) + vertical * ROWS + anchor // COLS
            pair.reshape(-1)[at] &= ~(np.uint8(1) << (anchor % COLS).astype(np.uint8))
            recycling = False
        legal = np.empty((B, 9, ROWS), dtype=np.uint8)
        # (copied as one 24-byte item per block pair: a memcpy each)
        legal.reshape(B, 9 * ROWS)[:, : 8 * ROWS].view(_PAIR_ITEM)[...] = pair.reshape(B, 2 * ROWS).view(_PAIR_ITEM)
        legal[:, 8] = 0  # the takes
        # the running counts of the blocks alternate: h, h + v, 2h + v, ... (h, v: the pair's)
        h, v = _count_bits(pair).astype(np.int16).T
        running = np.empty((10, B), dtype=np.int16)
        running[0] = 0
        running[1:9] = _RUNS_H * h + _RUNS_V * v
        if recycling:  # same_placement: the anchor of the card in hand in its own block only
            forbid = self._forbid[self.taken_p[holding]]  # (n, 4) placement blocks, -1 pads
            r, k = np.nonzero(forbid >= 0)
            g, block = holding[r], forbid[r, k]
            anchor = self.taken_anchor[g]
            bit = np.uint8(1) << (anchor % COLS).astype(np.uint8)
            at = g * (9 * ROWS) + block * ROWS + anchor // COLS
            flat = legal.reshape(-1)
            taken = (flat[at] & bit) != 0  # (one id per game and block: the later blocks count one fewer)
            flat[at] &= ~bit
            running[:, g] -= (_BLOCK_AFTER[:, None] >= block) & taken
        running[9] = running[8]
        if len(picking):
            cached = self._free
            free = cached[1] if cached is not None and np.array_equal(cached[0], picking) else self._free_cards(picking)
            legal.reshape(B, 9 * ROWS)[:, 8 * ROWS :][picking] = free
            running[9, picking] += _count_bits(free).astype(np.int16)
        self._bytes, self._running = legal, running
        return legal

    def legal_masks(self) -> np.ndarray:
        # the movers' legal bytes in their seat's row, zeros in the other: one unpacking
        legal = self._legal_bytes().reshape(self.num_envs, -1)
        both = np.zeros((2 * self.num_envs, legal.shape[1]), dtype=np.uint8)
        both[2 * self._rows + self.to_move] = legal
        return np.unpackbits(both, axis=1, bitorder="little").view(np.int8).reshape(self.num_envs, 2, self.num_actions)

    def legal_mask(self, seat: int | np.ndarray) -> np.ndarray:
        """The movers' legal bytes unpacked, zeroed in the games where ``seat`` is not to
        move (usually none: callers ask for the movers' masks), rather than multiplied
        by a 0/1 column, which would cost a second pass and array."""
        seats = self._seats(seat)
        masks = np.unpackbits(self._legal_bytes().reshape(-1), bitorder="little").view(np.int8).reshape(self.num_envs, -1)
        waiting = self.to_move != seats
        if waiting.any():
            masks[waiting] = 0
        return masks

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """Uniformly random legal actions of the movers, ``(B,)`` (0 where a game is
        over): the base class's draw (the k-th legal action, k = floor(u * count), one
        float per game), found by narrowing down instead of a running count over all 864
        ids: the block of 96 ids (running counts over the 9 blocks), its 32-bit word
        (3 words), the half-word, the byte, the bit (a table).  Every stage is a few
        operations on ``(B,)`` arrays."""
        rng = self.rng if rng is None else rng
        B, rows = self.num_envs, self._rows
        legal = self._legal_bytes()
        running = self._running  # (10, B)
        total = running[-1]
        k = (rng.random(B) * total).astype(np.int16)
        # the first block whose running count exceeds k (the sum of a bool array's bytes: no int64 copy)
        block = np.minimum((running[1:] <= k).view(np.uint8).sum(axis=0, dtype=np.uint8), 8).astype(np.int64)
        k -= running.reshape(-1)[block * B + rows]
        words = legal.view(np.uint32).reshape(-1, 3)[rows * 9 + block]  # (B, 3): the 96 ids of the block
        in_word = popcount(words).astype(np.int16)
        first, second = in_word[:, 0], in_word[:, 0] + in_word[:, 1]
        past_first, past_second = k >= first, k >= second
        word = past_first.astype(np.int64) + past_second
        k -= np.where(past_second, second, np.where(past_first, first, 0))
        bits = words.reshape(-1)[rows * 3 + word]
        bit = word * 32
        for width in (16, 8):  # the half of the word (then of the half) holding the k-th set bit
            low = bits & np.uint32((1 << width) - 1)
            in_low = popcount(low).astype(np.int16)
            high = k >= in_low
            k -= high * in_low
            bits = np.where(high, bits >> np.uint32(width), low)
            bit += high * width
        bit += _KTH_BIT.reshape(-1)[bits * 8 + np.minimum(k, 7)]
        return np.where(total > 0, block * CELLS + bit, 0)

    # ----- observations ----------------------------------------------------------------

    def _fill(self, out: np.ndarray, board: np.ndarray, holding: np.ndarray, moves: np.ndarray, colors: np.ndarray) -> None:
        """Write into ``out`` (``(n, S, 12, 96)``, one slot per seat wanted) the
        observations of ``n`` games given by their board words ``(n, 12)``, whether a
        card is in hand and the moves played (``(n,)`` each, see :meth:`_snapshot`);
        ``colors`` (broadcast to ``(n, S)``): whether the seat of each slot plays colors
        (plane 8).

        Every (plane, row) is a code into :func:`_pixel_table`: planes 0-10 one byte of
        bits (the board's lanes, then all ones or all zeros), plane 11 ``256 + moves``;
        one ``take`` of the table's 32-byte items writes the float32 rows into ``out``
        (``mode="clip"`` skips the bounds checks; the codes are all in range).  The
        codes are ``intp``, which ``take`` would otherwise convert them to."""
        n, seats = out.shape[:2]
        image = np.empty((n, seats, NUM_PLANES, ROWS), dtype=np.intp)
        image[:, :, :8] = board.view(np.uint8).reshape(n, ROWS, 8).transpose(0, 2, 1)[:, None]
        flags = np.empty((n, seats, NUM_PLANES - 8), dtype=np.intp)  # planes 8-11, the same in every row
        flags[:, :, 0] = np.where(colors, 0xFF, 0)
        flags[:, :, 1] = holding[:, None] * 0xFF
        flags[:, :, 2] = (holding | (moves >= CARDS))[:, None] * 0xFF
        flags[:, :, 3] = (256 + moves)[:, None]
        image[:, :, 8:] = flags[..., None]
        np.take(self._pixels, image.reshape(-1), out=out.reshape(-1).view(self._pixels.dtype), mode="clip")

    def _snapshot(self, rows: np.ndarray | slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the observations of the games ``rows`` are made of (:meth:`_fill`'s
        arguments): copies for an index array, views for a slice."""
        return self.board[rows], self.taken_anchor[rows] >= 0, self.moves[rows]

    def _final_observations(self, done: np.ndarray, snapshot: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
        """``(B, 2, 12, 12, 8)``: both seats' observations of the games ``done`` (from
        their ``snapshot`` taken when they ended), zeros elsewhere."""
        last = np.empty((len(done), 2, NUM_PLANES, CELLS), dtype=np.float32)
        self._fill(last, *snapshot, self._colors_by_seat)
        final = self._final_buffers.get(done)
        final[done] = last
        return final.reshape(self.num_envs, 2, NUM_PLANES, ROWS, COLS)

    def observations(self) -> np.ndarray:
        out = self._obs_buffers.get()
        self._fill(out, *self._snapshot(slice(None)), self._colors_by_seat)
        return out.reshape(self.num_envs, 2, NUM_PLANES, ROWS, COLS)

    def observation(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        out = self._seat_buffers.get()
        self._fill(out, *self._snapshot(slice(None)), (np.asarray(seats) == self.colors_seat).reshape(-1, 1))
        return out.reshape(self.num_envs, NUM_PLANES, ROWS, COLS)

    def observation_at(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        out = np.empty((len(rows), 1, NUM_PLANES, CELLS), dtype=np.float32)
        self._fill(out, *self._snapshot(np.asarray(rows, dtype=np.intp)), (np.asarray(seats) == self.colors_seat).reshape(-1, 1))
        return out.reshape(len(rows), NUM_PLANES, ROWS, COLS)

    # ----- stepping ----------------------------------------------------------------------

    def _illegal(self, b: int, action: int) -> IllegalActionError:
        """The single game's reason why ``action`` is illegal in game ``b``."""
        seat = int(self.to_move[b])
        if self.winner[b] >= 0:
            return IllegalActionError(f"double_card: game {b} of the batch is over; reset it first (or use autoreset=True)", action=action)
        try:
            self.game_state(b).apply(action)
        except IllegalActionError as error:
            message = str(error).split("; legal actions are ")[0]
            message = message.replace(f"for seat {seat}:", f"for seat {seat} in game {b} of the batch:", 1)
            return IllegalActionError(message, action=action, player=seat, legal=error.legal)
        raise AssertionError(f"double_card: the batch found action {action} illegal in game {b} but the single game plays it")

    def step(self, actions: Any, where: np.ndarray | None = None) -> BatchStep:
        """The mover of every selected game plays ``actions[b]``."""
        actions = self._action_array(actions, (self.num_envs,), "the mover's action in each game")
        rows = self._selected(where)
        every = where is None  # (then rows is 0..B-1: no gathering and scattering by rows)
        acts = (actions if every else actions[rows]).astype(np.int64, copy=False)
        legal = self._legal_bytes()
        inside = (acts >= 0) & (acts < self.num_actions)
        a = np.where(inside, acts, 0)
        ok = inside & ((legal.reshape(-1)[rows * (9 * ROWS) + (a >> 3)] >> (a & 7).astype(np.uint8)) & 1).astype(bool)
        if not ok.all():
            i = int(np.argmax(~ok))
            raise self._illegal(int(rows[i]), int(acts[i]))
        self._bytes = self._free = None
        rewards = np.zeros((self.num_envs, 2))
        terminated = np.zeros(self.num_envs, dtype=bool)
        pick = acts >= PICK_BASE
        if pick.any():
            self._take(rows[pick], acts[pick] - PICK_BASE)
            if pick.all():
                return BatchStep(rewards, terminated, None)
        if every:
            placing, played = ~pick, np.where(pick, 0, acts)
        else:
            placing = np.zeros(self.num_envs, dtype=bool)
            placing[rows] = ~pick
            played = np.zeros(self.num_envs, dtype=np.int64)
            played[rows] = np.where(pick, 0, acts)
        self._place(placing, played)
        done = np.flatnonzero(placing & (self.winner >= 0))
        if not len(done):
            return BatchStep(rewards, terminated, None)
        terminated[done] = True
        self._write_returns(rewards, done)
        result = _LazyFinalStep(rewards, terminated, done, self._snapshot(done), self._final_observations)
        if self.autoreset:
            free = self._free
            self._reset_rows(done)
            self._free = free  # still true: the games that must take a card are not over
        return result

    def _take(self, rows: np.ndarray, anchors: np.ndarray) -> None:
        r, c = anchors // COLS, (anchors % COLS).astype(np.uint64)
        board = self.board.reshape(-1)
        at = rows * ROWS + r
        words = board[at]
        horizontal = (words >> (c + _U(8 * HANCH))) & _ONE
        code = 1 + 2 * ((words >> (c + _U(8 * WHITE))) & _ONE) + ((words >> (c + _U(8 * RING))) & _ONE)
        self.taken_p[rows] = _T["placement_of"].reshape(-1)[(horizontal * _U(5) + code).astype(np.int64)]
        self.taken_anchor[rows] = anchors
        h = horizontal.astype(bool)
        other = anchors + np.where(h, 1, COLS)
        ro, co = other // COLS, (other % COLS).astype(np.uint64)
        clear = _U(_CELL_LANES)
        taken = _U(1 << 8 * TAKEN)
        board[at] = words & ~(clear << c) | taken << c
        at = rows * ROWS + ro
        board[at] = board[at] & ~(clear << co) | taken << co

    def _place(self, placing: np.ndarray, acts: np.ndarray) -> None:
        """Play the placements ``acts`` (``(B,)``, 0 elsewhere) in the games where
        ``placing`` (``(B,)`` bool) is True.  Every array is updated for all B games,
        the others kept by masks (``np.where``, ``copyto``), rather than through the
        index array of the placing games: in nine steps out of ten at B = 1024 some
        games take a card instead, and gathering and scattering the ~1000 others is
        dearer than masked whole-batch operations."""
        board = self.board
        board &= np.where(placing, _KEEP_NOT_MOVE_LANES, ~_U(0))[:, None]  # the last card and the taken-from cells change
        flat = board.reshape(-1)
        flat[self._row_starts + _T["anchor_row"][acts]] |= np.where(placing, _T["anchor_bits"][acts], _U(0))
        flat[self._row_starts + _T["other_row"][acts]] |= np.where(placing, _T["other_bits"][acts], _U(0))
        self.moves += placing
        moves = self.moves
        np.copyto(self.last, acts % CELLS, where=placing)
        np.copyto(self.taken_anchor, -1, where=placing)
        np.copyto(self.taken_p, 0, where=placing)
        mover = self.to_move.copy()
        self.to_move ^= placing
        # four in a row on the segment lanes (whole board: see the module docstring), on a
        # (row, game) copy: the slices of 9 rows are then contiguous and every operation is
        # one loop over 9 B words, not B loops of 9 (three times faster at B = 1024)
        x = (board.T & _SEGMENT_LANES).astype(np.uint32, order="C")  # (12, B)
        # Four in a row as two pairs two apart: ``q = x & step(x)`` marks the cells whose
        # next cell in a direction is set too, then ``q & step2(q)`` the runs of four.
        one, two = np.uint32(1), np.uint32(2)
        start_left, start_right = np.uint32(_START_LEFT), np.uint32(_START_RIGHT)
        low, high = x[:-1], x[1:]
        q = low & high  # vertical
        across = q[:-2] & q[2:]
        q = low & high >> one  # diagonal up-right
        across |= q[:-2] & q[2:] >> two & start_left
        q = low & high << one  # diagonal up-left
        across |= q[:-2] & q[2:] << two & start_right
        lines = np.bitwise_or.reduce(across, axis=0)
        q = x & x >> one  # horizontal
        lines |= np.bitwise_or.reduce(q & q >> two & start_left, axis=0)
        colour = (lines & np.uint32(_COLOUR_LANES)) != 0
        dot = lines > np.uint32(_COLOUR_LANES)
        cs = self.colors_seat
        winner = np.where(colour & dot, mover, np.where(colour, cs, np.where(dot, 1 - cs, -1)))
        winner[(winner < 0) & (moves >= self.max_moves)] = 2
        check = np.flatnonzero(placing & (winner < 0) & (moves >= CARDS))
        if len(check):  # the next mover must be able to take a card
            free = self._free_cards(check)
            stuck = ~free.any(axis=1)
            if stuck.any():
                winner[check[stuck]] = 2
                check, free = check[~stuck], free[~stuck]
            self._free = check, free
        np.copyto(self.winner, winner, where=placing)
