"""Tides of Time (Portal Games, 2015), the two-player drafting game (rules: docs/tides_of_time.md).

Eighteen cards, five suits.  Each round both players draft from five cards: they
pick one card each **simultaneously**, the picks join their kingdoms, and they
exchange their remaining hands, until the hands are empty.  The two kingdoms are
then scored together (:func:`score_round`, the six steps of docs/tides_of_time.md,
"Scoring a round", in the order of the C# article the game comes from).  In the full
game (``rounds=3``) each player then keeps one card drafted this round as a relic
(it stays in the kingdom for later scoring) and discards another; the other three
return to the owner's hand and each player draws two (player_0 first).  ``rounds=1`` is the article's one-round game.

Steps (every one simultaneous, both seats act): the 5 picks of a round (the last
one is forced), then, after rounds 1 and 2, a **relic** step (choose one card
drafted this round) and a **discard** step (another card drafted this round).
The relic choice stays secret until both discards are chosen; the two steps are
revealed together, as the rulebook's simultaneous secret choice.

Actions are card ids: action ``a`` is card ``a + 1`` in ``Discrete(18)``.  Hands
and kingdoms are 18-bit masks (bit ``a`` = card ``a + 1``); round scores are
memoised on the two kingdoms, the only thing they depend on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.base import (
    Game,
    GameInfo,
    Option,
    State,
    as_action,
    check_bool,
    check_int,
    make_rng,
    shown,
)
from parlour.games.bitmask import cards_of, mask_of
from parlour.games.bitmask import set_bits as bits

# --- the cards -------------------------------------------------------------------------

SUITS = ("Palace", "Library", "Garden", "Temple", "Stronghold")
P, L, G, T, S = range(5)
NUM_CARDS = 18
ALL_CARDS = (1 << NUM_CARDS) - 1
HAND_SIZE = 5


@dataclass(frozen=True)
class Card:
    """One card: its public id (1..18), name, suit (``None``: no suit) and ability."""

    number: int
    name: str
    suit: str | None
    ability: str


CARDS: tuple[Card, ...] = (
    Card(1, "The Jinn Shackles", "Stronghold", "3 VP for each Temple"),
    Card(2, "Eternal Palace", "Palace", "3 VP for each Library"),
    Card(3, "The Citadel of the Prophets", "Library", "3 VP for each Garden"),
    Card(4, "The Vestibule", "Temple", "3 VP for each Palace"),
    Card(5, "Gods' Baths", "Garden", "3 VP for each Stronghold"),
    Card(6, "Golden Ziggurat", "Garden", "7 VP for majority in Palaces"),
    Card(7, "Blood-tear Spring", "Temple", "7 VP for majority in Gardens"),
    Card(8, "Old Man's Pass", "Stronghold", "7 VP for majority in Libraries"),
    Card(9, "The Ancient Divide", "Palace", "7 VP for majority in Strongholds"),
    Card(10, "The Great Library of Ahm", "Library", "7 VP for majority in Temples"),
    Card(11, "The Sky Pillars", "Temple", "5 VP for each set of Library + Garden"),
    Card(12, "The Mana Well", "Library", "9 VP for each set of Palace + Stronghold + Temple"),
    Card(13, "The Maze of the Damned", "Garden", "13 VP for a set of all five suits"),
    Card(14, "The Eye of the North", "Stronghold", "3 VP for each suit you don't have"),
    Card(15, "The King's Nest", "Palace", "win all ties"),
    Card(16, "The Molehill", None, "8 VP for majority in suits with exactly one card"),
    Card(17, "The Roof of the World", None, "double the count of your most numerous suit(s)"),
    Card(18, "The Sapphire Port", None, "8 VP for scoring the highest with a single card"),
)
"""The deck, indexed by ``number - 1`` (the C# article's ``deck[1..18]``)."""

SUIT_OF: tuple[int, ...] = tuple(-1 if c.suit is None else SUITS.index(c.suit) for c in CARDS)
"""Suit index of each card index (0-based), -1 for the three unsuited cards."""

# Scoring programs for step 5, by card index: ("sets", points, suits) covers "for
# each" (one suit) and the set cards; ("majority", suit); ("maze",); ("eye",).
SET_SCORING = {0: (3, (T,)), 1: (3, (L,)), 2: (3, (G,)), 3: (3, (P,)), 4: (3, (S,)), 10: (5, (L, G)), 11: (9, (P, S, T))}
MAJORITY_SCORING = {5: P, 6: G, 7: L, 8: S, 9: T}
"""``SET_SCORING``: card index -> (points, the suits of one set); ``MAJORITY_SCORING``:
card index -> the suit of its majority (read by the batched engine too)."""
NEST, MOLEHILL, ROOF, PORT, MAZE, EYE = 14, 15, 16, 17, 12, 13  # card indices

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
            s = MAJORITY_SCORING.get(i)
            if s is not None:
                x, y = c[s], o[s]
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
    counts = tuple(np.stack([np.bitwise_count(m & sm).astype(np.int64) for sm in _SUIT_MASKS]) for m in masks)
    nest = (has[0][NEST] == 1, has[1][NEST] == 1)

    def beats(x, y, n):
        win = (x > y) | ((x == y) & n)
        if not zero_ties_win:
            win &= (x > y) | (x > 0)
        return win

    singles = ((counts[0] == 1).sum(axis=0), (counts[1] == 1).sum(axis=0))
    pts = ([], [])
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


def score_round(kingdom_a: Sequence[int], kingdom_b: Sequence[int], *, zero_ties_win: bool = True, maze_counts_sets: bool = False) -> tuple[int, int]:
    """Round scores ``(a, b)`` of two disjoint kingdoms of card numbers 1..18 (any size).

    ``zero_ties_win``: a tie at 0 vs 0 is a tie the King's Nest wins (docs/tides_of_time.md);
    ``maze_counts_sets``: the Maze scores 13 per set of five suits (the C# article's code).
    """
    ma, mb = _check_kingdoms(kingdom_a, kingdom_b)
    return score_masks(ma, mb, check_bool("zero_ties_win", zero_ties_win), check_bool("maze_counts_sets", maze_counts_sets))


def score_breakdown(kingdom_a: Sequence[int], kingdom_b: Sequence[int], *, zero_ties_win: bool = True, maze_counts_sets: bool = False) -> tuple[dict[int, int], dict[int, int]]:
    """Points of every card of each kingdom, ``({card: points}, {card: points})`` by card
    number; each dict sums to that kingdom's ``score_round``."""
    ma, mb = _check_kingdoms(kingdom_a, kingdom_b)
    _, (pa, pb) = score_kingdoms(ma, mb, check_bool("zero_ties_win", zero_ties_win), check_bool("maze_counts_sets", maze_counts_sets), True)
    return {i + 1: v for i, v in pa.items()}, {i + 1: v for i, v in pb.items()}


def card_label(number: int) -> str:
    card = CARDS[number - 1]
    return f"{number} {card.name} [{card.suit or '-'}]"


# --- the game ---------------------------------------------------------------------------

DRAFT, RELIC, DISCARD, OVER = range(4)
PHASES = ("draft", "relic", "discard", "over")
RETURN_TYPES = ("win_loss", "score_difference")
SCORE_SCALE = 128.0
"""Round scores are divided by this in observations (a kingdom of 7 cards scores < 128)."""


class TidesOfTimeGame(Game):
    name = "tides_of_time"
    summary = "Tides of Time: two players draft cards by simultaneous picks, passing hands, and score their kingdoms over one or three rounds."
    simultaneous = True
    options = {
        "rounds": Option(3, "3: the full game with relics; 1: the one-round game of the C# article", choices=(1, 3)),
        "returns": Option("win_loss", "win_loss (+1/-1/0 on the total) | score_difference (own total minus opponent's)",
                          choices=RETURN_TYPES),
        "zero_ties_win": Option(True, "a tie at 0 vs 0 is a tie the King's Nest wins (False: it is not)", choices=(False, True)),
        "maze_counts_sets": Option(False, "the Maze scores 13 per set of five suits (as the C# article's code does) instead of 13 once",
                                   choices=(False, True)),
    }
    notation = (
        "a move is a card, written as its number 1..18 or its full name in any case, e.g. '16' or "
        "'the molehill'. In a pick it is a card of your hand{relics}. Both players choose at once"
    )

    def notation_help(self) -> str:
        relics = (
            "; after rounds 1 and 2 you first choose the relic you keep, then the card you "
            "discard, both among the cards you drafted that round"
        )
        return self.notation.format(relics=relics if self.config["rounds"] == 3 else "")
    start_options = {
        "deck": "the 18 card numbers in dealing order: 5 to player_0, 5 to player_1, then the pile top first",
    }

    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)  # each option stands alone: Game checked them against their bounds

    def _info(self) -> GameInfo:
        rounds = self.config["rounds"]
        self.rounds = rounds
        self.flags = (self.config["zero_ties_win"], self.config["maze_counts_sets"])
        return self._game_info(
            num_players=2,
            num_actions=NUM_CARDS,
            perfect_information=False,
            zero_sum=True,
            has_chance=True,
            max_game_length=HAND_SIZE * rounds + 2 * (rounds - 1),
        )

    @property
    def returns_bounds(self) -> tuple[float, float]:
        """win_loss: +1/-1/0; score_difference: a round score is below 128 (docs/tides_of_time.md)."""
        return (-1.0, 1.0) if self.config["returns"] == "win_loss" else (-128.0 * self.rounds, 128.0 * self.rounds)

    def start_deal(self) -> tuple[str, tuple[int, ...]]:
        """The deal is a uniform shuffle of the 18 cards (start option ``deck``)."""
        return ("deck", tuple(range(1, NUM_CARDS + 1)))

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (OBS_SIZE,)

    def score(self, ma: int, mb: int) -> tuple[int, int]:
        """Round scores of two kingdom masks under this game's flags."""
        return score_masks(ma, mb, *self.flags)

    def new_initial_state(self, seed=None, **start: Any) -> TidesOfTimeState:
        """A shuffled deal from ``seed``, or ``deck=[...]`` (card numbers, dealing order)."""
        if start:
            self._check_start(start)
        deck = start.get("deck")
        if deck is None:
            order = make_rng(seed).permutation(NUM_CARDS) + 1
            deck = tuple(int(c) for c in order)
        else:
            deck = check_deck(deck)
        return TidesOfTimeState(self, mask_of(deck[:5]), mask_of(deck[5:10]), deck[10:])

    def state_from_text(self, text: str) -> TidesOfTimeState:
        return _parse(self, text)


