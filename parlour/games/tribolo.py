"""Tribolo: three players capture cells by Othello-like jumps on a board with walls.

Rules (in full in docs/tribolo.md): a ``width`` x
``height`` board (default 16 x 11) starts with ``start_cells`` random cells per player
and ``walls`` random walls.  A move for P is an empty cell ``e`` such that in at least
one of the 8 king directions the cells next to ``e`` are a run of ONE opponent closed
by a cell of P; every such run (in every direction at once, possibly of different
opponents) and ``e`` become P's.  Players move in the order 0 -> 1 -> 2 -> 0, a player
without a move is skipped (the mover plays again if both others are blocked), and the
game ends when nobody can move.  Most cells wins; tied leaders share the win.

Representation (the hot path of every search):

- each player's cells, the walls and the legal moves of the player to move are
  bitboards held as Python ints (bit ``y * width + x``);
- legal moves come from a shift-and-mask flood per direction and opponent (as in
  bitboard Othello engines): ``run = shift(me) & opp`` grown while it stays on ``opp``,
  then ``shift(run) & empty`` are the moves of that direction: a few big-int
  operations per direction and no per-cell Python loop;
- a ``bytearray`` of owners and precomputed rays (cell indices and the bitmask of every
  prefix of every ray) make ``apply`` a short walk per direction;
- ``undo`` takes back the last moves applied to a state without copying it;
- once a state has been observed, it keeps its observation planes (float32, seats in
  absolute order) and ``apply`` writes the few cells a move changes into them, so an
  observation is one ``take`` of five planes instead of a build from the board.

Returns: ``win_loss`` (the ``w`` leaders get ``+1/w``, the others ``-1/(3-w)``; all
tied: 0) or ``cell_share`` (own cells / all owned cells, minus 1/3).  Both are zero-sum.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.base import (
    Game,
    GameInfo,
    Option,
    PerfectInfoState,
    State,
    Symmetry,
    make_rng,
    shown,
)
from parlour.games.bitmask import bits_list

RETURN_TYPES = ("win_loss", "cell_share")
NUM_PLAYERS = 3
EMPTY, WALL = 3, 4
"""Owner codes in ``TriboloState.board``: 0, 1, 2 are the seats."""
SYMBOLS = "BRG.#"
"""Text symbol of each owner code: Blue, Red, Green, empty, wall."""
MAX_WIDTH, MAX_HEIGHT, MAX_CELLS = 26, 26, 400
"""The largest board: columns are lettered a..z in the notation, and the move tables
precomputed for one board size (:class:`Geometry`) grow with the cells to the power of
about 2.5: 1 MB at the original 16 x 11, 6.6 MB at 400 cells (20 x 20), 23 MB at 26 x 26
and 200 MB at the former 26 x 64 (docs/tribolo.md)."""
SETUP_ATTEMPTS = 1000
"""Random setups drawn before giving up on a configuration where nobody can ever move."""

_DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))


_REVERSED_BYTE = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))
"""``bytes.translate`` table: each byte with its 8 bits in reverse order."""


def _compile_moves(width: int, height: int):
    """The move generator of one board size, compiled for it (shifts and masks are
    constants of the generated code: no loop over directions, no tuple unpacking).

    ``moves4(me, a, b, empty)`` takes *packed* boards (see :meth:`Geometry.pack`) of
    the seat to move, its two opponents and the empty cells, and returns the plain
    bitboard of the empty cells where ``me``'s owner has a jump.  A packed board holds
    four copies of a board ``S = (height + 1) * width`` bits apart, so that the row
    after each copy is always empty: the board, the board again, then the board
    turned by 180 degrees (bit ``c`` -> ``cells - 1 - c``) twice.  The opponents'
    board takes ``a`` in copies 0 and 2 and ``b`` in copies 1 and 3, so a run mixing
    two opponents never counts; a shift to higher bits goes east, south-east,
    south or south-west in copies 0-1 and west, north-west, north or north-east in
    the turned copies 2-3.  So four floods cover the 8 directions and both
    opponents, where the plain way takes sixteen.  Per direction (as in bitboard
    Othello engines): ``run = shift(me) & opp`` grown while it stays on ``opp``, then
    ``shift(run) & empty`` are the moves.  A step off the bottom of a copy lands in
    its empty row; a step off the east (west) edge lands in the west (east) column,
    which ``opp`` and ``empty`` are masked out of for the directions with a step east
    (west).  The turned copies' moves are turned back at the end.
    """
    n = width * height
    s = (height + 1) * width
    full = (1 << n) - 1
    nbytes = (n + 7) // 8
    col0 = sum(1 << (y * width) for y in range(height))
    last = col0 << (width - 1)
    four = lambda m: hex(m | m << s | m << 2 * s | m << 3 * s)  # noqa: E731
    lines = [
        "def moves4(me, a, b, e):",
        f"    o = (a & {hex(full | full << 2 * s)}) | (b & {hex(full << s | full << 3 * s)})",
    ]
    floods = []
    for dx, dy in ((1, 0), (1, 1), (0, 1), (-1, 1)):  # the directions that shift to higher bits
        if (dx and width < 3) or (dy and height < 3):
            continue  # no run and closing cell fit in that direction
        floods.append((dy * width + dx, *{1: ("oe", "ee"), -1: ("ow", "ew"), 0: ("o", "e")}[dx]))
    if any(f[1] == "oe" for f in floods):
        lines += [f"    oe = o & {four(full & ~col0)}", f"    ee = e & {four(full & ~col0)}"]
    if any(f[1] == "ow" for f in floods):
        lines += [f"    ow = o & {four(full & ~last)}", f"    ew = e & {four(full & ~last)}"]
    lines.append("    m = 0")
    for step, opp, empty in floods:
        if step == 1:
            # Runs along a row are consecutive bits: adding the run's first cell to the
            # opponent's cells carries through the run to the cell just past it.
            lines.append(f"    m |= (((me << 1) & {opp}) + {opp}) & {empty}")
            continue
        lines += [
            f"    x = (me << {step}) & {opp}",
            f"    f = (x << {step}) & {opp}",
            "    while f:",
            "        x |= f",
            f"        f = (f << {step}) & {opp}",
            f"    m |= (x << {step}) & {empty}",
        ]
    turn = f" >> {8 * nbytes - n}" if 8 * nbytes > n else ""
    lines += [
        f"    m |= m >> {s}",
        f"    t = (m >> {2 * s}) & {hex(full)}",
        f"    return m & {hex(full)} | int.from_bytes(t.to_bytes({nbytes}, 'big').translate(_REVERSED_BYTE), 'little'){turn}",
    ]
    namespace: dict[str, Any] = {"_REVERSED_BYTE": _REVERSED_BYTE}
    exec(compile("\n".join(lines), f"<tribolo moves {width}x{height}>", "exec"), namespace)
    moves4 = namespace["moves4"]
    moves4.__doc__ = "Plain bitboard of ``me``'s moves from packed boards (see tribolo._compile_moves)."
    return moves4


class Geometry:
    """Everything precomputed for one board size (shared by every state of that size).

    ``rays[c]``: for each direction whose first step from ``c`` stays on the board, a
    tuple ``(first, rest, cells, prefixes)``: ``cells`` are the cell indices walked
    outwards (``first`` and ``rest`` split off for the hot loop of :meth:`jumps`) and
    ``prefixes[i]`` = the packed bitmask (:meth:`pack`) of the first ``i`` of them;
    ``packed_cells[c]``: the packed bitmask of cell ``c``.  ``moves4``: the move
    generator compiled for this size (:func:`_compile_moves`).
    """

    _cache: OrderedDict[tuple[int, int], Geometry] = OrderedDict()
    _CACHED = 8
    _lock = threading.Lock()
    """Geometries kept for sizes no game holds any more (each game holds its own)."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = n = width * height
        self.full = (1 << n) - 1
        self.nbytes = (n + 7) // 8
        self.digits = f"0{n}b"
        """``format`` spec of a bitboard as ``cells`` binary digits (``legal_mask``)."""
        self.stride = (height + 1) * width
        self.packed_cells = tuple(self.pack(1 << c) for c in range(n))
        rays = []
        for c in range(n):
            x, y = c % width, c // width
            per_cell = []
            for dx, dy in _DIRECTIONS:
                cells = []
                cx, cy = x + dx, y + dy
                while 0 <= cx < width and 0 <= cy < height:
                    cells.append(cy * width + cx)
                    cx, cy = cx + dx, cy + dy
                if len(cells) >= 2:  # a jump needs a run and a closing cell
                    prefixes = [0]
                    for cell in cells:
                        prefixes.append(prefixes[-1] | self.packed_cells[cell])
                    per_cell.append((cells[0], tuple(cells[1:]), tuple(cells), tuple(prefixes)))
            rays.append(tuple(per_cell))
        self.rays = tuple(rays)
        self.moves4 = _compile_moves(width, height)
        self.observation_shape = (5, height, width)

    @classmethod
    def of(cls, width: int, height: int) -> Geometry:
        with cls._lock:  # threads share the cache (a server's requests)
            geo = cls._cache.get((width, height))
            if geo is not None:
                cls._cache.move_to_end((width, height))
                return geo
        geo = cls(width, height)
        with cls._lock:
            cls._cache[(width, height)] = geo
            while len(cls._cache) > cls._CACHED:
                cls._cache.popitem(last=False)
        return geo

    def turn(self, board: int) -> int:
        """``board`` turned by 180 degrees: bit ``c`` -> bit ``cells - 1 - c``."""
        n = self.cells
        turned = int.from_bytes(board.to_bytes(self.nbytes, "big").translate(_REVERSED_BYTE), "little")
        return turned >> (8 * self.nbytes - n)

    def pack(self, board: int) -> int:
        """The packed form of a plain bitboard (what :func:`_compile_moves`'s generator
        reads): the board, the board again, then the board turned by 180 degrees twice,
        ``stride`` bits apart."""
        s, turned = self.stride, self.turn(board)
        return board | board << s | turned << 2 * s | turned << 3 * s

    def moves(self, me: int, o1: int, o2: int, empty: int) -> int:
        """Bitboard of the empty cells where the owner of ``me`` has a jump (plain
        bitboards in; states keep packed boards and call ``moves4`` directly)."""
        pack = self.pack
        return self.moves4(pack(me), pack(o1), pack(o2), pack(empty))

    def __reduce__(self) -> tuple:
        """Pickled as its size: the tables are rebuilt (or found in the cache) on load,
        so a pickled state stays small."""
        return (Geometry.of, (self.width, self.height))

    def jumps(self, board: bytearray, cell: int, player: int) -> list[tuple[int, int, tuple]]:
        """``player``'s jumps from the empty ``cell`` (rule 3), without changing the board:
        ``(opponent, run length, ray)`` for each ray whose run of one opponent's cells is
        closed by a cell of ``player``."""
        found = []
        for ray in self.rays[cell]:
            o = board[ray[0]]
            if o == player or o > 2:
                continue
            i = 1
            for c in ray[1]:
                v = board[c]
                if v != o:
                    if v == player:
                        found.append((o, i, ray))
                    break
                i += 1
        return found

    def captures(self, board: bytearray, cell: int, player: int) -> list[int]:
        """Cells ``player`` would take from each seat by playing ``cell`` (no change).

        ``[from seat 0, from seat 1, from seat 2]``; the entry of ``player`` is 0.  All
        zeros means ``cell`` is not a move of ``player`` (or is not empty).
        """
        taken = [0, 0, 0]
        for o, run, _ in self.jumps(board, cell, player):
            taken[o] += run
        return taken


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
        width, height = self.width, self.height
        ys, xs = np.indices((height, width))
        found = []
        for transpose in (False, True) if width == height else (False,):
            for flip_x in (False, True):
                for flip_y in (False, True):
                    if not (transpose or flip_x or flip_y):
                        continue
                    nx, ny = (ys, xs) if transpose else (xs, ys)
                    nx = width - 1 - nx if flip_x else nx
                    ny = height - 1 - ny if flip_y else ny
                    name = "+".join(n for n, on in (("transpose", transpose), ("flip_x", flip_x), ("flip_y", flip_y)) if on)
                    found.append(Symmetry(name, (ny * width + nx).reshape(-1), _board_transform(transpose, flip_x, flip_y)))
        return found

    def state_from_board(self, rows: list[str] | str, to_move: int | None) -> TriboloState:
        """A position from its board rows (``.#BRG``) and the seat to move.

        ``to_move=None`` means the game is over.  ``ValueError`` if the rows do not fit
        the board, or if the seat to move has no legal move (or, for ``None``, if
        someone still has one).
        """
        if isinstance(rows, str):
            rows = rows.split()
        geo = self.geometry
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
        state = self.state_from_board(lines[1:], to_move)
        counts = [int(match[s]) for s in "BRG"]
        if counts != state.counts():
            raise ValueError(f"header counts {counts} do not match the board's {state.counts()}")
        return state


