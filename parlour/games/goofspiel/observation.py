"""Goofspiel's observation encoding (layout in docs/goofspiel.md): what a seat knows as
one ``float32`` vector, seat-relative.

``[own hand (A) | each other seat's hand in seat order after the seat (A each; zeros
with imperfect_info) | current prize one-hot (N) | prizes still to come (N) | pot / S |
points / S, own first (P) | rounds played / N | history: N blocks of 2P + 2, see
history_features]`` where ``A = num_actions``, ``N = num_cards``, ``S = 1 + ... + N``.

A state builds a seat's vector once (:func:`build_observation`) and then, after each
round, writes only the entries the round changed (:func:`update_observations`): an env
observes every step, and a round changes a dozen entries of thousands.  The functions
take the position's fields, not the state, so the rules import this module and not the
other way round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from parlour.games.bitmask import set_bits

_VECTORS: dict[tuple[int, int, type], np.ndarray] = {}
_PRIZE_VECTORS: dict[tuple[tuple[int, ...], int], np.ndarray] = {}


def bit_vector(mask: int, length: int, dtype: type) -> np.ndarray:
    """Read-only 0/1 vector of the bits of ``mask`` (memoised; copy before changing)."""
    key = (mask, length, dtype)
    vector = _VECTORS.get(key)
    if vector is None:
        vector = np.zeros(length, dtype=dtype)
        vector[list(set_bits(mask))] = 1
        vector.flags.writeable = False
        if len(_VECTORS) > 200_000:
            _VECTORS.clear()
        _VECTORS[key] = vector
    return vector


def prize_vector(prizes: tuple[int, ...], round_: int) -> np.ndarray:
    """One-hot of the current prize, then 0/1 of the prizes still to come (memoised)."""
    key = (prizes, round_)
    vector = _PRIZE_VECTORS.get(key)
    if vector is None:
        n = len(prizes)
        vector = np.zeros(2 * n, dtype=np.float32)
        if round_ < n:
            vector[prizes[round_] - 1] = 1.0
            for prize in prizes[round_ + 1 :]:
                vector[n + prize - 1] = 1.0
        vector.flags.writeable = False
        if len(_PRIZE_VECTORS) > 100_000:
            _PRIZE_VECTORS.clear()
        _PRIZE_VECTORS[key] = vector
    return vector


def build_observation(player: int, hands: Sequence[int], prizes: tuple[int, ...], round_: int, pot: int,
                      points: Sequence[int], bids: Sequence[tuple[int, ...]], winners: Sequence[int], num_actions: int,
                      total_prize: int, hidden: bool) -> np.ndarray:
    """The observation of ``player`` built from scratch (the module docstring's layout)
    from a position's hands (bitmasks), prize order, round, pot, points, bids and round
    winners; ``hidden``: the game's ``imperfect_info``."""
    players, a, n = len(hands), num_actions, len(prizes)
    scale = 1.0 / total_prize
    parts = [bit_vector(hands[player], a, np.float32)]
    if hidden:
        parts.append(np.zeros((players - 1) * a, dtype=np.float32))
    else:
        parts.extend(bit_vector(hands[(player + k) % players], a, np.float32) for k in range(1, players))
    parts.append(prize_vector(prizes, round_))
    parts.append(
        np.array(
            [pot * scale]
            + [points[(player + k) % players] * scale for k in range(players)]
            + [round_ / n]
            + history_features(player, hidden, players, prizes, bids, winners, a),
            dtype=np.float32,
        )
    )
    return np.concatenate(parts)


def update_observations(views: Mapping[int, tuple[np.ndarray, memoryview[float]]], r: int, bids: tuple[int, ...], winner: int,
                        hands: Sequence[int], prizes: tuple[int, ...], round_: int, pot: int, points: Sequence[int],
                        num_actions: int, total_prize: int, hidden: bool) -> None:
    """Bring every built observation (``views``: seat to its vector and a memoryview of
    it) up to date after round ``r`` (``bids``, ``winner``; the other arguments are the
    position after it): the same values :func:`build_observation` computes, written into
    the few entries the round changed (tests compare with fresh builds).

    The writes go through a memoryview of each vector, one float32 at a time: for the
    dozen entries a round changes that is about twice as fast as one numpy fancy
    assignment (which first turns its index and value lists into arrays), and the
    float64 -> float32 rounding is the same C cast."""
    players, a, n = len(hands), num_actions, len(prizes)
    scale = 1.0 / total_prize
    seen = 1 if hidden else players
    prize_at = players * a  # current prize one-hot, then the prizes to come
    pot_at = prize_at + 2 * n
    base = pot_at + 2 + players + r * (2 * players + 2)  # round r's history block
    prize, following = prizes[r], (prizes[r + 1] if r + 1 < n else 0)
    pot_value, done, prize_value = pot * scale, round_ / n, prize / n
    values = [points[seat] * scale for seat in range(players)]
    for player, (_, view) in views.items():
        view[prize_at + prize - 1] = 0.0
        view[pot_at] = pot_value
        view[pot_at + 1 + players] = done
        view[base + players] = prize_value
        view[base + players + 1 + (0 if winner < 0 else 1 + (winner - player) % players)] = 1.0
        if following:
            view[prize_at + following - 1] = 1.0
            view[prize_at + n + following - 1] = 0.0
        for k in range(players):
            seat = player + k if player + k < players else player + k - players
            view[pot_at + 1 + k] = values[seat]
            if k < seen:
                bid = bids[seat]
                view[k * a + bid] = 0.0
                view[base + k] = (bid + 1) / a


def history_features(player: int, hidden: bool, players: int, prizes: tuple[int, ...], bids: Sequence[tuple[int, ...]],
                     winners: Sequence[int], num_actions: int) -> list[float]:
    """Per round (N blocks of 2P + 2): the bids as card / num_actions, own first
    (0 when hidden or not yet played); the prize / N; the winner one-hot
    (tie, own, next seat, ...)."""
    n, a = len(prizes), num_actions
    width = 2 * players + 2
    values = [0.0] * (n * width)
    for r, round_bids in enumerate(bids):
        base = r * width
        for k in range(1 if hidden else players):
            values[base + k] = (round_bids[(player + k) % players] + 1) / a
        values[base + players] = prizes[r] / n
        winner = winners[r]
        values[base + players + 1 + (0 if winner < 0 else 1 + (winner - player) % players)] = 1.0
    return values