def check_deck(deck: object) -> tuple[int, ...]:
    if isinstance(deck, (str, bytes)) or not isinstance(deck, (Sequence, np.ndarray)) or getattr(deck, "ndim", 1) == 0:
        raise ValueError(f"deck must be a permutation of the card numbers 1..18, got {deck!r}")
    try:
        cards = tuple(check_int("card in deck", c, 1, NUM_CARDS) for c in deck)
    except ValueError as error:
        raise ValueError(f"deck must be a permutation of the card numbers 1..18: {error}") from None
    if sorted(cards) != list(range(1, NUM_CARDS + 1)):
        missing = sorted(set(range(1, NUM_CARDS + 1)) - set(cards))
        raise ValueError(f"deck must be a permutation of the card numbers 1..18, got {list(cards)} (missing {missing})")
    return cards


class TidesOfTimeState(State):
    """A position.

    ``start``: the two dealt hands (masks) and the pile (card numbers, top first);
    ``hands``, ``drafted`` (this round), ``relics``, ``discards``: masks per seat;
    ``pending``: each seat's relic (card index) during the discard step, else -1;
    ``draws``: per relic step, the masks each seat drew; ``scores``: per round
    scored, ``(player_0, player_1)``; ``kingdoms``: the two kingdoms scored each
    round; ``picks``: per round, the joint picks (card indices, seat order);
    ``keeps``: per relic step, ``(relic_0, relic_1, discard_0, discard_1)``.
    """

    __slots__ = (
        "game", "start", "hands", "drafted", "relics", "discards", "pending", "pile_pos", "round", "pick",
        "phase", "draws", "scores", "kingdoms", "picks", "keeps",
    )

    def __init__(self, game: TidesOfTimeGame, hand0: int, hand1: int, pile: tuple[int, ...]) -> None:
        self.game = game
        self.start = (hand0, hand1, pile)
        self.hands = [hand0, hand1]
        self.drafted = [0, 0]
        self.relics = [0, 0]
        self.discards = [0, 0]
        self.pending = [-1, -1]
        self.pile_pos = 0
        self.round = 0
        self.pick = 0
        self.phase = DRAFT
        self.draws: list[tuple[int, int]] = []
        self.scores: list[tuple[int, int]] = []
        self.kingdoms: list[tuple[int, int]] = []
        self.picks: list[list[tuple[int, int]]] = [[]]
        self.keeps: list[tuple[int, int, int, int]] = []

    # --- the protocol ---------------------------------------------------------------

    def current_players(self) -> tuple[int, ...]:
        return () if self.phase == OVER else (0, 1)

    def _legal_mask(self, player: int) -> int:
        phase = self.phase
        if phase == DRAFT:
            return self.hands[player]
        if phase == RELIC:
            return self.drafted[player]
        if phase == DISCARD:
            return self.drafted[player] & ~(1 << self.pending[player])
        return 0

    def legal_actions(self, player: int) -> list[int]:
        if player not in (0, 1):
            return []
        return list(bits(self._legal_mask(player)))

    def legal_mask(self, player: int) -> np.ndarray:
        mask = np.zeros(NUM_CARDS, dtype=np.int8)
        if player in (0, 1):
            mask[list(bits(self._legal_mask(player)))] = 1
        return mask

    def apply(self, action: Mapping[int, int]) -> None:
        """One simultaneous step: ``{0: card index, 1: card index}``."""
        if type(action) is not dict or len(action) != 2 or self.phase == OVER:
            return self._reject(action)
        a0 = action.get(0)
        a1 = action.get(1)
        if type(a0) is not int or type(a1) is not int or a0 < 0 or a1 < 0:
            return self._reject(action)
        phase = self.phase
        if not (self._legal_mask(0) >> a0 & 1 and self._legal_mask(1) >> a1 & 1):
            return self._reject(action)
        if phase == DRAFT:
            b0, b1 = 1 << a0, 1 << a1
            hands = self.hands
            self.drafted[0] |= b0
            self.drafted[1] |= b1
            self.hands = [hands[1] ^ b1, hands[0] ^ b0]  # pick, then exchange the rest
            self.picks[self.round].append((a0, a1))
            self.pick += 1
            if self.pick == HAND_SIZE:
                self._score()
        elif phase == RELIC:
            self.pending = [a0, a1]
            self.phase = DISCARD
        else:
            self._keep(a0, a1)

    def _score(self) -> None:
        k0 = self.relics[0] | self.drafted[0]
        k1 = self.relics[1] | self.drafted[1]
        self.kingdoms.append((k0, k1))
        self.scores.append(self.game.score(k0, k1))
        self.phase = RELIC if self.round + 1 < self.game.rounds else OVER

    def _keep(self, d0: int, d1: int) -> None:
        r0, r1 = self.pending
        self.keeps.append((r0, r1, d0, d1))
        self.relics = [self.relics[0] | 1 << r0, self.relics[1] | 1 << r1]
        self.discards = [self.discards[0] | 1 << d0, self.discards[1] | 1 << d1]
        pile, pos = self.start[2], self.pile_pos
        draw0 = mask_of(pile[pos : pos + 2])
        draw1 = mask_of(pile[pos + 2 : pos + 4])
        self.draws.append((draw0, draw1))
        self.pile_pos = pos + 4
        self.hands = [
            self.drafted[0] & ~(1 << r0 | 1 << d0) | draw0,
            self.drafted[1] & ~(1 << r1 | 1 << d1) | draw1,
        ]
        self.drafted = [0, 0]
        self.pending = [-1, -1]
        self.round += 1
        self.pick = 0
        self.phase = DRAFT
        self.picks.append([])

    def _reject(self, action: object) -> None:
        """The slow path of ``apply``: the clearest error, or a retry with plain ints."""
        if self.phase == OVER:
            raise IllegalActionError("tides_of_time: the game is over; no action is allowed", action=action)
        if not isinstance(action, Mapping):
            raise IllegalActionError(
                f"tides_of_time is simultaneous: apply takes {{seat: action}} for seats [0, 1], got {action!r}",
                action=action,
            )
        if set(action) != {0, 1}:
            raise IllegalActionError(
                f"tides_of_time: both seats act at every step; expected actions for seats [0, 1], "
                f"got seats {shown(sorted(action, key=repr))}",
                action=action,
            )
        for seat in (0, 1):
            a = as_action(action[seat], seat, self)
            if not 0 <= a < NUM_CARDS or not self._legal_mask(seat) >> a & 1:
                raise IllegalActionError(self._why(seat, a), action=a, player=seat, legal=self.legal_actions(seat))
        self.apply({seat: int(action[seat]) for seat in (0, 1)})

    def _why(self, seat: int, a: int) -> str:
        card = f"action {a} (card {a + 1})" if 0 <= a < NUM_CARDS else f"action {a} (no such card; actions are 0..17)"
        where = f"tides_of_time: {card}"
        if self.phase == DRAFT:
            return f"{where} is not in the hand of seat {seat}"
        if self.phase == RELIC:
            return f"{where} was not drafted this round by seat {seat}: a relic must be a card it drafted this round"
        if 0 <= a < NUM_CARDS and a == self.pending[seat]:
            return f"{where} is already seat {seat}'s relic: the discard must be a different card drafted this round"
        return f"{where} was not drafted this round by seat {seat}: the discard must be a card it drafted this round"

    def key(self) -> tuple:
        return (
            self.phase, self.round, self.pick, self.hands[0], self.hands[1], self.drafted[0], self.drafted[1],
            self.relics[0], self.relics[1], self.discards[0], self.discards[1], self.pending[0], self.pending[1],
            self.start[2][self.pile_pos :], tuple(self.scores),
        )

    def clone(self) -> TidesOfTimeState:
        other = TidesOfTimeState.__new__(TidesOfTimeState)
        other.game = self.game
        other.start = self.start
        other.hands = self.hands.copy()
        other.drafted = self.drafted.copy()
        other.relics = self.relics.copy()
        other.discards = self.discards.copy()
        other.pending = self.pending.copy()
        other.pile_pos = self.pile_pos
        other.round = self.round
        other.pick = self.pick
        other.phase = self.phase
        other.draws = self.draws.copy()
        other.scores = self.scores.copy()
        other.kingdoms = self.kingdoms.copy()
        other.picks = [p.copy() for p in self.picks]
        other.keeps = self.keeps.copy()
        return other

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def totals(self) -> tuple[int, int]:
        """Each seat's sum of the round scores so far."""
        return sum(s[0] for s in self.scores), sum(s[1] for s in self.scores)

    def returns(self) -> np.ndarray:
        if self.phase != OVER:
            return np.zeros(2)
        t0, t1 = self.totals()
        d = t0 - t1
        if self.game.config["returns"] == "win_loss":
            d = (d > 0) - (d < 0)
        return np.array([float(d), float(-d)])

    def info_state(self, player: int) -> TidesInfoState:
        if player not in (0, 1):
            raise ValueError(f"tides_of_time: no seat {player!r}; seats are 0 and 1")
        return _info_state(self, player)

    def observation_tensor(self, player: int) -> np.ndarray:
        """Seat-relative encoding of ``info_state(player)``; layout in ``OBS_LAYOUT``."""
        return self.info_state(player).tensor()

    def action_to_text(self, action: int) -> str:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_CARDS:
            raise ValueError(f"tides_of_time action must be 0..17 (card 1..18), got {action!r}")
        return str(int(action) + 1)

    def text_to_action(self, text: str) -> int:
        return text_to_action(text)

    def to_text(self) -> str:
        return _to_text(self)

    # --- extras ------------------------------------------------------------------------

    def kingdom(self, player: int) -> int:
        """The seat's kingdom now (relics and cards drafted this round) as a mask."""
        return self.relics[player] | self.drafted[player]

    def breakdown(self, round_index: int) -> tuple[dict[int, int], dict[int, int]]:
        """Per-card points (card numbers) of both kingdoms scored in round ``round_index``."""
        k0, k1 = self.kingdoms[round_index]
        return score_breakdown(cards_of(k0), cards_of(k1), zero_ties_win=self.game.flags[0], maze_counts_sets=self.game.flags[1])


