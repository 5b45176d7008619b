"""Tides of Time, B games at once: both seats' cards of every game in one ``step``.

Every step of the single game is simultaneous (``current_players()`` is ``(0, 1)``
until the game is over): the five picks of a round, then, after rounds 1 and 2 of the
full game, a relic step and a discard step.  So ``step`` always takes ``(B, 2)``
actions (action ``a`` is card ``a + 1``), whatever the phase.

State (leading batch axis B), as 18-bit int64 masks like the single game's (bit ``a``
= card ``a + 1``): ``hands``, ``drafted`` (this round), ``relics``, ``discards`` and
``last_draw`` (the two cards drawn at the last keep), each ``(B, 2)``; ``pending``
``(B, 2)`` (the secret relic during the discard step, else -1); ``phase``, ``round``,
``pick`` ``(B,)``; ``scores`` ``(B, 3, 2)`` (round scores in seat order, 0 for rounds
not scored yet); ``draws`` ``(B, 2, 2)`` (the pile's two draws per relic step and
seat, fixed by the deal); ``decks`` ``(B, 18)`` (each game's deal, card numbers in
dealing order) and ``moves`` / ``num_moves`` (the joint actions so far, for
:meth:`TidesOfTimeBatch.game_state`).

Deals: every deal is a permutation drawn from the engine's generator (one
``Generator.permuted`` call for all the games being reset); it does **not** reproduce
``new_initial_state(seed)``'s draw.  The deal of game ``b`` is ``decks[b]``, the
single game's ``deck`` start option, so ``game.new_initial_state(deck=decks[b])`` is
the same game (that is how the tests pair the two engines), and
:meth:`TidesOfTimeBatch.load_deals` starts games from given decks.

Scoring is vectorised by :func:`card_points`: the six steps of docs/tides_of_time.md
on arrays of kingdom pairs, with per-card suit masks (a suit count is one
``popcount``) and per-card programs, giving every card's points (``kingdom_points``: a
player's relic and discard rules read them) and the totals.  A table over all kingdom
pairs would be far too large (kingdoms of up to 7 of 18 cards on each side).

Observations are built from the masks: ten card planes per seat (the opponent's
planes are the seat axis reversed), unpacked to bits in one ``unpackbits``, the phase
/ round / pick scalars from a table indexed by (phase, round, pick), and the scores
divided in float64 then rounded to float32 as the single game does, so every value is
bit-for-bit ``observation_tensor``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.bitmask import bits_list, popcount
from parlour.games.engine import BatchStep, DeterminizingEngine
from parlour.games.tides_of_time.cards import (
    ALL_CARDS,
    DISCARD,
    DRAFT,
    EYE,
    HAND_SIZE,
    MAJORITY_SCORING,
    MAZE,
    MOLEHILL,
    NEST,
    NUM_CARDS,
    OVER,
    PORT,
    RELIC,
    ROOF,
    SCORE_SCALE,
    SET_SCORING,
    SUIT_OF,
)
from parlour.games.tides_of_time.observation import OBS_SIZE, PLANES
from parlour.games.tides_of_time.rules import TidesOfTimeGame, TidesOfTimeState, check_deck

ONE = np.int64(1)
SUIT_MASKS = np.array([sum(1 << i for i in range(NUM_CARDS) if SUIT_OF[i] == s) for s in range(5)], dtype=np.int64)
_SET_CARDS = np.array(list(SET_SCORING), dtype=np.intp)
_SET_POINTS = np.array([points for points, _ in SET_SCORING.values()], dtype=np.int64)
_SET_SUITS = np.array([(suits * 3)[:3] for _, suits in SET_SCORING.values()], dtype=np.intp)
"""The set cards' suits, padded to three by repeating (the minimum is unchanged)."""
_MAJ_CARDS = np.array(list(MAJORITY_SCORING), dtype=np.intp)
_MAJ_SUITS = np.array(list(MAJORITY_SCORING.values()), dtype=np.intp)
_WORD_PARTS = tuple(
    tuple((j, 18 * j - 64 * w) for j in range(PLANES) if 18 * j < 64 * (w + 1) and 18 * j + 18 > 64 * w) for w in range(3)
)
"""Per 64-bit word of the observation's bit stream: (plane, left shift) of the planes
overlapping it (a negative shift is a right shift)."""
NO_CARD = -(10**6)
"""The value of an empty slot of ``pick_differences`` (below any score difference)."""