def _board_transform(transpose: bool, flip_x: bool, flip_y: bool) -> Callable[[np.ndarray], np.ndarray]:
    """The map of an array's last two axes (rows y, columns x) that moves cell (x, y)
    where the symmetry sends it: first the transpose, then the flips."""

    def transform(array: np.ndarray) -> np.ndarray:
        out = np.swapaxes(array, -1, -2) if transpose else array
        if flip_x:
            out = out[..., ::-1]
        if flip_y:
            out = out[..., ::-1, :]
        return out

    return transform


_HEADER = re.compile(
    r"(?:player_(?P<seat>[0-2]) to move|game over(?: \| (?:player_[0-2](?:, player_[0-2])* wins?|draw))?)"
    r" \| B (?P<B>\d+) R (?P<R>\d+) G (?P<G>\d+)"
)


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
        self._pv: memoryview | None = None

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

    def _check(self, action: object) -> int:
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
        return planes.take(_PLANE_ORDER[player], 0)

    def _build_planes(self) -> np.ndarray:
        """The absolute observation planes from the board (seats 0, 1, 2, walls, empty),
        kept in ``planes`` for ``apply`` to update."""
        geo = self.geo
        codes = _frombuffer(bytes(self.board), _uint8)
        planes = (codes == _PLANE_CODES).astype(_float32).reshape((5, *geo.observation_shape[1:]))
        self.planes, self._pv = planes, memoryview(planes.reshape(-1))
        return planes

    def action_to_text(self, action: int) -> str:
        """Column letter and row number: ``a1`` is (x=0, y=0), ``c2`` is (x=2, y=1)."""
        geo = self.geo
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or not 0 <= action < geo.cells:
            raise ValueError(f"tribolo action must be a cell index 0..{geo.cells - 1}, got {action!r}")
        y, x = divmod(int(action), geo.width)
        return f"{chr(97 + x)}{y + 1}"

    def text_to_action(self, text: str) -> int:
        """``c2`` (column letter, row from 1) or ``x,y`` / ``(x,y)`` (from 0)."""
        geo = self.geo
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

    def to_text(self) -> str:
        """Header (whose turn, or game over and the winners; cells per player), then
        one line of ``width`` symbols per row ``y = 0..height-1``."""
        b, r, g = self.counts()
        if self.to_move >= 0:
            head = f"player_{self.to_move} to move"
        else:
            won = self.winners()
            head = "game over | " + (
                "draw" if len(won) == 3 else ", ".join(f"player_{s}" for s in won) + (" wins" if len(won) == 1 else " win")
            )
        w = self.geo.width
        board = self.board.translate(_TO_TEXT).decode()
        rows = [board[y * w : (y + 1) * w] for y in range(self.geo.height)]
        return "\n".join([f"{head} | B {b} R {r} G {g}", *rows])

    def view_text(self, seat: int) -> str:
        """What the person at ``seat`` sees in the terminal: which letter is theirs, the
        header of :meth:`to_text`, then the board with column letters and row numbers
        as the move notation names the cells (``a1`` is the top-left cell)::

            you are B (player_0); R is player_1, G is player_2; # is a wall
            player_1 to move | B 2 R 1 G 1
                a b c d
              1 B R . .
              2 . . B G
        """
        if seat not in (0, 1, 2):
            raise ValueError(f"tribolo: no seat {seat!r}; seats are 0, 1, 2")
        others = ", ".join(f"{SYMBOLS[s]} is player_{s}" for s in range(NUM_PLAYERS) if s != seat)
        head, *rows = self.to_text().split("\n")
        pad = len(str(len(rows)))
        lines = [f"you are {SYMBOLS[seat]} (player_{seat}); {others}; # is a wall", head,
                 " " * (pad + 1) + " ".join(chr(97 + x) for x in range(self.geo.width))]
        lines += [f"{y:>{pad}} " + " ".join(row) for y, row in enumerate(rows, 1)]
        return "\n".join(lines)

    def skipped_seats(self, mover: int) -> tuple[int, ...]:
        """The seats passed over (rule 5) right after ``mover`` moved: those between
        ``mover`` and the seat now to move, or both others when ``mover`` plays again.
        None once the game is over: nobody can move then."""
        if self.to_move < 0:
            return ()
        between = (self.to_move - mover) % NUM_PLAYERS or NUM_PLAYERS
        return tuple((mover + k) % NUM_PLAYERS for k in range(1, between))


