"""Tides of Time's ``greedy`` and ``original-alphabeta`` for many games at once (their
batched forms).

``greedy`` (:class:`TidesGreedyBatched`, parlour's ``TidesGreedy``): in a draft, a hand
card with the best round score difference once it joins the own kingdom (the engine's
``pick_differences``), uniformly among the best with one float per game and seat from
the batch's generator; the relic: the card drafted this round that scores most this
round (the engine's ``kingdom_points``; ties: the lower card); the discard: the one
that scores least among the others (ties: the lower card).

A learner training on the batched engine meets ``original-alphabeta`` in many games of
the batch at the same step (the games last 19 steps and stay in step).  This plays all
of them together, with the single-game player's rules exactly
(:class:`parlour.baselines.players.tides_of_time.OriginalAlphaBeta`; tests compare
the two move by move):

- **a pick with both hands known**: the sequential pick tree of every such game solved
  in one :func:`~parlour.baselines.players.tides_of_time.solve_hands` call (the exact
  root values, so the first best card is alpha-beta's);
- **the first pick of rounds 2 and 3**: every opponent hand of every game in one call,
  then each game's vote;
- **the first pick of round 1**: it depends on the bot's hand alone (both kingdoms are
  empty and every other card is unseen), so for the game's default scoring flags it is
  read from the *opening book*, ``data/tides_openings.npz``: the vote of all 1,287
  opponent hands for each of the 8,568 possible hands and both objectives, written by
  ``scripts/make_tides_openings.py`` with the same solver (a test re-solves a sample
  of it).  Other flags solve it (90 ms a game) and remember it for the process;
- **relic and discard** (``keep="rollout"``): every (relic, discard) pair of every
  game, for every sampled continuation, played out greedily in lockstep with
  whole-array scoring (:func:`keep_values`, which the single-game player uses too); the
  continuations are drawn from the batch's generator, as the single-game player
  draws them from its own.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from parlour.baselines.batched import BatchedPolicy, register_batched
from parlour.baselines.players.tides_of_time import (
    back_up,
    best_keep,
    first_pick_vote,
    greedy_keep,
    keep_values,
    leaf_scores,
    opponent_hands,
    solve_hands,
)
from parlour.baselines.policy import Policy
from parlour.games.bitmask import popcount
from parlour.games.bitmask import set_bits as bits
from parlour.games.engine import BatchedEngine
from parlour.games.tides_of_time import DISCARD, DRAFT, HAND_SIZE, NUM_CARDS, RELIC, TidesInfoState, TidesOfTimeGame
from parlour.games.tides_of_time.engine import TidesOfTimeBatch

OPENINGS = "tides_openings.npz"
"""The opening book's file in this package's ``data`` folder."""
DEFAULT_FLAGS = (True, False)
"""(``zero_ties_win``, ``maze_counts_sets``) the opening book is for: the game's defaults."""
OBJECTIVES = ("own", "difference")


# --- the opening book: round 1's first pick by the bot's hand ----------------------------------


def hand_rank(hands: np.ndarray) -> np.ndarray:
    """The index of each 5-card hand (an 18-bit mask) among all 8,568 in ascending mask
    order (the book's order), from one table lookup."""
    return _rank_table()[np.asarray(hands, dtype=np.int64)]


@functools.cache
def all_hands() -> np.ndarray:
    """Every 5-card hand of the 18 cards, as masks, ascending."""
    masks = np.arange(1 << NUM_CARDS, dtype=np.int64)
    return masks[popcount(masks) == HAND_SIZE]


@functools.cache
def _rank_table() -> np.ndarray:
    table = np.full(1 << NUM_CARDS, -1, dtype=np.int32)
    table[all_hands()] = np.arange(len(all_hands()), dtype=np.int32)
    return table


def opening_values(game: TidesOfTimeGame, hand: int) -> dict[str, np.ndarray]:
    """The root values ``(1287, 5)`` of round 1's first pick with ``hand``, per objective
    (every opponent hand of the 13 other cards, in ``opponent_hands``' order)."""
    unseen = ((1 << NUM_CARDS) - 1) & ~hand
    info_hands = np.array(_combinations(unseen), dtype=np.int64)
    h = len(info_hands)
    zeros = np.zeros(h, dtype=np.int64)
    sb, so = leaf_scores(game, zeros, zeros, np.full(h, hand), info_hands)
    return {"own": back_up(sb), "difference": back_up(sb - so)}