def text_to_action(text: str) -> int:
    """A card number 1..18 or a card name (case-insensitive) as an action."""
    t = text.strip()
    if t.isdigit() and 1 <= int(t) <= NUM_CARDS:
        return int(t) - 1
    for card in CARDS:
        if card.name.lower() == t.lower():
            return card.number - 1
    raise ValueError(f"a tides_of_time move is a card number 1..18 or a card name; got {shown(text)}")


# --- information states -------------------------------------------------------------------


def _known_draws(state: TidesOfTimeState, me: int) -> tuple[int, ...]:
    """Per draw (relic step r, seat s) in pile order: the mask drawn, or -1 if ``me``
    cannot know it yet (the opponent's draw before the next first exchange)."""
    out = []
    for r, (d0, d1) in enumerate(state.draws):
        for s, d in ((0, d0), (1, d1)):
            seen = s == me or state.round > r + 1 or state.pick > 0 or state.phase != DRAFT
            out.append(d if seen else -1)
    return tuple(out)


def _info_state(state: TidesOfTimeState, me: int) -> TidesInfoState:
    opp = 1 - me
    first = state.phase == DRAFT and state.pick == 0
    draws = _known_draws(state, me)
    opp_init = state.start[opp] if not (first and state.round == 0) else -1
    if state.phase != DRAFT:
        opp_hand, hidden = 0, 0
    elif not first:
        opp_hand, hidden = state.hands[opp], 0
    elif state.round == 0:
        opp_hand, hidden = 0, HAND_SIZE
    else:
        d = state.draws[-1][opp]
        opp_hand = state.hands[opp] & ~d
        hidden = 2
    known = state.hands[me] | opp_hand | state.drafted[0] | state.drafted[1] | state.relics[0] | state.relics[1]
    known |= state.discards[0] | state.discards[1]
    keeps = tuple(state.keeps)
    picks = tuple(tuple(p) for p in state.picks)
    return TidesInfoState(
        game=state.game,
        player=me,
        phase=state.phase,
        round=state.round,
        pick=state.pick,
        hand=state.hands[me],
        opp_hand=opp_hand,
        opp_hidden=hidden,
        drafted=(state.drafted[me], state.drafted[opp]),
        relics=(state.relics[me], state.relics[opp]),
        discards=(state.discards[me], state.discards[opp]),
        own_relic=state.pending[me],
        unseen=ALL_CARDS & ~known,
        scores=tuple(state.scores),
        own_start=state.start[me],
        opp_start=opp_init,
        draws=draws,
        picks=picks,
        keeps=keeps,
    )


