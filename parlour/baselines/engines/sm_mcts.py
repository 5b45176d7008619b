"""``sm-mcts``: simultaneous-move MCTS with decoupled UCT or regret matching selection.

At a node where several seats move at once, each seat chooses from its own
statistics and the joint action is applied (Lanctot, Lisý and Winands 2013, "Monte
Carlo Tree Search in Simultaneous Move Games with Applications to Goofspiel"; Lisý,
Kovařík, Lanctot and Bošanský 2013, "Convergence of Monte Carlo Tree Search in
Simultaneous Move Games"):

- ``selection="duct"``: decoupled UCT, UCB1 on each seat's own statistics.  The move
  played is the most visited (``final="max"``) or drawn from the visit distribution
  (``final="mix"``), which the papers find harder to exploit.
- ``selection="rm"``: regret matching with ``gamma`` exploration.  A seat draws its
  action from ``sigma(a) = (1 - gamma) R+(a) / sum R+ + gamma / |A|``; after the
  simulation returns ``x``, every action's regret grows by ``x_hat(a) - x`` where the
  importance-sampled ``x_hat`` is ``x / sigma(a)`` for the action drawn and 0 for the
  others.  The move played is drawn from the average strategy (sum of ``sigma``).

Nodes with one mover use UCT.  Everything else (max^n backup, determinization for
hidden information, budgets, statistics) is the ``mcts`` engine; the final draws use
the policy's seeded generator.
"""

from __future__ import annotations

from typing import Any

from parlour.baselines.engines.mcts import TREE_PARAMS, Node, TreeSearch
from parlour.baselines.policy import Param, register


@register
class SMMCTSPolicy(TreeSearch):
    name = "sm-mcts"
    summary = "simultaneous-move MCTS: decoupled UCT or regret matching at simultaneous nodes"
    source = "Lanctot, Lisý and Winands 2013; Lisý, Kovařík, Lanctot and Bošanský 2013"
    params = {
        **TREE_PARAMS,
        "selection": Param("duct", "selection at simultaneous nodes: decoupled UCT or regret matching", str, ("duct", "rm")),
        "final": Param("max", "duct's move: the most visited, or drawn from the visit counts", str, ("max", "mix")),
        "gamma": Param(0.1, "rm's exploration: the weight of the uniform strategy, in (0, 1]", float),
    }

    def setup(self) -> None:
        super().setup()
        gamma = self.config["gamma"]
        if not 0 < gamma <= 1:
            raise ValueError(f"parameter gamma={gamma}: must be in (0, 1]")
        self.regret_matching = self.config["selection"] == "rm"
        self.gamma = gamma

    def _final(self, root: Node, player: int, legal: list[int], simultaneous: bool) -> int:
        if not simultaneous or (not self.regret_matching and self.config["final"] == "max"):
            return super()._final(root, player, legal, simultaneous)
        weights = self._root_distribution(root, player, legal)
        u = float(self.rng.random()) * sum(weights)
        for action, weight in zip(legal, weights):
            u -= weight
            if u < 0 and weight > 0:
                return action
        return max(zip(weights, legal), key=lambda wa: wa[0])[1]

    def _root_distribution(self, root: Node, player: int, legal: list[int]) -> list[float]:
        """Unnormalised weights of the root's mixed move: visits (duct) or strategy sums (rm)."""
        edges, base = root.edges, player * self._num_actions
        field = 3 if self.regret_matching else 0
        return [float(edges[base + a][field]) if base + a in edges else 0.0 for a in legal]

    def _extra_stats(self, root: Node, player: int, legal: list[int]) -> dict[str, Any]:
        weights = self._root_distribution(root, player, legal)
        total = sum(weights)
        if not total:
            return {}
        return {"strategy": {a: w / total for a, w in zip(legal, weights)}}