_TO_TEXT = bytes.maketrans(bytes(range(5)), SYMBOLS.encode())
_SEAT = {-1: (), 0: (0,), 1: (1,), 2: (2,)}
_frombuffer = np.frombuffer
_DIGIT_VALUE = bytes.maketrans(b"01", b"\x00\x01")
"""``bytes.translate`` table: ASCII binary digits to the byte values 0 and 1."""
_uint8, _int8, _float32 = np.uint8, np.int8, np.float32
_PLANE_CODES = np.array([0, 1, 2, WALL, EMPTY], dtype=np.uint8)[:, None]
"""The owner code of each absolute observation plane (seats 0, 1, 2, walls, empty)."""
_PLANE_ORDER = tuple(np.array([seat, (seat + 1) % 3, (seat + 2) % 3, 3, 4], dtype=np.intp) for seat in range(NUM_PLAYERS))
"""Each seat's observation planes (own, next, next-but-one, walls, empty) as indices of
the absolute ones."""
"""Module-level names for the numpy calls of ``legal_mask`` and ``observation_tensor``."""
_NEXT = ((1, 2), (2, 0), (0, 1))
"""The two seats after each seat, in turn order."""


def counts_to_returns(counts: list[int], kind: str) -> np.ndarray:
    """Returns of a finished game from the cell counts (docs/tribolo.md, Rules, items 6-7)."""
    if kind == "cell_share":
        total = sum(counts)
        if not total:
            return np.zeros(3)
        return np.array([c / total - 1.0 / 3.0 for c in counts])
    top = max(counts)
    w = counts.count(top)
    if w == 3:
        return np.zeros(3)
    win, loss = 1.0 / w, -1.0 / (3 - w)
    return np.array([win if c == top else loss for c in counts])