@dataclass(frozen=True)
class TidesInfoState:
    """What one seat knows.  Seat-relative pairs are ``(own, opponent's)``.

    ``hand``: own hand; ``opp_hand``: the part of the opponent's hand the seat knows
    (all of it after a round's first exchange; the three returned cards before the
    first pick of rounds 2 and 3; nothing before round 1's first exchange) and
    ``opp_hidden`` the number of opponent's cards it does not know; ``drafted``,
    ``relics``, ``discards``: masks; ``own_relic``: own secret relic (card index)
    during the discard step, else -1; ``unseen``: cards whose place the seat does not
    know (the opponent's unknown cards and the pile); ``scores``: round scores in
    seat order.  The history (``own_start``, ``opp_start`` or -1 while unknown,
    ``draws`` with -1 for a draw not yet seen, ``picks``, ``keeps``) makes two info
    states equal exactly when the seat cannot tell the situations apart.
    """

    game: TidesOfTimeGame = field(repr=False)
    player: int
    phase: int
    round: int
    pick: int
    hand: int
    opp_hand: int
    opp_hidden: int
    drafted: tuple[int, int]
    relics: tuple[int, int]
    discards: tuple[int, int]
    own_relic: int
    unseen: int
    scores: tuple[tuple[int, int], ...]
    own_start: int
    opp_start: int
    draws: tuple[int, ...]
    picks: tuple[tuple[tuple[int, int], ...], ...]
    keeps: tuple[tuple[int, int, int, int], ...]

    def legal_actions(self) -> list[int]:
        if self.phase == DRAFT:
            return list(bits(self.hand))
        if self.phase == RELIC:
            return list(bits(self.drafted[0]))
        if self.phase == DISCARD:
            return list(bits(self.drafted[0] & ~(1 << self.own_relic)))
        return []

    @property
    def kingdoms(self) -> tuple[int, int]:
        """``(own, opponent's)`` kingdoms now: relics and cards drafted this round."""
        return self.relics[0] | self.drafted[0], self.relics[1] | self.drafted[1]

    @property
    def passed(self) -> int:
        """The cards this seat passed at the round's last exchange (0 before the first):
        exactly the opponent's hand now, which is how the seat knows it."""
        return self.opp_hand if self.phase == DRAFT and self.pick > 0 else 0

    @property
    def known_opponent_hand(self) -> bool:
        return self.opp_hidden == 0

    def totals(self) -> tuple[int, int]:
        """``(own, opponent's)`` totals of the rounds scored."""
        me = self.player
        return sum(s[me] for s in self.scores), sum(s[1 - me] for s in self.scores)

    def sample(self, rng: np.random.Generator | int | None = None) -> TidesOfTimeState:
        """A full state consistent with this information, drawn uniformly: the unseen
        cards are shuffled into the opponent's unknown hand slots (its dealt hand or
        its last draw) and the pile; during the discard step the opponent's secret
        relic is uniform over the cards it drafted this round."""
        rng = make_rng(rng)
        me, opp = self.player, 1 - self.player
        unseen = list(bits(self.unseen))
        order = [unseen[i] + 1 for i in rng.permutation(len(unseen))] if unseen else []
        take = 0
        starts = [0, 0]
        starts[me] = self.own_start
        if self.opp_start < 0:
            starts[opp] = mask_of(order[:HAND_SIZE])
            take = HAND_SIZE
        else:
            starts[opp] = self.opp_start
        pile: list[int] = []
        for d in self.draws:
            if d < 0:
                pile.extend(order[take : take + 2])
                take += 2
            else:
                pile.extend(cards_of(d))
        pile.extend(order[take:])
        state = TidesOfTimeState(self.game, starts[0], starts[1], tuple(pile))
        for r, picks in enumerate(self.picks):
            for pair in picks:
                state.apply({0: pair[0], 1: pair[1]})
            if r < len(self.keeps):
                r0, r1, d0, d1 = self.keeps[r]
                state.apply({0: r0, 1: r1})
                state.apply({0: d0, 1: d1})
        if self.phase == DISCARD:
            relics = [0, 0]
            relics[me] = self.own_relic
            choices = bits(self.drafted[1])
            relics[opp] = choices[int(rng.integers(len(choices)))]
            state.apply({0: relics[0], 1: relics[1]})
        return state

    def __str__(self) -> str:
        """What the seat sees, for people (``parlour play``): no hidden card appears."""
        me = self.player
        if self.phase == OVER:
            head = "game over"
        else:
            step = f"pick {self.pick + 1}/5" if self.phase == DRAFT else PHASES[self.phase]
            head = f"round {self.round + 1}/{self.game.rounds}, {step}"
        opp = _named(self.opp_hand)
        if self.opp_hidden:
            opp = f"{opp if self.opp_hand else ''}{' + ' if self.opp_hand else ''}{self.opp_hidden} unknown"
        lines = [
            f"tides_of_time (you are player_{me}): {head}",
            f"your hand: {_named(self.hand)}",
            f"your kingdom: {_named(self.kingdoms[0], self.relics[0])}",
            f"opponent's hand: {opp}",
            f"opponent's kingdom: {_named(self.kingdoms[1], self.relics[1])}",
            f"discards: {_named(self.discards[0] | self.discards[1])}",
        ]
        if self.own_relic >= 0:
            lines.append(f"your secret relic: {card_label(self.own_relic + 1)}")
        for r, sc in enumerate(self.scores):
            lines.append(f"round {r + 1} score: you {sc[me]}, opponent {sc[1 - me]}")
        return "\n".join(lines)

    def tensor(self) -> np.ndarray:
        """The observation vector (layout: ``OBS_LAYOUT``)."""
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        planes = np.array(
            (
                self.hand, self.drafted[0], self.relics[0], self.discards[0],
                self.opp_hand, self.drafted[1], self.relics[1], self.discards[1],
                (1 << self.own_relic) if self.own_relic >= 0 else 0, self.unseen,
            ),
            dtype=np.int64,
        )
        obs[: PLANES * NUM_CARDS] = ((planes[:, None] >> _CARD_SHIFTS) & 1).ravel()
        base = PLANES * NUM_CARDS
        obs[base + min(self.round, 2)] = 1.0
        if self.phase == DRAFT:
            obs[base + 3 + self.pick] = 1.0
        obs[base + 8 + self.phase] = 1.0
        obs[base + 12] = self.opp_hidden / HAND_SIZE
        obs[base + 13] = (self.game.rounds - 1) / 2
        me = self.player
        for r, s in enumerate(self.scores):
            obs[base + 14 + 2 * r] = s[me] / SCORE_SCALE
            obs[base + 15 + 2 * r] = s[1 - me] / SCORE_SCALE
        own, other = self.totals()
        obs[base + 20] = own / (3 * SCORE_SCALE)
        obs[base + 21] = other / (3 * SCORE_SCALE)
        return obs


