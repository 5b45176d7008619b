"""An RLlib module as a batched player: one forward pass for every game it plays in.

The RLlib backend's batched path (``parlour.training.backends.rllib.batched_env``) meets
frozen snapshots of its learning module (the opponent ``league``) in many games of one
engine at the same step.  :class:`BatchedModule` answers all of them together, as
``ppo_batched.FrozenPPO`` does for a MaskablePPO file: the observations and legal masks
of the seats it holds, one call of the module's ``forward_inference`` (its logits are
already masked: ``rllib_module.MaskedPPOModule``), then one uniform per game against the
masked policy's cumulative probabilities, drawn from the batch's generator (the rule of
the multi-agent env's league snapshots, ``rllib.SnapshotPolicy``, which samples), or the
most probable legal move (``deterministic``).

The ``rllib:PATH`` player's batched form (:class:`BatchedRLlibPolicy`, registered for
every game) is one :class:`BatchedModule` per module the player seats: the module its
``module_for(seat)`` names (``shared``, else ``default_policy``, else the seat's own), so
an RLlib agent met as an opponent on a batched engine plays all its games in one forward
pass per module, with the single player's moves wherever they are deterministic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.batched import EVERY_GAME, BatchedPolicy, register_batched
from parlour.baselines.learned.rllib import RLlibPolicy
from parlour.baselines.policy import Policy
from parlour.games.engine import BatchedEngine, uniform_legal


class BatchedModule(BatchedPolicy):
    """A masked RLlib module (``MaskedPPOModule`` in eval mode) sampling its moves for many
    games at once, or playing the most probable one with ``deterministic`` (see the module
    docstring); ``spec`` names it (``league:step_N``)."""

    def __init__(self, module: Any, spec: str, deterministic: bool = False) -> None:
        import torch

        self.module = module
        self.spec = spec
        self.deterministic = deterministic
        self._torch = torch

    def probabilities(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        rows, seats = np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        if len(rows) == 0:
            return np.zeros((0, engine.num_actions))
        return self.policy(engine.decode(engine.observation_at(rows, seats)), engine.legal_mask_at(rows, seats))

    def policy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(k, num_actions)`` float64: the module's masked policy, one forward pass."""
        torch = self._torch
        legal = masks.astype(bool)
        batch = {"obs": {"observations": torch.as_tensor(observations, dtype=torch.float32),
                         "action_mask": torch.as_tensor(legal, dtype=torch.float32)}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"]
            probs = torch.softmax(logits.double(), dim=1).numpy()
        return np.where(legal, probs, 0.0)

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if len(rows) == 0:
            return np.zeros(0, dtype=np.int64)
        masks = engine.legal_mask_at(rows, seats)
        legal = masks.astype(bool)
        probabilities = self.policy(engine.decode(engine.observation_at(rows, seats)), masks)
        if self.deterministic:  # the lowest of the most probable legal moves, as RLlibPolicy.act
            return np.where(legal, probabilities, -1.0).argmax(axis=1).astype(np.int64)
        cumulative = np.cumsum(probabilities, axis=1)
        total = cumulative[:, -1]
        u = rng.random(len(legal))
        chosen = (cumulative > (u * total)[:, None]).argmax(axis=1).astype(np.int64)
        empty = ~(total > 0)
        if empty.any():
            chosen[empty] = uniform_legal(legal[empty].astype(np.int8), rng)
        return chosen


class BatchedRLlibPolicy(BatchedPolicy):
    """``rllib:PATH`` over many games: the module of each seat (the player's own
    ``module_for``) as a :class:`BatchedModule`, one forward pass per module."""

    def __init__(self, policy: RLlibPolicy) -> None:
        self.player = policy
        self.spec = repr(policy)
        self._by_seat: dict[int, BatchedModule] = {}

    def seat_module(self, seat: int) -> BatchedModule:
        if seat not in self._by_seat:
            module = self.player.module_for(seat)
            shared = next((b for b in self._by_seat.values() if b.module is module), None)
            self._by_seat[seat] = shared or BatchedModule(module, self.spec, deterministic=bool(self.player.config["deterministic"]))
        return self._by_seat[seat]

    def _groups(self, seats: np.ndarray) -> list[tuple[BatchedModule, np.ndarray]]:
        """The rows of each module: one forward pass for all the seats a module plays."""
        groups: dict[int, tuple[BatchedModule, list[np.ndarray]]] = {}
        for seat in np.unique(seats):
            batched = self.seat_module(int(seat))
            groups.setdefault(id(batched), (batched, []))[1].append(np.flatnonzero(seats == seat))
        return [(batched, np.sort(np.concatenate(parts))) for batched, parts in groups.values()]

    def probabilities(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        rows, seats = np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        out = np.zeros((len(rows), engine.num_actions))
        for batched, where in self._groups(seats):
            out[where] = batched.probabilities(engine, rows[where], seats[where])
        return out

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        rows, seats = np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        out = np.zeros(len(rows), dtype=np.int64)
        for batched, where in self._groups(seats):
            out[where] = batched.actions(engine, rows[where], seats[where], rng)
        return out


@register_batched(EVERY_GAME, "rllib")
def rllib_form(policy: Policy, engine: BatchedEngine) -> BatchedPolicy | None:
    """``rllib:PATH`` (any parameters): :class:`BatchedRLlibPolicy`."""
    if not isinstance(policy, RLlibPolicy):
        return None
    return BatchedRLlibPolicy(policy)
