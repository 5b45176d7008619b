"""Tribolo, B games at once: the mover of every game plays a cell in one ``step``.

What a batch step costs is the number of numpy calls and the bytes they touch, so the
state is laid out for both.

**Lanes** (:class:`_Lanes`).  Every board row is one ``Wp``-bit lane (``Wp`` = the width
rounded up to 8, 16 or 32) of a uint64 word, ``64 / Wp`` games side by side in a word.
A plane (one bit per cell of every game) is ``H`` rows of ``groups`` words: word ``y *
groups + g`` holds row ``y`` of the games ``g * per_word ..`` (game ``b`` in bits ``(b %
per_word) * Wp + x``).  For 1024 default games a plane is 22 KB, and uint64 ops cost
about half of what the same bytes of uint16 ops do.  A step in a direction is a bit
shift of the words (``dx``) and an offset of ``groups`` words per row (``dy``: a view of
a plane stored with zero margins), so rows need no separators; nothing crosses a lane's
edge because the links below drop every pair of cells a bit shift would join across
two lanes, and the starts and ends of runs are masked the same way (as
``_compile_moves`` does for the single game).  ``_Lanes.games`` transposes a plane to
one row of ``H`` lane-sized words per game: the form of the legal cells
(``legal_words``), of the observations' table (``game_words``) and of the single-game
bitboards (for ``W = Wp`` those words are the plain bitboard's bytes).

**Moves.**  ``Geometry.moves`` grows the runs of each opponent separately; here runs
grow along *links*: the cells owned by the same seat as their neighbour one step back
in direction ``d``, and ``chain_d(k)``, the cells with ``k`` links in a row behind them
(``chain(2k) = chain(k) & shift(chain(k), k)``).  A run that starts on an opponent's cell
and follows links stays on that opponent, so one plane covers both opponents, and the
links depend on the board, not on the seat.  A run grows by a Kogge-Stone fill (``x |=
shift(x, k) & chain(k)``, k = 1, 2, 4, ...: ``ceil(log2(longest run))`` rounds; the
opposite direction as ``x |= shift_-d(x & chain_d(k), k)``, without shifting the
chains), and the seat's legal cells are the empty cells one step past the runs (rule
3).  :meth:`_Lanes.plan` compiles all this once into ~155 ufunc calls on fixed buffers
and views; a move generation is those calls and nothing else (no allocation, no
slicing).  It writes one plane of jumping cells per direction, kept for ``step``.

**Apply** (rules 3-4) works on ``codes``, the owner code of every cell plus a sentinel
cell ending every ray: the rays walked are the directions the move generation found for
the played cell (or all 8 in the games it did not settle), read a 4-cell head at a time
(one 16-byte table row per ray; the whole ray only for a run still going), laid out
``(step, ray)`` so that each op runs along the long axis.  A run is the cells still on
the first cell's owner; it is taken when that is an opponent and the next cell is the
mover's.  The bitboards follow by one ``np.add.at`` of the gained cells' bits into the
lane words of each seat.

**Turns** (rule 5/7): the next seat's moves are generated for all games at once; the few
games where it is stuck (usually a handful, and the resets of a step) try the seats
after it one at a time in the single game's Python bitboards (``Geometry.moves``, ~10
us a seat) up to ``few_games`` games, and through the same compiled move generation on
a compact copy of their boards (a ``_Lanes`` of a few words) beyond.

``random_actions`` draws like ``uniform_legal`` (k = floor(u * count), the k-th legal
cell) on the legal words: byte popcounts, one running sum over the batch, a
``searchsorted`` and a bit-select table.  An observation is a ``take`` of each game's
five planes' words from ``game_words``, then one ``take`` of 32-byte rows (a byte's
bits as eight float32) that writes the floats in one pass, into a reused buffer
(``OutputBuffers``: never one the caller still holds).

Setup: drawn with the engine's generator, vectorised: a uniform permutation of the
cells per game (``argsort`` of uniforms; ``new_initial_state`` uses
``rng.permutation``), dealt as in rule 2 (start cells of seats 0, 1, 2, then walls);
redrawn for the games where nobody can move; then the first player is drawn uniformly
(``rng.integers(3)``) and passed on to the next seat that can move.  The distribution
is the single game's, not its random stream: the same integer seed gives other
positions than ``new_initial_state(seed)``.  To start from given single-game positions
(the exactness tests do), use :meth:`TriboloBatch.load_states`.

The cells that capture the most now (:meth:`TriboloBatch.most_capturing_words`, what
the batched ``greedy`` of ``parlour.baselines.players.tribolo_batched`` plays:
``GreedyCells``, uniform among the best with the batch's generator): the captures of every legal
cell are counted in bit-sliced counters (one plane per binary digit) from the runs of
each direction, and the best cells are found by eliminating, from the top digit down,
the candidates without that digit whenever some candidate has it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.bitmask import popcount
from parlour.games.engine import BatchedEngine, BatchStep, OutputBuffers, SearchableEngine
from parlour.games.tribolo.board import EMPTY, NUM_PLAYERS, SYMBOLS, WALL
from parlour.games.tribolo.rules import SETUP_ATTEMPTS, TriboloGame, TriboloState

_DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
"""Directions ``i`` and ``i + 4`` are opposite; the first four are the base directions
whose links are computed (``dy >= 0``)."""
_ALL = (1 << 64) - 1
OFF = 5
"""Owner code of the sentinel cell that ends every ray in ``TriboloBatch.codes``."""


class _Lanes:
    """The bitboards of ``games`` games of one board size in lanes (see the module
    docstring), and the batched move generation on them.

    ``own`` (margined, ``(3, N + 2M)``): each seat's cells; ``occupied``, ``empty``
    (``(N,)``).  A plane is ``H`` rows of ``groups`` words; a margined buffer has ``M``
    zero words on both sides, so that a step of up to ``M / groups`` rows is a view."""

    def __init__(self, width: int, height: int, games: int) -> None:
        W, H = width, height
        self.width, self.height = W, H
        self.Wp = Wp = 8 if W <= 8 else 16 if W <= 16 else 32
        self.lane = {8: np.uint8, 16: np.uint16, 32: np.uint32}[Wp]
        self.per_word = L = 64 // Wp
        self.groups = G = -(-games // L)
        self.padded = G * L  # games, the empty ones filling the last word included
        self.N = H * G
        col0 = sum(1 << (lane * Wp) for lane in range(L))
        self.not_first = np.uint64(_ALL & ~col0)  # every lane but its column 0
        self.not_last = np.uint64(_ALL & ~(col0 << (Wp - 1)))  # every lane but its column Wp - 1
        # Kogge-Stone rounds of each base direction: enough to grow a run to the longest
        # one that fits (the last round only as long as needed)
        self.rounds: list[tuple[int, ...] | None] = []
        rows_shifted = 1
        for dx, dy in _DIRECTIONS[:4]:
            longest = W - 2 if dy == 0 else H - 2 if dx == 0 else min(W, H) - 2
            if longest < 1:
                self.rounds.append(None)  # no run and closing cell fit in this direction
                continue
            ks, cover = [], 1
            while cover < longest:
                k = cover if longest - cover >= cover else 1 << (longest - cover - 1).bit_length()
                ks.append(k)
                cover += k
            self.rounds.append(tuple(ks))
            if dy:
                rows_shifted = max(rows_shifted, *ks, 1)
        self.M = rows_shifted * G
        # the direction (index into _DIRECTIONS) of the jumps in each plane of ``moves``:
        # a run grown in direction d from the mover's cells is jumped from its far end,
        # looking back (-d); the plan grows d, then -d, for each base direction with room
        self.jumps = [d for i in range(4) if self.rounds[i] is not None for d in (i + 4, i)]
        self.own = np.zeros((NUM_PLAYERS, self.N + 2 * self.M), dtype=np.uint64)
        self.occupied = np.zeros(self.N, dtype=np.uint64)
        self.empty = np.zeros(self.N, dtype=np.uint64)
        self._plans: dict[bool, _Plan] = {}

    def inner(self, plane: np.ndarray) -> np.ndarray:
        """The plane of a margined buffer (a view)."""
        return plane[..., self.M : self.M + self.N]

    def shift(self, plane: np.ndarray, dx: int, dy: int, k: int) -> np.ndarray:
        """A margined plane moved ``k`` steps in direction ``(dx, dy)``: cell ``c`` of the
        result is cell ``c - k * (dx, dy)`` of ``plane`` (bits pushed across a lane are
        the callers' to mask)."""
        start = self.M - dy * k * self.groups
        v = plane[..., start : start + self.N]
        if dx > 0:
            return v << k
        if dx < 0:
            return v >> k
        return v

    def margined(self) -> np.ndarray:
        return np.zeros(self.N + 2 * self.M, dtype=np.uint64)

    def lane_view(self, plane: np.ndarray) -> np.ndarray:
        """``(..., H, groups, per_word)`` lane-word view of (a) plane(s)."""
        return plane.view(self.lane).reshape(*plane.shape[:-1], self.height, self.groups, self.per_word)

    def games(self, plane: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``(..., padded, H)`` lane words: each game's rows of the plane(s)."""
        v = np.moveaxis(self.lane_view(plane), -3, -1)  # (..., groups, per_word, H)
        if out is None:
            return v.reshape(*plane.shape[:-1], self.padded, self.height)
        np.copyto(out.reshape(v.shape), v)
        return out

    def rows_of(self, plane: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``(n, H)`` the words of the games ``rows`` in a plane."""
        return self.lane_view(plane)[:, rows // self.per_word, rows % self.per_word].T

    def set_rows(self, plane: np.ndarray, rows: np.ndarray, words: np.ndarray) -> None:
        self.lane_view(plane)[:, rows // self.per_word, rows % self.per_word] = words.T

    def lane_any(self, plane: np.ndarray) -> np.ndarray:
        """``(padded,)`` bool: the games with a cell in the plane."""
        return np.bitwise_or.reduce(plane.reshape(self.height, self.groups), axis=0).view(self.lane) != 0

    def plan(self, keep_runs: bool = False) -> _Plan:
        """The move generation, compiled once into ufunc calls on fixed buffers and
        views, so that a run of it costs its ~175 numpy calls and nothing else.

        The seat's cells (``mine``) from the seat masks; then per base direction ``d``:
        the chains of ``d`` (``chain(1)``: the links, ``chain(2k) = chain(k) &
        shift_d(chain(k), k)``); the runs from the seat's cells in direction ``d``, ``x
        |= shift_d(x, k) & chain(k)`` for the rounds ``k``, and in direction ``-d``, ``x
        |= shift_-d(x & chain(k), k)`` (the same thing without shifting the chains);
        after each, the cells one step past the runs that are empty."""
        plan = self._plans.get(keep_runs)
        if plan is not None:
            return plan
        G, N, M = self.groups, self.N, self.M
        ops: list[tuple[Any, np.ndarray, Any, np.ndarray]] = []

        def op(ufunc: Any, a: np.ndarray, b: Any, out: np.ndarray) -> np.ndarray:
            ops.append((ufunc, a, b, out))
            return out

        def moved(buf: np.ndarray, dx: int, dy: int, k: int, out: np.ndarray) -> np.ndarray:
            """``buf`` (margined) moved ``k`` steps: a view, or ``out`` after a bit shift."""
            start = M - dy * k * G
            view = buf[..., start : start + N]
            if dx:
                return op(np.left_shift if dx > 0 else np.right_shift, view, k, out)
            return view

        def zeros(*shape: int) -> np.ndarray:
            return np.zeros(shape, dtype=np.uint64)

        inner = self.inner
        rows = (self.height, G)
        masks = zeros(NUM_PLAYERS, 1, G)
        src, tmp = self.margined(), zeros(N)
        me = inner(src)
        own = inner(self.own).reshape(NUM_PLAYERS, *rows)
        op(np.bitwise_and, own[0], masks[0], me.reshape(rows))
        for s in (1, 2):
            op(np.bitwise_and, own[s], masks[s], tmp.reshape(rows))
            op(np.bitwise_or, me, tmp, me)
        opp = op(np.bitwise_xor, self.occupied, me, zeros(N))  # (the seat's cells are occupied)
        # a step east never lands on column 0, a step west never on column Wp - 1
        opp_edge = {1: op(np.bitwise_and, opp, self.not_first, zeros(N)), 0: opp,
                    -1: op(np.bitwise_and, opp, self.not_last, zeros(N))}
        empty_edge = {1: op(np.bitwise_and, self.empty, self.not_first, zeros(N)), 0: self.empty,
                      -1: op(np.bitwise_and, self.empty, self.not_last, zeros(N))}
        D = len(self.jumps)
        # the runs of every direction are kept only for ``keep_runs`` (the capture
        # counts of ``most_capturing_words``): one buffer keeps the hot plan's working set smaller
        runs, moves, back = zeros(D if keep_runs else 1, N + 2 * M), zeros(D, N), self.margined()
        levels = max((max(ks, default=1).bit_length() for ks in self.rounds if ks is not None), default=1)
        chains = [self.margined() for _ in range(levels)]
        # the seats' cells and the seat's cells one column east and west (a step with a
        # dx is then a view of these); the links of a direction: one AND of the three
        # seats' planes with their moved views, then two ORs
        near = slice(M - G, M + N + G)  # (what a step of one row reads)
        sides = {0: (self.own, src)}
        for dx in (1, -1):
            sides[dx] = (zeros(*self.own.shape), self.margined())
            for plane, side in zip((self.own, src), sides[dx]):
                op(np.left_shift if dx > 0 else np.right_shift, plane[..., near], 1, side[..., near])
        pairs = zeros(NUM_PLAYERS, N)
        j = 0
        for i, (dx, dy) in enumerate(_DIRECTIONS[:4]):
            ks = self.rounds[i]
            if ks is None:
                continue
            link = inner(chains[0])
            op(np.bitwise_and, inner(self.own), moved(sides[dx][0], 0, dy, 1, pairs), pairs)
            op(np.bitwise_or, pairs[0], pairs[1], link)
            op(np.bitwise_or, link, pairs[2], link)
            if dx:
                op(np.bitwise_and, link, self.not_first if dx > 0 else self.not_last, link)
            chain = {1: chains[0]}
            while 2 * max(chain) <= max(ks, default=1):
                k = max(chain)
                chain[2 * k] = chains[k.bit_length()]
                op(np.bitwise_and, inner(chain[k]), moved(chain[k], dx, dy, k, tmp), inner(chain[2 * k]))
            # direction d
            run = runs[j if keep_runs else 0]
            x = inner(run)
            op(np.bitwise_and, moved(sides[dx][1], 0, dy, 1, tmp), opp_edge[dx], x)
            for k in ks:
                op(np.bitwise_and, moved(run, dx, dy, k, tmp), inner(chain[k]), tmp)
                op(np.bitwise_or, x, tmp, x)
            op(np.bitwise_and, moved(run, dx, dy, 1, moves[j]), empty_edge[dx], moves[j])
            # direction -d
            run = runs[j + 1 if keep_runs else 0]
            x = inner(run)
            op(np.bitwise_and, moved(sides[-dx][1], 0, -dy, 1, tmp), opp_edge[-dx], x)
            for k in ks:
                op(np.bitwise_and, x, inner(chain[k]), inner(back))
                op(np.bitwise_or, x, moved(back, -dx, -dy, k, tmp), x)
            op(np.bitwise_and, moved(run, -dx, -dy, 1, moves[j + 1]), empty_edge[-dx], moves[j + 1])
            j += 2
        plan = self._plans[keep_runs] = _Plan(ops, masks, src, runs, moves)
        return plan

    def moves(self, seats: np.ndarray, keep_runs: bool = False) -> _Plan:
        """Run the move generation for ``seats`` (``(padded,)``, one seat per game, -1:
        none) on the current boards: ``plan.moves[j]`` are the cells that have a jump in
        direction ``self.jumps[j]`` (their OR: the legal cells), ``plan.runs[j]`` the runs
        jumped (``keep_runs``).  The plan's buffers are overwritten by its next run."""
        plan = self.plan(keep_runs)
        eq = seats == np.arange(NUM_PLAYERS)[:, None]
        plan.masks[:, 0] = np.negative(eq.astype(self.lane)).view(np.uint64)
        for ufunc, a, b, out in plan.ops:
            ufunc(a, b, out)  # (out positional: no keyword parsing)
        return plan


class TriboloBatch(SearchableEngine):
    """B Tribolo games (every option of ``TriboloGame``: ``width``, ``height``,
    ``walls``, ``start_cells``, ``returns``).  ``step(actions)`` takes the movers'
    cells, shape ``(B,)`` (action ``y * width + x``)."""

    game_class = TriboloGame
    game: TriboloGame
    simultaneous = False
    COMPACT = True
    STATE = ("codes", "legal_words", "to_move")
    SEARCH_ON_ENGINE = False
    """Measured (benchmarks/RESULTS.md, issue 29): the tree searches of 16 games play 39
    positions a second, the vectorised search on this engine 32; the engine is made for
    thousands of games, not for copying a few positions every simulation."""
    """(The lane planes pack several games into a word: :meth:`copy_rows` rewrites them
    from the copied boards.)"""

    few_games = 8
    """Up to this many games in ``_settle_some`` go through the single game's Python
    bitboards (``Geometry.moves``, ~10 us a seat); more, up to a quarter of the batch,
    through a compact copy of their boards, all candidate seats at once (the compiled
    move generation costs its ~155 numpy calls, ~1 us each on a few games' planes, ~2 us
    on all of them)."""

    def __init__(self, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True, **options: Any) -> None:
        super().__init__(num_envs, seed, autoreset=autoreset, **options)
        game = self.game
        W, H = game.width, game.height
        self.width, self.height = W, H
        self.start_cells, self.num_walls = game.config["start_cells"], game.config["walls"]
        self.return_type = game.config["returns"]
        self.cells = W * H
        self.planes = planes = _Lanes(W, H, self.num_envs)
        self._compacts: dict[int, _Lanes] = {}
        self.Wp, self.lane, P = planes.Wp, planes.lane, planes.padded
        self.count_bits = int(8 * max(W, H)).bit_length()  # captures of one move < 8 * max(W, H)
        # state: the bitboards (``planes``) ...
        self.game_words = np.zeros((5, P, H), dtype=self.lane)
        """Each game's words of seats 0-2, walls, empty (``_observe``'s table; the walls
        never change, the rest is refreshed from the lane planes when read)."""
        self.to_move = np.full(P, -1, dtype=np.int64)
        self.legal_words = np.zeros((P, H), dtype=self.lane)
        # ... the jumps the last move generation on all games found (``_apply`` walks
        # only those rays in the games where ``jumps_known``) ...
        self.jump_planes = np.zeros((len(planes.jumps), planes.N), dtype=np.uint64)
        self.jump_offsets = np.arange(len(planes.jumps)) * planes.N
        self.jump_directions = np.array(planes.jumps, dtype=np.int64)
        self.jumps_known = np.zeros(P, dtype=bool)
        # ... and codes[b, c]: the owner code of cell c (as in ``TriboloState.board``),
        # then the sentinel cell ``cells`` (OFF: nobody's, never empty) that ends every ray
        self.codes = np.full((P, self.cells + 1), OFF, dtype=np.int8)
        xs, ys = np.arange(self.cells) % W, np.arange(self.cells) // W
        self.cell_row = ys.astype(np.int64)
        self.cell_x = xs.astype(np.uint64)
        self.cell_word = ys * P  # a cell's lane word in the lane view of a plane, game 0's
        self.cell_value = (1 << xs).astype(self.lane)  # its bit in the word
        self.lane_shift = (np.arange(P) % planes.per_word * planes.Wp).astype(np.uint64)  # a game's lane in a word
        self._gained = np.zeros((NUM_PLAYERS, planes.N), dtype=np.uint64)
        # rays[a * 8 + d, j]: the (j+1)-th cell walked from a in direction d, then the
        # sentinel past the board (int32: the flat indices into ``codes`` fit, and half
        # the bytes gather faster)
        longest = max(W, H)
        rays = np.full((self.cells, 8, longest), self.cells, dtype=np.int32)
        for d, (dx, dy) in enumerate(_DIRECTIONS):
            for j in range(1, longest):
                cx, cy = xs + j * dx, ys + j * dy
                ok = (cx >= 0) & (cx < W) & (cy >= 0) & (cy < H)
                rays[ok, d, j - 1] = cy[ok] * W + cx[ok]
        self.rays = rays.reshape(self.cells * 8, longest)
        self.ray_heads = np.ascontiguousarray(self.rays[:, : min(4, longest)])  # most runs end within 3 cells
        shape = (self.num_envs, 5, H, W)
        self._obs_buffers = OutputBuffers(shape, self.observation_dtype)
        self._final_buffers = OutputBuffers((self.num_envs, NUM_PLAYERS, *shape[1:]), self.observation_dtype, zeroed=True)
        self.reset()

    # ----- words -----------------------------------------------------------------------

    def _cells_to_words(self, bits: np.ndarray) -> np.ndarray:
        """``(n, H, W)`` bool -> ``(n, H)`` lane words."""
        padded = np.zeros((len(bits), self.height, self.Wp), dtype=bool)
        padded[:, :, : self.width] = bits
        return np.packbits(padded, axis=2, bitorder="little").view(self.lane).reshape(len(bits), self.height)

    def _words_to_cells(self, words: np.ndarray) -> np.ndarray:
        """``(..., H)`` lane words -> ``(..., H * W)`` bool.  (One flat ``unpackbits``:
        twice as fast as along an axis.)"""
        words = np.ascontiguousarray(words)
        bits = np.unpackbits(words.view(np.uint8).reshape(-1), bitorder="little").view(bool)
        bits = bits.reshape(*words.shape, self.Wp)
        if self.width < self.Wp:
            bits = bits[..., : self.width]
        return bits.reshape(*words.shape[:-1], self.cells)

    # ----- turns -----------------------------------------------------------------------

    def _settle(self, rows: np.ndarray, first: np.ndarray) -> None:
        """Rule 5/7: give the games ``rows`` to the first of ``first``, ``first + 1``,
        ``first + 2`` that can move (``to_move = -1`` where nobody can).  Many games: the
        first candidate in all games at once (its jumps kept for ``_apply``), then the
        games where it has no move; few games (also a batch of at most ``few_games``):
        ``_settle_some``."""
        n = len(rows)
        if not n:
            return
        if n <= self.few_games or 4 * n < self.planes.padded:
            self._settle_some(rows, first, (0, 1, 2))
            return
        planes = self.planes
        seats = np.full(planes.padded, -1, dtype=np.int64)
        seats[rows] = first
        self.jump_planes = planes.moves(seats).moves
        legal = np.bitwise_or.reduce(self.jump_planes, axis=0)
        words = planes.games(legal)
        has = planes.lane_any(legal)
        self.jumps_known[:] = False
        if n == self.num_envs:  # whole-array writes
            self.legal_words[:] = words
            self.to_move[:n] = first
            self.jumps_known[:n] = True
        else:
            self.legal_words[rows] = words[rows]
            self.to_move[rows] = first
            self.jumps_known[rows] = True
        stuck = rows[~has[rows]]
        if len(stuck):
            self._settle_some(stuck, self.to_move[stuck], (1, 2))

    def _settle_some(self, rows: np.ndarray, first: np.ndarray, offsets: tuple[int, ...]) -> None:
        """``_settle`` for some games, the candidates ``first + offsets`` in order: up to
        ``few_games`` one at a time on Python-int bitboards (bit ``y * width + x``),
        more by one run of the compiled move generation on a compact copy of their
        boards, once per candidate (slot ``c * n + i``: game ``rows[i]``, candidate ``c``)."""
        self.jumps_known[rows] = False
        if len(rows) <= self.few_games:
            self._settle_few(rows, first, offsets)
            return
        n, planes = len(rows), self.planes
        slots = len(offsets) * n
        cap = max(planes.per_word, 1 << (slots - 1).bit_length())
        some = self._compacts.get(cap)
        if some is None:
            some = self._compacts[cap] = _Lanes(self.width, self.height, cap)
        games, copies = np.arange(slots), np.tile(rows, len(offsets))
        for s in range(NUM_PLAYERS):
            some.set_rows(some.inner(some.own[s]), games, planes.rows_of(planes.inner(planes.own[s]), copies))
        some.set_rows(some.occupied, games, planes.rows_of(planes.occupied, copies))
        some.set_rows(some.empty, games, planes.rows_of(planes.empty, copies))
        seats = np.full(some.padded, -1, dtype=np.int64)
        seats[:slots] = (np.tile(first, len(offsets)) + np.repeat(offsets, n)) % 3
        legal = np.bitwise_or.reduce(some.moves(seats).moves, axis=0)
        found = some.lane_any(legal)[:slots].reshape(len(offsets), n)
        pick = np.argmax(found, axis=0)  # the first candidate that can move
        slot = pick * n + np.arange(n)
        can = found[pick, np.arange(n)]
        self.to_move[rows] = np.where(can, seats[slot], -1)
        self.legal_words[rows] = some.games(legal)[slot]  # (zeros where nobody can move)

    def _settle_few(self, rows: np.ndarray, first: np.ndarray, offsets: tuple[int, ...]) -> None:
        """``_settle_some`` one game at a time, on Python ints (``Geometry.moves``)."""
        geo, planes = self.game.geometry, self.planes
        own = [planes.inner(planes.own[s]) for s in range(NUM_PLAYERS)] + [planes.empty]
        words = np.stack([planes.rows_of(plane, rows) for plane in own], axis=1)  # (n, 4, H)
        packed = np.packbits(self._words_to_cells(words), axis=2, bitorder="little")
        found = np.zeros((len(rows), geo.nbytes), dtype=np.uint8)
        for i in range(len(rows)):
            bits = [int.from_bytes(packed[i, c].tobytes(), "little") for c in range(4)]  # seats 0-2, empty
            seat = -1
            for d in offsets:
                s = (int(first[i]) + d) % 3
                moves = geo.moves(bits[s], bits[(s + 1) % 3], bits[(s + 2) % 3], bits[3])
                if moves:
                    seat = s
                    found[i] = np.frombuffer(moves.to_bytes(geo.nbytes, "little"), dtype=np.uint8)
                    break
            self.to_move[rows[i]] = seat
        cells = np.unpackbits(found, axis=1, count=self.cells, bitorder="little").view(bool)
        self.legal_words[rows] = self._cells_to_words(cells.reshape(len(rows), self.height, self.width))

    # ----- setup -----------------------------------------------------------------------

    def _write_boards(self, rows: np.ndarray, codes: np.ndarray) -> None:
        """Put the boards ``codes`` (``(n, H * W)`` owner codes) into the games ``rows``."""
        n, planes = len(rows), self.planes
        cells = codes.reshape(n, self.height, self.width)
        kinds = np.array([0, 1, 2, EMPTY, WALL], dtype=np.int8)
        words = self._cells_to_words((cells == kinds[:, None, None, None]).reshape(5 * n, self.height, self.width))
        words = words.reshape(5, n, self.height)
        for s in range(NUM_PLAYERS):
            planes.set_rows(planes.inner(planes.own[s]), rows, words[s])
        planes.set_rows(planes.occupied, rows, words[0] | words[1] | words[2])
        planes.set_rows(planes.empty, rows, words[3])
        self.game_words[3, rows] = words[4]
        self.codes[rows, : self.cells] = codes.reshape(n, -1)
        self.jumps_known[rows] = False

    def copy_rows(self, source: BatchedEngine, source_rows: np.ndarray, rows: np.ndarray) -> None:
        """Games ``rows`` become copies of ``source``'s games ``source_rows``: their boards
        (written into this engine's lanes), seats to move and legal cells."""
        if not isinstance(source, TriboloBatch) or type(source) is not type(self) or source.game != self.game:
            raise ValueError("tribolo: copy_rows needs an engine of the same game and options")
        rows, source_rows = np.asarray(rows, dtype=np.int64), np.asarray(source_rows, dtype=np.int64)
        self._write_boards(rows, source.codes[source_rows, : self.cells])
        self.legal_words[rows] = source.legal_words[source_rows]
        self.to_move[rows] = source.to_move[source_rows]

    def deal(self, rows: np.ndarray, rngs: list[np.random.Generator]) -> None:
        """Start games ``rows`` with the setups ``game.new_initial_state(rngs[i])`` draws."""
        self.load_states([self.game.new_initial_state(rng) for rng in rngs], np.asarray(rows, dtype=np.int64))

    def _reset_rows(self, rows: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        k, w, A = self.start_cells, self.num_walls, self.cells
        deal = np.full(A, EMPTY, dtype=np.int8)
        deal[: 3 * k] = np.repeat(np.arange(3, dtype=np.int8), k)
        deal[3 * k : 3 * k + w] = WALL
        pending = rows
        for _ in range(SETUP_ATTEMPTS):
            if not len(pending):
                break
            order = np.argsort(self.rng.random((len(pending), A)), axis=1)
            codes = np.empty((len(pending), A), dtype=np.int8)
            np.put_along_axis(codes, order, deal[None], axis=1)
            self._write_boards(pending, codes)
            self._settle(pending, np.zeros(len(pending), dtype=np.int64))
            pending = pending[self.to_move[pending] < 0]
        else:
            if len(pending):
                g = self.game
                raise ValueError(
                    f"tribolo: no setup with a legal move found in {SETUP_ATTEMPTS} draws for "
                    f"{g.width} x {g.height}, walls={w}, start_cells={k}; use a larger board"
                )
        self._settle(rows, self.rng.integers(NUM_PLAYERS, size=len(rows)))

    def load_states(self, states: Sequence[TriboloState], rows: np.ndarray | None = None) -> None:
        """Put the single-game positions ``states`` into the games ``rows`` (default: all,
        in order): their boards, seats to move and legal cells, as they are."""
        rows = self._load_rows(states, rows)
        self._write_boards(rows, np.array([np.frombuffer(bytes(state.board), dtype=np.int8) for state in states]))
        legal = np.array([state.legal_mask(state.to_move) if state.to_move >= 0 else np.zeros(self.cells, np.int8)
                          for state in states]).astype(bool)
        self.legal_words[rows] = self._cells_to_words(legal.reshape(len(rows), self.height, self.width))
        self.to_move[rows] = [state.to_move for state in states]

    def game_state(self, b: int) -> TriboloState:
        """Game ``b`` as a single-game ``TriboloState`` (its board and seat to move)."""
        rows = ["".join(SYMBOLS[code] for code in row) for row in self.board[b].tolist()]
        to_move = int(self.to_move[b])
        return self.game.state_from_board(rows, None if to_move < 0 else to_move)

    # ----- the interface ---------------------------------------------------------------

    @property
    def board(self) -> np.ndarray:
        """``(B, H, W)`` int8 owner codes (0-2 seats, 3 empty, 4 wall, as in
        ``TriboloState.board``); a copy."""
        return self.codes[: self.num_envs, : self.cells].reshape(self.num_envs, self.height, self.width).copy()

    @property
    def legal(self) -> np.ndarray:
        """``(B, H * W)`` bool: the legal cells of ``to_move``."""
        return self._words_to_cells(self.legal_words[: self.num_envs])

    @property
    def terminated(self) -> np.ndarray:
        return self.to_move[: self.num_envs] < 0

    def movers(self) -> np.ndarray:
        return self.to_move[: self.num_envs].copy()

    def to_act(self) -> np.ndarray:
        out = np.zeros((self.num_envs, NUM_PLAYERS), dtype=bool)
        live = self.to_move[: self.num_envs] >= 0
        out[self._rows[live], self.to_move[: self.num_envs][live]] = True
        return out

    def legal_masks(self) -> np.ndarray:
        out = np.zeros((self.num_envs, NUM_PLAYERS, self.cells), dtype=np.int8)
        movers = self.to_move[: self.num_envs]
        live = np.flatnonzero(movers >= 0)
        out[live, movers[live]] = self.legal[live]
        return out

    def legal_mask(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        cells = self._words_to_cells(self.legal_words[: self.num_envs]).view(np.int8)
        mine = self.to_move[: self.num_envs] == seats
        if not mine.all():
            cells = cells * mine[:, None].view(np.int8)
        return cells

    def _observe(self, games: np.ndarray, seats: np.ndarray | int, out: np.ndarray) -> np.ndarray:
        """Write into ``out`` (``(n, 5, H, W)`` float32, or uint8 when compact) the observations of ``games`` by
        ``seats``: planes [own, next seat's, the one after, walls, empty], from one
        ``take`` of their words in ``game_words``.  When the width is a multiple of 8,
        one ``take`` of 32-byte float rows, a code per byte of those words (the
        unpacking and the float conversion in one pass over ``out``)."""
        table, planes = self.game_words, self.planes
        planes.games(planes.inner(planes.own), out=table[:3])
        planes.games(planes.empty, out=table[4])
        n, P = len(games), planes.padded
        pick = np.empty((5, n), dtype=np.intp)
        pick[:3] = (np.arange(3)[:, None] + seats) % 3
        pick[3], pick[4] = 3, 4
        pick *= P
        pick += games
        words = np.take(table.reshape(5 * P, self.height), pick.T, axis=0)  # (n, 5, H)
        if self.width % 8 or self.compact:
            out[...] = self._words_to_cells(words).reshape(out.shape)
        else:
            codes = words.view(np.uint8).reshape(n, 5, self.height, self.Wp // 8)[..., : self.width // 8].astype(np.intp)
            np.take(_BYTE_FLOATS, codes.reshape(-1), out=out.reshape(-1).view(_BYTE_FLOATS.dtype), mode="clip")
        return out

    def observations(self) -> np.ndarray:
        return np.stack([self.observation(s) for s in range(NUM_PLAYERS)], axis=1)

    def decode(self, observations: np.ndarray) -> np.ndarray:
        return observations.astype(np.float32) if self.compact else observations

    def observation(self, seat: int | np.ndarray) -> np.ndarray:
        return self._observe(self._rows, self._seats(seat), self._obs_buffers.get())

    def observation_at(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        out = np.empty((len(rows), *self.observation_shape), dtype=self.observation_dtype)
        return self._observe(np.asarray(rows, dtype=np.intp), np.asarray(seats), out)

    def counts(self) -> np.ndarray:
        """``(B, 3)`` the cells each seat owns."""
        return self._counts()[: self.num_envs]

    def _counts(self) -> np.ndarray:
        """``(padded, 3)``: the cells each seat owns, per game."""
        planes = self.planes
        bits = popcount(planes.lane_view(planes.inner(planes.own)))  # (3, H, groups, per_word)
        return bits.sum(axis=1, dtype=np.int64).reshape(NUM_PLAYERS, planes.padded).T

    def returns(self) -> np.ndarray:
        out = np.zeros((self.num_envs, NUM_PLAYERS))
        self._write_returns(out, np.flatnonzero(self.terminated))
        return out

    def _write_returns(self, out: np.ndarray, rows: np.ndarray) -> None:
        """``counts_to_returns`` of the finished games ``rows``."""
        if not len(rows):
            return
        counts = self._counts()[rows]
        if self.return_type == "cell_share":
            total = counts.sum(axis=1, keepdims=True)
            share = counts / np.maximum(total, 1) - 1.0 / 3.0
            out[rows] = np.where(total > 0, share, 0.0)
            return
        top = counts.max(axis=1, keepdims=True)
        leaders = counts == top
        w = leaders.sum(axis=1, keepdims=True)
        value = np.where(leaders, 1.0 / w, -1.0 / np.maximum(3 - w, 1))
        out[rows] = np.where(w == 3, 0.0, value)

    def _cell_text(self, action: int) -> str:
        y, x = divmod(action, self.width)
        return f"{chr(97 + x)}{y + 1}"

    def step(self, actions: Any, where: np.ndarray | None = None) -> BatchStep:
        """The mover of every selected game plays the cell ``actions[b]``."""
        actions = self._action_array(actions, (self.num_envs,), "the mover's cell in each game")
        rows = self._selected(where)
        acts = (actions if where is None else actions[rows]).astype(np.int64)
        movers = self.to_move[rows]
        cell = np.clip(acts, 0, self.cells - 1)
        # legal: the cell's bit in the legal words (all zeros where the game is over)
        word = np.take(self.legal_words.reshape(-1), rows * self.height + self.cell_row[cell])
        ok = (word >> self.cell_x[cell].astype(self.lane)) & 1 == 1
        ok &= cell == acts
        if not ok.all():
            i = int(np.argmin(ok))
            b, a, seat = int(rows[i]), int(acts[i]), int(movers[i])
            if seat < 0:
                raise IllegalActionError(f"tribolo: game {b} of the batch is over; reset it first (or use autoreset=True)", action=a)
            legal = np.flatnonzero(self.legal[b]).tolist()
            where_text = self._cell_text(a) if 0 <= a < self.cells else "off the board"
            raise IllegalActionError(
                f"tribolo: action {a} ({where_text}) is illegal for seat {seat} in game {b} of the batch; "
                f"legal: {' '.join(self._cell_text(c) for c in legal)}",
                action=a,
                player=seat,
                legal=legal,
            )
        self._apply(rows, acts, movers)
        self._settle(rows, (movers + 1) % 3)
        rewards = np.zeros((self.num_envs, NUM_PLAYERS))
        terminated = np.zeros(self.num_envs, dtype=bool)
        final = None
        done = rows[self.to_move[rows] < 0]
        if len(done):
            terminated[done] = True
            self._write_returns(rewards, done)
            final = self._final_buffers.get(done)
            views = np.empty((len(done), NUM_PLAYERS, *self.observation_shape), dtype=self.observation_dtype)
            self._observe(np.repeat(done, NUM_PLAYERS), np.tile(np.arange(NUM_PLAYERS), len(done)),
                          views.reshape(-1, 5, self.height, self.width))
            final[done] = views
            if self.autoreset:
                self._reset_rows(done)
        return BatchStep(rewards, terminated, final)

    def _apply(self, rows: np.ndarray, acts: np.ndarray, movers: np.ndarray) -> None:
        """Every jump of each mover's cell (rules 3-4), all games at once, on the code
        board.  The rays walked are the jumps the move generation found for the cell
        (``jump_planes``) or, in the games it did not settle, all 8; each ray is read
        whole in one gather, laid out ``(step along the ray, ray)`` so that every op
        runs along the long axis: its run is the cells still on the first cell's owner
        (``logical_and.accumulate``; the sentinel ends every ray), taken when it is an
        opponent's and the next cell is the mover's.  The taken and played cells become
        the mover's in the codes and, by one ``bincount`` of their bits into lane
        words per seat, in the bitboards."""
        A1, n, planes = self.cells + 1, len(rows), self.planes
        flat = self.codes.reshape(-1)
        p = movers.astype(np.int8)
        known = self.jumps_known[rows]
        at = self.jump_offsets[:, None] + (self.cell_row[acts] * planes.groups + rows // planes.per_word)
        flags = np.take(self.jump_planes.reshape(-1), at) >> (self.lane_shift[rows] + self.cell_x[acts])
        walk = np.empty((len(self.jump_directions), n), dtype=bool)  # (jump plane, game)
        np.bitwise_and(flags, 1, out=walk, casting="unsafe")
        if not known.all():  # (a direction without a plane has no room for a jump)
            walk[:, ~known] = True
        pair = np.flatnonzero(walk)
        i = pair % n
        ray = acts[i] * 8 + self.jump_directions[pair // n]
        base = (rows[i] * A1).astype(np.int32)
        # the heads: (step, ray), one 16-byte table row per ray
        head = len(self.ray_heads[0])
        where = np.add(np.take(self.ray_heads, ray, axis=0).T, base, out=np.empty((head, len(pair)), dtype=np.int32))
        codes = np.take(flat, where)
        first = codes[0]
        on = np.logical_and.accumulate(codes == first, axis=0)  # still on the first cell's owner
        run = on.sum(axis=0)
        closer = codes[np.minimum(run, head - 1), np.arange(len(pair))]
        going = np.flatnonzero(on[head - 1])  # on it after the head: read the whole ray
        if len(going):
            whole = np.take(self.rays, ray[going], axis=0) + base[going, None]
            on_whole = np.logical_and.accumulate(np.take(flat, whole) == first[going, None], axis=1)
            run[going] = np.minimum(on_whole.sum(axis=1), whole.shape[1] - 1)  # (a ray off the board: all sentinel)
            closer[going] = flat[whole[np.arange(len(going)), run[going]]]
        mover = p[i]
        won = (closer == mover) & (first < NUM_PLAYERS) & (first != mover)
        on &= won
        on[:, going] = False  # (taken from the whole rays)
        parts = [where[on]]
        if len(going):
            on_whole &= won[going, None]
            parts.append(whole[on_whole])
        taken = np.concatenate([*parts, rows * A1 + acts])  # the taken cells, then the played ones
        games, cells = np.divmod(taken, A1)
        owner = self.to_move[games].astype(np.int8)  # (the movers: not settled yet)
        flat[taken] = owner
        # the bitboards: the lane words of the cells each seat gained (no cell twice:
        # adding the bits is or-ing them)
        index = self.cell_word[cells] + games + owner.astype(np.int64) * (planes.N * planes.per_word)
        gained = self._gained
        gained.fill(0)
        np.add.at(gained.view(self.lane).reshape(-1), index, self.cell_value[cells])
        lost = ~(gained[0] | gained[1] | gained[2])  # (the played cell was nobody's)
        own = planes.inner(planes.own)
        own &= lost
        own |= gained
        planes.occupied |= ~lost
        planes.empty &= lost

    # ----- players -------------------------------------------------------------------

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """The movers' uniformly random legal cells (``uniform_legal``'s rule: the k-th
        legal cell, k = floor(u * count)); 0 where a game is over."""
        return self.random_among(self.legal_words[: self.num_envs], self.rng if rng is None else rng)

    def random_among(self, words: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random cell among those set in ``(B, H)`` lane words (the cells of
        ``most_capturing_words``, or the legal ones), as actions: ``uniform_legal``'s
        rule (the k-th cell, k = floor(u * count), one uniform per game from ``rng``);
        0 for a game without any."""
        bit = _kth_bit(words.view(np.uint8).reshape(len(words), -1), rng)
        if self.width == self.Wp:  # (bit y * Wp + x is the action)
            return bit
        return bit // self.Wp * self.width + bit % self.Wp

    def most_capturing_cells(self) -> np.ndarray:
        """``(B, H * W)`` bool: the movers' legal cells that capture the most cells now;
        all False where a game is over."""
        return self._words_to_cells(self.most_capturing_words())

    def most_capturing_words(self) -> np.ndarray:
        """``(B, H)`` uint64 lane words of ``most_capturing_cells`` (bit ``y * Wp + x``,
        ``Wp`` the padded width: what ``random_among`` reads)."""
        planes = self.planes
        plan = planes.moves(self.to_move, keep_runs=True)
        empty = planes.empty
        moves = np.zeros(planes.N, dtype=np.uint64)
        acc = [np.zeros(planes.N, dtype=np.uint64) for _ in range(self.count_bits)]  # bit-sliced capture counts
        for d, x in zip(planes.jumps, plan.runs):
            dx, dy = _DIRECTIONS[(d + 4) % 8]  # the runs grew the other way
            # a move e captures, walking back from e, the cells of the run ending next to
            # it: c_j = cells whose j predecessors are all in the runs; the run length
            # is sum_j c_j (the empty cells past a lane's edge never count)
            edge = empty & (planes.not_first if dx > 0 else planes.not_last if dx < 0 else np.uint64(_ALL))
            c = planes.shift(x, dx, dy, 1)
            moves |= c & edge
            step = planes.margined()
            while c.any():
                carry = c & edge
                for bit in acc:
                    bit ^= carry
                    carry = carry & ~bit  # the bits that were 1 before (a & c) carry on
                    if not carry.any():
                        break
                np.bitwise_and(c, planes.inner(x), out=planes.inner(step))
                c = planes.shift(step, dx, dy, 1)
        # the best: from the top digit down, keep the candidates with that digit where
        # some candidate has it
        best = planes.games(moves)[: self.num_envs]
        for bit in reversed(acc):
            hit = best & planes.games(bit)[: self.num_envs]
            has = hit.any(axis=1)
            best = np.where(has[:, None], hit, best)
        return np.ascontiguousarray(best)


_BYTE_FLOATS: np.ndarray = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)
_BYTE_FLOATS = _BYTE_FLOATS.view(np.dtype((np.void, 32))).reshape(-1)
"""Item ``v``: the bits of the byte ``v`` as eight float32 (bit c -> float c)."""


class _Plan(NamedTuple):
    """A compiled move generation (``_Lanes.plan``): its ufunc calls, the seat masks it
    reads (``(3, 1, groups)``), the seat's cells (margined), and what it writes: the
    runs of each direction (margined) and the jumping cells."""

    ops: list[tuple[Any, np.ndarray, Any, np.ndarray]]
    masks: np.ndarray
    mine: np.ndarray
    runs: np.ndarray
    moves: np.ndarray


_SELECT = np.array([[([i for i in range(8) if v >> i & 1] + [0] * 8)[k] for k in range(8)] for v in range(256)], dtype=np.int64)
"""``_SELECT[v, k]``: the position of the k-th set bit of the byte ``v`` (0 past the last)."""
_SELECT = _SELECT.reshape(-1)  # read as _SELECT[8 * v + k]


def _kth_bit(packed: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``uniform_legal`` of the bits of ``(B, nbytes)`` uint8 rows (bit ``i`` of a row
    is bit ``i % 8`` of its byte ``i // 8``): the k-th set bit, k = floor(u * count), one
    uniform per row from ``rng``; 0 for a row without bits.  One running sum of the byte
    popcounts over the whole batch (1-d: a running sum along short rows is slow), a
    ``searchsorted`` for the byte holding each row's k-th bit, a table for the bit within
    it.  (Cheaper than a running count over every cell, or the positions of all bits.)"""
    rows, nb = packed.shape
    flat = packed.reshape(-1)
    cum = np.cumsum(popcount(flat), dtype=np.int32)
    ends = cum[nb - 1 :: nb]
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1]
    counts = ends - starts
    target = starts + (rng.random(rows) * counts).astype(np.int32)  # the k-th bit of the row, counted over the batch
    at = np.searchsorted(cum, target, side="right")
    np.minimum(at, len(flat) - 1, out=at)  # (rows without bits)
    byte = flat[at]
    within = target - cum[at] + popcount(byte)  # the k-th bit is this bit of the byte
    out = np.take(_SELECT, byte.astype(np.intp) * 8 + within)
    out += 8 * (at % nb)
    out[counts == 0] = 0
    return out
