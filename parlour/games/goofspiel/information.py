"""What one Goofspiel seat knows (``GoofspielInfoState``), and full states drawn
consistent with it: the unseen prize order, and under ``imperfect_info`` the other
seats' bids, uniformly among the histories that give the same round winners."""

from __future__ import annotations

import bisect
import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, cast

import numpy as np

from parlour.games.base import State, counted, make_rng
from parlour.games.bitmask import cards_of, set_bits
from parlour.games.goofspiel.scoring import round_winner, settle_round

_State_co = TypeVar("_State_co", bound=State, covariant=True)


class GoofspielRules(Protocol[_State_co]):
    """What an information state needs of its game (``GoofspielGame`` is one): the
    options it reads, and a fresh state from a deal to replay the bids on."""

    @property
    def config(self) -> dict[str, Any]: ...

    @property
    def num_players(self) -> int: ...

    @property
    def num_cards(self) -> int: ...

    @property
    def discard_ties(self) -> bool: ...

    def state_from_deal(self, prizes: tuple[int, ...], hands: list[int]) -> _State_co: ...

    def state_from_history(self, prizes: tuple[int, ...], start_hands: tuple[int, ...], bids: tuple[tuple[int, ...], ...],
                           winners: tuple[int, ...], points: tuple[int, ...], pot: int) -> _State_co: ...


StateT = TypeVar("StateT", bound=State)
"""The state an information state samples (``GoofspielState``): its own type, for the
players that search it."""


@dataclass(frozen=True)
class GoofspielInfoState(Generic[StateT]):
    """What one seat knows: public prizes and pots, its own hand and bids, who won each
    round, everyone's points, and everyone's bids unless ``imperfect_info``
    (then other seats' bids are ``None``).  Hashable; equal exactly when the seat
    cannot tell the two situations apart.
    """

    game: GoofspielRules[StateT] = field(repr=False)
    player: int
    prizes_seen: tuple[int, ...]
    prizes_to_come: tuple[int, ...] | None
    """The order of the prizes still to come when it is public (a fixed order), else None."""
    start_hands: tuple[int, ...]
    bids: tuple[tuple[int | None, ...], ...]
    winners: tuple[int, ...]
    points: tuple[int, ...]
    pot: int

    @property
    def round(self) -> int:
        return len(self.bids)

    @property
    def hand(self) -> int:
        """Own cards as a bitmask (bit ``a`` = card ``a + 1``)."""
        mask = self.start_hands[self.player]
        for round_bids in self.bids:
            bid = round_bids[self.player]
            assert bid is not None  # a seat knows its own bids
            mask &= ~(1 << bid)
        return mask

    def legal_actions(self) -> list[int]:
        if self.round >= self.game.num_cards:
            return []
        return list(set_bits(self.hand))

    @property
    def current_prize(self) -> int | None:
        return self.prizes_seen[self.round] if self.round < len(self.prizes_seen) else None

    def unseen_prizes(self) -> list[int]:
        """Prizes not yet revealed, ascending (their order is hidden when it is random)."""
        seen = set(self.prizes_seen)
        return [p for p in range(1, self.game.num_cards + 1) if p not in seen]

    def rounds(self) -> list[tuple[int, int, tuple[int | None, ...], int]]:
        """Every round played: ``(prize, stake, bids, winner)``, the stake being the prize
        plus the pot carried into it, ``winner`` -1 for a tie."""
        out = []
        pot = 0
        for prize, bids, winner in zip(self.prizes_seen, self.bids, self.winners):
            out.append((prize, pot + prize, bids, winner))
            _, pot = settle_round(pot, prize, winner, self.game.discard_ties)
        return out

    def __str__(self) -> str:
        """What the seat knows, spelled out for a person (``parlour play``)."""
        game, me = self.game, self.player
        n, players = game.num_cards, game.num_players
        name = lambda seat: "you" if seat == me else f"player_{seat}"  # noqa: E731
        prize = self.current_prize
        if prize is None:
            lines = [f"game over after {counted(n, 'round')}"]
        else:
            carried = f" + {self.pot} carried = {self.pot + prize} at stake" if self.pot else ""
            lines = [f"round {self.round + 1} of {n}: prize {prize}{carried}"]
        lines.append(f"prizes so far: {' '.join(map(str, self.prizes_seen[: self.round])) or '-'}")
        if self.prizes_to_come is not None:
            lines.append(f"prizes to come, in order: {' '.join(map(str, self.prizes_to_come)) or '-'}")
        elif prize is not None:
            lines.append(f"prizes to come (order hidden): {' '.join(map(str, self.unseen_prizes())) or '-'}")
        lines.append("points: " + " | ".join(f"{name(s)} {self.points[s]}" for s in range(players)))
        lines.append(f"your hand: {_cards_text(self.hand)}")
        if not game.config["imperfect_info"]:
            for seat in range(players):
                if seat != me:
                    mask = self.start_hands[seat]
                    for bids in self.bids:
                        bid = bids[seat]
                        assert bid is not None  # every bid is public without imperfect_info
                        mask &= ~(1 << bid)
                    lines.append(f"player_{seat}'s hand: {_cards_text(mask)}")
        if self.bids:
            lines.append("rounds played:")
        for r, (prize_r, stake, bids, winner) in enumerate(self.rounds()):
            bid_text = ", ".join(f"{name(s)} {'?' if b is None else b + 1}" for s, b in enumerate(bids))
            if winner >= 0:
                outcome = f"{name(winner)} {'take' if winner == me else 'takes'} {stake}"
            elif game.discard_ties:
                outcome = "tie: prize discarded"
            else:
                outcome = f"tie: {stake} carried over" if r + 1 < n else f"tie: {stake} lost (no round left)"
            lines.append(f"  {r + 1}. prize {prize_r}: bids {bid_text} -> {outcome}")
        return "\n".join(lines)

    def sample(self, rng: np.random.Generator | int | None = None) -> StateT:
        """A full state consistent with this information, drawn uniformly.

        The unseen prizes are shuffled when the order is random (it is public
        otherwise); under ``imperfect_info`` the other seats' bids are drawn uniformly
        among all bid histories that give the same round winners.
        """
        rng = make_rng(rng)
        game = self.game
        if self.prizes_to_come is None:
            rest = self.unseen_prizes()
            prizes = self.prizes_seen + tuple(rest[i] for i in rng.permutation(len(rest)))
        else:
            prizes = self.prizes_seen + self.prizes_to_come
        if not self.bids or all(b is not None for b in self.bids[0]):
            # every seat's bids are known: the history is the seat's own, so the state is
            # built from it directly (replaying it would give the same, round by round)
            known = cast(tuple[tuple[int, ...], ...], self.bids)
            return game.state_from_history(prizes, self.start_hands, known, self.winners, self.points, self.pot)
        bids: Sequence[tuple[int, ...]] = _sample_hidden_bids(self, rng)
        state = game.state_from_deal(prizes, list(self.start_hands))
        for round_bids in bids:
            state.apply(dict(enumerate(round_bids)))
        return state


