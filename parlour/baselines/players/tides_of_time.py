"""Tides of Time players: the C# article's bot, a greedy player and exact simultaneous play.

``original-alphabeta`` (from a C# article building a minimax and alpha-beta bot for the
game's first round, written for the AI TensorFlow Challenge): once both hands are
known (from the second pick of a round), alpha-beta over the article's
*sequential* pick tree: the bot (max) picks, then the opponent (min) picks knowing
the bot's card, the hands are exchanged, and so on; a leaf scores both complete
kingdoms.  The article's bug is fixed: its leaf added only the bot's last card and
dropped the opponent's, so the opponent's kingdom was scored one card short.  On
the first pick of a round the opponent's hand is unknown; as in the article, every
possible opponent hand (1287 in round 1, 15 in round 2, 1 in round 3) is solved and
the card chosen most often is played.  The article's vote counts a hand only if its
value is positive (``objective="own"``; with ``"difference"``: only if the bot's
choice matters for that hand).  The article said its version "takes quite some time";
here all hands are solved at once: the pick tree has the same shape for every hand
(which of the five + five *slots* each kingdom holds), and its 100 possible final
kingdom pairs are scored with ``score_many``, then minimax is backed up level by
level with numpy over all hands (the transpositions of pick orders are merged:
only the kingdoms as sets matter).  This gives exactly alpha-beta's value and move
(the first best card in hand order); the tests check it against the alpha-beta.

``greedy``: the card with the best immediate gain in round score difference
(own kingdom with the card against the opponent's kingdom now); relic: the card
that scored most this round; discard: the one that scored least.

``tides-equilibrium``: from the second pick of a round both hands are known, so the
rest of the round is a sequence of simultaneous matrix games (pick, exchange, pick,
...) on the round score difference, solved exactly by backward induction with
``parlour.baselines.engines.matrix_game.solve_zero_sum`` (Shapley 1953), memoised on the
two kingdoms and hands; the player draws its card from its equilibrium strategy.
The generic ``equilibrium`` policy does not fit: it solves the whole game's returns,
which needs the hidden pile and the relic steps.  On the first pick it averages
the equilibrium strategies of ``samples`` sampled opponent hands (``first="mix"``)
or plays the card with the best mean value against the opponent's equilibrium
(``first="best"``).

Relic and discard (``original-alphabeta`` and ``tides-equilibrium``, parameter
``keep``): ``"rollout"``, a design of ours: every (relic, discard) pair is scored
by the mean round score difference of the *next* round over ``keep_samples``
sampled continuations (the opponent keeps greedily, the unseen cards are dealt from
the information state, both seats then draft greedily); common random numbers for
all pairs.  ``"greedy"`` is the greedy player's rule.  Every round is played for its
own score difference (plus the relic lookahead): rounds add up, so this is the
natural myopic plan for the three-round game.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from parlour.baselines.engines.heuristics import register_evaluation
from parlour.baselines.engines.matrix_game import solve_zero_sum
from parlour.baselines.policy import Param, Policy, register
from parlour.baselines.references import References, register_references
from parlour.games.base import Game
from parlour.games.bitmask import popcount, set_bits
from parlour.games.bitmask import set_bits as bits
from parlour.games.tides_of_time import (
    DISCARD,
    DRAFT,
    HAND_SIZE,
    RELIC,
    TidesInfoState,
    TidesOfTimeGame,
    score_kingdoms,
    score_many,
    score_masks,
)

ORIGINAL_SOURCE = ("a C# article building a minimax and alpha-beta bot for round 1 of Tides of Time "
                   "(for the AI TensorFlow Challenge), bugs fixed")
INF = 10_000
ONE = np.int64(1)

# --- the article's sequential tree, one opponent hand: alpha-beta ------------------------------

EXACT, LOWER, UPPER = 0, 1, 2


class SequentialAlphaBeta:
    """Alpha-beta over the article's pick tree for known hands, with a transposition table.

    A node is ``(kb, ko, hb, ho)``: the bot's and the opponent's kingdoms and hands
    (masks; kingdoms include relics), the bot to pick.  ``value(kb, ko)`` is the leaf
    value for the bot.  ``nodes`` counts the nodes visited.
    """

    def __init__(self, value: Callable[[int, int], int]) -> None:
        self.value = value
        self.table: dict[int, tuple[int, int]] = {}
        self.nodes = 0

    def root(self, kb: int, ko: int, hb: int, ho: int) -> tuple[int, int, dict[int, int]]:
        """``(value, best card index, {card: value or bound})`` at a bot node."""
        self.nodes += 1
        alpha, best, best_card = -INF, -INF, -1
        values = {}
        for c in bits(hb):
            v = self._min(kb | 1 << c, ko, hb & ~(1 << c), ho, alpha, INF)
            values[c] = v
            if v > best:
                best, best_card = v, c
            alpha = max(alpha, best)
        return best, best_card, values

    def _max(self, kb: int, ko: int, hb: int, ho: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if hb & (hb - 1) == 0:  # one card each: both forced, score the complete kingdoms
            return self.value(kb | hb, ko | ho)
        key = kb | ko << 18 | hb << 36 | ho << 54
        entry = self.table.get(key)
        if entry is not None:
            flag, v = entry
            if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
                return v
        alpha0 = alpha
        best = -INF
        for c in bits(hb):
            v = self._min(kb | 1 << c, ko, hb & ~(1 << c), ho, alpha, beta)
            if v > best:
                best = v
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        self.table[key] = (UPPER if best <= alpha0 else LOWER if best >= beta else EXACT, best)
        return best

    def _min(self, kb: int, ko: int, hb: int, ho: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        best = INF
        for d in bits(ho):
            # the opponent picks d; the hands are exchanged: the bot now holds ho - d
            v = self._max(kb, ko | 1 << d, ho & ~(1 << d), hb, alpha, beta)
            if v < best:
                best = v
            if best < beta:
                beta = best
            if alpha >= beta:
                break
        return best


# --- the article's first pick: every opponent hand at once -------------------------------------


class _SlotTree:
    """The pick tree of the rest of a round with ``n`` cards in each hand, in *slot*
    space, the same for every pair of hands.

    Slots 0..n-1 are the bot's hand (ascending cards), n..2n-1 the opponent's.  At picks
    0, 2, 4 the bot picks from its slots and the opponent from its own; at picks 1 and
    3 the other way round (the hands are exchanged after every pick).  A node is the
    pair of slot masks already in the two kingdoms, so pick orders that give the same
    kingdoms are one node.  ``levels[k]`` lists the nodes before pick ``k``;
    ``children[k][node, i, j]`` is the node after the bot's ``i``-th and the opponent's
    ``j``-th available slot (ascending).  ``leaves``: the final (bot, opponent) slot
    masks (100 for five cards).
    """

    def __init__(self, n: int = HAND_SIZE) -> None:
        full = (1 << n) - 1
        side = (full, full << n)
        levels = [[(0, 0)]]
        children = []
        for k in range(n):
            mine, theirs = (side[0], side[1]) if k % 2 == 0 else (side[1], side[0])
            index: dict[tuple[int, int], int] = {}
            table = []
            for kb, ko in levels[k]:
                used = kb | ko
                rows = []
                for c in set_bits(mine & ~used):
                    row = []
                    for d in set_bits(theirs & ~used):
                        node = (kb | 1 << c, ko | 1 << d)
                        row.append(index.setdefault(node, len(index)))
                    rows.append(row)
                table.append(rows)
            children.append(np.array(table, dtype=np.int64))
            levels.append(sorted(index, key=index.__getitem__))
        self.n = n
        self.levels = levels
        self.children = children
        self.leaves = levels[n]
        self.size = sum(len(level) for level in levels)
        self.leaf_slots = (np.array([[s for s in range(2 * n) if b >> s & 1] for b, _ in self.leaves]),
                           np.array([[s for s in range(2 * n) if o >> s & 1] for _, o in self.leaves]))
        """``(leaves, n)`` slot indices of each leaf's two kingdoms."""