PLANES = 10
_CARD_SHIFTS = np.arange(NUM_CARDS, dtype=np.int64)
OBS_LAYOUT = (
    ("own hand", 18), ("own cards drafted this round", 18), ("own relics", 18), ("own discards", 18),
    ("known opponent hand", 18), ("opponent cards drafted this round", 18), ("opponent relics", 18),
    ("opponent discards", 18), ("own secret relic (discard step)", 18), ("unseen cards (opponent's unknown + pile)", 18),
    ("round one-hot", 3), ("pick one-hot (draft only)", 5), ("phase one-hot: draft, relic, discard, over", 4),
    ("opponent's unknown hand cards / 5", 1), ("rounds option: 0 for 1, 1 for 3", 1),
    ("round scores / 128, (own, opponent) per round", 6), ("totals / 384, own then opponent", 2),
)
"""The observation layout, in order: (what, width).  Card planes are indexed by card
number - 1; everything is seat-relative."""
OBS_SIZE = sum(w for _, w in OBS_LAYOUT)


# --- text form -------------------------------------------------------------------------------


def _cards_text(mask: int) -> str:
    return " ".join(str(c) for c in cards_of(mask)) or "-"


def _named(mask: int, relics: int = 0) -> str:
    if not mask:
        return "-"
    return "; ".join(card_label(c) + (" (relic)" if relics >> (c - 1) & 1 else "") for c in cards_of(mask))


