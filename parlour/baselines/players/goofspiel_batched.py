"""Goofspiel's ``rudimentary`` for many games at once (its batched form).

``rudimentary`` (:class:`~parlour.baselines.players.goofspiel.RudimentaryGoofspiel`,
with its default ``target=prize``) bids the card of the prize's value, else one above,
else two above, else the highest card held: a few array operations over every game and
seat, reading the engine's hands and the prizes being bid on (``prize_values``).
Deterministic, as the player is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.batched import BatchedPolicy, register_batched
from parlour.baselines.policy import Policy
from parlour.games.engine import BatchedEngine
from parlour.games.goofspiel.engine import GoofspielBatch


class RudimentaryBatched(BatchedPolicy):
    """``rudimentary`` on the batched engine (see the module docstring)."""

    spec = "rudimentary"

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        assert isinstance(engine, GoofspielBatch)
        return self.every_bid(engine)[rows, seats]

    @staticmethod
    def every_bid(engine: GoofspielBatch) -> np.ndarray:
        """``(B, P)``: every seat's bid in every game (action ``a`` bids card ``a + 1``);
        0 in finished games."""
        hands = engine.hands  # (B, P, A)
        B, P, A = hands.shape
        rows = np.arange(B)
        live = ~engine.terminated
        value = engine.prize_values()
        bids = A - 1 - np.argmax(hands[:, :, ::-1], axis=2)  # the highest card held
        chosen = np.zeros((B, P), dtype=bool)
        for extra in (0, 1, 2):
            action = value - 1 + extra
            held = hands[rows, :, np.minimum(action, A - 1)] & (action < A)[:, None] & ~chosen
            bids = np.where(held, action[:, None], bids)
            chosen |= held
        return np.where(live[:, None], bids, 0)


@register_batched("goofspiel", "rudimentary")
def _rudimentary(policy: Policy, engine: Any) -> BatchedPolicy | None:
    return RudimentaryBatched() if repr(policy) == "rudimentary" else None
