"""Scoring a round of Tides of Time: the six steps of docs/tides_of_time.md, "Scoring
a round", on two kingdoms (bitmasks), memoised; a vectorised form for arrays of
kingdoms; and the checked forms on card numbers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parlour.games.base import (
    check_bool,
    check_int,
)
from parlour.games.bitmask import cards_of, mask_of, popcount
from parlour.games.bitmask import set_bits as bits
from parlour.games.tides_of_time.cards import (
    EYE,
    MAJORITY_SCORING,
    MAZE,
    MOLEHILL,
    NEST,
    NUM_CARDS,
    PORT,
    ROOF,
    SET_SCORING,
    SUIT_OF,
)

# --- scoring ------------------------------------------------------------------------------


def score_kingdoms(ma: int, mb: int, zero_ties_win: bool, maze_sets: bool, detail: bool = False):
    """Both round scores of kingdoms ``ma`` and ``mb`` (bitmasks), the six steps of
    docs/tides_of_time.md; with ``detail`` also the points of every card of each kingdom."""
    ka, kb = bits(ma), bits(mb)
    ca = [0, 0, 0, 0, 0]
    cb = [0, 0, 0, 0, 0]
    for i in ka:  # step 1
        s = SUIT_OF[i]
        if s >= 0:
            ca[s] += 1
    for i in kb:
        s = SUIT_OF[i]
        if s >= 0:
            cb[s] += 1
    nest = (ma >> NEST & 1, mb >> NEST & 1)  # step 2
    counts = (ca, cb)
    pts: tuple[dict[int, int], dict[int, int]] = ({}, {})
    # step 3: Molehill, on the counts before the Roof
    singles = (ca.count(1), cb.count(1))
    for p, m in ((0, ma), (1, mb)):
        if m >> MOLEHILL & 1:
            x, y = singles[p], singles[1 - p]
            pts[p][MOLEHILL] = 8 if x > y or (x == y and nest[p] and (zero_ties_win or x > 0)) else 0
    # step 4: Roof of the World doubles the most numerous suit(s), for both players' later steps
    for p, m in ((0, ma), (1, mb)):
        if m >> ROOF & 1:
            c = counts[p]
            top = max(c)
            if top > 0:
                for s in range(5):
                    if c[s] == top:
                        c[s] = 2 * top
    # step 5: every other card on the current counts
    for p, k in ((0, ka), (1, kb)):
        c, o, n, out = counts[p], counts[1 - p], nest[p], pts[p]
        for i in k:
            spec = SET_SCORING.get(i)
            if spec is not None:
                points, suits = spec
                out[i] = points * min(c[s] for s in suits)
                continue
            suit = MAJORITY_SCORING.get(i)
            if suit is not None:
                x, y = c[suit], o[suit]
                out[i] = 7 if x > y or (x == y and n and (zero_ties_win or x > 0)) else 0
            elif i == MAZE:
                low = min(c)
                out[i] = 13 * low if maze_sets else (13 if low >= 1 else 0)
            elif i == EYE:
                out[i] = 3 * c.count(0)
    # step 6: Sapphire Port, against the best single card of steps 3-5
    best = (max(pts[0].values(), default=0), max(pts[1].values(), default=0))
    for p, m in ((0, ma), (1, mb)):
        if m >> PORT & 1:
            x, y = best[p], best[1 - p]
            pts[p][PORT] = 8 if x > y or (x == y and nest[p] and (zero_ties_win or x > 0)) else 0
    totals = (sum(pts[0].values()), sum(pts[1].values()))
    if not detail:
        return totals
    full = tuple({i: pts[p].get(i, 0) for i in k} for p, k in ((0, ka), (1, kb)))
    return totals, full


_SCORE_CACHE: dict[tuple[bool, bool], dict[int, tuple[int, int]]] = {}


def score_masks(ma: int, mb: int, zero_ties_win: bool = True, maze_counts_sets: bool = False) -> tuple[int, int]:
    """``score_round`` on bitmasks, memoised (the hot path of every search)."""
    cache = _SCORE_CACHE.get((zero_ties_win, maze_counts_sets))
    if cache is None:
        cache = _SCORE_CACHE[(zero_ties_win, maze_counts_sets)] = {}
    key = ma << NUM_CARDS | mb
    value = cache.get(key)
    if value is None:
        value = score_kingdoms(ma, mb, zero_ties_win, maze_counts_sets)
        if len(cache) > 2_000_000:
            cache.clear()
        cache[key] = value
    return value


_SUIT_MASKS = tuple(sum(1 << i for i in range(NUM_CARDS) if SUIT_OF[i] == s) for s in range(5))


def score_many(ma: np.ndarray, mb: np.ndarray, zero_ties_win: bool = True, maze_counts_sets: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``score_masks`` for arrays of kingdom pairs at once (int64 masks, same shape):
    the same six steps as whole-array operations, for searches that score thousands of
    final kingdoms together.  Returns two int arrays."""
    ma = np.asarray(ma, dtype=np.int64)
    mb = np.asarray(mb, dtype=np.int64)
    masks = (ma, mb)
    has = tuple([(m >> i) & 1 for i in range(NUM_CARDS)] for m in masks)
    counts = tuple(np.stack([popcount(m & sm).astype(np.int64) for sm in _SUIT_MASKS]) for m in masks)
    nest = (has[0][NEST] == 1, has[1][NEST] == 1)

    def beats(x, y, n):
        win = (x > y) | ((x == y) & n)
        if not zero_ties_win:
            win &= (x > y) | (x > 0)
        return win

    singles = ((counts[0] == 1).sum(axis=0), (counts[1] == 1).sum(axis=0))
    pts: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    for p in (0, 1):
        mole = np.where(beats(singles[p], singles[1 - p], nest[p]), 8, 0) * has[p][MOLEHILL]
        pts[p].append(mole)
    for p in (0, 1):
        c = counts[p]
        top = c.max(axis=0)
        roof = (has[p][ROOF] == 1) & (top > 0)
        c[:] = np.where(roof & (c == top), 2 * c, c)
    for p in (0, 1):
        c, o, n, h = counts[p], counts[1 - p], nest[p], has[p]
        for i, (points, suits) in SET_SCORING.items():
            pts[p].append(points * c[list(suits)].min(axis=0) * h[i])
        for i, s in MAJORITY_SCORING.items():
            pts[p].append(np.where(beats(c[s], o[s], n), 7, 0) * h[i])
        low = c.min(axis=0)
        pts[p].append((13 * low if maze_counts_sets else np.where(low >= 1, 13, 0)) * h[MAZE])
        pts[p].append(3 * (c == 0).sum(axis=0) * h[EYE])
    best = tuple(np.max(np.stack(pts[p]), axis=0) for p in (0, 1))
    totals = []
    for p in (0, 1):
        port = np.where(beats(best[p], best[1 - p], nest[p]), 8, 0) * has[p][PORT]
        totals.append(np.sum(np.stack(pts[p]), axis=0) + port)
    return totals[0], totals[1]


