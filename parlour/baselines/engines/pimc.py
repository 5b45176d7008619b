"""``pimc``: Perfect Information Monte Carlo, i.e. determinization (Long et al. 2010).

Draw ``samples`` complete states consistent with the seat's information state
(``info_state.sample(rng)``), search each one as if it were a perfect-information
game with a ``base`` searcher (``base.search(sample, player)``), and combine:
``vote`` plays the action chosen most often (ties: the higher summed root value,
then legal order); ``average`` plays the action with the best root value averaged
over the samples.  Long, Sturtevant, Buro and Furtak ("Understanding the Success of
Perfect Information Monte Carlo Sampling in Game Tree Search", AAAI 2010) explain
where this works and where strategy fusion and non-locality make it fail.

``base_params`` passes parameters to the base searcher: a mapping, or text
``key=value;key=value`` so that a command-line spec can carry it, e.g.
``pimc:base=alphabeta,samples=20,base_params=depth=6;tt=false``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

from parlour.baselines.engines.search import SearchPolicy
from parlour.baselines.policy import REGISTRY, Param, Policy, make, register


def parse_base_params(text: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """``"key=value;key=value"`` (or a mapping) as a dict; ``ValueError`` if malformed."""
    if text is None:
        return {}
    if isinstance(text, Mapping):
        return dict(text)
    if not isinstance(text, str):
        raise ValueError(f"parameter base_params={text!r}: expected key=value;key=value text or a mapping")
    params: dict[str, str] = {}
    for item in text.split(";"):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"parameter base_params={text!r}: {item!r} is not key=value (separate items with ';')")
        params[key.strip()] = value.strip()
    return params


def search_policies() -> list[str]:
    """Names of the registered policies that search complete states (possible bases)."""
    return sorted(name for name, cls in REGISTRY.items() if issubclass(cls, SearchPolicy))


@register
class PIMCPolicy(Policy):
    name = "pimc"
    summary = "determinization: search sampled complete states with a base searcher, then vote or average"
    source = "Long, Sturtevant, Buro and Furtak 2010 (Perfect Information Monte Carlo)"
    params = {
        "base": Param("mcts", "the searcher run on each sampled state (a policy with search(), e.g. mcts, minimax, "
                              "alphabeta, sm-mcts)", str),
        "samples": Param(20, "determinizations per move", int),
        "combine": Param("vote", "vote: most chosen action; average: best mean root value", str, ("vote", "average")),
        "base_params": Param("", "parameters of the base searcher: key=value;key=value", None),
    }

    def setup(self) -> None:
        cfg = self.config
        if cfg["samples"] < 1:
            raise ValueError(f"parameter samples={cfg['samples']}: must be at least 1")
        base = cfg["base"]
        allowed = search_policies()
        if base not in REGISTRY or base not in allowed:
            raise ValueError(f"parameter base={base!r}: the base must search complete states; choose from {allowed}")
        base_class = REGISTRY[base]
        assert issubclass(base_class, SearchPolicy), f"{base!r} is listed by search_policies()"
        if cfg["combine"] == "average" and not base_class.exact_root_values:
            raise ValueError(
                f"combine='average' cannot use base={base!r}: its root values other than the "
                f"best are only bounds (use combine=vote, or base=minimax or mcts)"
            )
        self.base_params = parse_base_params(cfg["base_params"])
        try:
            base_policy = make(base, self.game, self._base_seed(), full_states=True, **self.base_params)
        except ValueError as error:
            raise ValueError(f"pimc base {base!r}: {error}") from None
        assert isinstance(base_policy, SearchPolicy)
        self.base: SearchPolicy = base_policy

    def _base_seed(self) -> int | None:
        return None if self.seed is None else int(self.rng.integers(2**63))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.base.reset(self._base_seed() if seed is not None else None)

    def act(self, info_state: Any) -> int:
        player = info_state.player
        legal = info_state.legal_actions()
        if not legal:
            raise ValueError(f"pimc: seat {player} has no legal action")
        if len(legal) == 1:
            self.stats = {"samples": 0, "forced": True}
            return legal[0]
        start = time.perf_counter()
        votes = dict.fromkeys(legal, 0)
        sums = dict.fromkeys(legal, 0.0)
        counts = dict.fromkeys(legal, 0)
        for _ in range(self.config["samples"]):
            action = self.base.search(info_state.sample(self.rng), player)
            votes[action] += 1
            for a, value in self.base.root_values.items():
                sums[a] += value
                counts[a] += 1
        means = {a: sums[a] / counts[a] for a in legal if counts[a]}
        if self.config["combine"] == "vote":
            best = max(legal, key=lambda a: (votes[a], sums[a], -legal.index(a)))
        else:
            best = max(legal, key=lambda a: (means.get(a, -math.inf), -legal.index(a)))
        self.stats = {
            "samples": self.config["samples"],
            "votes": votes,
            "values": means,
            "time": time.perf_counter() - start,
        }
        return best