def card_points(k0: np.ndarray, k1: np.ndarray, zero_ties_win: bool = True, maze_counts_sets: bool = False) -> np.ndarray:
    """The points of every card of both kingdoms: ``(n, 2, 18)`` int64 for kingdom masks
    ``k0``, ``k1`` of shape ``(n,)`` (0 for cards not in the kingdom); the totals are the
    sum over the last axis.  The six steps of ``parlour.games.tides_of_time.score_kingdoms``
    (and its per-card ``detail``) as whole-array operations."""
    K = np.stack([np.asarray(k0, dtype=np.int64), np.asarray(k1, dtype=np.int64)], axis=-1)  # (n, 2)
    has = (K[..., None] >> np.arange(NUM_CARDS)) & 1  # (n, 2, 18)
    counts = popcount(K[..., None] & SUIT_MASKS).astype(np.int64)  # (n, 2, 5), step 1
    nest = has[..., NEST] == 1  # step 2

    def beats(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        n = nest if x.ndim == nest.ndim else nest[..., None]
        tie = (x == y) & n
        if not zero_ties_win:
            tie &= x > 0
        return (x > y) | tie

    pts = np.zeros(has.shape, dtype=np.int64)
    singles = (counts == 1).sum(axis=-1)  # step 3, before the Roof
    pts[..., MOLEHILL] = 8 * beats(singles, singles[:, ::-1])
    top = counts.max(axis=-1, keepdims=True)  # step 4
    roof = (has[..., ROOF, None] == 1) & (top > 0) & (counts == top)
    c = np.where(roof, 2 * counts, counts)
    o = c[:, ::-1]
    # step 5, the set cards ("for each" is a set of one suit) and the majorities at once
    pts[..., _SET_CARDS] = _SET_POINTS * c[..., _SET_SUITS].min(axis=-1)
    pts[..., _MAJ_CARDS] = 7 * beats(c[..., _MAJ_SUITS], o[..., _MAJ_SUITS])
    low = c.min(axis=-1)
    pts[..., MAZE] = 13 * low if maze_counts_sets else 13 * (low >= 1)
    pts[..., EYE] = 3 * (c == 0).sum(axis=-1)
    pts *= has
    best = pts.max(axis=-1)  # step 6: Port and Nest columns are 0 here
    pts[..., PORT] = 8 * beats(best, best[:, ::-1]) * has[..., PORT]
    return pts


def lowest_card(m: np.ndarray) -> np.ndarray:
    """The index of the lowest set bit of each mask (0 for an empty mask)."""
    return np.where(m > 0, popcount((m & -m) - 1), 0).astype(np.int64)


def _step_table(rounds: int) -> np.ndarray:
    """Row ``phase * 18 + round * 6 + pick``: the 14 scalars at offsets 180..193 of the
    observation (round, pick and phase one-hots, unknown opponent cards / 5, rounds
    option), written the single game's way."""
    table = np.zeros((4 * 18, 14), dtype=np.float32)
    for phase in range(4):
        for rnd in range(3):
            for pick in range(6):
                row = table[phase * 18 + rnd * 6 + pick]
                row[min(rnd, 2)] = 1.0
                if phase == DRAFT and pick < HAND_SIZE:
                    row[3 + pick] = 1.0
                row[8 + phase] = 1.0
                hidden = (HAND_SIZE if rnd == 0 else 2) if phase == DRAFT and pick == 0 else 0
                row[12] = hidden / HAND_SIZE
                row[13] = (rounds - 1) / 2
    return table


_CARDS = np.arange(NUM_CARDS, dtype=np.int64)


def _slot_table() -> np.ndarray:
    """``_SLOTS[h, r]``: where a determinization puts the unseen cards, in the single
    game's order, with ``h`` = 0, 1, 2 for 0, 2, 5 hidden opponent cards and ``r`` the
    round (0..2): ``-1`` the opponent's hand, ``2 * step + seat`` a draw still to come
    (relic step ``step >= r``, two cards each, seat 0 first), ``-2`` no place (padding)."""
    table = np.full((3, 3, 2 * HAND_SIZE + 3), -2, dtype=np.int64)
    for h, hidden in enumerate((0, 2, HAND_SIZE)):
        for r in range(3):
            places = [-1] * hidden + [2 * step + seat for step in range(2) if step >= r for seat in (0, 1) for _ in range(2)]
            table[h, r, : len(places)] = places
    return table


_SLOTS = _slot_table()


def _ascending_cards(masks: np.ndarray, count: int) -> np.ndarray:
    """``(k, count)`` card numbers (1..18, ascending) of masks holding ``count`` cards each."""
    bits = (masks[:, None] >> _CARDS) & 1
    return np.argsort(-bits, axis=1, kind="stable")[:, :count] + 1


class TidesOfTimeBatch(DeterminizingEngine):
    """B Tides of Time games (every option of ``TidesOfTimeGame``: ``rounds`` 1 or 3,
    ``returns`` win_loss / score_difference, ``zero_ties_win``, ``maze_counts_sets``).

    ``step(actions)`` takes ``(B, 2)`` integer actions, both seats' cards, in every
    phase (picks, relics, discards: all simultaneous in the single game too).
    The batched players (``random``, ``greedy``, ``original-alphabeta``) live with the
    baselines (``parlour.baselines.players.tides_of_time_batched``); the engine offers
    the facts they read (``pick_differences``, ``kingdom_points``).
    """

    game_class = TidesOfTimeGame
    game: TidesOfTimeGame
    STATE = ("decks", "draws", "hands", "drafted", "relics", "discards", "last_draw", "pending", "phase", "round", "pick",
             "scores", "moves", "num_moves")
    simultaneous = True

    def __init__(self, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True, **options: Any) -> None:
        super().__init__(num_envs, seed, autoreset=autoreset, **options)
        game = self.game
        self.rounds = game.rounds
        self.zero_ties_win, self.maze_counts_sets = game.flags
        self.win_loss = game.config["returns"] == "win_loss"
        self.step_table = _step_table(self.rounds)
        B = self.num_envs
        self.max_moves = game.info.max_game_length
        self.decks = np.zeros((B, NUM_CARDS), dtype=np.int64)
        self.draws = np.zeros((B, 2, 2), dtype=np.int64)
        self.hands = np.zeros((B, 2), dtype=np.int64)
        self.drafted = np.zeros((B, 2), dtype=np.int64)
        self.relics = np.zeros((B, 2), dtype=np.int64)
        self.discards = np.zeros((B, 2), dtype=np.int64)
        self.last_draw = np.zeros((B, 2), dtype=np.int64)
        self.pending = np.full((B, 2), -1, dtype=np.int64)
        self.phase = np.zeros(B, dtype=np.int64)
        self.round = np.zeros(B, dtype=np.int64)
        self.pick = np.zeros(B, dtype=np.int64)
        self.scores = np.zeros((B, 3, 2), dtype=np.int64)
        self.moves = np.zeros((B, self.max_moves, 2), dtype=np.int8)
        self.num_moves = np.zeros(B, dtype=np.int64)
        self._legal_cache: np.ndarray | None = None
        self.reset()

    # ----- dealing -------------------------------------------------------------------

    def _reset_rows(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        decks = self.rng.permuted(np.tile(np.arange(NUM_CARDS, dtype=np.int64), (len(rows), 1)), axis=1)
        self._start(rows, decks)

    def load_deals(self, decks: Any, where: np.ndarray | None = None) -> None:
        """Start the selected games (all by default) afresh from the given deals:
        ``decks`` holds one deck per selected game (card numbers 1..18 in dealing order,
        the single game's ``deck`` start option), shape ``(selected, 18)``."""
        rows = self._selected(where)
        array = np.asarray(decks)
        if array.ndim != 2 or array.shape[0] != len(rows):
            raise ValueError(f"tides_of_time: decks must have shape ({len(rows)}, 18), one deck per selected game, got shape {array.shape}")
        checked = np.array([check_deck(deck) for deck in array], dtype=np.int64).reshape(len(rows), NUM_CARDS)
        self._start(rows, checked - 1)

    def deal(self, rows: np.ndarray, rngs: list[np.random.Generator]) -> None:
        """Start games ``rows`` with the deal ``game.new_initial_state(rngs[i])`` draws
        (one permutation from each game's generator): the single game's chance, game by game."""
        rows = np.asarray(rows, dtype=np.int64)
        self._start(rows, np.stack([rng.permutation(NUM_CARDS) for rng in rngs]).astype(np.int64))

    def _start(self, rows: np.ndarray, decks: np.ndarray) -> None:
        """Start games ``rows`` from ``decks`` (card indices 0..17, dealing order)."""
        k = len(rows)
        bits = ONE << decks
        self.decks[rows] = decks + 1
        self.hands[rows, 0] = bits[:, :HAND_SIZE].sum(axis=1)
        self.hands[rows, 1] = bits[:, HAND_SIZE : 2 * HAND_SIZE].sum(axis=1)
        self.draws[rows] = bits[:, 2 * HAND_SIZE :].reshape(k, 2, 2, 2).sum(axis=-1)  # [relic step, seat]
        for array in (self.drafted, self.relics, self.discards, self.last_draw, self.scores):
            array[rows] = 0
        self.pending[rows] = -1
        self.phase[rows] = DRAFT
        self.round[rows] = 0
        self.pick[rows] = 0
        self.num_moves[rows] = 0
        self._legal_cache = None

    def _state_changed(self) -> None:
        self._legal_cache = None

    # ----- hidden information ----------------------------------------------------------

    DETERMINIZE_DRAWS = NUM_CARDS + 1
    """Uniform floats one determinization of one game uses (a shuffle's keys, the relic)."""

    def determinize(self, rows: np.ndarray, seats: np.ndarray, draws: np.ndarray | list[np.random.Generator]) -> None:
        """Redraw in games ``rows`` what seat ``seats[i]`` of game ``rows[i]`` cannot see,
        uniformly among the deals consistent with what it saw, as
        ``TidesInfoState.sample`` does (a search's determinization, done in place): the
        cards it has not seen (the opponent's unknown hand cards and the pile not yet
        drawn) are shuffled into those places; during the discard step the opponent's
        secret relic is drawn among the cards it drafted this round.  ``draws``: for each
        row its own ``DETERMINIZE_DRAWS`` uniform floats in [0, 1) (``[k, 19]``), or its
        own generator to draw them from, so a row's draw does not depend on the other
        rows.  The deals (``decks``) are rewritten to match, so ``game_state`` replays the
        determinized game."""
        rows = np.asarray(rows, dtype=np.int64)
        me = np.asarray(seats, dtype=np.int64)
        opp = 1 - me
        k = len(rows)
        if not k:
            return
        index = np.arange(k)
        hands = self.hands[rows]
        phase, rnd = self.phase[rows], self.round[rows]
        first = (phase == DRAFT) & (self.pick[rows] == 0)
        # the opponent's hand cards the seat does not know: its dealt hand before round 1's
        # first exchange, its last draw before a later round's; the rest it knows
        hidden = np.where(first & (rnd == 0), HAND_SIZE, np.where(first & (rnd > 0), 2, 0))
        opp_hand = hands[index, opp]
        opp_known = np.where(hidden == HAND_SIZE, 0, np.where(hidden == 2, opp_hand & ~self.last_draw[rows, opp], opp_hand))
        public = self.drafted[rows] | self.relics[rows] | self.discards[rows]
        unseen = ALL_CARDS & ~(hands[index, me] | opp_known | public[:, 0] | public[:, 1])
        # a random order of each row's unseen cards, each row from its own draws
        if isinstance(draws, np.ndarray):
            uniform = draws
        else:
            uniform = np.stack([rng.random(self.DETERMINIZE_DRAWS) for rng in draws])
        keys = np.where((unseen[:, None] >> _CARDS) & 1 == 1, uniform[:, :NUM_CARDS], 2.0)
        order = np.argsort(keys, axis=1, kind="stable")
        # the places, in the single game's order (see _SLOTS)
        slots = _SLOTS[np.where(hidden == HAND_SIZE, 2, hidden // 2), np.minimum(rnd, 2)]
        new_hand = opp_known.copy()
        dealt_draws = self.draws[rows].copy()  # (k, relic step, seat)
        dealt_draws[np.arange(2)[None, :] >= rnd[:, None]] = 0  # the draws still to come are redrawn
        for j in range(slots.shape[1]):
            slot, bit = slots[:, j], ONE << order[:, j]
            new_hand |= np.where(slot == -1, bit, 0)
            for code in range(4):
                dealt_draws[:, code // 2, code % 2] |= np.where(slot == code, bit, 0)
        # the opponent's last draw, hidden until it passes its hand, is the redrawn part
        last = np.where(hidden == 2, new_hand & ~opp_known, self.last_draw[rows, opp])
        drawn = np.flatnonzero(hidden == 2)
        dealt_draws[drawn, rnd[drawn] - 1, opp[drawn]] = last[drawn]
        hands[index, opp] = new_hand
        self.hands[rows] = hands
        self.last_draw[rows, opp] = last
        self.draws[rows] = dealt_draws
        for i in np.flatnonzero(phase == DISCARD):  # the opponent's secret relic (its last move)
            choices = np.flatnonzero((self.drafted[rows[i], opp[i]] >> _CARDS) & 1)
            relic = choices[min(int(uniform[i, NUM_CARDS] * len(choices)), len(choices) - 1)]
            self.pending[rows[i], opp[i]] = relic
            self.moves[rows[i], self.num_moves[rows[i]] - 1, opp[i]] = relic
        # the deals that give these games: dealt hands (only a hidden one changes), then the pile
        decks = self.decks[rows]
        dealt = np.flatnonzero(hidden == HAND_SIZE)
        if len(dealt):
            cols = HAND_SIZE * opp[dealt][:, None] + np.arange(HAND_SIZE)
            decks[dealt[:, None], cols] = _ascending_cards(new_hand[dealt], HAND_SIZE)
        decks[:, 2 * HAND_SIZE :] = _ascending_cards(dealt_draws.reshape(-1), 2).reshape(k, 8)
        self.decks[rows] = decks
        self._legal_cache = None

    # ----- reading the state ---------------------------------------------------------

    @property
    def terminated(self) -> np.ndarray:
        return self.phase == OVER

    def to_act(self) -> np.ndarray:
        return np.repeat((self.phase != OVER)[:, None], 2, axis=1)

    def _legal_bits(self) -> np.ndarray:
        """``(B, 2)`` int64: the legal cards of each seat as masks (cached until the
        state changes: ``step`` and ``_start`` clear the cache)."""
        if self._legal_cache is None:
            phase = self.phase[:, None]
            drafted = self.drafted
            relic_free = drafted & ~(ONE << self.pending.clip(0))
            self._legal_cache = np.where(
                phase == DRAFT,
                self.hands,
                np.where(phase == RELIC, drafted, np.where(phase == DISCARD, relic_free, 0)),
            )
        return self._legal_cache

    @staticmethod
    def _unpack(masks: np.ndarray) -> np.ndarray:
        """``(*shape, 18)`` uint8 bits of int64 masks of any shape (bit ``a`` at ``a``):
        one ``unpackbits`` of the flat little-endian bytes (fast), then a view."""
        octets = masks.astype("<u4").view(np.uint8)
        return np.unpackbits(octets, bitorder="little").reshape(*masks.shape, 32)[..., :NUM_CARDS]

    def legal_masks(self) -> np.ndarray:
        return self._unpack(self._legal_bits()).view(np.int8)

    def legal_mask(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        return self._unpack(self._legal_bits()[self._rows, seats]).view(np.int8)

    def _planes(self, sel: Any) -> list[np.ndarray]:
        """The ten card planes of docs/tides_of_time.md, each ``(k, 2)`` int64 (per seat)."""
        H, D, R, X = self.hands[sel], self.drafted[sel], self.relics[sel], self.discards[sel]
        phase, rnd, pick = self.phase[sel], self.round[sel], self.pick[sel]
        pend = self.pending[sel]
        draft = phase == DRAFT
        first = draft & (pick == 0)
        Ho = H[:, ::-1]
        # the opponent's hand as far as the seat knows it: all after a round's first
        # exchange, the returned cards (not the two drawn) before the first pick of rounds 2, 3
        known = np.where(
            (draft & (pick > 0))[:, None],
            Ho,
            np.where((first & (rnd > 0))[:, None], Ho & ~self.last_draw[sel][:, ::-1], 0),
        )
        relic = np.where(pend >= 0, ONE << pend.clip(0), 0)
        public = D[:, 0] | D[:, 1] | R[:, 0] | R[:, 1] | X[:, 0] | X[:, 1]
        unseen = ALL_CARDS & ~(H | known | public[:, None])
        return [H, D, R, X, known, D[:, ::-1], R[:, ::-1], X[:, ::-1], relic, unseen]

    @staticmethod
    def _plane_bits(planes: list[np.ndarray]) -> np.ndarray:
        """``(*shape, 192)`` uint8: the ten 18-bit planes as one 180-bit stream (plane
        ``j``'s card ``a`` at bit ``18 j + a``) in three 64-bit words, unpacked at once;
        the first 180 entries are the observation's card planes.  (Unpacking each plane
        on its own and copying 18 entries at a time was measured twice as slow.)"""
        shape = planes[0].shape
        words = np.empty((*shape, 3), dtype="<u8")
        for w, parts in enumerate(_WORD_PARTS):
            acc = None
            for j, shift in parts:
                p = planes[j].view(np.uint64)
                part = p << np.uint64(shift) if shift >= 0 else p >> np.uint64(-shift)
                acc = part if acc is None else acc | part
            words[..., w] = acc
        return np.unpackbits(words.view(np.uint8), bitorder="little").reshape(*shape, 192)

    def _observe(self, sel: Any, seat: int | np.ndarray | None) -> np.ndarray:
        """Observations of the games ``sel``: ``(k, 2, 202)`` for ``seat=None``, else
        ``(k, 202)`` of ``seat`` (an int, or one seat per selected game)."""
        planes = self._planes(sel)
        scores = self.scores[sel]  # (k, 3, 2)
        code = self.phase[sel] * 18 + np.minimum(self.round[sel], 2) * 6 + self.pick[sel]
        rel = np.stack([scores, scores[..., ::-1]], axis=1)  # (k, seat, round, own/opp)
        totals = scores.sum(axis=1)
        tot = np.stack([totals, totals[:, ::-1]], axis=-1)  # (k, seat, own/opp)
        if seat is not None:
            pick = (np.arange(len(scores)), seat) if not isinstance(seat, int) else (slice(None), seat)
            planes = [p[pick] for p in planes]
            rel, tot = rel[pick], tot[pick]
        k = planes[0].shape
        obs = np.empty((*k, OBS_SIZE), dtype=np.float32)
        base = PLANES * NUM_CARDS
        obs[..., :base] = self._plane_bits(planes)[..., :base]
        steps = self.step_table[code]
        obs[..., base : base + 14] = steps[:, None, :] if seat is None else steps
        obs[..., base + 14 : base + 20] = (rel.reshape(*k, 6) / SCORE_SCALE).astype(np.float32)
        obs[..., base + 20 : base + 22] = (tot / (3 * SCORE_SCALE)).astype(np.float32)
        return obs

    def observations(self) -> np.ndarray:
        return self._observe(slice(None), None)

    def observations_of(self, rows: np.ndarray) -> np.ndarray:
        return self._observe(rows, None)

    def observation(self, seat: int | np.ndarray) -> np.ndarray:
        return self._observe(slice(None), self._seats(seat))

    def observation_at(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return self._observe(np.asarray(rows, dtype=np.intp), np.asarray(seats))

    def _returns_of(self, sel: Any) -> np.ndarray:
        totals = self.scores[sel].sum(axis=1)
        d = (totals[:, 0] - totals[:, 1]).astype(np.float64)
        if self.win_loss:
            d = np.sign(d)
        return np.stack([d, -d], axis=1) + 0.0  # + 0.0: -0.0 becomes 0.0, as float(-0)

    def returns(self) -> np.ndarray:
        out = np.zeros((self.num_envs, 2))
        done = self.terminated
        if done.any():
            out[done] = self._returns_of(done)
        return out

    def load_states(self, states: Sequence[TidesOfTimeState], rows: np.ndarray | None = None) -> None:
        """Make the games ``rows`` the positions ``states``: each game is dealt the
        state's deal (the two hands, then the draw pile) and its steps are replayed."""
        rows = self._load_rows(states, rows)
        # card indices 0..17: the hands' bits, then the pile's card numbers less one
        decks = [bits_list(state.start[0]) + bits_list(state.start[1]) + [card - 1 for card in state.start[2]] for state in states]
        self._start(rows, np.array(decks, dtype=np.int64).reshape(len(rows), NUM_CARDS))
        self._replay(rows, [steps_of(state) for state in states])

    def game_state(self, b: int) -> TidesOfTimeState:
        """Game ``b`` as a single-game state (its deal, then its moves replayed)."""
        state = self.game.new_initial_state(deck=self.decks[b].tolist())
        for a0, a1 in self.moves[b, : self.num_moves[b]].tolist():
            state.apply({0: a0, 1: a1})
        return state

    # ----- players -------------------------------------------------------------------------

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """Uniformly random legal cards, ``(B, 2)``: the same draw as the base class's
        (the k-th legal card, k = floor(u * count), one float per game and seat), found
        by clearing the k lowest bits of the legal mask (at most 5 cards are legal)."""
        rng = self.rng if rng is None else rng
        m = self._legal_bits()
        k = (rng.random(m.shape) * popcount(m)).astype(np.int64)
        for i in range(HAND_SIZE - 1):
            m = np.where(k > i, m & (m - 1), m)
        return lowest_card(m)

    # ----- game facts the players read ------------------------------------------------------

    def hand_cards(self, rows: np.ndarray) -> np.ndarray:
        """``(n, 2, HAND_SIZE)`` int64: the cards in each seat's hand in the games ``rows``,
        ascending (0 in the slots past a smaller hand's last card)."""
        m = self.hands[rows].copy()  # (n, 2)
        cards = np.empty((len(rows), 2, HAND_SIZE), dtype=np.int64)
        for j in range(HAND_SIZE):
            cards[..., j] = lowest_card(m)
            m &= m - 1
        return cards

    def pick_differences(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For the games ``rows`` (in a draft step): ``(cards, differences)``, both
        ``(n, 2, HAND_SIZE)`` int64: each seat's hand cards (``hand_cards``) and the
        round's score difference (the seat's points minus the opponent's) once the card
        joins the seat's kingdom, the opponent's kingdom as it is now; ``NO_CARD`` (below
        any difference) in the slots past a hand's last card."""
        n = len(rows)
        kingdoms = self.relics[rows] | self.drafted[rows]  # (n, 2)
        cand = self.hand_cards(rows)
        valid = np.arange(HAND_SIZE) < popcount(self.hands[rows])[..., None]  # (n, 2, 5)
        own = kingdoms[..., None] | (ONE << cand)
        opp = np.broadcast_to(kingdoms[:, ::-1, None], own.shape)
        pts = card_points(own.reshape(-1), opp.reshape(-1), self.zero_ties_win, self.maze_counts_sets).sum(axis=-1)
        diff = (pts[:, 0] - pts[:, 1]).reshape(n, 2, HAND_SIZE)
        return cand, np.where(valid, diff, NO_CARD)

    def kingdom_points(self, rows: np.ndarray) -> np.ndarray:
        """``(n, 2, NUM_CARDS)`` int64: the points each card of each seat's kingdom (its
        relics and this round's drafted cards) scores this round in the games ``rows``
        (0 for cards not in it)."""
        kingdoms = self.relics[rows] | self.drafted[rows]
        return card_points(kingdoms[:, 0], kingdoms[:, 1], self.zero_ties_win, self.maze_counts_sets)

    # ----- stepping ---------------------------------------------------------------------

    def step(self, actions: Any, where: np.ndarray | None = None) -> BatchStep:
        """One simultaneous step of every selected game: ``actions[b, seat]`` is the
        card (index) ``seat`` picks, keeps as its relic or discards in game ``b``."""
        B = self.num_envs
        array = self._action_array(actions, (B, 2), "one card per game and seat: both seats act at every step")
        rows = self._selected(where)
        rewards = np.zeros((B, 2))
        terminated = np.zeros(B, dtype=bool)
        if not len(rows):
            return BatchStep(rewards, terminated, None)
        acts = array if where is None else array[rows]
        self._check(rows, acts)
        acts = acts.astype(np.int64, copy=False)
        self._legal_cache = None
        moves = self.num_moves[rows]
        self.moves[rows, moves] = acts
        self.num_moves[rows] = moves + 1
        phases = self.phase[rows]
        if where is None and (phases == phases[0]).all():
            groups = [(int(phases[0]), slice(None), acts)]
        else:
            groups = []
            for phase in (DRAFT, RELIC, DISCARD):
                inside = phases == phase
                if inside.any():
                    groups.append((phase, rows[inside], acts[inside]))
        for phase, sel, a in groups:
            if phase == DRAFT:
                self._draft(sel, a)
            elif phase == RELIC:
                self.pending[sel] = a
                self.phase[sel] = DISCARD
            else:
                self._keep(sel, a)
        over = self.phase[rows] == OVER
        final = None
        if over.any():
            done = rows[over]
            terminated[done] = True
            rewards[done] = self._returns_of(done)
            final = np.zeros((B, 2, OBS_SIZE), dtype=np.float32)
            final[done] = self._observe(done, None)
            if self.autoreset:
                self._reset_rows(done)
        return BatchStep(rewards, terminated, final)

    def _draft(self, sel: Any, a: np.ndarray) -> None:
        """A pick: the cards join the kingdoms, the rest of the hands are exchanged; the
        fifth pick scores the round."""
        bit = ONE << a
        drafted = self.drafted[sel] | bit
        self.drafted[sel] = drafted
        self.hands[sel] = (self.hands[sel] ^ bit)[:, ::-1]
        pick = self.pick[sel] + 1
        self.pick[sel] = pick
        end = pick == HAND_SIZE
        if not end.any():
            return
        rows = self._rows[sel][end]
        kingdoms = self.relics[rows] | drafted[end]
        totals = card_points(kingdoms[:, 0], kingdoms[:, 1], self.zero_ties_win, self.maze_counts_sets).sum(axis=-1)
        rnd = self.round[rows]
        self.scores[rows, rnd] = totals
        self.phase[rows] = np.where(rnd + 1 < self.rounds, RELIC, OVER)

    def _keep(self, sel: Any, a: np.ndarray) -> None:
        """The discard step: relics and discards are revealed, the other three cards
        drafted this round go back to the hands, each seat draws two (player_0 first)."""
        relic = ONE << self.pending[sel]
        bit = ONE << a
        rnd = self.round[sel]
        draw = self.draws[sel][np.arange(len(rnd)), rnd]  # (k, 2)
        self.relics[sel] |= relic
        self.discards[sel] |= bit
        self.hands[sel] = self.drafted[sel] & ~(relic | bit) | draw
        self.last_draw[sel] = draw
        self.drafted[sel] = 0
        self.pending[sel] = -1
        self.round[sel] = rnd + 1
        self.pick[sel] = 0
        self.phase[sel] = DRAFT

    def _check(self, rows: np.ndarray, acts: np.ndarray) -> None:
        """Raise on the first bad card (in game order, then seat order), before any change."""
        over = self.phase[rows] == OVER
        if over.any():
            i = int(np.argmax(over))
            raise IllegalActionError(
                f"tides_of_time: game {int(rows[i])} of the batch is over; reset it first (or use autoreset=True)",
                action=acts[i].tolist(),
            )
        outside = (acts < 0) | (acts >= NUM_CARDS)
        legal = self._legal_bits()[rows]
        held = (legal >> np.where(outside, 0, acts).astype(np.int64)) & 1 == 1
        bad = outside | ~held
        if not bad.any():
            return
        i, seat = (int(index) for index in np.unravel_index(np.argmax(bad), bad.shape))
        b, a, phase = int(rows[i]), int(acts[i, seat]), int(self.phase[rows[i]])
        legal_cards = [c for c in range(NUM_CARDS) if int(legal[i, seat]) >> c & 1]
        if outside[i, seat]:
            why = f"action {a} (no such card; actions are 0..{NUM_CARDS - 1})"
        elif phase == DRAFT:
            why = f"action {a} (card {a + 1}) is not in the hand of seat {seat}"
        elif phase == RELIC:
            why = f"action {a} (card {a + 1}) was not drafted this round by seat {seat}: a relic must be a card it drafted this round"
        elif a == self.pending[b, seat]:
            why = f"action {a} (card {a + 1}) is already seat {seat}'s relic: the discard must be a different card drafted this round"
        else:
            why = f"action {a} (card {a + 1}) was not drafted this round by seat {seat}: the discard must be a card it drafted this round"
        raise IllegalActionError(f"tides_of_time: {why}, in game {b} of the batch", action=a, player=int(seat), legal=legal_cards)


def steps_of(state: TidesOfTimeState) -> list[tuple[int, int]]:
    """The joint steps that led to ``state`` from its deal, in order: each round's picks,
    then its relic and discard choices (the relics alone while the discard is pending)."""
    steps: list[tuple[int, int]] = []
    for r, picks in enumerate(state.picks):
        steps += picks
        if r < len(state.keeps):
            r0, r1, d0, d1 = state.keeps[r]
            steps += [(r0, r1), (d0, d1)]
    if state.phase == DISCARD:
        steps.append((state.pending[0], state.pending[1]))
    return steps