def _to_text(state: TidesOfTimeState) -> str:
    game = state.game
    h0, h1, pile = state.start
    if state.phase == OVER:
        head = "game over"
    else:
        step = f"pick {state.pick + 1}/5" if state.phase == DRAFT else PHASES[state.phase]
        head = f"round {state.round + 1}/{game.rounds}, {step}"
    lines = [f"tides_of_time: {head}", f"deal: {_cards_text(h0)} | {_cards_text(h1)} | {' '.join(map(str, pile))}"]
    for r, picks in enumerate(state.picks):
        if not picks and r == state.round and state.phase == DRAFT:
            continue
        lines.append(f"r{r + 1} picks: " + " ".join(f"{a + 1}-{b + 1}" for a, b in picks))
        if r < len(state.scores):
            pa, pb = state.breakdown(r)
            s0, s1 = state.scores[r]
            detail = " | ".join(
                f"player_{seat} " + (" ".join(f"{c}:{v}" for c, v in sorted(pts.items())) or "-")
                for seat, pts in ((0, pa), (1, pb))
            )
            lines.append(f"r{r + 1} score: {s0}-{s1} | {detail}")
        if r < len(state.keeps):
            r0, r1, d0, d1 = state.keeps[r]
            lines.append(f"r{r + 1} keep: relic {r0 + 1}-{r1 + 1}, discard {d0 + 1}-{d1 + 1}")
        elif r == state.round and state.phase == DISCARD:
            r0, r1 = state.pending
            lines.append(f"r{r + 1} keep: relic {r0 + 1}-{r1 + 1}")
    for seat in (0, 1):
        lines.append(f"player_{seat} hand: {_named(state.hands[seat])}")
        lines.append(f"player_{seat} kingdom: {_named(state.kingdom(seat), state.relics[seat])}")
    lines.append(f"discards: {_named(state.discards[0] | state.discards[1])}")
    t0, t1 = state.totals()
    lines.append(f"totals: {t0}-{t1}; pile {len(pile) - state.pile_pos} cards")
    return "\n".join(lines)