_TREES: dict[int, _SlotTree] = {}


def slot_tree(n: int = HAND_SIZE) -> _SlotTree:
    tree = _TREES.get(n)
    if tree is None:
        tree = _TREES[n] = _SlotTree(n)
    return tree


def ascending_cards(masks: np.ndarray, n: int) -> np.ndarray:
    """``(H, n)`` card indices (ascending) of masks holding ``n`` cards each."""
    held = (np.asarray(masks, dtype=np.int64)[:, None] >> np.arange(18)) & 1
    return np.argsort(-held, axis=1, kind="stable")[:, :n]


def solve_hands(game: TidesOfTimeGame, kb: np.ndarray, ko: np.ndarray, own: np.ndarray, opp: np.ndarray,
                objective: str) -> np.ndarray:
    """Root values ``(H, n)``: for each row, the article's minimax value of each of the
    bot's ``n`` cards (ascending) with kingdoms ``kb``/``ko`` so far and the hands
    ``own`` and ``opp`` (masks of ``n`` cards each): all leaves scored at once with
    ``score_many`` (:func:`leaf_scores`), then minimax backed up level by level over
    every row (:func:`back_up`)."""
    sb, so = leaf_scores(game, kb, ko, own, opp)
    return back_up(sb if objective == "own" else sb - so)


