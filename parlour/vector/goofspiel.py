"""Goofspiel, B games at once: every seat's bid of every game in one ``step``.

State (leading batch axis B): ``prizes`` (B, N) (the prize order of each game),
``round``, ``pot`` (B,), ``points`` (B, P), and the feature rows ``F`` below, which
also hold the hands (0/1 per card) and the history of bids and winners (read back by
:meth:`GoofspielBatch.history` and :meth:`GoofspielBatch.game_state`).

Why the observation is cheap: the single game builds ``observation_tensor`` from
scratch for each seat (the expensive part of a Goofspiel env step).  Here each game
keeps one *absolute* feature row ``F`` (B, D + 1): the observation layout of
docs/goofspiel.md written for seat 0 with seats in absolute order (hands, bids,
points, and the winner one-hot over tie, seat 0, seat 1, ...), plus one column that is
always 0.  A step changes only a few entries of it (one card per hand, the prize
entries, pot, points, progress and one history block).  Every seat's observation is
then a fixed permutation of ``F`` (the seat-relative order is a rotation of the seats;
entries hidden by ``imperfect_info`` read the zero column), so all observations of all
games could be one column gather of ``F``.  Cheaper still (~20% of a whole loop at
B = 1024): the view of every seat other than those whose view is ``F`` itself (seat 0
with perfect information) is kept in a buffer ``views[p]``.  In the usual step (all
games at the same round) the columns that change are the same in every game, so they
are copied into each view with one gather and one write, plus one scatter for the bid
cards; other steps and resets rebuild the views of their games with a gather.  Then
``observations()`` is a few slice copies.  (Scattering each step's individual changes
into every seat's view was measured slower than the gather.)  The float32 values come
from lookup tables computed in float64 with the single game's formulas, so they are
bit-for-bit the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.goofspiel import GoofspielGame, GoofspielState
from parlour.vector.base import BatchedEngine, BatchStep


class GoofspielBatch(BatchedEngine):
    """B Goofspiel games (any options of ``GoofspielGame``: number of cards and
    players, prize order random / descending / ascending / explicit, tie rule carry /
    discard, the three return types, ``imperfect_info``, custom ``hands``).

    ``step(actions)`` takes ``(B, P)`` integer actions (action ``a`` bids card ``a+1``);
    the engine is the batched multi-agent interface of the simultaneous game.
    """

    game_name = "goofspiel"
    simultaneous = True
    opponents = ("random", "rudimentary")

    def __init__(self, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True, **options: Any) -> None:
        super().__init__(num_envs, seed, autoreset=autoreset, **options)
        game: GoofspielGame = self.game  # type: ignore[assignment]
        B, P, A, N = self.num_envs, game.num_players, game.num_actions, game.num_cards
        self.P, self.A, self.N = P, A, N
        self.discard = game.discard_ties
        self.return_type = game.config["returns"]
        self.random_order = game.config["prize_order"] == "random"
        self.fixed_prizes = None if self.random_order else np.array(game.prize_sequence(None), dtype=np.int64)
        start = np.zeros((P, A), dtype=bool)
        for seat, hand in enumerate(game.default_hands):
            start[seat, np.array(hand) - 1] = True
        self.start_hands = start

        # --- layout of the absolute feature row F (docs/goofspiel.md, per seat 0) ----
        W = self.W = 2 * P + 2
        self.off_cur = P * A
        self.off_come = self.off_cur + N
        self.off_pot = self.off_come + N
        self.off_pts = self.off_pot + 1
        self.off_round = self.off_pts + P
        self.off_hist = self.off_round + 1
        self.zero = self.off_hist + N * W
        (D,) = game.observation_shape
        assert self.zero == D, (self.zero, D)
        hidden = game.config["imperfect_info"]
        gather = np.empty((P, D), dtype=np.intp)
        for p in range(P):
            rot = (p + np.arange(P)) % P  # relative slot k -> absolute seat
            cols: list[np.ndarray] = []
            for k in range(P):
                cols.append(np.full(A, self.zero) if hidden and k else rot[k] * A + np.arange(A))
            cols.append(self.off_cur + np.arange(2 * N + 1))  # prizes, to come, pot
            cols.append(self.off_pts + rot)
            cols.append(np.array([self.off_round]))
            for r in range(N):
                base = self.off_hist + r * W
                bids = base + rot
                if hidden:
                    bids[1:] = self.zero
                cols.append(bids)
                cols.append(np.array([base + P, base + P + 1]))  # prize, tie slot
                cols.append(base + P + 2 + rot)  # winner slots: own seat, next seat, ...
            gather[p] = np.concatenate(cols)
        self.gather = gather
        # all seats' columns in one flat index: ``np.take(F, flat_gather, axis=1)`` is
        # a C-contiguous (B, P * D) array.  (``F[:, gather]`` with the 2-d index came out
        # laid out as (P, D, B) in memory: slower to build and ~1 ms more for any copy.)
        self.flat_gather = gather.reshape(-1)
        self.identity_seats = {p for p in range(P) if (gather[p] == np.arange(D)).all()}
        # inv[p][c]: where the absolute column c sits in seat p's view (D: not shown)
        inv = np.full((P, D + 1), D, dtype=np.intp)
        for p in range(P):
            shown = gather[p] != self.zero
            inv[p, gather[p][shown]] = np.flatnonzero(shown)
        self.inv = inv
        F0 = np.zeros(D + 1, dtype=np.float32)
        F0[: P * A] = start.reshape(-1)
        F0[self.off_come : self.off_come + N] = 1.0
        self.F0 = F0

        # --- lookup tables: the single game's float64 formulas, then float32 ---------
        scale = 1.0 / game.total_prize
        self.tab_scaled = (np.arange(game.total_prize + 1) * scale).astype(np.float32)  # pot, points
        self.tab_round = (np.arange(N + 1) / N).astype(np.float32)
        self.tab_bid = ((np.arange(A) + 1) / A).astype(np.float32)
        self.tab_prize = (np.arange(N + 1) / N).astype(np.float32)
        self.seat_cols = np.arange(P) * A
        self.seat_ids = np.arange(P)

        # --- state ------------------------------------------------------------------
        # F[:, :P*A] is the hands (1.0 = card held): the one copy of them.
        self.D = D
        self.prizes = np.zeros((B, N), dtype=np.int64)
        self.round = np.zeros(B, dtype=np.int64)
        self.pot = np.zeros(B, dtype=np.int64)
        self.points = np.zeros((B, P), dtype=np.int64)
        self.F = np.zeros((B, D + 1), dtype=np.float32)
        self._flat_rows = self._rows * (D + 1)  # where each game's row of F starts in F.ravel()
        self._hand_starts = np.arange(B * P).reshape(B, P)
        self._hand_base = self._flat_rows[:, None] + self.seat_cols  # + bid: the card's entry in F.ravel()
        self._point_base = self._rows * P  # + seat: the entry in points.ravel()
        # The views of the other seats, kept up to date (see _mirror_lockstep): V[p] is
        # (B, D + 1), seat p's observation then a trash column for hidden entries.
        self.views = {p: np.zeros((B, D + 1), dtype=np.float32) for p in range(P) if p not in self.identity_seats}
        # the absolute columns a lockstep step of round r may change, besides the hands
        # (and, for a random prize order, the prize entries, then all of them)
        self._step_cols = []
        for r in range(N):
            cols = [np.arange(self.off_hist + r * W, self.off_hist + (r + 1) * W), self.off_pts + np.arange(P), [self.off_pot, self.off_round]]
            if self.random_order:
                cols.append(self.off_cur + np.arange(2 * N))
            else:
                cols.append([self.off_cur + self.fixed_prizes[r] - 1])
                if r + 1 < N:
                    cols.append([self.off_cur + self.fixed_prizes[r + 1] - 1, self.off_come + self.fixed_prizes[r + 1] - 1])
            self._step_cols.append(np.concatenate([np.asarray(c, dtype=np.intp) for c in cols]))
        self.reset()

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
        sel = slice(None) if k == self.num_envs else rows  # all games: slices, not copies
        self.prizes[sel] = prizes
        self.round[sel] = 0
        self.pot[sel] = 0
        self.points[sel] = 0
        self.F[sel] = self.F0
        first = self._flat_rows[rows] + prizes[:, 0] - 1
        Ff = self.F.reshape(-1)
        Ff[first + self.off_cur] = 1.0
        Ff[first + self.off_come] = 0.0
        self._refresh_views(sel)

    # ----- reading the state -----------------------------------------------------------

    @property
    def hands(self) -> np.ndarray:
        """``(B, P, A)`` bool: the cards each seat holds (a copy)."""
        return self.F[:, : self.P * self.A].reshape(self.num_envs, self.P, self.A) > 0

    @property
    def terminated(self) -> np.ndarray:
        return self.round >= self.N

    def to_act(self) -> np.ndarray:
        return np.repeat(~self.terminated[:, None], self.P, axis=1)

    def legal_masks(self) -> np.ndarray:
        # a hand is empty once its N cards are bid, so finished games give zeros
        return self.F[:, : self.P * self.A].astype(np.int8).reshape(self.num_envs, self.P, self.A)

    def legal_mask(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        if isinstance(seats, int):
            return self.F[:, seats * self.A : (seats + 1) * self.A].astype(np.int8)
        return self.F[self._rows[:, None], seats[:, None] * self.A + np.arange(self.A)].astype(np.int8)

    def observations(self) -> np.ndarray:
        """Slice copies of ``F`` (seats whose view it is) and of the kept views."""
        if not self.views:
            return self._observe(self.F)
        out = np.empty((self.num_envs, self.P, self.D), dtype=np.float32)
        for p in range(self.P):
            out[:, p] = self.views[p][:, : self.D] if p in self.views else self.F[:, : self.D]
        return out

    def _refresh_views(self, rows: np.ndarray | slice) -> None:
        """Rebuild the kept views of the games ``rows`` from ``F`` (after a reset or a
        step of games out of step)."""
        for p, view in self.views.items():
            view[rows, : self.D] = np.take(self.F[rows], self.gather[p], axis=1)

    def _mirror_lockstep(self, r: int, hand_cols: np.ndarray) -> None:
        """Copy what a lockstep step of round ``r`` changed in ``F`` into the kept views:
        the columns ``_step_cols[r]`` (the same in every game: one gather, then one
        write per view) and the bid cards (``hand_cols``, (B, P) absolute columns)."""
        cols = self._step_cols[r]
        block = self.F[:, cols]
        for p, view in self.views.items():
            inv = self.inv[p]
            view[:, inv[cols]] = block
            view.reshape(-1)[self._flat_rows[:, None] + inv[hand_cols]] = 0.0

    def _observe(self, F: np.ndarray) -> np.ndarray:
        """Every seat's observation of the games whose feature rows are ``F``, (k, P, D),
        C-contiguous.  A seat whose view is ``F`` itself (seat 0 with perfect
        information) is a slice copy; the others a ``np.take`` over the columns
        (measured faster than fancy indexing, and than a take of all the seats)."""
        if not self.identity_seats:
            return np.take(F, self.flat_gather, axis=1).reshape(len(F), self.P, self.D)
        out = np.empty((len(F), self.P, self.D), dtype=np.float32)
        for p in range(self.P):
            out[:, p] = F[:, : self.D] if p in self.identity_seats else np.take(F, self.gather[p], axis=1)
        return out

    def observation(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        if isinstance(seats, int):
            return (self.views[seats] if seats in self.views else self.F)[:, : self.D].copy()
        return self.F[self._rows[:, None], self.gather[seats]]

    def returns(self) -> np.ndarray:
        out = np.zeros((self.num_envs, self.P))
        done = self.terminated
        if done.any():
            out[done] = returns_of_points(self.points[done], self.return_type)
        return out

    def history(self, b: int) -> tuple[list[tuple[int, ...]], list[int]]:
        """The bids (one tuple per round) and round winners (-1: tie) of game ``b``,
        read back from its feature row."""
        P, A, W = self.P, self.A, self.W
        blocks = self.F[b, self.off_hist : self.zero].reshape(self.N, W)[: self.round[b]]
        bids = [tuple(int(x) for x in np.rint(block[:P].astype(np.float64) * A).astype(int) - 1) for block in blocks]
        winners = [int(np.argmax(block[P + 1 :])) - 1 for block in blocks]
        return bids, winners

    def game_state(self, b: int) -> GoofspielState:
        """Game ``b`` as a single-game ``GoofspielState`` (replayed from its start), for
        debugging and tests."""
        state = self.game.new_initial_state(prizes=self.prizes[b].tolist())
        for bids in self.history(b)[0]:
            state.apply(dict(enumerate(bids)))
        return state

    def opponent_actions(self, name: str, rng: np.random.Generator | None = None) -> np.ndarray:
        if name == "rudimentary":
            return self.rudimentary_actions()
        return super().opponent_actions(name, rng)

    def rudimentary_actions(self) -> np.ndarray:
        """``(B, P)``: the bids of parlour's ``rudimentary`` player (its default
        ``target=prize``) for every seat: the card of the prize's value, else one above,
        else two above, else the highest card held; 0 in finished games.  Deterministic,
        as the player is."""
        hands = self.hands  # (B, P, A)
        B, P, A = hands.shape
        rows = self._rows
        live = self.round < self.N
        value = self.prizes[rows, np.minimum(self.round, self.N - 1)]
        bids = A - 1 - np.argmax(hands[:, :, ::-1], axis=2)  # the highest card held
        chosen = np.zeros((B, P), dtype=bool)
        for extra in (0, 1, 2):
            action = value - 1 + extra
            held = hands[rows, :, np.minimum(action, A - 1)] & (action < A)[:, None] & ~chosen
            bids = np.where(held, action[:, None], bids)
            chosen |= held
        return np.where(live[:, None], bids, 0)

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """Uniformly random bids from every hand, ``(B, P)`` (see the base class).

        When every game is at the same round (the usual case: all games last N steps)
        every hand holds the same number of cards, and the held cards of all hands are one
        ``flatnonzero``; the draw is the same as the general path's."""
        rng = self.rng if rng is None else rng
        r = self.round
        if not (r[0] < self.N and (r == r[0]).all()):
            return super().random_actions(rng)
        B, P, A = self.num_envs, self.P, self.A
        left = self.N - int(r[0])
        held = np.flatnonzero(self.F[:, : P * A] > 0)  # (B, P, left) in row-major order
        k = (rng.random((B, P)) * left).astype(np.int64)
        return held[self._hand_starts * left + k] % A

    # ----- stepping ----------------------------------------------------------------------

    def step(self, actions: Any, where: np.ndarray | None = None) -> BatchStep:
        """Play one round in every selected game: ``actions[b, seat]`` is the bid of
        ``seat`` in game ``b`` (card ``action + 1``).

        Two paths with the same effect: when every game is stepped and all are at the
        same round (the usual case: games last N rounds and are reset together), the
        round is one number, so the history block, the prize entries (for a fixed
        prize order) and the round are column slices of ``F`` and the hands one flat
        scatter (:meth:`_step_lockstep`, about half the numpy calls); otherwise one
        scatter of every changed entry (:meth:`_step_rows`)."""
        P = self.P
        actions = self._action_array(actions, (self.num_envs, P), "one bid per game and seat")
        r0 = int(self.round[0])
        if where is None and r0 < self.N and (self.round == r0).all():
            return self._step_lockstep(actions.astype(np.int64, copy=False), r0)
        return self._step_rows(actions, where)

    def _step_lockstep(self, acts: np.ndarray, r: int) -> BatchStep:
        """``step`` of all games, all at round ``r``."""
        P, N, A, W = self.P, self.N, self.A, self.W
        F, Ff = self.F, self.F.reshape(-1)
        if acts.min() < 0 or acts.max() >= A:
            self._check(self._rows, acts, self._flat_rows)  # raises, with the message
        hand_idx = self._hand_base + acts  # (B, P) flat indices of the bid cards in F
        if not Ff[hand_idx].all():
            self._check(self._rows, acts, self._flat_rows)  # raises, with the message
        winner = self._winners(acts)
        prize = self.prizes[:, r]
        stake = prize if self.discard else self.pot + prize
        won = winner >= 0
        if not self.discard:
            self.pot[:] = np.where(won, 0, stake)
            F[:, self.off_pot] = self.tab_scaled[self.pot]
        # add the stake to the winner's points (seat 0 with 0 points for a tie: the
        # indices stay unique, so the buffered += is exact)
        self.points.reshape(-1)[self._point_base + np.maximum(winner, 0)] += stake * won
        nr = r + 1
        self.round[:] = nr

        Ff[hand_idx] = 0.0  # the bid cards leave the hands
        base = self.off_hist + r * W
        F[:, base : base + P] = self.tab_bid[acts]  # history: bids, prize, winner
        F[:, base + P] = self.tab_prize[prize]
        Ff[self._flat_rows + (base + P + 2) + winner] = 1.0
        if self.random_order:  # the current prize, the next one (no longer to come)
            Ff[self._flat_rows + (self.off_cur - 1) + prize] = 0.0
            if nr < N:
                nxt = self._flat_rows + self.prizes[:, nr]
                Ff[nxt + (self.off_cur - 1)] = 1.0
                Ff[nxt + (self.off_come - 1)] = 0.0
        else:  # the same prize in every game: columns
            F[:, self.off_cur + int(self.fixed_prizes[r]) - 1] = 0.0
            if nr < N:
                nxt = int(self.fixed_prizes[nr]) - 1
                F[:, self.off_cur + nxt] = 1.0
                F[:, self.off_come + nxt] = 0.0
        F[:, self.off_pts : self.off_pts + P] = self.tab_scaled[self.points]
        F[:, self.off_round] = self.tab_round[nr]
        self._mirror_lockstep(r, hand_idx - self._flat_rows[:, None])

        B = self.num_envs
        if nr < N:
            return BatchStep(np.zeros((B, P)), np.zeros(B, dtype=bool), None)
        rewards = returns_of_points(self.points, self.return_type)
        final = self._observe(F)
        if self.autoreset:
            self._reset_rows(self._rows)
        return BatchStep(rewards, np.ones(B, dtype=bool), final)

    def _winners(self, acts: np.ndarray) -> np.ndarray:
        """``(k,)`` the seat with the unique highest bid of each game, -1 for a tie."""
        if self.P == 2:
            a0, a1 = acts[:, 0], acts[:, 1]
            return np.where(a0 > a1, 0, np.where(a1 > a0, 1, -1))
        top = acts.max(axis=1)
        unique = (acts == top[:, None]).sum(axis=1) == 1
        return np.where(unique, acts.argmax(axis=1), -1)

    def _step_rows(self, actions: np.ndarray, where: np.ndarray | None) -> BatchStep:
        """``step`` of the selected games, each at its own round: every changed entry of
        ``F`` in one scatter."""
        P, N, W = self.P, self.N, self.W
        if where is None:  # every game: slices instead of index arrays where possible
            rows, sel = self._rows, slice(None)
            acts = actions.astype(np.int64, copy=False)
            start = self._flat_rows
        else:
            rows = sel = self._selected(where)
            acts = actions[rows].astype(np.int64, copy=False)
            start = self._flat_rows[rows]
        Ff = self.F.reshape(-1)
        self._check(rows, acts, start)
        r = self.round[rows]  # a copy (never a view: round changes below)

        winner = self._winners(acts)
        won = winner >= 0
        prize = self.prizes.reshape(-1)[rows * N + r]
        stake = self.pot[sel] + prize
        pot = np.where(won, 0, stake) if not self.discard else np.zeros_like(stake)
        self.pot[sel] = pot
        self.points.reshape(-1)[(rows * P + winner)[won]] += stake[won]
        nr = r + 1
        self.round[sel] = nr

        # the few entries of F that change, in one scatter
        has_next = nr < N
        nxt = self.prizes.reshape(-1)[rows * N + np.minimum(nr, N - 1)] - 1
        base = self.off_hist + r * W
        k = len(rows)
        cols = np.empty((k, 2 * P + 5), dtype=np.intp)
        vals = np.empty((k, 2 * P + 5), dtype=np.float32)
        cols[:, :P] = self.seat_cols + acts  # the bid cards leave the hands
        vals[:, :P] = 0.0
        cols[:, P : 2 * P] = base[:, None] + self.seat_ids  # history: bids
        vals[:, P : 2 * P] = self.tab_bid[acts]
        cols[:, 2 * P] = base + P  # history: prize
        vals[:, 2 * P] = self.tab_prize[prize]
        cols[:, 2 * P + 1] = base + P + 2 + winner  # history: winner (tie slot for -1)
        vals[:, 2 * P + 1] = 1.0
        cols[:, 2 * P + 2] = self.off_cur + prize - 1  # this prize is no longer current
        vals[:, 2 * P + 2] = 0.0
        cols[:, 2 * P + 3] = np.where(has_next, self.off_cur + nxt, self.zero)  # the next one is
        vals[:, 2 * P + 3] = has_next
        cols[:, 2 * P + 4] = np.where(has_next, self.off_come + nxt, self.zero)  # and no longer to come
        vals[:, 2 * P + 4] = 0.0
        cols += start[:, None]
        Ff[cols] = vals
        F = self.F
        F[sel, self.off_pot] = self.tab_scaled[pot]
        F[sel, self.off_pts : self.off_pts + P] = self.tab_scaled[self.points[sel]]
        F[sel, self.off_round] = self.tab_round[nr]
        self._refresh_views(sel)

        rewards = np.zeros((self.num_envs, P))
        terminated = np.zeros(self.num_envs, dtype=bool)
        final = None
        if not has_next.all():
            done = rows[~has_next]
            terminated[done] = True
            rewards[done] = returns_of_points(self.points[done], self.return_type)
            if len(done) == self.num_envs:  # the usual case: all games in step
                final = self._observe(F)
            else:
                final = np.zeros((self.num_envs, P, self.D), dtype=np.float32)
                final[done] = self._observe(F[done])
            if self.autoreset:
                self._reset_rows(done)
        return BatchStep(rewards, terminated, final)

    def _check(self, rows: np.ndarray, acts: np.ndarray, start: np.ndarray) -> None:
        """Raise on the first bad bid (in game order, then seat order), before any change."""
        over = self.round[rows] >= self.N
        if over.any():
            i = int(np.argmax(over))
            raise IllegalActionError(
                f"goofspiel: game {int(rows[i])} of the batch is over; reset it first (or use autoreset=True)",
                action=acts[i].tolist(),
            )
        outside = (acts < 0) | (acts >= self.A)
        held = self.F.reshape(-1)[start[:, None] + self.seat_cols + acts.clip(0, self.A - 1)] > 0
        bad = outside | ~held
        if bad.any():
            i, seat = np.unravel_index(np.argmax(bad), bad.shape)
            b, a = int(rows[i]), int(acts[i, seat])
            legal = np.flatnonzero(self.F[b, seat * self.A : (seat + 1) * self.A]).tolist()
            what = f"outside 0..{self.A - 1}" if outside[i, seat] else f"card {a + 1}, not in the hand"
            raise IllegalActionError(
                f"goofspiel: action {a} ({what}) for seat {seat} in game {b} of the batch",
                action=a,
                player=int(seat),
                legal=legal,
            )


def returns_of_points(points: np.ndarray, kind: str) -> np.ndarray:
    """``points_to_returns`` of parlour.games.goofspiel for many games at once:
    ``points`` is ``(k, P)``; the same float64 arithmetic, so the same values."""
    players = points.shape[1]
    if kind == "total_points":
        return points.astype(np.float64)
    if kind == "point_difference":
        total = points.sum(axis=1, keepdims=True)
        return points - (total - points) / (players - 1)
    is_top = points == points.max(axis=1, keepdims=True)
    w = is_top.sum(axis=1, keepdims=True)
    losers = np.maximum(players - w, 1)  # all tied: masked below
    out = np.where(is_top, 1.0 / w, -1.0 / losers)
    out[w[:, 0] == players] = 0.0
    return out
