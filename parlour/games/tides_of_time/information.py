"""What one Tides of Time seat knows (``TidesInfoState``, which
``TidesOfTimeState.info_state`` fills in) and full states drawn consistent with it (the
cards still unseen, dealt uniformly); its vector is encoded by :mod:`.observation`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

import numpy as np

from parlour.games.base import (
    State,
    make_rng,
)
from parlour.games.bitmask import cards_of, mask_of
from parlour.games.bitmask import set_bits as bits
from parlour.games.tides_of_time.cards import (
    DISCARD,
    DRAFT,
    HAND_SIZE,
    OVER,
    PHASES,
    RELIC,
    card_label,
    named_cards,
)
from parlour.games.tides_of_time.observation import observation_vector


class TidesRules(Protocol):
    """What an information state needs of its game (``TidesOfTimeGame`` is one): the
    number of rounds, and a fresh state from a deal to replay the moves on."""

    @property
    def rounds(self) -> int: ...

    def state_from_deal(self, hand0: int, hand1: int, pile: tuple[int, ...]) -> State: ...


GameT = TypeVar("GameT", bound=TidesRules)
"""The game an information state belongs to (``TidesOfTimeGame``): its own type, for
the players that read it."""


@dataclass(frozen=True)
class TidesInfoState(Generic[GameT]):
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

    game: GameT = field(repr=False)
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

    def sample(self, rng: np.random.Generator | int | None = None) -> State:
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
        state = self.game.state_from_deal(starts[0], starts[1], tuple(pile))
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
        opp = named_cards(self.opp_hand)
        if self.opp_hidden:
            opp = f"{opp if self.opp_hand else ''}{' + ' if self.opp_hand else ''}{self.opp_hidden} unknown"
        lines = [
            f"tides_of_time (you are player_{me}): {head}",
            f"your hand: {named_cards(self.hand)}",
            f"your kingdom: {named_cards(self.kingdoms[0], self.relics[0])}",
            f"opponent's hand: {opp}",
            f"opponent's kingdom: {named_cards(self.kingdoms[1], self.relics[1])}",
            f"discards: {named_cards(self.discards[0] | self.discards[1])}",
        ]
        if self.own_relic >= 0:
            lines.append(f"your secret relic: {card_label(self.own_relic + 1)}")
        for r, sc in enumerate(self.scores):
            lines.append(f"round {r + 1} score: you {sc[me]}, opponent {sc[1 - me]}")
        return "\n".join(lines)

    def tensor(self) -> np.ndarray:
        """The observation vector (layout: ``OBS_LAYOUT`` in :mod:`.observation`)."""
        return observation_vector(self, self.game.rounds)
