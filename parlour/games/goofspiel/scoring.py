"""Goofspiel's scoring: who takes a round, what a round settles, and the returns of a
finished game (docs/goofspiel.md, Rules); what the rules, the information states and
the batched engine share."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def settle_round(pot: int, prize: int, winner: int, discard_ties: bool) -> tuple[int, int]:
    """``(points the round's winner takes, pot carried into the next round)``: the winner
    takes the prize and the pot; on a tie (``winner`` -1) both are carried, or discarded
    under ``tie_rule="discard"``."""
    stake = pot + prize
    if winner >= 0:
        return stake, 0
    return 0, 0 if discard_ties else stake


def points_to_returns(points: Sequence[int], kind: str) -> np.ndarray:
    """Returns of a finished game from the points (docs/goofspiel.md, Rules, item 6).

    Plain Python arithmetic on a handful of numbers, then one array: this runs at
    the end of every playout.
    """
    players = len(points)
    if kind == "total_points":
        return np.array(points, dtype=np.float64)
    if kind == "point_difference":
        total = sum(points)
        return np.array([p - (total - p) / (players - 1) for p in points])
    top = max(points)
    w = points.count(top) if isinstance(points, list) else list(points).count(top)
    if w == players:
        return np.zeros(players)
    win, loss = 1.0 / w, -1.0 / (players - w)
    return np.array([win if p == top else loss for p in points])


def round_winner(bids: Sequence[int]) -> int:
    """The seat of the unique highest bid, -1 on a tie for it."""
    top = max(bids)
    return bids.index(top) if bids.count(top) == 1 else -1
