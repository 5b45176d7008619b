"""A native TorchRL ``EnvBase`` over a batched engine: B games of one configuration, stepped
as tensors, for TorchRL's collectors, losses and BenchMARL-style multi-agent modules.

Why a native env?  TorchRL users of parlour wrap one PettingZoo env at a time with
``torchrl.envs.libs.pettingzoo.PettingZooWrapper``: every step goes through dicts of
agents and per-agent tensor copies, about a millisecond per game step.  This env steps
all B games of a batched engine (``parlour.games.<game>.engine``) with a few array
operations and hands the arrays to TorchRL with ``torch.from_numpy``: the cost per game
step falls by two orders of magnitude (benchmarks/torchrl_collect.py).

Layout: exactly what ``PettingZooWrapper(parallel_env(), use_mask=True,
categorical_actions=True)`` gives for one game, with a leading batch dimension, so the
native env is a drop-in replacement for the wrapper in TorchRL and BenchMARL code (the
same keys, shapes, dtypes and specs).  One group, ``"player"`` (agents ``player_0`` ..
``player_{P-1}``), with a seat dimension:

- ``("player", "observation", "observation")``: float32 ``(B, P, *observation_shape)``,
  every seat's ``observation_tensor`` (nested twice because parlour's PettingZoo
  observation is the dict ``{"observation", "action_mask"}``: the wrapper takes the
  mask out and keeps the rest under ``"observation"``);
- ``("player", "action_mask")``: bool ``(B, P, A)``, the legal moves of the seats to act,
  and every action True for the other seats and for finished games (as the wrapper
  does, so that sampling from it stays defined; read ``mask`` first);
- ``("player", "mask")``: bool ``(B, P)``, the seats to act (the wrapper's ``use_mask``);
- ``("player", "info", "illegal_action")`` and ``("player", "info", "illegal_move")``:
  float32 ``(B, P)``, 0 and -1 (the env's infos; an illegal action raises here, as
  ``parallel_env()`` does by default, so they never change);
- ``("player", "action")``: int64 ``(B, P)``, a ``Categorical(A)`` spec whose mask is the
  current ``action_mask``, so ``env.rand_action()`` and ``env.rollout(n)`` without a
  policy draw random legal moves (a collector's default random policy clones the spec
  once and would not follow the mask, as with the wrapper: give a collector a policy
  that reads ``action_mask``, e.g. ``MaskedCategorical``); the actions of seats not to
  act are ignored;
- ``("player", "reward")``: float32 ``(B, P, 1)``, the game's returns in the step it
  ends, else 0;
- ``("player", "done" | "terminated" | "truncated")``: bool ``(B, P, 1)``, and the same
  three at the root, ``(B, 1)`` (truncated is always False: the games end by their rules).

Why one group with a seat dimension rather than a group per seat?  The wrapper's default
for a Parallel env (Goofspiel, Tides of Time) groups agents named ``<name>_<i>`` into one
group ``<name>``, and TorchRL's ``MultiAgentMLP`` and BenchMARL's models take exactly that:
one tensor per group with an agent dimension, one network shared across the seats or
one per seat (``share_params``).  The turn-based games (Sticks, Tribolo, Double Card) have
no Parallel env; the wrapper's default over their AEC env is a group per seat, which
splits the seats over keys and forces a model per group.  Here they have the same single
group as the simultaneous games, with ``mask`` naming the one seat to act, so one policy
code serves every game; this is the wrapper over the AEC env with
``group_map={"player": [...]}``, except at the step that ends a game, where the AEC
wrapper still marks the seat the AEC env selects as acting with an all-False action mask,
and this env marks no seat acting and every action allowed, as the Parallel wrapper does.

Resets are TorchRL's: the engine runs with ``autoreset=False``, so a finished game stays
over (its final observation in ``"next"``) until :meth:`reset` restarts the games its
``"_reset"`` mask names (``rollout``, ``step_and_maybe_reset`` and the collectors do this).
Every chance event comes from the engine's ``numpy.random.Generator``; ``set_seed``
replaces it, so the same seed and the same actions give the same games (a random policy
draws its actions from torch's generator: seed that too).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from parlour.games import ENTRIES
from parlour.games.engine import BatchedEngine

GROUP = "player"
"""The one group's name: PettingZooWrapper's for agents ``player_0`` .. ``player_{P-1}``."""

NO_MOVE = -1.0
"""``illegal_move`` of an agent that played no illegal move (the PettingZoo envs' infos)."""


def batched_games() -> list[str]:
    """The games with a batched engine, by name."""
    return sorted(name for name, entry in ENTRIES.items() if entry.engine is not None)


def torchrl_env(game: str, num_envs: int, *, seed: int | np.random.Generator | None = None, device: Any = "cpu",
                **options: Any) -> ParlourTorchRLEnv:
    """``num_envs`` games of ``game`` (with its ``options``) as one TorchRL env of
    ``batch_size=[num_envs]``; ``seed`` (an int or a numpy ``Generator``) draws every
    chance event, ``device`` is where the tensors go (``"cpu"``, or a CUDA device)."""
    entry = ENTRIES.get(game) if isinstance(game, str) else None
    if entry is None or entry.engine is None:
        raise ValueError(f"no batched engine for game {game!r}; batched games are {batched_games()}")
    engine = entry.engine(num_envs, seed, autoreset=False, **options)
    return ParlourTorchRLEnv(engine, device=_device(device))


def _device(device: Any) -> torch.device:
    """``device`` as a ``torch.device`` this machine has, or a clear error."""
    allowed = "'cpu'" + (f" or 'cuda' / 'cuda:0'..'cuda:{torch.cuda.device_count() - 1}'" if torch.cuda.is_available() else
                         " (no CUDA device here)")
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"device must be {allowed}, got {device!r}") from None
    if parsed.type == "cuda" and (not torch.cuda.is_available() or (parsed.index or 0) >= torch.cuda.device_count()):
        raise ValueError(f"device must be {allowed}, got {device!r}")
    if parsed.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be {allowed}, got {device!r}")
    return parsed