def leaf_scores(game: TidesOfTimeGame, kb: np.ndarray, ko: np.ndarray, own: np.ndarray, opp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both round scores ``(H, leaves)`` of every leaf of the slot tree of each row (see
    :func:`solve_hands`)."""
    own = np.asarray(own, dtype=np.int64)
    n = int(own[0]).bit_count()
    slots = ONE << np.concatenate([ascending_cards(own, n), ascending_cards(opp, n)], axis=1)  # (H, 2n)
    leaf_b, leaf_o = slot_tree(n).leaf_slots
    mb = np.bitwise_or.reduce(slots[:, leaf_b], axis=2) | np.asarray(kb, dtype=np.int64)[:, None]  # (H, leaves)
    mo = np.bitwise_or.reduce(slots[:, leaf_o], axis=2) | np.asarray(ko, dtype=np.int64)[:, None]
    return score_many(mb, mo, *game.flags)


@functools.cache
def _hand_size(leaves: int) -> int:
    """The cards per hand of the slot tree with ``leaves`` leaves."""
    return next(n for n in range(1, HAND_SIZE + 1) if len(slot_tree(n).leaves) == leaves)


def back_up(leaves: np.ndarray) -> np.ndarray:
    """Root values ``(H, n)`` from the leaf values ``(H, leaves)`` of a slot tree: max
    over the bot's cards, min over the opponent's, pick by pick."""
    n = _hand_size(leaves.shape[1])
    tree = slot_tree(n)
    values = leaves.astype(np.int16)  # |values| < 200: int16 halves the backup's memory traffic
    for k in range(n - 1, 0, -1):
        values = values[:, tree.children[k]].min(axis=3).max(axis=2)
    return values[:, tree.children[0][0]].min(axis=2).astype(np.int64)  # min over the opponent's replies


def solve_all_hands(
    game: TidesOfTimeGame, kb: int, ko: int, hand: int, opp_hands: list[int], objective: str
) -> np.ndarray:
    """Root values ``(len(opp_hands), 5)``: for every opponent hand, the article's minimax
    value of each of the bot's cards (ascending) with kingdoms ``kb``/``ko`` so far."""
    h = len(opp_hands)
    return solve_hands(game, np.full(h, kb), np.full(h, ko), np.full(h, hand), np.array(opp_hands, dtype=np.int64), objective)


def first_pick_vote(values: np.ndarray, objective: str) -> tuple[int, np.ndarray]:
    """The article's first pick from the root values of every opponent hand (``(h, n)``):
    each hand votes for its first best card (with ``objective="own"`` only if its value
    is positive, with ``"difference"`` only if the choice matters); the most voted card,
    ties to the larger sum of values, then the lower card.  ``(index of the card in the
    hand, votes per card)``."""
    best = values.max(axis=1)
    choice = values.argmax(axis=1)  # the first best card, as the article's strict '>' keeps
    voting = best > 0 if objective == "own" else best > values.min(axis=1)
    votes = np.bincount(choice[voting], minlength=values.shape[1])
    sums = values.sum(axis=0)
    pick = max(range(values.shape[1]), key=lambda i: (votes[i], sums[i], -i))
    return pick, votes


def opponent_hands(info: TidesInfoState) -> list[int]:
    """Every opponent hand consistent with ``info`` (known part plus unseen cards)."""
    if info.opp_hidden == 0:
        return [info.opp_hand]
    unseen = bits(info.unseen)
    out = []
    for combo in itertools.combinations(unseen, info.opp_hidden):
        m = info.opp_hand
        for i in combo:
            m |= 1 << i
        out.append(m)
    return out


# --- shared: kingdoms, greedy choices, relic rollouts ------------------------------------------


def greedy_pick(game: TidesOfTimeGame, own: int, opp: int, hand: int) -> list[int]:
    """The cards of ``hand`` with the best round score difference once added to ``own``."""
    best, choice = -INF, []
    for c in bits(hand):
        a, b = score_masks(own | 1 << c, opp, *game.flags)
        if a - b > best:
            best, choice = a - b, [c]
        elif a - b == best:
            choice.append(c)
    return choice


def greedy_keep(game: TidesOfTimeGame, own: int, opp: int, drafted: int, relic: int = -1) -> tuple[int, int]:
    """Relic: the card drafted this round that scored most; discard: the one that scored
    least among the others (ties: the lower card)."""
    _, (pts, _) = score_kingdoms(own, opp, *game.flags, detail=True)
    cards = bits(drafted)
    if relic < 0:
        relic = max(cards, key=lambda c: (pts.get(c, 0), -c))
    discard = min((c for c in cards if c != relic), key=lambda c: (pts.get(c, 0), c))
    return relic, discard


def greedy_rounds(game: TidesOfTimeGame, k0: np.ndarray, k1: np.ndarray, h0: np.ndarray, h1: np.ndarray) -> np.ndarray:
    """``_greedy_round`` for many rounds at once: both seats draft greedily (the first
    best card by round score difference against the other kingdom now) until the hands
    are empty; the final round score difference of seat 0."""
    k0, k1, h0, h1 = (np.asarray(a, dtype=np.int64).copy() for a in (k0, k1, h0, h1))
    flags = game.flags
    while True:
        left = int(popcount(h0[:1])[0]) if len(h0) else 0
        if not left:
            break
        picks = []
        for own, opp, hand in ((k0, k1, h0), (k1, k0, h1)):
            cards = ascending_cards(hand, left)  # (R, left)
            a, b = score_many(own[:, None] | (ONE << cards), np.broadcast_to(opp[:, None], cards.shape), *flags)
            picks.append(np.take_along_axis(cards, (a - b).argmax(axis=1)[:, None], axis=1)[:, 0])
        a, b = ONE << picks[0], ONE << picks[1]
        k0 |= a
        k1 |= b
        h0, h1 = h1 & ~b, h0 & ~a
    a, b = score_many(k0, k1, *flags)
    return a - b


def keep_pairs(info: TidesInfoState) -> list[tuple[int, int]]:
    """The (relic, discard) pairs still open to the seat of ``info``."""
    relics = [info.own_relic] if info.phase == DISCARD else list(bits(info.drafted[0]))
    return [(r, d) for r in relics for d in bits(info.drafted[0]) if d != r]


def keep_values(infos: list[TidesInfoState], orders: list[np.ndarray]) -> list[dict[tuple[int, int], float]]:
    """For each seat's ``info`` and its sampled continuations ``orders`` (``(samples,
    unseen)``: the unseen cards' indices in dealing order, as ``rollout_keep`` draws
    them), the mean next-round score difference of every open (relic, discard) pair: the
    opponent keeps greedily, both draw from the order (player_0 first), both draft
    greedily.  All the continuations of all the infos are played in one lockstep."""
    rows: list[tuple[int, int, int, int]] = []  # (own keep, opp keep, own hand, opp hand)
    spans = []
    for info, order in zip(infos, orders):
        game = info.game
        own_k, opp_k = info.kingdoms
        opp_relic, opp_discard = greedy_keep(game, opp_k, own_k, info.drafted[1])
        opp_keep = info.relics[1] | 1 << opp_relic
        opp_back = info.drafted[1] & ~(1 << opp_relic | 1 << opp_discard)
        unseen = np.array(bits(info.unseen), dtype=np.int64)
        cards = unseen[np.asarray(order, dtype=np.int64)]  # (samples, unseen)
        draws = (ONE << cards[:, :4]).reshape(len(cards), 2, 2).sum(axis=2)  # player_0's two, then player_1's
        me = info.player
        own_draw, opp_draw = draws[:, me], draws[:, 1 - me]
        pairs = keep_pairs(info)
        start = len(rows)
        for r, d in pairs:
            own_keep = info.relics[0] | 1 << r
            back = info.drafted[0] & ~(1 << r | 1 << d)
            rows.extend((own_keep, opp_keep, back | int(o), opp_back | int(p)) for o, p in zip(own_draw, opp_draw))
        spans.append((start, pairs, len(cards)))
    if not rows:
        return [{} for _ in infos]
    table = np.array(rows, dtype=np.int64)
    diffs = greedy_rounds(infos[0].game, table[:, 0], table[:, 1], table[:, 2], table[:, 3])
    out = []
    for start, pairs, samples in spans:
        totals = diffs[start : start + len(pairs) * samples].reshape(len(pairs), samples).sum(axis=1)
        out.append({pair: int(total) / samples for pair, total in zip(pairs, totals)})
    return out


def best_keep(info: TidesInfoState, values: dict[tuple[int, int], float]) -> int:
    """The relic (or discard) of the best pair (ties: the smallest pair)."""
    best = max(values.values())
    r, d = min(pair for pair, v in values.items() if v == best)
    return r if info.phase == RELIC else d


def rollout_keep(info: TidesInfoState, rng: np.random.Generator, samples: int) -> dict[tuple[int, int], float]:
    """Mean next-round score difference of every (relic, discard) pair still open, over
    ``samples`` continuations drawn from ``rng`` (:func:`keep_values`)."""
    unseen = info.unseen.bit_count()
    return keep_values([info], [np.stack([rng.permutation(unseen) for _ in range(samples)])])[0]


def choose_keep(policy: Policy, info: TidesInfoState) -> int:
    """The relic or discard for ``info`` by the policy's ``keep`` rule."""
    game = info.game
    own_k, opp_k = info.kingdoms
    if policy.config["keep"] == "greedy":
        relic, discard = greedy_keep(game, own_k, opp_k, info.drafted[0], info.own_relic)
        return relic if info.phase == RELIC else discard
    values = rollout_keep(info, policy.rng, policy.config["keep_samples"])
    policy.stats = {"keep_values": values}
    return best_keep(info, values)


KEEP_PARAMS = {
    "keep": Param("rollout", "relic/discard rule: next-round greedy rollouts, or the greedy player's rule", str, ("rollout", "greedy")),
    "keep_samples": Param(8, "sampled continuations per (relic, discard) pair for keep=rollout (>= 1)", int),
}


def _check_keep(policy: Policy) -> None:
    if policy.config["keep_samples"] < 1:
        raise ValueError(f"parameter keep_samples={policy.config['keep_samples']}: must be at least 1")


# --- the players -------------------------------------------------------------------------------


@register
class OriginalAlphaBeta(Policy):
    name = "original-alphabeta"
    summary = "the C# article's bot: alpha-beta over the sequential pick tree; first pick: every opponent hand solved, most chosen card"
    source = ORIGINAL_SOURCE
    games = ("tides_of_time",)
    game: TidesOfTimeGame
    params = {
        "objective": Param("own", "leaf value: the bot's round score (as in the C# article) or the round score difference",
                           str, ("own", "difference")),
        "first_solver": Param("vectorised",
                              "first pick: all hands at once with numpy, or one alpha-beta per hand (slow; same result)",
                              str, ("vectorised", "alphabeta")),
        **KEEP_PARAMS,
    }

    def setup(self) -> None:
        _check_keep(self)

    def act(self, info: TidesInfoState) -> int:
        legal = info.legal_actions()
        if info.phase != DRAFT:
            return choose_keep(self, info)
        if len(legal) == 1:
            self.stats = {"nodes": 0, "forced": True}
            return legal[0]
        own_k, opp_k = info.kingdoms
        if info.opp_hidden == 0:
            search = SequentialAlphaBeta(self._leaf())
            value, card, values = search.root(own_k, opp_k, info.hand, info.opp_hand)
            self.stats = {"nodes": search.nodes, "value": value, "root_values": values}
            return card
        return self._first_pick(info, own_k, opp_k, legal)

    def _leaf(self) -> Callable[[int, int], int]:
        flags = self.game.flags
        if self.config["objective"] == "own":
            return lambda kb, ko: score_masks(kb, ko, *flags)[0]

        def difference(kb: int, ko: int) -> int:
            a, b = score_masks(kb, ko, *flags)
            return a - b

        return difference

    def _first_pick(self, info: TidesInfoState, own_k: int, opp_k: int, legal: list[int]) -> int:
        hands = opponent_hands(info)
        if self.config["first_solver"] == "alphabeta":
            values, nodes = self._alphabeta_all(own_k, opp_k, info.hand, hands)
        else:
            values = solve_all_hands(self.game, own_k, opp_k, info.hand, hands, self.config["objective"])
            nodes = len(hands) * slot_tree().size
        pick, votes = first_pick_vote(values, self.config["objective"])
        self.stats = {
            "hands": len(hands),
            "nodes": nodes,
            "votes": {legal[i]: int(votes[i]) for i in range(len(legal))},
        }
        return legal[pick]

    def _alphabeta_all(self, own_k: int, opp_k: int, hand: int, hands: list[int]) -> tuple[np.ndarray, int]:
        """Root values per hand by one exact minimax (alpha-beta with a full window at
        every root card, so each card's value is exact) per opponent hand."""
        leaf = self._leaf()
        values = np.zeros((len(hands), hand.bit_count()), dtype=np.int64)
        nodes = 0
        for row, opp in enumerate(hands):
            search = SequentialAlphaBeta(leaf)
            for col, c in enumerate(bits(hand)):
                values[row, col] = search._min(own_k | 1 << c, opp_k, hand & ~(1 << c), opp, -INF, INF)
            nodes += search.nodes
        return values, nodes


@register
class TidesGreedy(Policy):
    name = "greedy"
    summary = "best immediate gain in round score difference; relic: the top-scoring card, discard: the lowest"
    source = "parlour"
    games = ("tides_of_time",)
    game: TidesOfTimeGame

    def act(self, info: TidesInfoState) -> int:
        own_k, opp_k = info.kingdoms
        if info.phase != DRAFT:
            relic, discard = greedy_keep(self.game, own_k, opp_k, info.drafted[0], info.own_relic)
            return relic if info.phase == RELIC else discard
        choices = greedy_pick(self.game, own_k, opp_k, info.hand)
        return choices[int(self.rng.integers(len(choices)))]


class RoundSolver:
    """Exact simultaneous play of the rest of a round with both hands known.

    ``value(k0, k1, h0, h1)``: seat 0's equilibrium value (round score difference)
    when both seats pick from ``h0``/``h1`` at once, add the picks to kingdoms
    ``k0``/``k1`` and exchange the rest.  ``strategy`` gives the matrix game of a
    node and its solution.  Memoised on the four masks.
    """

    def __init__(self, game: TidesOfTimeGame) -> None:
        self.flags = game.flags
        self.values: dict[int, float] = {}
        self.matrices = 0

    def _leaf(self, k0: int, k1: int) -> float:
        a, b = score_masks(k0, k1, *self.flags)
        return float(a - b)

    def value(self, k0: int, k1: int, h0: int, h1: int) -> float:
        if h0 & (h0 - 1) == 0:
            return self._leaf(k0 | h0, k1 | h1)
        key = k0 | k1 << 18 | h0 << 36 | h1 << 54
        v = self.values.get(key)
        if v is None:
            matrix = self.matrix(k0, k1, h0, h1)
            v = _game_value(matrix)
            self.values[key] = v
        return v

    def matrix(self, k0: int, k1: int, h0: int, h1: int) -> list[list[float]]:
        rows = []
        for a in bits(h0):
            row = []
            for b in bits(h1):
                # after the picks the hands are exchanged: seat 0 holds h1 - b
                row.append(self.value(k0 | 1 << a, k1 | 1 << b, h1 & ~(1 << b), h0 & ~(1 << a)))
            rows.append(row)
        return rows

    def strategy(self, k0: int, k1: int, h0: int, h1: int) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """``(value, seat 0's strategy, seat 1's, matrix)`` over the ascending hands."""
        matrix = np.array(self.matrix(k0, k1, h0, h1))
        value, x, y = solve_zero_sum(matrix)
        return value, x, y, matrix


def _game_value(rows: list[list[float]]) -> float:
    """Value of a small zero-sum matrix game (closed forms before the LP)."""
    self_min = max(min(r) for r in rows)
    col_max = min(max(col) for col in zip(*rows))
    if self_min >= col_max:
        return self_min
    if len(rows) == 2 and len(rows[0]) == 2:
        (p, q), (r, s) = rows
        return (p * s - q * r) / (p + s - q - r)
    return solve_zero_sum(np.array(rows))[0]


@register
class TidesEquilibrium(Policy):
    name = "tides-equilibrium"
    summary = "exact equilibrium of the rest of the round (matrix games on round score difference); first pick: sampled opponent hands"
    source = "backward induction over matrix games (Shapley 1953), solved with parlour's solve_zero_sum"
    games = ("tides_of_time",)
    game: TidesOfTimeGame
    params = {
        "samples": Param(16, "sampled opponent hands on the first pick of a round (>= 1)", int),
        "first": Param("mix", "first pick: mean of the sampled equilibrium strategies, or the best mean value", str, ("mix", "best")),
        **KEEP_PARAMS,
    }

    def setup(self) -> None:
        _check_keep(self)
        if self.config["samples"] < 1:
            raise ValueError(f"parameter samples={self.config['samples']}: must be at least 1")
        self.solver = RoundSolver(self.game)

    def act(self, info: TidesInfoState) -> int:
        legal = info.legal_actions()
        if info.phase != DRAFT:
            return choose_keep(self, info)
        if len(legal) == 1:
            return legal[0]
        if len(self.solver.values) > 500_000:
            self.solver.values.clear()
        own_k, opp_k = info.kingdoms
        if info.opp_hidden == 0:
            value, x, _, matrix = self.solver.strategy(own_k, opp_k, info.hand, info.opp_hand)
            self.stats = {"value": value, "strategy": dict(zip(legal, x.tolist())), "positions": len(self.solver.values)}
            return self._draw(legal, x)
        hands = opponent_hands(info)
        if len(hands) > self.config["samples"]:
            hands = [hands[i] for i in self.rng.choice(len(hands), self.config["samples"], replace=False)]
        mix = np.zeros(len(legal))
        worth = np.zeros(len(legal))
        for opp in hands:
            _, x, y, matrix = self.solver.strategy(own_k, opp_k, info.hand, opp)
            mix += x
            worth += matrix @ y
        mix /= len(hands)
        worth /= len(hands)
        self.stats = {"strategy": dict(zip(legal, mix.tolist())), "values": dict(zip(legal, worth.tolist())), "hands": len(hands)}
        if self.config["first"] == "best":
            return legal[int(np.argmax(worth))]
        return self._draw(legal, mix)

    def _draw(self, actions: list[int], probs: np.ndarray) -> int:
        """One uniform from the policy's generator per decision, pure or mixed."""
        u = self.rng.random()
        index = int(np.searchsorted(np.cumsum(probs), u * probs.sum(), side="right"))
        return actions[min(index, len(actions) - 1)]


@register_evaluation("tides_of_time", "kingdoms")
def kingdoms_evaluation(state: Any) -> np.ndarray:
    """Totals so far plus the score difference of the kingdoms as they stand now
    (squashed to (-0.9, 0.9) for win_loss returns)."""
    t0, t1 = state.totals()
    if state.phase == DRAFT and state.pick:
        a, b = state.game.score(state.kingdom(0), state.kingdom(1))
        t0, t1 = t0 + a, t1 + b
    d = float(t0 - t1)
    if state.game.config["returns"] == "win_loss":
        d = 0.9 * float(np.tanh(d / 15.0))
    return np.array([d, -d])


@register_references("tides_of_time")
def tides_of_time_references(game: Game) -> References:
    return References(
        original="original-alphabeta",
        quick="original-alphabeta:objective=difference",
        strongest="sm-mcts:simulations=1000",
        final_games=40,
    )