def opening_pick(game: TidesOfTimeGame, hand: int, objective: str) -> int:
    """Round 1's first pick (a card index) of ``original-alphabeta`` with ``hand``, solved."""
    pick, _ = first_pick_vote(opening_values(game, hand)[objective], objective)
    return bits(hand)[pick]


def _combinations(unseen: int) -> list[int]:
    """Every 5-card hand of the cards ``unseen``, in ``itertools.combinations`` order."""
    import itertools

    cards = bits(unseen)
    return [sum(1 << c for c in combo) for combo in itertools.combinations(cards, HAND_SIZE)]


@functools.cache
def opening_book() -> dict[str, np.ndarray] | None:
    """The shipped book: per objective, the first pick (card index) of each hand in
    ``all_hands`` order; ``None`` if the file is missing."""
    path = Path(__file__).parent / "data" / OPENINGS  # package data (pyproject's package-data)
    if not path.is_file():
        return None
    with np.load(path) as archive:
        book = {objective: archive[objective] for objective in OBJECTIVES}
    if any(len(picks) != len(all_hands()) for picks in book.values()):
        raise ValueError(f"the opening book {OPENINGS} does not hold one pick per hand; regenerate it with scripts/make_tides_openings.py")
    return book


SOLVED_OPENINGS: dict[tuple[tuple[bool, bool], str, int], int] = {}
"""Round 1's first picks solved in this process for flags the book is not for."""


def round_one_pick(game: TidesOfTimeGame, hand: int, objective: str) -> int:
    book = opening_book() if game.flags == DEFAULT_FLAGS else None
    if book is not None:
        return int(book[objective][hand_rank(np.array([hand]))[0]])
    key = (game.flags, objective, hand)
    pick = SOLVED_OPENINGS.get(key)
    if pick is None:
        pick = SOLVED_OPENINGS[key] = opening_pick(game, hand, objective)
    return pick


# --- the batched player -------------------------------------------------------------------------