class ParlourTorchRLEnv(EnvBase):
    """B games of one batched engine as a TorchRL env (the module docstring gives the layout)."""

    batch_locked = True

    def __init__(self, engine: BatchedEngine, device: torch.device | str = "cpu") -> None:
        if engine.autoreset:
            raise ValueError("ParlourTorchRLEnv needs an engine with autoreset=False (TorchRL resets finished games itself)")
        self.engine = engine
        num_envs, players = engine.num_envs, engine.num_players
        super().__init__(device=device, batch_size=torch.Size([num_envs]))
        self.agents = [f"player_{i}" for i in range(players)]
        self.group_map = {GROUP: list(self.agents)}
        self._shape = (num_envs, players)
        self._make_specs()
        self._all_rows = np.ones(num_envs, dtype=bool)

    # ----- specs -----------------------------------------------------------------------

    def _make_specs(self) -> None:
        engine, device = self.engine, self.device
        batch, seats = self.batch_size, torch.Size(self._shape)
        obs_shape = seats + torch.Size(engine.observation_shape)
        low, high = engine.game.observation_bounds
        low_t = torch.as_tensor(np.broadcast_to(np.asarray(low, dtype=np.float32), obs_shape).copy())
        high_t = torch.as_tensor(np.broadcast_to(np.asarray(high, dtype=np.float32), obs_shape).copy())

        def flag(shape: torch.Size) -> Categorical:
            return Categorical(n=2, shape=shape, dtype=torch.bool, device=device)

        self.observation_spec = Composite(
            {GROUP: Composite(
                {
                    "observation": Composite(
                        {"observation": Bounded(low_t, high_t, shape=obs_shape, dtype=torch.float32, device=device)},
                        shape=seats),
                    "action_mask": flag(seats + torch.Size([engine.num_actions])),
                    "mask": flag(seats),
                    "info": Composite(
                        {"illegal_action": Unbounded(shape=seats, dtype=torch.float32, device=device),
                         "illegal_move": Unbounded(shape=seats, dtype=torch.float32, device=device)},
                        shape=seats),
                },
                shape=seats)},
            shape=batch)
        self.action_spec = Composite(
            {GROUP: Composite({"action": Categorical(n=engine.num_actions, shape=seats, dtype=torch.int64, device=device)},
                              shape=seats)},
            shape=batch)
        self.reward_spec = Composite(
            {GROUP: Composite({"reward": Unbounded(shape=seats + torch.Size([1]), dtype=torch.float32, device=device)},
                              shape=seats)},
            shape=batch)
        root = batch + torch.Size([1])
        per_seat = seats + torch.Size([1])
        self.done_spec = Composite(
            {"done": flag(root), "terminated": flag(root), "truncated": flag(root),
             GROUP: Composite({"done": flag(per_seat), "terminated": flag(per_seat), "truncated": flag(per_seat)},
                              shape=seats)},
            shape=batch)

    # ----- TorchRL's hooks -------------------------------------------------------------

    def _set_seed(self, seed: int | None) -> None:
        self.engine.rng = np.random.default_rng(seed)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        where = self._reset_mask(tensordict)
        if where is None:
            self.engine.reset_games(self._all_rows)
        elif where.any():
            self.engine.reset_games(where)
        return self._output(None)

    def _reset_mask(self, tensordict: TensorDictBase | None) -> np.ndarray | None:
        """The games a reset restarts (``(B,)`` bool), or ``None`` for all: the root
        ``"_reset"`` entry, else the group's (a game restarts if any of its seats asks)."""
        if tensordict is None:
            return None
        reset = tensordict.get("_reset", None)
        if reset is None:
            reset = tensordict.get((GROUP, "_reset"), None)
        if reset is None:
            return None
        reset = reset.reshape(self.batch_size[0], -1).any(-1)
        return reset.cpu().numpy()

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        engine = self.engine
        actions = tensordict.get((GROUP, "action"))
        if actions.device.type != "cpu":
            actions = actions.cpu()
        joint = actions.numpy()
        # finished games wait for their reset; ``"_step"`` (TorchRL's partial steps, e.g.
        # ``rollout(break_when_all_done=True)``) leaves out more
        terminated = engine.terminated
        where = None if not terminated.any() else ~terminated
        partial = tensordict.get("_step", None)
        # TorchRL's rollout(break_when_all_done=True) leaves the group's "_neg_step" in the
        # step's tensordict, where it then misses from others it merges with
        tensordict.pop((GROUP, "_neg_step"), None)
        if partial is not None:
            chosen = partial.reshape(-1).cpu().numpy()
            where = chosen if where is None else where & chosen
        if engine.simultaneous:
            result = engine.step(joint, where=where)
        else:
            movers = engine.movers()
            result = engine.step(joint[np.arange(len(movers)), movers.clip(0)], where=where)
        return self._output(result.rewards)

    # ----- the output ------------------------------------------------------------------

    def _output(self, rewards: np.ndarray | None) -> TensorDictBase:
        """The tensordict of the games as they are now (with ``rewards``, a step's)."""
        engine, device, seats = self.engine, self.device, self._shape
        # The observations, the one large array, are shared without a copy: a tensor
        # holds its array, so the engine's buffer pool (``OutputBuffers``) does not hand
        # it out again while a rollout keeps the step.  The small arrays are copied (an
        # engine may return a view of its state).
        acting = torch.tensor(engine.to_act())
        legal = torch.from_numpy(engine.legal_masks()).bool()
        action_mask = legal.logical_or_(~acting.unsqueeze(-1))
        observation = torch.from_numpy(engine.observations())
        over = torch.tensor(engine.terminated).unsqueeze(-1)
        over_seats = over.unsqueeze(-1).expand(*seats, 1).clone()
        group = {
            "observation": TensorDict({"observation": observation}, batch_size=seats),
            "action_mask": action_mask,
            "mask": acting,
            "info": TensorDict({"illegal_action": torch.zeros(seats), "illegal_move": torch.full(seats, NO_MOVE)},
                               batch_size=seats),
            "done": over_seats,
            "terminated": over_seats.clone(),
            "truncated": torch.zeros(over_seats.shape, dtype=torch.bool),
        }
        if rewards is not None:
            group["reward"] = torch.from_numpy(rewards).to(torch.float32).unsqueeze(-1)
        out = TensorDict(
            {GROUP: TensorDict(group, batch_size=seats), "done": over, "terminated": over.clone(),
             "truncated": torch.zeros(over.shape, dtype=torch.bool)},
            batch_size=self.batch_size)
        if device.type != "cpu":
            out = out.to(device)
            action_mask = out.get((GROUP, "action_mask"))
        self.input_spec["full_action_spec", GROUP, "action"].update_mask(action_mask.clone())
        return out
