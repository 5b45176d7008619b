"""Who sits at the other seats: an opponent pool of baselines and frozen snapshots.

A pool holds weighted *entries*.  A baseline entry is a policy spec
(``"mcts:simulations=50"``); the self-play entry (``"self"``) stands for the frozen
snapshots of the learner taken during training, one of which is drawn uniformly
(among the latest ``max_snapshots``) each time the entry is chosen.  Every episode,
each opponent seat draws an entry by weight with the environment's own generator,
so a seed fixes who plays whom.

Policies are built once per pool and reused (``reset(seed)`` gives them fresh
randomness every episode); a snapshot's player is built when first drawn and kept
while the snapshot is among the latest ``max_snapshots`` (the torch model itself is
shared by every pool of the process, see ``parlour.baselines.learned.ppo.load_model``).
A pool lives inside each environment (also in ``SubprocVecEnv`` workers);
the trainer tells every copy about a new snapshot with ``add_snapshot(path)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parlour.baselines import Policy, make_from_spec
from parlour.games.base import Game

SELF = "self"
"""The entry name for the learner's own frozen snapshots."""
LEAGUE = "league"
"""The RLlib backend's entry for frozen snapshots of its learning modules (there ``self``
is a live learning seat); ``parlour.training.backends.rllib.league`` fills it."""


@dataclass(frozen=True)
class Entry:
    spec: str
    weight: float


def parse_opponents(text: str | Sequence[str], weights: Sequence[float] | None = None) -> list[Entry]:
    """Entries from ``"random,self"``-style text (specs are split on commas that start
    a new policy name) or a list of specs, with optional weights (default equal)."""
    specs = split_specs(text) if isinstance(text, str) else [str(s).strip() for s in text]
    if not specs or any(not s for s in specs):
        raise ValueError(f"opponents must name at least one policy spec (or 'self'), got {text!r}")
    if weights is None:
        weights = [1.0] * len(specs)
    weights = [float(w) for w in weights]
    if len(weights) != len(specs):
        raise ValueError(f"{len(weights)} opponent weights {weights} for {len(specs)} opponents {specs}")
    if any(not np.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError(f"opponent weights must be non-negative with a positive sum, got {weights}")
    return [Entry(spec, weight) for spec, weight in zip(specs, weights, strict=True)]


def describe_entries(entries: Sequence[Entry]) -> str:
    """``"random,greedy,self (weights 1,1,2)"``: a pool's entries for a person."""
    weights = ",".join(f"{e.weight:g}" for e in entries)
    return f"{','.join(e.spec for e in entries)} (weights {weights})"


def split_specs(text: str) -> list[str]:
    """``"mcts:simulations=50,c=2,random"`` -> ``["mcts:simulations=50,c=2", "random"]``.

    An item ``key=value`` continues the previous spec's parameters; any other item
    starts a new spec (``ppo:runs/x/best.zip`` is one item).
    """
    specs: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if specs and "=" in item and ":" not in item.partition("=")[0]:
            specs[-1] = f"{specs[-1]},{item}"
        else:
            specs.append(item)
    return specs


class OpponentPool:
    """Weighted baselines plus the learner's snapshots (see the module docstring).

    ``special``: entry names that are not policy specs, which the pool's user resolves
    itself (``self`` here; the RLlib env adds ``league``).
    """

    def __init__(
        self,
        game: Game,
        entries: Sequence[Entry],
        snapshots: Sequence[str] = (),
        max_snapshots: int = 20,
        policies: dict[str, Policy] | None = None,
        special: Sequence[str] = (SELF,),
    ) -> None:
        if not entries:
            raise ValueError("an opponent pool needs at least one entry")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be at least 1, got {max_snapshots}")
        self.game = game
        self.entries = list(entries)
        self.max_snapshots = max_snapshots
        self.snapshots: list[str] = list(snapshots)
        self._policies: dict[str, Policy] = dict(policies or {})
        self._loaded: dict[str, Policy] = {}
        self.special = tuple(special)
        for entry in self.entries:
            if entry.spec == LEAGUE and LEAGUE not in self.special:
                raise ValueError(f"opponent {LEAGUE!r} is the RLlib backend's league of frozen snapshots; "
                                 f"here the learner's snapshots are {SELF!r}")
            if entry.spec not in self.special and entry.spec not in self._policies:
                self._policies[entry.spec] = make_from_spec(entry.spec, game)  # fail early on bad specs
        weights = np.array([e.weight for e in self.entries], dtype=float)
        self._cumulative = np.cumsum(weights)

    @classmethod
    def of_policy(cls, policy: Policy, game: Game) -> OpponentPool:
        """A pool of one ready policy object (it plays every opponent seat)."""
        if policy.game != game:
            raise ValueError(f"opponent {policy!r} was made for {policy.game!r}, not {game!r}")
        return cls(game, [Entry(repr(policy), 1.0)], policies={repr(policy): policy})

    @property
    def uses_snapshots(self) -> bool:
        return any(e.spec == SELF and e.weight > 0 for e in self.entries)

    def add_snapshot(self, path: str) -> None:
        """A new frozen learner for the ``self`` entry (only the latest ``max_snapshots`` play)."""
        self.snapshots.append(str(path))

    def draw_entry(self, rng: np.random.Generator) -> Entry:
        """An entry by weight (``draw`` turns it into a policy)."""
        if len(self.entries) == 1:
            return self.entries[0]
        # (Generator.choice with p= is several times slower for a handful of entries)
        return self.entries[int(np.searchsorted(self._cumulative, rng.random() * self._cumulative[-1], side="right"))]

    def policy(self, spec: str) -> Policy:
        """The pool's policy object for a baseline entry's spec."""
        return self._policies[spec]

    def draw(self, rng: np.random.Generator) -> tuple[str, Policy]:
        """An opponent for one seat for one episode: its label and its policy."""
        entry = self.draw_entry(rng)
        if entry.spec != SELF:
            return entry.spec, self._policies[entry.spec]
        if not self.snapshots:
            raise ValueError("the 'self' opponent has no snapshot yet; add one with add_snapshot(path)")
        recent = self.snapshots[-self.max_snapshots :]
        path = recent[int(rng.integers(len(recent)))]
        return f"self:{path}", self._snapshot(path)

    def _snapshot(self, path: str) -> Policy:
        policy = self._loaded.get(path)
        if policy is None:
            from parlour.baselines.learned.ppo import PPOPolicy

            policy = self._loaded[path] = PPOPolicy(self.game, path=path, deterministic=False)
            for old in list(self._loaded)[: -self.max_snapshots]:
                del self._loaded[old]
        return policy
