"""Tribolo's rules: the game and its options, the random setup, a position and its
moves (the jump, the flips of every run it closes, the skipped turns of rule 7), undo,
the returns and the observation (docs/tribolo.md).  The board's vocabulary is in
:mod:`.board`, the precomputed tables and the move generator in :mod:`.geometry` and
:mod:`.movegen`, the returns in :mod:`.scoring`, the observation planes in
:mod:`.observation`, the symmetries in :mod:`.symmetry` and the text forms in
:mod:`.notation`.

The state is built for speed (every search runs through ``apply``): ``undo`` takes
back the last moves applied to a state without copying it; once a state has been
observed, it keeps its observation planes (float32, seats in absolute order) and
``apply`` writes the few cells a move changes into them, so an observation is one
``take`` of five planes instead of a build from the board.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.base import (
    Game,
    GameInfo,
    JointAction,
    Option,
    PerfectInfoState,
    State,
    Symmetry,
    make_rng,
)
from parlour.games.bitmask import bits_list
from parlour.games.tribolo import notation
from parlour.games.tribolo.board import (
    EMPTY,
    MAX_CELLS,
    MAX_HEIGHT,
    MAX_WIDTH,
    NUM_PLAYERS,
    WALL,
)
from parlour.games.tribolo.geometry import Geometry
from parlour.games.tribolo.observation import PLANE_ORDER, observation_planes
from parlour.games.tribolo.scoring import RETURN_TYPES, counts_to_returns
from parlour.games.tribolo.symmetry import board_symmetries

SETUP_ATTEMPTS = 1000
"""Random setups drawn before giving up on a configuration where nobody can ever move."""

_SEAT = {-1: (), 0: (0,), 1: (1,), 2: (2,)}
"""``current_players`` of each ``to_move``."""
_NEXT = ((1, 2), (2, 0), (0, 1))
"""The two seats after each seat, in turn order."""
_frombuffer, _int8 = np.frombuffer, np.int8
"""Module-level names for the numpy calls of ``legal_mask``."""
_DIGIT_VALUE = bytes.maketrans(b"01", b"\x00\x01")
"""``bytes.translate`` table: ASCII binary digits to the byte values 0 and 1."""


class TriboloGame(Game):
    name = "tribolo"
    summary = "Tribolo: three players flank and capture cells Othello-style on a board with walls; a player who cannot move is skipped."
    options = {
        "width": Option(16, f"columns (x = 0..width-1), 1..{MAX_WIDTH}", low=1, high=MAX_WIDTH),
        "height": Option(11, f"rows (y = 0..height-1), 1..{MAX_HEIGHT}", low=1, high=MAX_HEIGHT),
        "walls": Option(12, "walls placed at random at the start (3 * start_cells + walls < width * height)", low=0, high=MAX_CELLS - 4),
        "start_cells": Option(12, "cells each player owns at the start, placed at random", low=1, high=(MAX_CELLS - 1) // 3),
        "returns": Option("win_loss", "win_loss: leaders share +1, the others share -1 | cell_share: own/owned - 1/3",
                          choices=RETURN_TYPES),
    }
    notation = (
        "a move is an empty cell, written as its column letter and row number as the board "
        "labels them, e.g. 'c2' (column c, row 2; row 1 is the top line); 'x,y' counted from 0 "
        "also works. The cell is legal when, in at least one of the 8 directions, the cells "
        "next to it are a run of one opponent's cells closed by a cell of yours: every such "
        "run becomes yours. A player with no legal move is skipped."
    )

    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        width, height, walls, start = values["width"], values["height"], values["walls"], values["start_cells"]
        cells = width * height
        if cells > MAX_CELLS:
            raise ValueError(f"a {width} x {height} board has {cells} cells: width * height must be at most {MAX_CELLS}")
        if 3 * start + walls >= cells:
            raise ValueError(
                f"a {width} x {height} board has {cells} cells: 3 * start_cells + walls "
                f"(= {3 * start + walls}) must leave at least one empty cell"
            )
        return {
            "width": width,
            "height": height,
            "walls": walls,
            "start_cells": start,
            "returns": values["returns"],
        }

    def _info(self) -> GameInfo:
        self.geometry = Geometry.of(self.config["width"], self.config["height"])
        return self._game_info(
            num_players=NUM_PLAYERS,
            num_actions=self.geometry.cells,
            perfect_information=True,
            zero_sum=True,
            has_chance=True,
            # Every move fills an empty cell, and a move needs two owned cells:
            # a bound that also holds for positions read from text.
            max_game_length=max(self.geometry.cells - 2, 1),
        )

    @property
    def width(self) -> int:
        return self.config["width"]

    @property
    def height(self) -> int:
        return self.config["height"]

    @property
    def returns_bounds(self) -> tuple[float, float]:
        """win_loss: +1/w and -1/(3 - w); cell_share: own/owned - 1/3 (docs/tribolo.md)."""
        return (-1.0, 1.0) if self.config["returns"] == "win_loss" else (-1 / 3, 2 / 3)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (5, self.height, self.width)

    def new_initial_state(self, seed=None, **start: Any) -> TriboloState:
        """A random setup (rules 2-3): shuffle the cells (``rng.permutation``), deal
        ``start_cells`` to player_0, then player_1, then player_2, then ``walls`` walls;
        shuffle again while nobody can move; then draw the first player uniformly
        (``rng.integers(3)``), passing on to the next seat that can move.  All from
        ``numpy.random.default_rng(seed)``."""
        if start:
            self._check_start(start)
        rng = make_rng(seed)
        geo = self.geometry
        k, w = self.config["start_cells"], self.config["walls"]
        for _ in range(SETUP_ATTEMPTS):
            order = rng.permutation(geo.cells).tolist()
            board = bytearray([EMPTY]) * geo.cells
            own = [0, 0, 0]
            for seat in range(NUM_PLAYERS):
                for c in order[seat * k : (seat + 1) * k]:
                    board[c] = seat
                    own[seat] |= 1 << c
            walls = 0
            for c in order[3 * k : 3 * k + w]:
                board[c] = WALL
                walls |= 1 << c
            state = TriboloState(self, board, own, walls, 0)
            if state._settle(0):  # someone can move: keep this setup, then draw the first player
                state._settle(int(rng.integers(NUM_PLAYERS)))
                return state
        raise ValueError(
            f"tribolo: no setup with a legal move found in {SETUP_ATTEMPTS} draws for "
            f"{self.width} x {self.height}, walls={w}, start_cells={k}; use a larger board"
        )

    @property
    def action_planes(self) -> int:
        """One: a move is a cell, ``y * width + x``, the observation's ``[:, y, x]``."""
        return 1

    def symmetries(self) -> list[Symmetry]:
        """The board's mirror images and, on a square board, its rotations and diagonal
        mirrors: every rule (rules 4-9) reads the eight king directions alike and the
        cells by owner only, so a mirrored or turned position plays the mirrored moves.
        (tests/games/test_symmetries.py checks it on random positions.)"""
        return board_symmetries(self.width, self.height)

    def state_from_board(self, rows: list[str] | str, to_move: int | None) -> TriboloState:
        """A position from its board rows (``.#BRG``) and the seat to move.

        ``to_move=None`` means the game is over.  ``ValueError`` if the rows do not fit
        the board, or if the seat to move has no legal move (or, for ``None``, if
        someone still has one).
        """
        board, own, walls = notation.read_rows(self.geometry, rows)
        state = TriboloState(self, board, own, walls, -1)
        movers = [seat for seat in range(NUM_PLAYERS) if state.moves_of(seat)]
        if to_move is None:
            if movers:
                raise ValueError(f"the position is not over: {', '.join(f'player_{s}' for s in movers)} can move")
            return state
        if to_move not in range(NUM_PLAYERS):
            raise ValueError(f"to_move must be 0, 1, 2 or None, got {to_move!r}")
        if to_move not in movers:
            who = ", ".join(f"player_{s}" for s in movers) or "nobody (the game is over)"
            raise ValueError(f"player_{to_move} has no legal move in this position; can move: {who}")
        state._settle(to_move)
        return state

    def state_from_text(self, text: str) -> TriboloState:
        """The position written by ``to_text`` (:func:`.notation.parse_position`): its
        board and seat to move, whose cell counts must be the header's."""
        to_move, counts, rows = notation.parse_position(text)
        state = self.state_from_board(rows, to_move)
        if counts != state.counts():
            raise ValueError(f"header counts {counts} do not match the board's {state.counts()}")
        return state

    def state_from_observation(self, observation: np.ndarray, mask: np.ndarray) -> TriboloState:
        """The position behind the observation of the seat to move, that seat as
        player_0 (its next seat player_1, the one after player_2).  The planes (own,
        next, next-but-one, walls, empty) give every cell; the rules treat the seats
        alike in turn order, so the relabelled position plays the same cells with the
        same outcome for the observer.  ``ValueError`` unless the observation is one
        cell per plane in 0/1 and ``mask`` is that seat's legal moves on it."""
        obs = np.asarray(observation)
        if obs.shape != self.observation_shape:
            raise ValueError(f"a tribolo observation here has shape {self.observation_shape}, got {obs.shape}")
        legal = np.asarray(mask)
        if legal.shape != (self.num_actions,):
            raise ValueError(f"a tribolo legal mask here has shape ({self.num_actions},), got {legal.shape}")
        planes = obs > 0.5
        if not (np.array_equal(obs, planes.astype(obs.dtype)) and (planes.sum(axis=0) == 1).all()):
            raise ValueError("a tribolo observation holds 0 or 1 and puts every cell in exactly one of its five planes")
        rows = ["".join(row) for row in np.array(list("BRG#."))[planes.argmax(axis=0)]]
        state = self.state_from_board(rows, 0)  # ValueError if the observer has no move
        if not np.array_equal(state.legal_mask(0).astype(bool), legal.astype(bool)):
            raise ValueError("the legal mask is not the observing seat's legal moves on this board")
        return state


