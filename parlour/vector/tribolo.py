"""Tribolo, B games at once: the mover of every game plays a cell in one ``step``.

State (leading batch axis):

- ``board``: ``(B, H + 1, Wp)`` int8 owner codes (0-2 seats, 3 empty, 4 wall, as in
  ``TriboloState.board``), ``Wp`` = the width rounded up to 8, 16 or 32 bits; the
  padding columns and the extra last row hold ``OFF`` (5), which is nobody's and never
  empty.  Cell ``(x, y)`` (action ``y * W + x``) sits at ``[y, x]``;
- ``to_move``: ``(B,)`` the seat to act, -1 once nobody can move (the game is over);
- ``legal``: ``(B, H * W)`` bool, the legal cells of ``to_move`` (rule 5 needs them
  anyway, so they are cached like ``TriboloState.legal``).

Move generation is ``Geometry.moves`` on numpy bitboards: each board row is one word
(uint8/16/32, bit ``x``), the rows of all games are laid end to end with the zero
``OFF`` row between games and a zero margin at both ends.  A step in a direction is
then a bit shift of the words (``dx``) and an offset into the flat array (``dy``,
a view: free), and nothing can wrap: a run must stay on an opponent's cells, which
the separators, the margins and the bits past the width never are.  The runs are grown
with a Kogge-Stone fill (shifts 1, 2, 4, ...: ``ceil(log2(longest run))`` rounds per
direction instead of one per cell of the run), both opponents stacked in one array,
so a seat's moves in all B games cost about 170 numpy operations on arrays of
``B * (H + 1)`` words.

``step`` applies every jump of the movers' cells at once from precomputed rays
(``rays[cell, direction]``: the cells walked outwards, then an ``OFF`` sentinel): the 8
rays of every played cell are walked together one cell per round, keeping only the
rays still on the opponent they started on, and the runs closed by the mover become
the mover's.  Rule 5/7 follows: the next seat, else the next but one,
else the mover (each later candidate only for the games that still need one), else
the game is over.  The later candidates usually concern a handful of games, and a
batched move generation costs about the same for 3 games as for 1000 (its numpy
calls), so up to ``few_games`` games (also the few resets of a step) go through the
single game's Python bitboards (``Geometry.moves``) instead.

``random_actions`` draws like ``uniform_legal`` (k = floor(u * count), the k-th legal
cell) on the packed masks: byte popcounts, one running sum over the batch, a
``searchsorted`` and a bit-select table.

Setup: drawn with the engine's generator, vectorised: a uniform permutation of the
cells per game (``argsort`` of uniforms; ``new_initial_state`` uses
``rng.permutation``), dealt as in rule 2 (start cells of seats 0, 1, 2, then walls);
redrawn for the games where nobody can move; then the first player is drawn uniformly
(``rng.integers(3)``) and passed on to the next seat that can move.  The distribution
is the single game's, not its random stream: the same integer seed gives other
positions than ``new_initial_state(seed)``.  To start from given single-game positions
(the exactness tests do), use :meth:`TriboloBatch.load_states`.

The batched ``greedy`` opponent is ``parlour.baselines.players.tribolo.GreedyCells``
(the most cells captured now; ``tie_break=random``: uniform among the best, here from
the engine's generator, not the policy's own stream): the captures of every legal
cell are counted in bit-sliced counters (one bitboard per binary digit), and the best
cells are found by eliminating, from the top digit down, the candidates without that
digit whenever some candidate has it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.tribolo import EMPTY, NUM_PLAYERS, SETUP_ATTEMPTS, WALL, TriboloGame, TriboloState
from parlour.vector.base import BatchedEngine, BatchStep

OFF = 5
"""Owner code of the padding cells (past the width, the row after the board)."""
_DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))


class TriboloBatch(BatchedEngine):
    """B Tribolo games (every option of ``TriboloGame``: ``width``, ``height``,
    ``walls``, ``start_cells``, ``returns``).  ``step(actions)`` takes the movers'
    cells, shape ``(B,)`` (action ``y * width + x``)."""

    game_name = "tribolo"
    simultaneous = False
    opponents = ("random", "greedy")

    def __init__(self, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True, **options: Any) -> None:
        super().__init__(num_envs, seed, autoreset=autoreset, **options)
        game: TriboloGame = self.game  # type: ignore[assignment]
        W, H = game.width, game.height
        self.width, self.height = W, H
        self.start_cells, self.num_walls = game.config["start_cells"], game.config["walls"]
        self.return_type = game.config["returns"]
        self.cells = W * H
        self.Wp = Wp = 8 if W <= 8 else 16 if W <= 16 else 32
        self.word = {8: np.uint8, 16: np.uint16, 32: np.uint32}[Wp]
        self.rows_per_game = H + 1
        self.stride = (H + 1) * Wp  # board cells per game, padding included
        xs, ys = np.arange(self.cells) % W, np.arange(self.cells) // W
        self.cell_pos = (ys * Wp + xs).astype(np.int64)  # action -> padded index
        # rays[a, d, j]: padded index of the (j+1)-th cell from a in direction d, then
        # the sentinel (an OFF cell of the last row); long enough for a sentinel after
        # the longest ray
        L = max(W, H)
        rays = np.full((self.cells, 8, L), H * Wp, dtype=np.intp)
        for d, (dx, dy) in enumerate(_DIRECTIONS):
            for j in range(1, L):
                cx, cy = xs + j * dx, ys + j * dy
                ok = (cx >= 0) & (cx < W) & (cy >= 0) & (cy < H)
                rays[ok, d, j - 1] = cy[ok] * Wp + cx[ok]
        self.rays = rays
        # Kogge-Stone rounds per direction: enough doublings to cover its longest run
        self.plan = []
        margin = 1
        for dx, dy in _DIRECTIONS:
            longest = (W - 2 if dy == 0 else H - 2 if dx == 0 else min(W, H) - 2)
            if longest < 1:
                continue  # no run fits between a cell and a closing cell
            rounds = int(np.ceil(np.log2(longest))) if longest > 1 else 0
            self.plan.append((dx, dy, rounds))
            if dy and rounds:
                margin = max(margin, 1 << (rounds - 1))
        self.margin = margin
        self.count_bits = int(8 * max(W, H)).bit_length()  # captures of one move < 8 * max(W, H)
        self.board = np.full((self.num_envs, H + 1, Wp), OFF, dtype=np.int8)
        self.to_move = np.full(self.num_envs, -1, dtype=np.int64)
        self.legal = np.zeros((self.num_envs, self.cells), dtype=bool)
        self.reset()

    # ----- bitboards -----------------------------------------------------------------

    def _planes(self, rows: np.ndarray | slice, seats: np.ndarray) -> np.ndarray:
        """``(4, n * (H + 1))`` words: the cells of ``seats`` (one per game), of the next
        seat, of the one after, and the empty cells, of the games ``rows``."""
        return self._planes_of(self.board[rows], seats)

    def _planes_of(self, board: np.ndarray, seats: np.ndarray) -> np.ndarray:
        board = board.reshape(-1, self.stride)
        codes = np.stack([seats, (seats + 1) % 3, (seats + 2) % 3, np.full_like(seats, EMPTY)]).astype(np.int8)
        eq = board[None] == codes[:, :, None]
        return np.packbits(eq.reshape(4, -1), axis=1, bitorder="little").view(self.word)

    def _margined(self, words: np.ndarray) -> np.ndarray:
        out = np.zeros((*words.shape[:-1], words.shape[-1] + 2 * self.margin), dtype=self.word)
        out[..., self.margin : self.margin + words.shape[-1]] = words
        return out

    def _floods(self, planes: np.ndarray):
        """For each direction: ``(shift, gen)``, ``gen`` the ``(2, N + 2M)`` runs of each
        opponent that start next to a cell of the seat (``Geometry.moves``' ``x``) and
        ``shift(a, k)`` the interior of ``a`` moved ``k`` steps in that direction."""
        M = self.margin
        N = planes.shape[1]
        me = self._margined(planes[0])
        opp = self._margined(planes[1:3])
        interior = slice(M, M + N)
        for dx, dy, rounds in self.plan:

            def shift(a: np.ndarray, k: int, dx: int = dx, dy: int = dy) -> np.ndarray:
                v = a[..., M - dy * k : M - dy * k + N]
                if dx > 0:
                    return v << k
                if dx < 0:
                    return v >> k
                return v

            gen = np.zeros_like(opp)
            np.bitwise_and(shift(me, 1), opp[:, interior], out=gen[:, interior])
            if rounds:
                pro = opp.copy()
                for i in range(rounds):
                    k = 1 << i
                    gen[:, interior] |= shift(gen, k) & pro[:, interior]
                    if i < rounds - 1:
                        pro[:, interior] &= shift(pro, k)
            yield shift, gen

    def _moves_words(self, planes: np.ndarray) -> np.ndarray:
        """``(N,)`` words: the seat's legal cells (``Geometry.moves``)."""
        empty = planes[3]
        moves = np.zeros_like(empty)
        for shift, gen in self._floods(planes):
            m = shift(gen, 1)
            moves |= (m[0] | m[1]) & empty
        return moves

    def _unpack(self, words: np.ndarray, n: int) -> np.ndarray:
        """``(n, H * W)`` bool from ``n`` games' words."""
        bits = np.unpackbits(words.view(np.uint8), bitorder="little").view(bool)
        return bits.reshape(n, self.rows_per_game, self.Wp)[:, : self.height, : self.width].reshape(n, self.cells)

    def _settle(self, rows: np.ndarray, first: np.ndarray) -> None:
        """Rule 5/7: give the games ``rows`` to the first of ``first``, ``first + 1``,
        ``first + 2`` that can move (``to_move = -1`` where nobody can).  The first
        candidate is tried in every game; the two others only where it has no move,
        both at once (as 2m games laid end to end).  A few games (``few_games``: the
        resets of a step, the games whose next seat is stuck) go through Python
        bitboards instead."""
        n = len(rows)
        if not n:
            return
        if n <= self.few_games:
            self._settle_few(rows, first, (0, 1, 2))
            return
        index = slice(None) if n == self.num_envs else rows
        words = self._moves_words(self._planes(index, first)).reshape(n, -1)
        has = words.any(axis=1)
        # every game to its first candidate (whole-array writes; the games where it
        # has no move are overwritten below)
        self.to_move[index] = first
        self.legal[index] = self._unpack(words, n)
        rest, first = rows[~has], first[~has]
        m = len(rest)
        if not m:
            return
        if m <= self.few_games:
            self._settle_few(rest, first, (1, 2))
            return
        seats = np.concatenate([(first + 1) % 3, (first + 2) % 3])
        board = np.concatenate([self.board[rest], self.board[rest]])
        words = self._moves_words(self._planes_of(board, seats)).reshape(2, m, -1)
        has = words.any(axis=2)  # (2, m)
        k = np.where(has[0], 0, 1)  # the first of the two that can move
        found = has.any(axis=0)
        pick = words[k, np.arange(m)][found]
        self.to_move[rest[found]] = seats.reshape(2, m)[k, np.arange(m)][found]
        self.legal[rest[found]] = self._unpack(np.ascontiguousarray(pick), int(found.sum()))
        over = rest[~found]
        self.to_move[over] = -1
        self.legal[over] = False

    few_games = 32
    """Up to this many games in ``_settle`` go through the single game's Python
    bitboards (``Geometry.moves``, a few microseconds a seat): usually only a handful
    of games need the later seats or a reset, and a batched move generation costs its
    ~170 numpy calls (most of a millisecond) whatever the number of games."""

    def _settle_few(self, rows: np.ndarray, first: np.ndarray, offsets: tuple[int, ...]) -> None:
        """``_settle`` for a few games, one at a time on Python-int bitboards (bit
        ``y * width + x``): the candidates ``first + offsets``, in order."""
        geo = self.game.geometry
        codes = self.board[rows, : self.height, : self.width].reshape(len(rows), -1)
        packed = np.packbits(codes[:, None, :] == np.arange(4, dtype=np.int8)[None, :, None], axis=2, bitorder="little")
        found = np.zeros((len(rows), geo.nbytes), dtype=np.uint8)
        for i in range(len(rows)):
            own = [int.from_bytes(packed[i, c].tobytes(), "little") for c in range(4)]  # seats 0-2, empty
            seat = -1
            for d in offsets:
                s = (int(first[i]) + d) % 3
                moves = geo.moves(own[s], own[(s + 1) % 3], own[(s + 2) % 3], own[EMPTY])
                if moves:
                    seat = s
                    found[i] = np.frombuffer(moves.to_bytes(geo.nbytes, "little"), dtype=np.uint8)
                    break
            self.to_move[rows[i]] = seat
        self.legal[rows] = np.unpackbits(found, axis=1, count=self.cells, bitorder="little").view(bool)

    # ----- setup -----------------------------------------------------------------------

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
            self.board[pending, : self.height, : self.width] = codes.reshape(-1, self.height, self.width)
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

    def load_states(self, states: list[TriboloState], rows: np.ndarray | None = None) -> None:
        """Put the single-game positions ``states`` into the games ``rows`` (default: all,
        in order): their boards, seats to move and legal cells, as they are."""
        rows = self._rows if rows is None else np.asarray(rows, dtype=np.int64)
        if len(states) != len(rows):
            raise ValueError(f"tribolo: {len(states)} states for {len(rows)} games")
        for b, state in zip(rows, states):
            if state.game.config != self.game.config:
                raise ValueError(f"tribolo: a state of {state.game.config} in a batch of {self.game.config}")
            codes = np.frombuffer(bytes(state.board), dtype=np.int8).reshape(self.height, self.width)
            self.board[b] = OFF
            self.board[b, : self.height, : self.width] = codes
            self.to_move[b] = state.to_move
            self.legal[b] = state.legal_mask(state.to_move).astype(bool) if state.to_move >= 0 else False

    # ----- the interface ---------------------------------------------------------------

    @property
    def terminated(self) -> np.ndarray:
        return self.to_move < 0

    def movers(self) -> np.ndarray:
        return self.to_move.copy()

    def to_act(self) -> np.ndarray:
        out = np.zeros((self.num_envs, NUM_PLAYERS), dtype=bool)
        live = self.to_move >= 0
        out[self._rows[live], self.to_move[live]] = True
        return out

    def legal_masks(self) -> np.ndarray:
        out = np.zeros((self.num_envs, NUM_PLAYERS, self.cells), dtype=np.int8)
        live = np.flatnonzero(self.to_move >= 0)
        out[live, self.to_move[live]] = self.legal[live]
        return out

    def legal_mask(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        return (self.legal & (self.to_move == seats)[:, None]).view(np.int8)

    def _observe(self, rows: np.ndarray | slice, seats: np.ndarray | int) -> np.ndarray:
        """``(n, 5, H, W)`` float32: planes [own, next seat's, the one after, walls, empty]."""
        seats = np.asarray(seats, dtype=np.int64)
        n = self.board[rows].shape[0]
        seats = np.broadcast_to(seats, (n,))
        codes = np.stack([seats % 3, (seats + 1) % 3, (seats + 2) % 3, np.full(n, WALL), np.full(n, EMPTY)], axis=1).astype(np.int8)
        board = self.board[rows][:, None, : self.height, : self.width]
        # bool, then one cast (measured faster than np.equal into float32 directly)
        return np.equal(board, codes[:, :, None, None]).astype(np.float32)

    def observations(self) -> np.ndarray:
        return np.stack([self._observe(slice(None), s) for s in range(NUM_PLAYERS)], axis=1)

    def observation(self, seat: int | np.ndarray) -> np.ndarray:
        return self._observe(slice(None), self._seats(seat))

    def counts(self) -> np.ndarray:
        """``(B, 3)`` the cells each seat owns."""
        flat = self.board.reshape(self.num_envs, -1)
        return np.stack([(flat == s).sum(axis=1) for s in range(NUM_PLAYERS)], axis=1)

    def returns(self) -> np.ndarray:
        out = np.zeros((self.num_envs, NUM_PLAYERS))
        done = np.flatnonzero(self.to_move < 0)
        self._write_returns(out, done)
        return out

    def _write_returns(self, out: np.ndarray, rows: np.ndarray) -> None:
        """``counts_to_returns`` of the finished games ``rows``."""
        if not len(rows):
            return
        flat = self.board[rows].reshape(len(rows), -1)
        counts = np.stack([(flat == s).sum(axis=1) for s in range(NUM_PLAYERS)], axis=1)
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
        acts = actions[rows].astype(np.int64, copy=False)
        movers = self.to_move[rows]
        on_board = (acts >= 0) & (acts < self.cells)
        ok = on_board & (movers >= 0)
        ok[ok] = self.legal[rows[ok], acts[ok]]
        if not ok.all():
            i = int(np.argmin(ok))
            b, a, seat = int(rows[i]), int(acts[i]), int(movers[i])
            if seat < 0:
                raise IllegalActionError(f"tribolo: game {b} of the batch is over; reset it first (or use autoreset=True)", action=a)
            legal = np.flatnonzero(self.legal[b]).tolist()
            where_text = self._cell_text(a) if on_board[i] else "off the board"
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
            final = np.zeros((self.num_envs, NUM_PLAYERS, *self.observation_shape), dtype=np.float32)
            for s in range(NUM_PLAYERS):
                final[done, s] = self._observe(done, s)
            if self.autoreset:
                self._reset_rows(done)
        return BatchStep(rewards, terminated, final)

    def _apply(self, rows: np.ndarray, acts: np.ndarray, movers: np.ndarray) -> None:
        """Every jump of each mover's cell (rules 3-4), all rays of all games at once:
        the rays are walked one cell per round, keeping only those still on a run of the
        opponent they started on (runs are short, so the rounds soon have few rays)."""
        n, L = len(rows), self.rays.shape[2]
        flat = self.board.reshape(-1)
        rays = self.rays.reshape(-1)
        base = rows * self.stride
        # one entry per ray: where it starts in ``rays``, its game's offset, the mover
        start = (acts[:, None] * 8 + np.arange(8)).reshape(-1) * L
        gb = np.repeat(base, 8)
        p = np.repeat(movers.astype(np.int8), 8)
        o = flat[rays[start] + gb]
        ids = np.flatnonzero((o < 3) & (o != p))  # rays that start on an opponent
        start, gb, p, o = start[ids], gb[ids], p[ids], o[ids]
        runs = np.zeros(8 * n, dtype=np.int64)  # run taken on each ray (0: none)
        j = 1
        while len(ids):
            v = flat[rays[start + j] + gb]
            on = v == o
            if not on.all():  # these runs are j cells long; jumps where the mover closes them
                won = ~on & (v == p)
                runs[ids[won]] = j
                keep = np.flatnonzero(on)
                ids, start, gb, p, o = ids[keep], start[keep], gb[keep], p[keep], o[keep]
            j += 1
        won = np.flatnonzero(runs)
        if len(won):
            steps = np.arange(int(runs[won].max()))
            first = (acts[won // 8] * 8 + won % 8) * L
            cells = rays[first[:, None] + steps] + base[won // 8][:, None]
            taken = steps < runs[won][:, None]
            flat[cells[taken]] = np.repeat(movers[won // 8], runs[won])
        flat[base + self.cell_pos[acts]] = movers

    # ----- players -------------------------------------------------------------------

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """The movers' uniformly random legal cells (``uniform_legal``'s rule: the k-th
        legal cell, k = floor(u * count)); 0 where a game is over."""
        return _kth_legal(self.legal, self.rng if rng is None else rng)


    def opponent_actions(self, name: str, rng: np.random.Generator | None = None) -> np.ndarray:
        """``random`` or ``greedy`` (the cell that captures the most now; ties uniform
        from ``rng``, default the engine's generator)."""
        if name == "greedy":
            return _kth_legal(self.greedy_choices(), self.rng if rng is None else rng)
        return super().opponent_actions(name, rng)

    def greedy_choices(self) -> np.ndarray:
        """``(B, H * W)`` bool: the movers' legal cells that capture the most cells
        (``GreedyCells``' best moves); all False where a game is over."""
        n = self.num_envs
        live = self.to_move >= 0
        planes = self._planes(slice(None), np.where(live, self.to_move, 0))
        planes[:, np.repeat(~live, self.rows_per_game)] = 0  # finished games: no cells, no moves
        empty = planes[3]
        M, N = self.margin, planes.shape[1]
        moves = np.zeros_like(empty)
        acc = [np.zeros_like(empty) for _ in range(self.count_bits)]  # bit-sliced capture counts
        for shift, gen in self._floods(planes):
            m = shift(gen, 1)
            moves |= (m[0] | m[1]) & empty
            # a move e captures, walking back from e, the cells of the run ending next to
            # it (the runs of one opponent closed by the seat: gen, two disjoint sets):
            # c_j = cells whose j predecessors are all in gen; the run length is sum_j c_j
            runs = gen[0] | gen[1]
            c = shift(runs, 1)
            while c.any():
                carry = c & empty
                for bit in acc:
                    bit ^= carry
                    carry = carry & ~bit  # the bits that were 1 before (a & c) carry on
                    if not carry.any():
                        break
                step = np.zeros_like(runs)
                step[M : M + N] = c
                c = shift(step & runs, 1)
        # the best: from the top digit down, keep the candidates with that digit where
        # some candidate has it
        best = moves.reshape(n, self.rows_per_game)
        for bit in reversed(acc):
            hit = best & bit.reshape(n, self.rows_per_game)
            has = hit.any(axis=1)
            best = np.where(has[:, None], hit, best)
        return self._unpack(np.ascontiguousarray(best).reshape(-1), n)


_SELECT = np.array([[([i for i in range(8) if v >> i & 1] + [0] * 8)[k] for k in range(8)] for v in range(256)], dtype=np.int64)
"""``_SELECT[v, k]``: the position of the k-th set bit of the byte ``v`` (0 past the last)."""
_SELECT = _SELECT.reshape(-1)  # read as _SELECT[8 * v + k]


def _kth_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``uniform_legal(masks, rng)`` for a ``(B, A)`` bool array (the k-th legal cell,
    k = floor(u * count), one uniform per row from ``rng``), on the bytes of the packed
    masks: one running sum of the byte popcounts over the whole batch (1-d: a running
    sum along short rows is slow), a ``searchsorted`` for the byte holding each row's
    k-th cell, a table for the bit within it.  (Cheaper than a running count over every
    cell, or the positions of all the legal cells.)"""
    packed = np.packbits(masks, axis=1, bitorder="little")  # byte j: cells 8j..8j+7
    nb = packed.shape[1]
    flat = packed.reshape(-1)
    cum = np.cumsum(np.bitwise_count(flat), dtype=np.int64)
    ends = cum[nb - 1 :: nb]
    counts = np.diff(ends, prepend=0)
    k = (rng.random(counts.shape) * counts).astype(np.int64)
    target = ends - counts + k  # the k-th legal cell of the row, counted over the batch
    at = np.minimum(np.searchsorted(cum, target, side="right"), len(flat) - 1)
    byte = flat[at]
    within = target - (cum[at] - np.bitwise_count(byte))  # the k-th cell is this bit of the byte
    out = 8 * (at % nb) + np.take(_SELECT, byte.astype(np.int64) * 8 + within)
    out[counts == 0] = 0
    return out
