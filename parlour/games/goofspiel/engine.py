"""Goofspiel, B games at once: every seat's bid of every game in one ``step``.

State (leading batch axis B): ``prizes`` (B, N) (the prize order of each game),
``round``, ``pot`` (B,), ``points`` (B, P), the hands as a bool array ``(B, P, A)``
(which is also the legal masks) and, for hands of up to 16 cards, as bitmasks
``bits`` (B, P), and ``O``: every seat's observation of every game, kept up to date.

Why the observation is cheap: the single game builds ``observation_tensor`` per seat
(the expensive part of a Goofspiel env step).  Here row ``b`` of ``O`` holds the
observations of all P seats of game ``b`` end to end, then one trash slot.  The layout
of docs/goofspiel.md written for seat 0 with the seats in absolute order defines
*absolute columns*; each seat's view is a fixed permutation of them (a rotation of the
seats; entries hidden by ``imperfect_info`` are not shown), so ``pos[c]`` says where
absolute column ``c`` sits in each view (the trash slot where it is hidden).  A round
changes 3P + 7 absolute columns (a card per hand, the round's history block, the prize
entries, pot, points, progress), and those are written into every view.  When all
games are at the same round (the usual case: games last N rounds and are reset
together) most of those columns are the same in every game, so they are whole-column
writes; only the bid cards and the winner slot are scattered.  ``observations()`` is
then one copy.  The float32 values come from lookup tables computed in float64 with
the single game's formulas, so they are bit for bit the same.

Why the output buffers are reused (``OutputBuffers``): at B = 1024 the observations are
1.1 MB, and a fresh block of that size page-faults on every step (measured: ~40 faults,
and the whole loop ~1.4x slower); a buffer is handed out again only once nothing
outside holds it.  Why bitmask hands: a uniform draw (``random_actions``) is then two
table lookups (cards held, the k-th of them) instead of a cumulative sum over the cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.engine import BatchedEngine, BatchStep, OutputBuffers
from parlour.games.goofspiel.rules import GoofspielGame, GoofspielState

_TABLE_ACTIONS = 16
"""Hands of at most this many cards are also kept as bitmasks, for table-driven draws."""


class GoofspielBatch(BatchedEngine):
    """B Goofspiel games (any options of ``GoofspielGame``: number of cards and
    players, prize order random / descending / ascending / explicit, tie rule carry /
    discard, the three return types, ``imperfect_info``, custom ``hands``).

    ``step(actions)`` takes ``(B, P)`` integer actions (action ``a`` bids card ``a+1``);
    the engine is the batched multi-agent interface of the simultaneous game.
    """

    game_class = GoofspielGame
    game: GoofspielGame
    STATE = ("prizes", "round", "pot", "points", "_hands", "bits", "O")
    simultaneous = True
    COMPACT = True

    def __init__(self, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True, **options: Any) -> None:
        super().__init__(num_envs, seed, autoreset=autoreset, **options)
        game = self.game
        B, P, A, N = self.num_envs, game.num_players, game.num_actions, game.num_cards
        self.P, self.A, self.N = P, A, N
        self.discard = game.discard_ties
        self.return_type = game.config["returns"]
        self.random_order = game.config["prize_order"] == "random"
        self.fixed_prizes = np.array([] if self.random_order else game.prize_sequence(None), dtype=np.int64)
        """The prize order every game shares (empty where each game shuffles its own)."""
        start = np.zeros((P, A), dtype=bool)
        for seat, hand in enumerate(game.default_hands):
            start[seat, np.array(hand) - 1] = True
        self.start_hands = start

        # --- the absolute layout: docs/goofspiel.md's vector for seat 0, seats in
        # absolute order; column D is "nowhere" (what a seat does not see) -------------
        W = self.W = 2 * P + 2
        self.off_cur = P * A
        self.off_come = self.off_cur + N
        self.off_pot = self.off_come + N
        self.off_pts = self.off_pot + 1
        self.off_round = self.off_pts + P
        self.off_hist = self.off_round + 1
        (D,) = game.observation_shape
        assert self.off_hist + N * W == D, (self.off_hist + N * W, D)
        self.D = D
        gather = self._view_columns(game.config["imperfect_info"])
        # pos[c, p]: where the absolute column c sits in a game's row of O (seat p's
        # view starts at p * D), or the trash slot P * D when seat p does not see it
        self.trash = P * D
        pos = np.full((D + 1, P), self.trash, dtype=np.intp)
        for p in range(P):
            shown = gather[p] != D
            pos[gather[p][shown], p] = p * D + np.flatnonzero(shown)
        self.pos = pos
        dtype = self.observation_dtype
        if self.compact and game.total_prize > 255:
            raise ValueError(f"goofspiel: compact observations hold points up to 255 in a byte; num_cards={N} totals {game.total_prize}")
        absolute0 = np.zeros(D + 1, dtype=dtype)  # a fresh game, no prize revealed
        absolute0[: P * A] = start.reshape(-1)
        absolute0[self.off_come : self.off_come + N] = 1.0
        self.O0 = np.zeros(P * D + 1, dtype=dtype)
        for p in range(P):
            self.O0[p * D : (p + 1) * D] = absolute0[gather[p]]
        if not self.random_order:  # the first prize is the same in every game
            first = int(self.fixed_prizes[0]) - 1
            self.O0[pos[self.off_cur + first]] = 1.0
            self.O0[pos[self.off_come + first]] = 0.0
            self.O0[self.trash] = 0.0

        # --- lookup tables: the single game's float64 formulas, then float32 (compact:
        # the numerators k of those fractions k/n, which decode() looks up) -------------
        scaled = np.arange(game.total_prize + 1) * (1.0 / game.total_prize)  # pot, points
        fraction = np.arange(max(N, A) + 1) / N  # round, prize
        bid = np.arange(A + 1) / A  # a bid a is (a + 1) / A
        self._lut = np.zeros((4, 256), dtype=np.float32)  # per kind (binary, scaled, round or prize, bid): code -> value
        self._lut[0, 1] = 1.0
        for kind, values in ((1, scaled), (2, fraction), (3, bid)):
            self._lut[kind, : len(values)] = values.astype(np.float32)
        code = np.arange(256)
        self.tab_scaled = code[: game.total_prize + 1].astype(dtype) if self.compact else scaled.astype(np.float32)
        self.tab_round = code[: N + 1].astype(dtype) if self.compact else fraction[: N + 1].astype(np.float32)
        self.tab_bid = code[1 : A + 1].astype(dtype) if self.compact else bid[1:].astype(np.float32)
        self.tab_prize = self.tab_round
        self._decode_at = self._decode_offsets(gather[0])
        self.seat_ids = np.arange(P)
        self.seat_cols = self.seat_ids * A
        self._kth: np.ndarray | None = None
        if A <= _TABLE_ACTIONS:
            held = (np.arange(1 << A)[:, None] >> np.arange(A)) & 1  # (2^A, A): the cards of each bitmask
            self._count = held.sum(axis=1)
            self._kth = np.argsort(1 - held, axis=1, kind="stable").reshape(-1)  # per bitmask: held cards first, ascending
            self._bit = (1 << np.arange(A)).astype(np.int64)
            self.start_bits = (start * self._bit).sum(axis=1)

        # --- the columns a lockstep step of round r writes (_observe_lockstep) -------
        self._lockstep_columns = []  # per round, per seat's view: (bid columns, point columns) in seat order
        self._lockstep_constants = []  # per round: (columns in O's rows, values), the same in every game
        for r in range(N):
            base = self.off_hist + r * W
            self._lockstep_columns.append([(pos[base + self.seat_ids, p], pos[self.off_pts + self.seat_ids, p]) for p in range(P)])
            constant = {self.off_round: self.tab_round[r + 1]}
            if not self.random_order:
                prize = int(self.fixed_prizes[r])
                constant[base + P] = self.tab_prize[prize]
                constant[self.off_cur + prize - 1] = 0
                if r + 1 < N:
                    following = int(self.fixed_prizes[r + 1]) - 1
                    constant[self.off_cur + following] = 1
                    constant[self.off_come + following] = 0
            columns = list(constant)
            self._lockstep_constants.append(
                (pos[columns].reshape(-1), np.repeat(np.array([constant[c] for c in columns]).astype(dtype), P)))

        # --- state ------------------------------------------------------------------
        self.prizes = np.zeros((B, N), dtype=np.int64)
        self.round = np.zeros(B, dtype=np.int64)
        self.pot = np.zeros(B, dtype=np.int64)
        self.points = np.zeros((B, P), dtype=np.int64)
        self._hands = np.zeros((B, P, A), dtype=bool)  # also the legal masks
        self.bits = np.zeros((B, P), dtype=np.int64) if self._kth is not None else None  # the hands as bitmasks
        self.O = np.zeros((B, P * D + 1), dtype=dtype)  # every seat's observation, then the trash slot
        self._obs_buffers = OutputBuffers((B, P, D), dtype)
        self._starts = self._rows * (P * D + 1)  # where each game's row of O starts in O.ravel()
        self._hand_rows = (self._rows[:, None] * P + self.seat_ids) * A  # + card: its entry in _hands.ravel()
        self._point_base = self._rows * P  # + seat: its entry in points.ravel()
        self._all_at: int | None = 0  # the round of every game when all are at the same one (None: unknown)
        self.reset()

    def _view_columns(self, hidden: bool) -> np.ndarray:
        """``(P, D)``: the absolute column shown at each entry of each seat's view (D
        where the entry is hidden by ``imperfect_info``).  A seat's view is the absolute
        vector with the seats rotated to start at its own."""
        P, A, N, D, W = self.P, self.A, self.N, self.D, self.W
        gather = np.empty((P, D), dtype=np.intp)
        for p in range(P):
            rot = (p + np.arange(P)) % P  # relative slot k -> absolute seat
            cols: list[np.ndarray] = [np.full(A, D) if hidden and k else rot[k] * A + np.arange(A) for k in range(P)]
            cols.append(self.off_cur + np.arange(2 * N + 1))  # prizes, to come, pot
            cols.append(self.off_pts + rot)
            cols.append(np.array([self.off_round]))
            for r in range(N):
                base = self.off_hist + r * W
                bids = base + rot
                if hidden:
                    bids[1:] = D
                cols.append(bids)
                cols.append(np.array([base + P, base + P + 1]))  # prize, tie slot
                cols.append(base + P + 2 + rot)  # winner slots: own seat, next seat, ...
            gather[p] = np.concatenate(cols)
        return gather

    def _decode_offsets(self, columns: np.ndarray) -> np.ndarray:
        """Per entry of a view (seat 0's ``columns``, absolute; hidden entries are 0 in
        every kind): where its kind's codes start in ``_lut.ravel()``."""
        P, N, W = self.P, self.N, self.W
        kind = np.zeros(self.D + 1, dtype=np.intp)  # hands, prizes current and to come, winner slots: binary
        kind[self.off_pot : self.off_pts + P] = 1  # pot, points
        kind[self.off_round] = 2
        for r in range(N):
            base = self.off_hist + r * W
            kind[base : base + P] = 3  # the bids
            kind[base + P] = 2  # the prize
        return kind[columns] * 256

    def decode(self, observations: np.ndarray) -> np.ndarray:
        if not self.compact:
            return observations
        return np.take(self._lut.reshape(-1), self._decode_at + observations)

    def _write(self, rows: np.ndarray, columns: np.ndarray, values: np.ndarray) -> None:
        """Set the absolute ``columns`` (``(k, K)``) of the games ``rows`` to ``values``
        (broadcast to ``(k, K)``) in every seat's view that shows them: one scatter
        (values repeated per view: a scatter with broadcast values is far slower)."""
        starts = self._starts if len(rows) == self.num_envs else self._starts[rows]
        at = starts[:, None, None] + np.take(self.pos, columns, axis=0)  # (k, K, P)
        self.O.reshape(-1)[at] = np.repeat(np.broadcast_to(values, columns.shape)[..., None], self.P, axis=2)

    def _state_changed(self) -> None:
        self._all_at = None

    # ----- reset ---------------------------------------------------------------------

    def _reset_rows(self, rows: np.ndarray) -> None:
        k, N = len(rows), self.N
        if not k:
            return
        if self.random_order:
            # one shuffle per game, every one from the engine's generator
            prizes = self.rng.permuted(np.tile(np.arange(1, N + 1, dtype=np.int64), (k, 1)), axis=1)
        else:
            prizes = np.broadcast_to(self.fixed_prizes, (k, N))
        self._start(rows, prizes)

    def _start(self, rows: np.ndarray, prizes: np.ndarray) -> None:
        """Start the games ``rows`` with the prize orders ``prizes`` (``(k, N)``)."""
        k = len(rows)
        if not k:
            return
        if k == self.num_envs:  # all games, maybe in another order (load_states): in row order, as the slices below
            order = np.argsort(rows)
            rows, prizes = rows[order], prizes[order]
        sel = slice(None) if k == self.num_envs else rows  # all games: slices, not copies
        self._all_at = 0 if k == self.num_envs else None
        self.prizes[sel] = prizes
        self.round[sel] = 0
        self.pot[sel] = 0
        self.points[sel] = 0
        self._hands[sel] = self.start_hands
        if self.bits is not None:
            self.bits[sel] = self.start_bits
        self.O[sel] = self.O0
        if self.random_order:  # the first prize revealed: current, no longer to come
            first = prizes[:, :1] - 1
            self._write(rows, np.hstack([self.off_cur + first, self.off_come + first]), np.array([1, 0], dtype=self.observation_dtype))

    # ----- reading the state -----------------------------------------------------------

    @property
    def hands(self) -> np.ndarray:
        """``(B, P, A)`` bool: the cards each seat holds (a copy)."""
        return self._hands.copy()

    @property
    def terminated(self) -> np.ndarray:
        return self.round >= self.N

    def to_act(self) -> np.ndarray:
        return np.repeat(~self.terminated[:, None], self.P, axis=1)

    def legal_masks(self) -> np.ndarray:
        # a hand is empty once its N cards are bid, so finished games give zeros
        return self._hands.view(np.int8).copy()

    def legal_mask(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        if isinstance(seats, int):
            return self._hands[:, seats].astype(np.int8)
        return self._hands[self._rows, seats].astype(np.int8)

    def observations(self) -> np.ndarray:
        out = self._obs_buffers.get()
        np.copyto(out, self.O[:, : self.trash].reshape(out.shape))
        return out

    def observation(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        D = self.D
        if isinstance(seats, int):
            return self.O[:, seats * D : (seats + 1) * D].copy()
        return self.O[self._rows[:, None], (seats * D)[:, None] + np.arange(D)]

    def observation_at(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        D = self.D
        return self.O[np.asarray(rows)[:, None], (np.asarray(seats) * D)[:, None] + np.arange(D)]

    def returns(self) -> np.ndarray:
        out = np.zeros((self.num_envs, self.P))
        done = self.terminated
        if done.any():
            out[done] = returns_of_points(self.points[done], self.return_type)
        return out

    def history(self, b: int) -> tuple[list[tuple[int, ...]], list[int]]:
        """The bids (one tuple per round) and round winners (-1: tie) of game ``b``,
        read back from the views: each seat always sees its own bids, and seat 0's
        winner slots are in absolute seat order."""
        P, A, W, D = self.P, self.A, self.W, self.D
        played = int(self.round[b])
        blocks = self.O[b, : self.trash].reshape(P, D)[:, self.off_hist :].reshape(P, self.N, W)[:, :played]
        own = blocks[:, :, 0].astype(np.float64)  # (P, rounds): own bids (codes a + 1 in a compact engine)
        cards = (own if self.compact else np.rint(own * A)).astype(int)
        bids = [tuple(int(c) - 1 for c in cards[:, r]) for r in range(played)]
        winners = [int(np.argmax(blocks[0, r, P + 1 :])) - 1 for r in range(played)]
        return bids, winners

    def load_states(self, states: Sequence[GoofspielState], rows: np.ndarray | None = None) -> None:
        """Make the games ``rows`` the positions ``states``: each game starts from the
        state's prize order and its bids are replayed (the hands must be the game's
        own start, which every batched game has)."""
        rows = self._load_rows(states, rows)
        own = self.game.new_initial_state(0).start_hands
        for state in states:
            if state.start_hands != own:
                raise ValueError("goofspiel: a batched game starts from the game's own hands; "
                                 "a state dealt other hands (the hands start option) cannot be loaded")
        self._start(rows, np.array([state.prizes for state in states], dtype=np.int64).reshape(len(rows), self.N))
        self._replay(rows, [state.bids for state in states])

    def game_state(self, b: int) -> GoofspielState:
        """Game ``b`` as a single-game ``GoofspielState`` (replayed from its start), for
        debugging and tests."""
        state = self.game.new_initial_state(prizes=self.prizes[b].tolist())
        for bids in self.history(b)[0]:
            state.apply(dict(enumerate(bids)))
        return state

    def prize_values(self) -> np.ndarray:
        """``(B,)`` int64: the value of the prize card being bid on in each game (in a
        finished game, its last round's)."""
        return self.prizes[self._rows, np.minimum(self.round, self.N - 1)]

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """Uniformly random bids from every hand, ``(B, P)`` (see the base class).

        With hands of up to 16 cards the draw is two table lookups on the bitmasks (the
        number of cards held, then the k-th of them); it is the base class's draw
        (``uniform_legal``: the same uniforms, the same k-th card)."""
        bits, kth = self.bits, self._kth
        if kth is None or bits is None:
            return super().random_actions(rng)
        rng = self.rng if rng is None else rng
        k = (rng.random(bits.shape) * np.take(self._count, bits)).astype(np.int64)
        k += bits * self.A
        return np.take(kth, k)

    # ----- stepping ----------------------------------------------------------------------

    def step(self, actions: Any, where: np.ndarray | None = None) -> BatchStep:
        """Play one round in every selected game: ``actions[b, seat]`` is the bid of
        ``seat`` in game ``b`` (card ``action + 1``).

        The state's arrays are updated by index; the observation entries the round
        changes (the bid cards, the round's history block, the prize entries, pot,
        points and progress: 3P + 7 absolute columns) are written into every seat's
        view.  Two ways with the same effect: when every game is stepped and all are at
        the same round (the usual case: games last N rounds and are reset together),
        most of those columns are the same in every game, so they are whole-column
        writes (:meth:`_observe_lockstep`); otherwise one scatter of every entry
        (:meth:`_observe_rows`)."""
        P, N = self.P, self.N
        actions = self._action_array(actions, (self.num_envs, P), "one bid per game and seat")
        r0 = self._round_of_all()
        sel: np.ndarray | slice
        r: int | np.ndarray
        if where is None and r0 is not None and r0 < N:
            rows, sel, r = self._rows, slice(None), r0
        else:
            rows = sel = self._selected(where) if where is not None else self._rows
            r = self.round[rows]  # a copy: round changes below
            if not len(rows):  # no game selected: nothing changes
                return BatchStep(np.zeros((self.num_envs, P)), np.zeros(self.num_envs, dtype=bool), None)
        acts = (actions if where is None else actions[rows]).astype(np.int64, copy=False)
        hand_entries = self._check(rows, acts, r)

        winner = self._winners(acts)
        won = winner >= 0
        prize = self.prizes[:, r] if isinstance(r, int) else self.prizes.reshape(-1)[rows * N + r]
        stake = prize if self.discard else self.pot[sel] + prize
        if not self.discard:
            self.pot[sel] = np.where(won, 0, stake)
        # the winner's points (seat 0 gains 0 on a tie: the indices stay unique, so += is exact)
        if P == 2 and isinstance(r, int):  # every game: two column updates beat a scatter
            self.points[:, 0] += stake * (winner == 0)
            self.points[:, 1] += stake * (winner == 1)
        else:
            point_base = self._point_base if isinstance(r, int) else rows * P
            self.points.reshape(-1)[point_base + np.maximum(winner, 0)] += stake * won
        self.round[sel] = r + 1
        self._all_at = r + 1 if isinstance(r, int) else None
        self._hands.reshape(-1)[hand_entries] = False
        if self.bits is not None:
            self.bits[sel] ^= self._bit[acts]
        if isinstance(r, int):
            self._observe_lockstep(r, acts, winner, prize)
        else:
            self._observe_rows(rows, sel, r, acts, winner, prize)

        rewards = np.zeros((self.num_envs, P))
        terminated = np.zeros(self.num_envs, dtype=bool)
        final = None
        done = rows[self.round[rows] >= N] if not isinstance(r, int) else (rows if r + 1 == N else rows[:0])
        if len(done):
            terminated[done] = True
            rewards[done] = returns_of_points(self.points[done], self.return_type)
            if len(done) == self.num_envs:
                final = self.observations()
            else:
                final = np.zeros((self.num_envs, P, self.D), dtype=self.observation_dtype)
                final[done] = self.O[done, : self.trash].reshape(len(done), P, self.D)
            if self.autoreset:
                self._reset_rows(done)
        return BatchStep(rewards, terminated, final)

    def _round_of_all(self) -> int | None:
        """The round every game is at, None when they differ (remembered between
        steps: comparing B rounds costs more than a flag)."""
        if self._all_at is None:
            r0 = int(self.round[0])
            if (self.round == r0).all():
                self._all_at = r0
        return self._all_at

    def _observe_lockstep(self, r: int, acts: np.ndarray, winner: np.ndarray, prize: np.ndarray) -> None:
        """The observation writes of a step of all games at round ``r``: the columns
        that are the same in every game are written as columns of ``O``, in each view;
        the bid cards and the winner slot (a column per game) by a scatter."""
        O, Of, pos, P = self.O, self.O.reshape(-1), self.pos, self.P  # noqa: E741 (the docstring's names)
        base = self.off_hist + r * self.W
        nr = r + 1
        bids, points = self.tab_bid[acts], self.tab_scaled[self.points]
        for bid_cols, point_cols in self._lockstep_columns[r]:  # one pair per seat's view
            O[:, bid_cols] = bids
            O[:, point_cols] = points
        Of[self._starts[:, None, None] + np.take(pos, self.seat_cols + acts, axis=0)] = 0.0  # the bid cards leave the hands
        Of[self._starts[:, None] + np.take(pos, base + P + 2 + winner, axis=0)] = 1.0  # history: the winner (tie slot for -1)
        constant_cols, constant_values = self._lockstep_constants[r]
        O[:, constant_cols] = constant_values  # progress; for fixed prize orders the prize entries
        if not self.discard:
            O[:, pos[self.off_pot]] = self.tab_scaled[self.pot][:, None]
        if self.random_order:  # the prize entries of every game
            nxt = self.prizes[:, min(nr, self.N - 1)] - 1
            has_next = nr < self.N
            cols = np.empty((self.num_envs, 4), dtype=np.intp)
            cols[:, 0] = base + P  # history: prize
            cols[:, 1] = self.off_cur + prize - 1  # this prize is no longer current
            cols[:, 2] = self.off_cur + nxt if has_next else self.D  # the next one is
            cols[:, 3] = self.off_come + nxt if has_next else self.D  # and no longer to come
            vals = np.zeros((self.num_envs, 4), dtype=self.observation_dtype)
            vals[:, 0] = self.tab_prize[prize]
            vals[:, 2] = 1
            self._write(self._rows, cols, vals)

    def _observe_rows(self, rows: np.ndarray, sel: np.ndarray | slice, r: np.ndarray, acts: np.ndarray, winner: np.ndarray,
                      prize: np.ndarray) -> None:
        """The observation writes of a step of the games ``rows``, each at its own
        round ``r``: every changed entry of every view in one scatter."""
        P, N = self.P, self.N
        nr = r + 1
        has_next = nr < N
        nxt = self.prizes.reshape(-1)[rows * N + np.minimum(nr, N - 1)] - 1
        base = self.off_hist + r * self.W
        cols = np.empty((len(rows), 3 * P + 7), dtype=np.intp)
        vals = np.empty((len(rows), 3 * P + 7), dtype=self.observation_dtype)
        cols[:, :P] = self.seat_cols + acts  # the bid cards leave the hands
        vals[:, :P] = 0.0
        cols[:, P : 2 * P] = base[:, None] + self.seat_ids  # history: bids
        vals[:, P : 2 * P] = self.tab_bid[acts]
        cols[:, 2 * P] = base + P  # history: prize
        vals[:, 2 * P] = self.tab_prize[prize]
        cols[:, 2 * P + 1] = base + P + 2 + winner  # history: winner (the tie slot for -1)
        vals[:, 2 * P + 1] = 1.0
        cols[:, 2 * P + 2] = self.off_cur + prize - 1  # this prize is no longer current
        vals[:, 2 * P + 2] = 0.0
        cols[:, 2 * P + 3] = np.where(has_next, self.off_cur + nxt, self.D)  # the next one is
        vals[:, 2 * P + 3] = 1.0
        cols[:, 2 * P + 4] = np.where(has_next, self.off_come + nxt, self.D)  # and no longer to come
        vals[:, 2 * P + 4] = 0.0
        cols[:, 2 * P + 5 : 3 * P + 5] = self.off_pts + self.seat_ids  # points, pot, progress
        vals[:, 2 * P + 5 : 3 * P + 5] = self.tab_scaled[self.points[sel]]
        cols[:, 3 * P + 5] = self.off_pot
        vals[:, 3 * P + 5] = self.tab_scaled[self.pot[sel]]
        cols[:, 3 * P + 6] = self.off_round
        vals[:, 3 * P + 6] = self.tab_round[nr]
        self._write(rows, cols, vals)

    def _winners(self, acts: np.ndarray) -> np.ndarray:
        """``(k,)`` the seat with the unique highest bid of each game, -1 for a tie."""
        if self.P == 2:
            a0, a1 = acts[:, 0], acts[:, 1]
            return (a1 > a0).astype(np.int64) - (a0 == a1)
        top = acts.max(axis=1)
        unique = (acts == top[:, None]).sum(axis=1) == 1
        return np.where(unique, acts.argmax(axis=1), -1)

    def _check(self, rows: np.ndarray, acts: np.ndarray, r: int | np.ndarray) -> np.ndarray:
        """Raise on the first bad bid (in game order, then seat order), before any
        change; else return the bid cards' entries in ``_hands.ravel()``.  ``r``: the
        games' rounds (one int: all at that round, which is not the end)."""
        if not isinstance(r, int) and (r >= self.N).any():
            i = int(np.argmax(r >= self.N))
            raise IllegalActionError(
                f"goofspiel: game {int(rows[i])} of the batch is over; reset it first (or use autoreset=True)",
                action=acts[i].tolist(),
            )
        A = self.A
        hand_rows = self._hand_rows if len(rows) == self.num_envs else self._hand_rows[rows]
        any_outside = acts.view(np.uint64).max() >= A  # one pass (acts are int64): a negative bid is a huge unsigned one
        entries = hand_rows + (acts.clip(0, A - 1) if any_outside else acts)
        held = self._hands.reshape(-1)[entries]
        if any_outside or not held.all():
            outside = (acts < 0) | (acts >= A)
            bad = outside | ~held
            i, seat = (int(index) for index in np.unravel_index(np.argmax(bad), bad.shape))
            b, a = int(rows[i]), int(acts[i, seat])
            legal = np.flatnonzero(self._hands[b, seat]).tolist()
            what = f"outside 0..{A - 1}" if outside[i, seat] else f"card {a + 1}, not in the hand"
            raise IllegalActionError(
                f"goofspiel: action {a} ({what}) for seat {seat} in game {b} of the batch",
                action=a,
                player=int(seat),
                legal=legal,
            )
        return entries


def returns_of_points(points: np.ndarray, kind: str) -> np.ndarray:
    """``points_to_returns`` of parlour.games.goofspiel for many games at once:
    ``points`` is ``(k, P)``; the same float64 arithmetic, so the same values."""
    players = points.shape[1]
    if kind == "total_points":
        return points.astype(np.float64)
    if kind == "point_difference":
        total = points.sum(axis=1, keepdims=True)
        return points - (total - points) / (players - 1)
    if players == 2:  # win / loss / draw: the sign of the difference (+0.0 for a draw, as the single game)
        out = np.empty(points.shape)
        np.sign(points[:, 0] - points[:, 1], out=out[:, 0], casting="unsafe")
        np.subtract(0.0, out[:, 0], out=out[:, 1])
        return out
    is_top = points == points.max(axis=1, keepdims=True)
    w = is_top.sum(axis=1, keepdims=True)
    losers = np.maximum(players - w, 1)  # all tied: masked below
    out = np.where(is_top, 1.0 / w, -1.0 / losers)
    out[w[:, 0] == players] = 0.0
    return out