class TidesOriginalBatched(BatchedPolicy):
    """``original-alphabeta`` over many games (see the module docstring)."""

    def __init__(self, policy: Policy) -> None:
        self.spec = repr(policy)
        self.objective = policy.config["objective"]
        self.keep = policy.config["keep"]
        self.samples = policy.config["keep_samples"]

    def actions(self, engine: Any, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        infos = [engine.game_state(int(b)).info_state(int(s)) for b, s in zip(rows, seats)]
        return np.array(self.choose(infos, rng), dtype=np.int64)

    def choose(self, infos: list[TidesInfoState], rng: np.random.Generator) -> list[int]:
        """The player's move for every info state (in order)."""
        out = [0] * len(infos)
        known, first, keeps = [], [], []
        for i, info in enumerate(infos):
            if info.phase != DRAFT:
                keeps.append(i)
            elif info.hand & (info.hand - 1) == 0:  # one card: forced
                out[i] = bits(info.hand)[0]
            elif info.opp_hidden == 0:
                known.append(i)
            elif info.opp_start < 0 and info.round == 0:
                out[i] = round_one_pick(info.game, info.hand, self.objective)
            else:
                first.append(i)
        self._known(infos, known, out)
        self._first(infos, first, out)
        self._keeps(infos, keeps, out, rng)
        return out

    def _known(self, infos: list[TidesInfoState], chosen: list[int], out: list[int]) -> None:
        by_size: dict[int, list[int]] = {}
        for i in chosen:
            by_size.setdefault(infos[i].hand.bit_count(), []).append(i)
        for group in by_size.values():
            game = infos[group[0]].game
            kingdoms = np.array([infos[i].kingdoms for i in group], dtype=np.int64)
            own = np.array([infos[i].hand for i in group], dtype=np.int64)
            opp = np.array([infos[i].opp_hand for i in group], dtype=np.int64)
            values = solve_hands(game, kingdoms[:, 0], kingdoms[:, 1], own, opp, self.objective)
            for i, row in zip(group, values):
                out[i] = bits(infos[i].hand)[int(row.argmax())]

    def _first(self, infos: list[TidesInfoState], chosen: list[int], out: list[int]) -> None:
        if not chosen:
            return
        hands = [opponent_hands(infos[i]) for i in chosen]
        kb, ko, own, opp = [], [], [], []
        for i, options in zip(chosen, hands):
            k = infos[i].kingdoms
            kb += [k[0]] * len(options)
            ko += [k[1]] * len(options)
            own += [infos[i].hand] * len(options)
            opp += options
        values = solve_hands(infos[chosen[0]].game, np.array(kb), np.array(ko), np.array(own), np.array(opp), self.objective)
        start = 0
        for i, options in zip(chosen, hands):
            pick, _ = first_pick_vote(values[start : start + len(options)], self.objective)
            out[i] = bits(infos[i].hand)[pick]
            start += len(options)

    def _keeps(self, infos: list[TidesInfoState], chosen: list[int], out: list[int], rng: np.random.Generator) -> None:
        if not chosen:
            return
        if self.keep == "greedy":
            for i in chosen:
                info = infos[i]
                own_k, opp_k = info.kingdoms
                relic, discard = greedy_keep(info.game, own_k, opp_k, info.drafted[0], info.own_relic)
                out[i] = relic if info.phase == RELIC else discard
            return
        orders = [np.stack([rng.permutation(infos[i].unseen.bit_count()) for _ in range(self.samples)]) for i in chosen]
        for i, values in zip(chosen, keep_values([infos[i] for i in chosen], orders)):
            out[i] = best_keep(infos[i], values)


@register_batched("tides_of_time", "original-alphabeta")
def _batched(policy: Policy, engine: Any) -> BatchedPolicy:
    return TidesOriginalBatched(policy)


class TidesGreedyBatched(BatchedPolicy):
    """``greedy`` on the batched engine (see the module docstring).  It chooses for every
    game and both seats at once (one float per game and seat from ``rng``, whichever
    seats are asked), so a seed gives the same games whoever asks."""

    spec = "greedy"

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        assert isinstance(engine, TidesOfTimeBatch)
        return self.every_choice(engine, rng)[rows, seats]

    @staticmethod
    def every_choice(engine: TidesOfTimeBatch, rng: np.random.Generator) -> np.ndarray:
        """``(B, 2)``: both seats' cards in every game; 0 in finished games."""
        B = engine.num_envs
        out = np.zeros((B, 2), dtype=np.int64)
        u = rng.random((B, 2))
        phase = engine.phase
        draft = np.flatnonzero(phase == DRAFT)
        if len(draft):
            cand, diff = engine.pick_differences(draft)
            best = diff == diff.max(axis=-1, keepdims=True)
            k = (u[draft] * best.sum(axis=-1)).astype(np.int64)
            slot = (np.cumsum(best, axis=-1) > k[..., None]).argmax(axis=-1)
            out[draft] = np.take_along_axis(cand, slot[..., None], axis=-1)[..., 0]
        keep = np.flatnonzero((phase == RELIC) | (phase == DISCARD))
        if len(keep):
            pts = engine.kingdom_points(keep)  # (n, 2, 18)
            drafted = ((engine.drafted[keep][..., None] >> np.arange(NUM_CARDS)) & 1) == 1
            relic = np.where(drafted, pts, -1).argmax(axis=-1)  # first best: the lower card
            pend = engine.pending[keep]
            relic = np.where(pend >= 0, pend, relic)
            others = drafted & (np.arange(NUM_CARDS) != relic[..., None])
            discard = np.where(others, pts, np.iinfo(np.int64).max).argmin(axis=-1)
            out[keep] = np.where((phase[keep] == RELIC)[:, None], relic, discard)
        return out


@register_batched("tides_of_time", "greedy")
def _greedy(policy: Policy, engine: Any) -> BatchedPolicy | None:
    return TidesGreedyBatched() if repr(policy) == "greedy" else None