def _cards_text(mask: int) -> str:
    return " ".join(map(str, cards_of(mask))) or "-"


def _sample_hidden_bids(info: GoofspielInfoState, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Uniform draw of the other seats' bid histories given own bids and round winners."""
    return _hidden_bid_sampler(info).sample(rng)


@functools.lru_cache(maxsize=64)
def _hidden_bid_sampler(info: GoofspielInfoState) -> _HiddenBids:
    """One sampler per information state: searchers draw thousands of samples from it."""
    return _HiddenBids(info)


class _HiddenBids:
    """Counts the completions of every partial bid history (memoised on the cards the
    other seats have used), then samples forward in proportion to those counts; the
    counts and each node's cumulative weights are kept, so a sample costs one random
    number and one bisection per round."""

    def __init__(self, info: GoofspielInfoState) -> None:
        self.info = info
        self.me = info.player
        self.others = [s for s in range(len(info.start_hands)) if s != info.player]
        self.rounds = len(info.bids)
        self.counts: dict[tuple[int, tuple[int, ...]], int] = {}
        self.nodes: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[int]]] = {}
        if self.count(0, (0,) * len(self.others)) == 0:
            raise ValueError("goofspiel: no bid history is consistent with this information state")

    def choices(self, r: int, used: tuple[int, ...]) -> list[tuple[int, ...]]:
        info, me = self.info, self.me
        own = info.bids[r][me]
        assert own is not None  # a seat knows its own bids
        result = []
        pools = [set_bits(info.start_hands[s] & ~used[i]) for i, s in enumerate(self.others)]
        for combo in _product(pools):
            bids = list(combo)
            bids.insert(me, own)
            if round_winner(bids) == info.winners[r]:
                result.append(combo)
        return result

    def count(self, r: int, used: tuple[int, ...]) -> int:
        if r == self.rounds:
            return 1
        key = (r, used)
        total = self.counts.get(key)
        if total is None:
            total = self.counts[key] = sum(
                self.count(r + 1, tuple(u | 1 << c for u, c in zip(used, combo)))
                for combo in self.choices(r, used)
            )
        return total

    def node(self, r: int, used: tuple[int, ...]):
        key = (r, used)
        node = self.nodes.get(key)
        if node is None:
            options = self.choices(r, used)
            nexts = [tuple(u | 1 << c for u, c in zip(used, combo)) for combo in options]
            cumulative = list(itertools.accumulate(self.count(r + 1, nxt) for nxt in nexts))
            node = self.nodes[key] = (options, nexts, cumulative)
        return node

    def sample(self, rng: np.random.Generator) -> list[tuple[int, ...]]:
        used = (0,) * len(self.others)
        history = []
        draws = rng.random(self.rounds)
        for r in range(self.rounds):
            options, nexts, cumulative = self.node(r, used)
            pick = bisect.bisect_right(cumulative, draws[r] * cumulative[-1])
            pick = min(pick, len(options) - 1)
            bids = list(options[pick])
            bids.insert(self.me, self.info.bids[r][self.me])
            history.append(tuple(bids))
            used = nexts[pick]
        return history


def _product(pools: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    combos: list[tuple[int, ...]] = [()]
    for pool in pools:
        combos = [c + (x,) for c in combos for x in pool]
    return combos