_HEAD = re.compile(r"tides_of_time: (game over|round (\d)/(\d), (pick (\d)/5|relic|discard))")
_DEAL = re.compile(r"deal: ([\d ]+) \| ([\d ]+) \| ([\d ]+)")
_PICKS = re.compile(r"r(\d) picks: ?((?:\d+-\d+ ?)*)")
_KEEP = re.compile(r"r(\d) keep: relic (\d+)-(\d+)(?:, discard (\d+)-(\d+))?")


def _parse(game: TidesOfTimeGame, text: str) -> TidesOfTimeState:
    """Read ``to_text``: rebuild the deal, replay the picks and keeps, and check that
    every other line (hands, kingdoms, scores and their per-card breakdown, totals)
    is what the replay gives."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    example = game.new_initial_state(seed=0).to_text()
    bad = f"malformed tides_of_time position {shown(text)}; expected lines like:\n{example}"
    if len(lines) < 2 or not _HEAD.fullmatch(lines[0]):
        raise ValueError(f"{bad}\n(the first line must be 'tides_of_time: round R/N, pick K/5' or similar)")
    deal = _DEAL.fullmatch(lines[1])
    if not deal:
        raise ValueError(f"{bad}\n(the second line must be 'deal: <5 cards> | <5 cards> | <8 cards>')")
    try:
        parts = [[int(c) for c in deal[k].split()] for k in (1, 2, 3)]
    except ValueError:
        raise ValueError(bad) from None
    if len(parts[0]) != 5 or len(parts[1]) != 5:
        raise ValueError(f"{bad}\n(each dealt hand has 5 cards)")
    state = game.new_initial_state(deck=parts[0] + parts[1] + parts[2])
    for line in lines[2:]:
        match = _PICKS.fullmatch(line)
        try:
            if match:
                for pair in match[2].split():
                    a, b = pair.split("-")
                    state.apply({0: int(a) - 1, 1: int(b) - 1})
                continue
            match = _KEEP.fullmatch(line)
            if match:
                state.apply({0: int(match[2]) - 1, 1: int(match[3]) - 1})
                if match[4] is not None:
                    state.apply({0: int(match[4]) - 1, 1: int(match[5]) - 1})
        except IllegalActionError as error:
            raise ValueError(f"inconsistent tides_of_time position: {line!r}: {error}") from None
    canonical = state.to_text()
    if canonical != "\n".join(lines):
        raise ValueError(f"inconsistent tides_of_time position {shown(text)}: replaying its deal and moves gives\n{canonical}")
    return state
