"""Double Card, B games at once: the mover of every game places (or takes) a card in one ``step``.

The state of a game is its cells (segment codes, ``(B, 96)`` int8, cell = row * 8 +
column as in :mod:`parlour.games.double_card.board`), the card anchors (``hanch`` /
``vanch``, ``(B, 96)`` bool: the bottom-left cells of horizontal / vertical cards), and
per game the moves played, the seat to move, the anchor of the card moved last, the
card being recycled (its anchor and placement, between the two sub-steps of a
recycling move) and the winner (-1 playing, 0 or 1, 2 draw), the single game's
``DoubleCardState`` field for field.

Everything is array operations over the batch, from tables built once:

- legal placements: the playable cells (empty, in row 1 or on a segment) give the
  vertical anchors (below row 12) and the horizontal ones (a playable right neighbour,
  not column H); the 8 placements share those two masks, and the recycle rule clears
  the forbidden anchor of the card in hand (``_FORBID``: the placements it applies to);
- legal takes: anchors with nothing resting on the card, not the card moved last;
- wins: each placement action lists the 4-cell windows through its two cells
  (``action_windows``, padded with a window of an always-empty cell), so one gather of
  ``(n, K, 4)`` codes finds the colour and dot lines of all the games that just placed
  a card (taking a card cannot make a line, as the rules module notes);
- observations: the segment planes come from a code -> planes table; the rest are the
  anchors, two cells per game for planes 6 and 7, and per-game constants.

No chance (``first_player`` is an option, not a draw): the generator only serves
:meth:`random_actions`.  The single game stays the reference: :meth:`game_state`
rebuilds game ``b`` as a ``DoubleCardState``, and an illegal action is explained by it
(the same reasons as ``DoubleCardState.apply``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.double_card import (
    CARDS,
    CELLS,
    COLS,
    HORIZONTAL,
    LINES,
    NUM_PLANES,
    PICK_BASE,
    PLACEMENT_OF,
    REGULAR_ACTIONS,
    ROWS,
    SEG_ANCHOR,
    SEG_OTHER,
    DoubleCardGame,
    DoubleCardState,
)
from parlour.vector.base import BatchedEngine, BatchStep, uniform_legal

_PAD = CELLS  # an extra, always-empty cell: the padding of the window table


def _tables() -> dict[str, np.ndarray]:
    """The per-action and per-window index tables (module constants)."""
    windows = sorted({line[i : i + 4] for line in LINES for i in range(len(line) - 3)})
    through: list[list[int]] = [[] for _ in range(CELLS)]
    for w, cells in enumerate(windows):
        for cell in cells:
            through[cell].append(w)
    actions = np.arange(REGULAR_ACTIONS)
    p = actions // CELLS + 1
    anchor = actions % CELLS
    horizontal = np.array(HORIZONTAL, dtype=bool)[p]
    valid = np.where(horizontal, anchor % COLS != COLS - 1, anchor < CELLS - COLS)
    other = np.where(valid, anchor + np.where(horizontal, 1, COLS), _PAD)
    dummy = len(windows)
    per_action = [sorted(set(through[a]) | set(through[o])) if ok else [] for a, o, ok in zip(anchor, other, valid)]
    width = max(map(len, per_action))
    action_windows = np.full((REGULAR_ACTIONS, width), dummy, dtype=np.int64)
    for a, ws in enumerate(per_action):
        action_windows[a, : len(ws)] = ws
    window_cells = np.array([*windows, (_PAD,) * 4], dtype=np.int64)
    placement_of = np.zeros((2, 5), dtype=np.int64)  # (horizontal, anchor segment) -> placement
    for (h, seg), q in PLACEMENT_OF.items():
        placement_of[int(h), seg] = q
    seg_planes = np.zeros((4, 5), dtype=np.float32)  # planes 0-3 of each segment code
    for code in range(1, 5):
        white, ring = (code - 1) >> 1, (code - 1) & 1
        seg_planes[white, code] = 1.0
        seg_planes[2 + ring, code] = 1.0
    cols = np.arange(CELLS) % COLS
    return {
        "act_anchor": anchor,
        "act_other": other,
        "act_horizontal": horizontal,
        "act_seg_anchor": np.array(SEG_ANCHOR, dtype=np.int8)[p],
        "act_seg_other": np.array(SEG_OTHER, dtype=np.int8)[p],
        "action_windows": action_windows,
        "window_cells": window_cells,
        "placement_of": placement_of,
        "horizontal_p": np.array(HORIZONTAL, dtype=bool),
        "seg_planes": seg_planes,
        "not_last_col": cols != COLS - 1,
        "below_top": np.arange(CELLS) < CELLS - COLS,
    }


_T = _tables()


def _forbid_table(rule: str) -> np.ndarray:
    """``(9, k)``: for the placement ``p`` of the card in hand, the placements (0-based
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


class DoubleCardBatch(BatchedEngine):
    """B Double Card games (options of ``DoubleCardGame``: ``max_moves``,
    ``recycle_rule``, ``first_player``; all supported).  ``step(actions)`` takes the
    movers' actions, shape ``(B,)``: placement ``(p - 1) * 96 + anchor``, or
    ``768 + anchor`` to take a card (first sub-step of a recycling move, after which
    the same seat moves again)."""

    game_name = "double_card"
    simultaneous = False

    def __init__(self, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True, **options: Any) -> None:
        super().__init__(num_envs, seed, autoreset=autoreset, **options)
        game: DoubleCardGame = self.game  # type: ignore[assignment]
        self.max_moves = game.max_moves
        self.recycle_rule = game.recycle_rule
        self.colors_seat = game.colors_seat
        self._forbid = _forbid_table(self.recycle_rule)
        B = self.num_envs
        self.seg = np.zeros((B, CELLS + 1), dtype=np.int8)  # column 96: the padding cell, always empty
        self.hanch = np.zeros((B, CELLS), dtype=bool)
        self.vanch = np.zeros((B, CELLS), dtype=bool)
        self.moves = np.zeros(B, dtype=np.int64)
        self.to_move = np.zeros(B, dtype=np.int64)
        self.last = np.full(B, -1, dtype=np.int64)
        self.taken_anchor = np.full(B, -1, dtype=np.int64)
        self.taken_p = np.zeros(B, dtype=np.int64)
        self.winner = np.full(B, -1, dtype=np.int64)
        self._masks: np.ndarray | None = None
        self.reset()

    # ----- state ---------------------------------------------------------------------

    def _reset_rows(self, rows: np.ndarray) -> None:
        self.seg[rows] = 0
        self.hanch[rows] = False
        self.vanch[rows] = False
        self.moves[rows] = 0
        self.to_move[rows] = 0
        self.last[rows] = -1
        self.taken_anchor[rows] = -1
        self.taken_p[rows] = 0
        self.winner[rows] = -1
        self._masks = None

    def game_state(self, b: int) -> DoubleCardState:
        """Game ``b`` as a single-game ``DoubleCardState`` (for debugging, tests and
        the error messages)."""
        def bits(row: np.ndarray) -> int:
            return sum(1 << int(c) for c in np.flatnonzero(row))

        taken = None if self.taken_anchor[b] < 0 else (int(self.taken_anchor[b]), int(self.taken_p[b]))
        return DoubleCardState.from_board(
            self.game, self.seg[b, :CELLS].tolist(), bits(self.hanch[b]), bits(self.vanch[b]),
            moves=int(self.moves[b]), to_move=int(self.to_move[b]), last=int(self.last[b]), taken=taken,
            winner=int(self.winner[b]),
        )

    def load_state(self, b: int, state: DoubleCardState) -> None:
        """Make game ``b`` the position ``state`` (a ``DoubleCardState`` of a game with
        this engine's options), e.g. a position with all 24 cards down."""
        if not isinstance(state, DoubleCardState) or state.game.config != self.game.config:
            raise ValueError(f"double_card: load_state needs a DoubleCardState of a game with options {self.game.config}, got {state!r}")
        self.seg[b, :CELLS] = state.seg
        self.seg[b, CELLS] = 0
        self.hanch[b] = [state.hanch >> c & 1 for c in range(CELLS)]
        self.vanch[b] = [state.vanch >> c & 1 for c in range(CELLS)]
        self.moves[b], self.to_move[b], self.last[b], self.winner[b] = state.moves, state.to_move, state.last, state.winner
        self.taken_anchor[b], self.taken_p[b] = state.taken if state.taken is not None else (-1, 0)
        self._masks = None

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
        self._write_returns(out, np.flatnonzero((self.winner == 0) | (self.winner == 1)))
        return out

    def _write_returns(self, out: np.ndarray, rows: np.ndarray) -> None:
        rows = rows[self.winner[rows] <= 1]  # draws: 0 for both
        w = self.winner[rows]
        out[rows, w] = 1.0
        out[rows, 1 - w] = -1.0

    # ----- legal moves ---------------------------------------------------------------

    def _free_cards(self, rows: np.ndarray | slice) -> np.ndarray:
        """``(n, 96)`` bool: the anchors of the cards that may be taken (nothing resting
        on them, not the card moved last) in the games ``rows``."""
        occ = self.seg[rows, :CELLS] > 0
        above = np.zeros((occ.shape[0], CELLS + 2 * COLS), dtype=bool)
        above[:, :CELLS] = occ  # above[:, a + k] = occ[a + k], False past the top row
        free = self.hanch[rows] & ~(above[:, COLS : CELLS + COLS] | above[:, COLS + 1 : CELLS + COLS + 1])
        free |= self.vanch[rows] & ~above[:, 2 * COLS :]
        last = self.last[rows]
        moved = np.flatnonzero(last >= 0)
        free[moved, last[moved]] = False
        return free

    def _mover_masks(self) -> np.ndarray:
        """``(B, 864)`` int8: the legal actions of each game's mover (zeros where the game
        is over); cached until the state changes (read-only for callers)."""
        if self._masks is not None:
            return self._masks
        B = self.num_envs
        occ = self.seg[:, :CELLS] > 0
        surface = ~occ
        surface[:, COLS:] &= occ[:, :-COLS]  # empty and in row 1 or on a segment
        vertical = surface & _T["below_top"]
        horizontal = surface & _T["not_last_col"]
        horizontal[:, :-1] &= surface[:, 1:]
        masks = np.zeros((B, REGULAR_ACTIONS + CELLS), dtype=np.int8)
        place = masks[:, :REGULAR_ACTIONS].reshape(B, 8, CELLS)
        place[:, 0::2] = horizontal[:, None]  # placements 1, 3, 5, 7
        place[:, 1::2] = vertical[:, None]
        holding = np.flatnonzero(self.taken_anchor >= 0)
        if len(holding) and self.recycle_rule != "none":
            forbid = self._forbid[self.taken_p[holding]]  # (n, k) placement rows, -1 pads
            r, k = np.nonzero(forbid >= 0)
            place[holding[r], forbid[r, k], self.taken_anchor[holding[r]]] = 0
        picking = np.flatnonzero((self.taken_anchor < 0) & (self.moves >= CARDS) & (self.winner < 0))
        if len(picking):
            masks[picking, :REGULAR_ACTIONS] = 0
            masks[picking, PICK_BASE:] = self._free_cards(picking)
        over = self.winner >= 0
        if over.any():
            masks[over] = 0
        self._masks = masks
        return masks

    def legal_masks(self) -> np.ndarray:
        out = np.zeros((self.num_envs, 2, self.num_actions), dtype=np.int8)
        out[self._rows, self.to_move] = self._mover_masks()
        return out

    def legal_mask(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        return self._mover_masks() * (self.to_move == seats)[:, None].astype(np.int8)

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """Uniformly random legal actions of the movers, ``(B,)`` (0 where a game is
        over); the base class's draw, from the movers' masks directly."""
        return uniform_legal(self._mover_masks(), self.rng if rng is None else rng)

    # ----- observations ----------------------------------------------------------------

    def _planes(self, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """``(n, 12, 96)`` float32: the observation of the games ``rows`` with plane 8
        (the seat's objective) left at zero."""
        seg = self.seg[rows, :CELLS]
        n = seg.shape[0]
        obs = np.zeros((n, NUM_PLANES, CELLS), dtype=np.float32)
        obs[:, :4] = _T["seg_planes"][:, seg].transpose(1, 0, 2)
        hanch = self.hanch[rows]
        obs[:, 4] = hanch
        obs[:, 5] = self.vanch[rows]
        last = self.last[rows]
        r = np.flatnonzero(last >= 0)
        if len(r):
            a = last[r]
            obs[r, 6, a] = 1.0
            obs[r, 6, a + np.where(hanch[r, a], 1, COLS)] = 1.0
        ta = self.taken_anchor[rows]
        holding = ta >= 0
        r = np.flatnonzero(holding)
        if len(r):
            a = ta[r]
            obs[r, 7, a] = 1.0
            obs[r, 7, a + np.where(_T["horizontal_p"][self.taken_p[rows][r]], 1, COLS)] = 1.0
        moves = self.moves[rows]
        obs[:, 9] = holding[:, None]
        obs[:, 10] = (holding | (moves >= CARDS))[:, None]
        obs[:, 11] = np.minimum(1.0, moves / self.max_moves).astype(np.float32)[:, None]
        return obs

    def observations(self) -> np.ndarray:
        planes = self._planes()
        out = np.empty((self.num_envs, 2, NUM_PLANES, CELLS), dtype=np.float32)
        out[:, 0] = planes
        out[:, 1] = planes
        out[:, self.colors_seat, 8] = 1.0
        return out.reshape(self.num_envs, 2, NUM_PLANES, ROWS, COLS)

    def observation(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        obs = self._planes()
        obs[:, 8] = (np.asarray(seats) == self.colors_seat).reshape(-1, 1) if np.ndim(seats) else float(seats == self.colors_seat)
        return obs.reshape(self.num_envs, NUM_PLANES, ROWS, COLS)

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
        acts = actions[rows].astype(np.int64, copy=False)
        masks = self._mover_masks()
        inside = (acts >= 0) & (acts < self.num_actions)
        ok = inside & (masks[rows, np.where(inside, acts, 0)] == 1)
        if not ok.all():
            i = int(np.argmax(~ok))
            raise self._illegal(int(rows[i]), int(acts[i]))
        self._masks = None
        pick = acts >= PICK_BASE
        if pick.any():
            self._take(rows[pick], acts[pick] - PICK_BASE)
        rewards = np.zeros((self.num_envs, 2))
        terminated = np.zeros(self.num_envs, dtype=bool)
        final = None
        if pick.all():
            return BatchStep(rewards, terminated, final)
        placed = rows[~pick]
        self._place(placed, acts[~pick])
        done = placed[self.winner[placed] >= 0]
        if len(done):
            terminated[done] = True
            self._write_returns(rewards, done)
            final = np.zeros((self.num_envs, 2, NUM_PLANES, CELLS), dtype=np.float32)
            planes = self._planes(done)
            final[done, 0] = planes
            final[done, 1] = planes
            final[done, self.colors_seat, 8] = 1.0
            final = final.reshape(self.num_envs, 2, NUM_PLANES, ROWS, COLS)
            if self.autoreset:
                self._reset_rows(done)
        return BatchStep(rewards, terminated, final)

    def _take(self, rows: np.ndarray, anchors: np.ndarray) -> None:
        horizontal = self.hanch[rows, anchors]
        other = anchors + np.where(horizontal, 1, COLS)
        self.taken_p[rows] = _T["placement_of"][horizontal.astype(np.int64), self.seg[rows, anchors]]
        self.taken_anchor[rows] = anchors
        self.seg[rows, anchors] = 0
        self.seg[rows, other] = 0
        self.hanch[rows, anchors] = False
        self.vanch[rows, anchors] = False

    def _place(self, rows: np.ndarray, acts: np.ndarray) -> None:
        anchors = _T["act_anchor"][acts]
        horizontal = _T["act_horizontal"][acts]
        self.seg[rows, anchors] = _T["act_seg_anchor"][acts]
        self.seg[rows, _T["act_other"][acts]] = _T["act_seg_other"][acts]
        self.hanch[rows, anchors] = horizontal
        self.vanch[rows, anchors] = ~horizontal
        moves = self.moves[rows] + 1
        self.moves[rows] = moves
        self.last[rows] = anchors
        self.taken_anchor[rows] = -1
        self.taken_p[rows] = 0
        mover = self.to_move[rows]
        self.to_move[rows] = 1 - mover
        # lines through the two new cells: (n, K, 4) codes of the windows
        codes = self.seg[rows[:, None, None], _T["window_cells"][_T["action_windows"][acts]]]
        full = (codes > 0).all(axis=-1)
        red = (codes <= 2).sum(axis=-1)  # among full windows: codes 1, 2 red; 3, 4 white
        filled = (codes & 1).sum(axis=-1)  # codes 1, 3 filled dots
        colour = (full & ((red == 0) | (red == 4))).any(axis=-1)
        dot = (full & ((filled == 0) | (filled == 4))).any(axis=-1)
        cs = self.colors_seat
        winner = np.where(colour & dot, mover, np.where(colour, cs, np.where(dot, 1 - cs, -1)))
        winner[(winner < 0) & (moves >= self.max_moves)] = 2
        check = np.flatnonzero((winner < 0) & (moves >= CARDS))
        if len(check):  # the next mover must be able to take a card
            stuck = ~self._free_cards(rows[check]).any(axis=1)
            winner[check[stuck]] = 2
        self.winner[rows] = winner