class TriboloState(State):
    """A Tribolo position.

    ``board``: owner code per cell (0-2 seats, 3 empty, 4 wall); ``walls``: bitboard;
    ``packed`` and ``packed_vacant``: the packed forms (:meth:`Geometry.pack`) of each
    seat's cells and of the empty cells, which move generation reads (all kept up to
    date by ``apply`` and ``undo``; the plain bitboards ``own`` and ``vacant`` are read
    off them, as ``apply`` need not keep both forms); ``to_move``: the seat to act (-1
    once nobody can move); ``legal``:
    bitboard of ``to_move``'s moves; ``history``: what ``undo`` needs; ``planes``: the
    observation planes in absolute seat order (``float32 (5, height, width)``: seats 0,
    1, 2, walls, empty), or None until the first ``observation_tensor``, and ``_pv``, a
    flat memoryview of them that ``apply`` writes through.  An env observes every
    position, a search never does: only states that are observed pay for the planes,
    and ``clone``, ``undo`` and pickling drop them (rebuilt on the next observation).
    """

    game: TriboloGame
    __slots__ = ("game", "geo", "board", "walls", "packed", "packed_vacant", "to_move", "legal",
                 "history", "planes", "_pv")

    def __init__(self, game: TriboloGame, board: bytearray, own: list[int], walls: int, to_move: int) -> None:
        self.game = game
        self.geo = geo = game.geometry
        self.board = board
        self.walls = walls
        self.packed = [geo.pack(o) for o in own]
        self.packed_vacant = geo.pack(geo.full & ~(own[0] | own[1] | own[2] | walls))
        self.to_move = to_move
        self.legal = 0
        self.history: list[tuple] = []
        self.planes: np.ndarray | None = None
        self._pv: memoryview[float] | None = None

    # --- rules helpers ----------------------------------------------------------------

    @property
    def own(self) -> list[int]:
        """Bitboard of each seat's cells (a new list)."""
        full = self.geo.full
        return [board & full for board in self.packed]

    @property
    def vacant(self) -> int:
        """Bitboard of the empty cells."""
        return self.packed_vacant & self.geo.full

    def empty(self) -> int:
        """Bitboard of the empty cells."""
        return self.packed_vacant & self.geo.full

    def moves_of(self, seat: int) -> int:
        """Bitboard of ``seat``'s legal cells on this board, whoever is to move."""
        packed = self.packed
        return self.geo.moves4(packed[seat], packed[(seat + 1) % 3], packed[(seat + 2) % 3], self.packed_vacant)

    def _settle(self, first: int) -> bool:
        """Give the turn to the first of ``first``, ``first + 1``, ``first + 2`` that can
        move; ``False`` (and ``to_move = -1``) if nobody can."""
        packed = self.packed
        empty = self.packed_vacant
        moves = self.geo.moves4
        for k in range(3):
            seat = (first + k) % 3
            legal = moves(packed[seat], packed[(seat + 1) % 3], packed[(seat + 2) % 3], empty)
            if legal:
                self.to_move, self.legal = seat, legal
                return True
        self.to_move, self.legal = -1, 0
        return False

    def counts(self) -> list[int]:
        """Cells owned by each seat."""
        return [board.bit_count() >> 2 for board in self.packed]  # four copies of each cell

    # --- the protocol -----------------------------------------------------------------

    def current_players(self) -> tuple[int, ...]:
        return _SEAT[self.to_move]

    def legal_actions(self, player: int | None = None) -> list[int]:
        if player is not None and player != self.to_move:
            return []
        return bits_list(self.legal)

    def legal_mask(self, player: int) -> np.ndarray:
        legal = self.legal
        if player != self.to_move or not legal:
            return np.zeros(self.geo.cells, dtype=np.int8)
        # The binary numeral of ``legal``, one ASCII digit per cell (cell c is digit
        # cells - 1 - c), made 0/1 bytes and reversed in place: the mask's bytes in a
        # bytearray that the array takes over (writable, never shared), in about half
        # the time of unpacking bits with numpy (to_bytes, frombuffer, unpackbits, view).
        digits = bytearray(format(legal, self.geo.digits), "ascii").translate(_DIGIT_VALUE)
        digits.reverse()
        return _frombuffer(digits, _int8)

    def apply(self, action) -> None:
        """Play ``action`` (a cell index) for the seat to move; rule 7 picks the next."""
        p = self.to_move
        if type(action) is not int or action < 0 or not self.legal >> action & 1:
            action = self._check(action)
        board, geo, pv = self.board, self.geo, self._pv
        n = geo.cells
        q1, q2 = _NEXT[p]
        a = b = 0  # the packed cells taken from q1 and from q2
        pp = p * n
        for first, rest, cells, prefixes in geo.rays[action]:
            o = board[first]
            if o == p or o > 2:
                continue
            i = 1
            for c in rest:
                v = board[c]
                if v != o:
                    if v == p:  # a run of ``o`` closed by ``p``: it changes hands
                        if o == q1:
                            a |= prefixes[i]
                        else:
                            b |= prefixes[i]
                        if pv is None:
                            board[first] = p
                            if i > 1:
                                for d in cells[1:i]:
                                    board[d] = p
                        else:  # and in the observation planes, from o's to p's
                            po = o * n
                            for d in cells[:i]:
                                board[d] = p
                                pv[po + d] = 0.0
                                pv[pp + d] = 1.0
                    break
                i += 1
        board[action] = p
        if pv is not None:
            pv[4 * n + action] = 0.0
            pv[pp + action] = 1.0
        self.history.append((action, p, a, b, self.legal))
        packed = self.packed
        o1, o2 = packed[q1], packed[q2]
        if a:
            packed[q1] = o1 = o1 ^ a
        if b:
            packed[q2] = o2 = o2 ^ b
        cell = geo.packed_cells[action]
        packed[p] = me = packed[p] | a | b | cell
        self.packed_vacant = empty = self.packed_vacant ^ cell
        # Rule 7: next, next-but-one, then the mover itself.
        moves = geo.moves4
        legal = moves(o1, o2, me, empty)
        if legal:
            self.to_move, self.legal = q1, legal
            return
        legal = moves(o2, me, o1, empty)
        if legal:
            self.to_move, self.legal = q2, legal
            return
        legal = moves(me, o1, o2, empty)
        if legal:
            self.legal = legal
            return
        self.to_move, self.legal = -1, 0

    def _check(self, action: int | JointAction) -> int:
        """The slow path of ``apply``: a clear ``IllegalActionError``, or the action as
        a plain int when it was given as another integer type."""
        if self.to_move < 0:
            raise IllegalActionError("tribolo: the game is over; no action is allowed", action=action)
        seat, value = self._single_action(action)
        if not 0 <= value < self.geo.cells or not self.legal >> value & 1:
            where = self.action_to_text(value) if 0 <= value < self.geo.cells else "off the board"
            raise IllegalActionError(
                f"tribolo: action {value} ({where}) is illegal for seat {seat}; legal: "
                f"{' '.join(self.action_to_text(a) for a in self.legal_actions())}",
                action=value,
                player=seat,
                legal=self.legal_actions(),
            )
        return value

    def undo(self) -> None:
        """Take back the last move applied to this object (not before a ``clone``)."""
        if not self.history:
            raise ValueError("tribolo: no move to undo on this state")
        action, p, a, b, legal = self.history.pop()
        board, packed, geo = self.board, self.packed, self.geo
        full, cell = geo.full, geo.packed_cells[action]
        packed[p] ^= a | b | cell
        self.packed_vacant |= cell
        board[action] = EMPTY
        self.planes = self._pv = None
        for seat, f in zip(_NEXT[p], (a, b)):
            if f:
                packed[seat] |= f
                for c in bits_list(f & full):
                    board[c] = seat
        self.to_move, self.legal = p, legal

    def key(self) -> tuple[int, int, int, int, int]:
        own = self.own
        return (own[0], own[1], own[2], self.walls, self.to_move)

    def clone(self) -> TriboloState:
        other = TriboloState.__new__(TriboloState)
        other.game = self.game
        other.geo = self.geo
        other.board = self.board[:]
        other.walls = self.walls
        other.packed = self.packed[:]
        other.packed_vacant = self.packed_vacant
        other.to_move = self.to_move
        other.legal = self.legal
        other.history = []
        other.planes = other._pv = None
        return other

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        """Pickled without the observation planes (rebuilt on demand)."""
        return None, {name: getattr(self, name) for name in self.__slots__ if name not in ("planes", "_pv")}

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        for name, value in state[1].items():
            setattr(self, name, value)
        self.planes = self._pv = None

    def is_terminal(self) -> bool:
        return self.to_move < 0

    def returns(self) -> np.ndarray:
        if self.to_move >= 0:
            return np.zeros(3)
        return counts_to_returns(self.counts(), self.game.config["returns"])

    def winners(self) -> list[int]:
        """The seats with the most cells once the game is over, else []."""
        if self.to_move >= 0:
            return []
        counts = self.counts()
        top = max(counts)
        return [s for s in range(3) if counts[s] == top]

    def info_state(self, player: int) -> PerfectInfoState:
        if player not in (0, 1, 2):
            raise ValueError(f"tribolo: no seat {player!r}; seats are 0, 1, 2")
        return PerfectInfoState(player, self.clone())

    def observation_tensor(self, player: int) -> np.ndarray:
        """``float32 (5, height, width)``, from ``player``'s point of view: planes
        [own cells, next seat's (player + 1), the one after (player + 2), walls, empty].

        Nothing is hidden in Tribolo; the seat to move is the one observing when it
        acts (the env's action mask says so), so these planes are the whole state.
        The array is a fresh copy (``take``) of the planes the state keeps.
        """
        if player not in (0, 1, 2):
            raise ValueError(f"tribolo: no seat {player!r}; seats are 0, 1, 2")
        planes = self.planes
        if planes is None:
            planes = self._build_planes()
        return planes.take(PLANE_ORDER[player], 0)

    def _build_planes(self) -> np.ndarray:
        """The absolute observation planes from the board (seats 0, 1, 2, walls, empty),
        kept in ``planes`` for ``apply`` to update."""
        planes = observation_planes(self.board, self.geo)
        self.planes, self._pv = planes, cast("memoryview[float]", planes.reshape(-1).data)
        return planes

    def action_to_text(self, action: int) -> str:
        """Column letter and row number: ``a1`` is (x=0, y=0), ``c2`` is (x=2, y=1)."""
        return notation.cell_text(self.geo, action)

    def text_to_action(self, text: str) -> int:
        """``c2`` (column letter, row from 1) or ``x,y`` / ``(x,y)`` (from 0)."""
        return notation.text_to_cell(self.geo, text)

    def to_text(self) -> str:
        """Header (whose turn, or game over and the winners; cells per player), then
        one line of ``width`` symbols per row ``y = 0..height-1``."""
        return notation.position_text(self.geo, self.board, self.to_move, self.counts(), self.winners())

    def view_text(self, seat: int) -> str:
        """What the person at ``seat`` sees in the terminal (:func:`.notation.view_text`):
        which letter is theirs, the header of :meth:`to_text`, then the board with column
        letters and row numbers as the move notation names the cells."""
        notation.check_seat(seat)
        return notation.view_text(self.to_text(), self.geo.width, seat)

    def skipped_seats(self, mover: int) -> tuple[int, ...]:
        """The seats passed over (rule 5) right after ``mover`` moved: those between
        ``mover`` and the seat now to move, or both others when ``mover`` plays again.
        None once the game is over: nobody can move then."""
        if self.to_move < 0:
            return ()
        between = (self.to_move - mover) % NUM_PLAYERS or NUM_PLAYERS
        return tuple((mover + k) % NUM_PLAYERS for k in range(1, between))