def _check_kingdoms(kingdom_a: Sequence[int], kingdom_b: Sequence[int]) -> tuple[int, int]:
    masks = []
    for name, kingdom in (("kingdom_a", kingdom_a), ("kingdom_b", kingdom_b)):
        if isinstance(kingdom, (str, bytes)) or not isinstance(kingdom, (Sequence, set, frozenset, np.ndarray)):
            raise ValueError(f"{name} must be a collection of card numbers 1..18, got {kingdom!r}")
        cards = [check_int(f"card in {name}", c, 1, NUM_CARDS) for c in kingdom]
        if len(set(cards)) != len(cards):
            raise ValueError(f"{name} holds a card twice: {sorted(cards)}")
        masks.append(mask_of(cards))
    if masks[0] & masks[1]:
        raise ValueError(f"the kingdoms must be disjoint; both hold {cards_of(masks[0] & masks[1])}")
    return masks[0], masks[1]


def score_round(kingdom_a: Sequence[int], kingdom_b: Sequence[int], *, zero_ties_win: bool = True,
                maze_counts_sets: bool = False) -> tuple[int, int]:
    """Round scores ``(a, b)`` of two disjoint kingdoms of card numbers 1..18 (any size).

    ``zero_ties_win``: a tie at 0 vs 0 is a tie the King's Nest wins (docs/tides_of_time.md);
    ``maze_counts_sets``: the Maze scores 13 per set of five suits (the C# article's code).
    """
    ma, mb = _check_kingdoms(kingdom_a, kingdom_b)
    return score_masks(ma, mb, check_bool("zero_ties_win", zero_ties_win), check_bool("maze_counts_sets", maze_counts_sets))


def score_breakdown(kingdom_a: Sequence[int], kingdom_b: Sequence[int], *, zero_ties_win: bool = True,
                    maze_counts_sets: bool = False) -> tuple[dict[int, int], dict[int, int]]:
    """Points of every card of each kingdom, ``({card: points}, {card: points})`` by card
    number; each dict sums to that kingdom's ``score_round``."""
    ma, mb = _check_kingdoms(kingdom_a, kingdom_b)
    _, (pa, pb) = score_kingdoms(ma, mb, check_bool("zero_ties_win", zero_ties_win), check_bool("maze_counts_sets", maze_counts_sets), True)
    return {i + 1: v for i, v in pa.items()}, {i + 1: v for i, v in pb.items()}


