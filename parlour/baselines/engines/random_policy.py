"""``random``: uniform over the legal actions, from the policy's own seeded generator."""

from __future__ import annotations

from typing import Any

from parlour.baselines.policy import Policy, register


@register
class RandomPolicy(Policy):
    name = "random"
    summary = "uniform random choice among the legal actions (seeded)"

    def act(self, info_state: Any) -> int:
        legal = info_state.legal_actions()
        if not legal:
            raise ValueError(f"random: seat {info_state.player} has no legal action to choose from")
        return legal[int(self.rng.integers(len(legal)))]
