"""Tides of Time's observation encoding (layout in docs/tides_of_time.md): what a seat
knows as one seat-relative ``float32`` vector of ``OBS_SIZE`` entries.

The function reads the fields of an information state (:class:`TidesInfoView`, which
``TidesInfoState`` satisfies) rather than the class itself, so that the information
module imports this one and not the other way round.  The batched engine writes the
same layout with array operations (``TidesOfTimeBatch``); the engine differential suite
checks that the two agree.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from parlour.games.tides_of_time.cards import DRAFT, HAND_SIZE, NUM_CARDS, SCORE_SCALE

PLANES = 10
"""Card planes at the front of the vector (each ``NUM_CARDS`` wide, card number - 1)."""
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

_CARD_SHIFTS = np.arange(NUM_CARDS, dtype=np.int64)


class TidesInfoView(Protocol):
    """The fields of one seat's information state the encoding reads (seat-relative
    pairs are ``(own, opponent's)``; ``scores`` are in seat order)."""

    @property
    def player(self) -> int: ...
    @property
    def phase(self) -> int: ...
    @property
    def round(self) -> int: ...
    @property
    def pick(self) -> int: ...
    @property
    def hand(self) -> int: ...
    @property
    def opp_hand(self) -> int: ...
    @property
    def opp_hidden(self) -> int: ...
    @property
    def drafted(self) -> tuple[int, int]: ...
    @property
    def relics(self) -> tuple[int, int]: ...
    @property
    def discards(self) -> tuple[int, int]: ...
    @property
    def own_relic(self) -> int: ...
    @property
    def unseen(self) -> int: ...
    @property
    def scores(self) -> tuple[tuple[int, int], ...]: ...


def observation_vector(info: TidesInfoView, rounds: int) -> np.ndarray:
    """The observation vector of ``info`` in a game of ``rounds`` rounds (1 or 3);
    layout: ``OBS_LAYOUT``."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    planes = np.array(
        (
            info.hand, info.drafted[0], info.relics[0], info.discards[0],
            info.opp_hand, info.drafted[1], info.relics[1], info.discards[1],
            (1 << info.own_relic) if info.own_relic >= 0 else 0, info.unseen,
        ),
        dtype=np.int64,
    )
    obs[: PLANES * NUM_CARDS] = ((planes[:, None] >> _CARD_SHIFTS) & 1).ravel()
    base = PLANES * NUM_CARDS
    obs[base + min(info.round, 2)] = 1.0
    if info.phase == DRAFT:
        obs[base + 3 + info.pick] = 1.0
    obs[base + 8 + info.phase] = 1.0
    obs[base + 12] = info.opp_hidden / HAND_SIZE
    obs[base + 13] = (rounds - 1) / 2
    me = info.player
    own = other = 0
    for r, s in enumerate(info.scores):
        obs[base + 14 + 2 * r] = s[me] / SCORE_SCALE
        obs[base + 15 + 2 * r] = s[1 - me] / SCORE_SCALE
        own += s[me]
        other += s[1 - me]
    obs[base + 20] = own / (3 * SCORE_SCALE)
    obs[base + 21] = other / (3 * SCORE_SCALE)
    return obs
