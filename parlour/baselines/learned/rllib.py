"""RLlib-trained agents as players: ``rllib:runs/NAME`` in the arena and in ``parlour play``.

A parlour RLlib checkpoint is the directory RLlib's ``Algorithm.save_to_path`` writes,
plus ``parlour.json`` (the game, its configuration, the observation and action sizes
and the module ids), so that a checkpoint for the wrong game fails with a clear message.
The player reads the module weights only (``learner_group/learner/rl_module/<id>``,
RLlib's own ``RLModule.from_checkpoint``): no Ray cluster is started to play.

``path`` may be a checkpoint or a run directory (its ``best`` checkpoint, else its
``checkpoint``).  ``module``: which module plays; by default ``shared`` where the run
shared one module between the seats, ``default_policy`` where it learnt on the batched
engines (one learning seat per game, RLlib's single-agent module), else the module of
the seat the player sits in (``player_0`` ...).  Like ``ppo:``, it acts from its seat's information state and
samples (``deterministic=false``) with its own generator.

Needs the ``rllib`` extra; without it, making an ``rllib`` player raises an error saying so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from parlour.baselines.learned.ppo import check_model_game
from parlour.baselines.policy import Param, Policy, register
from parlour.errors import DamagedFileError

META_FILE = "parlour.json"
MODULES = Path("learner_group", "learner", "rl_module")
"""Where RLlib keeps each module's state inside an algorithm checkpoint."""
SHARED = "shared"
SINGLE = "default_policy"
"""The one module of a run on the batched path (RLlib's single-agent module id)."""


def require_rllib_extra() -> None:
    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        raise ImportError(f"rllib players need the rllib extra ({error.name} is missing): pip install 'parlour[rllib]'") from None


def checkpoint_dir(path: str | os.PathLike) -> Path:
    """The checkpoint a spec's path names: itself, or a run directory's ``best`` (else ``checkpoint``)."""
    path = Path(path)
    if (path / META_FILE).is_file():
        return path
    for name in ("best", "checkpoint"):
        if (path / name / META_FILE).is_file():
            return path / name
    if not path.exists():
        raise ValueError(f"RLlib checkpoint {str(path)!r} does not exist")
    raise DamagedFileError(
        f"{str(path)!r} is not a parlour RLlib checkpoint or run directory (no {META_FILE} in it, nor in its best/ "
        "or checkpoint/); train with `parlour train --backend rllib` or save with parlour.training.backends.rllib.save_checkpoint"
    )


def read_checkpoint_meta(path: Path) -> dict[str, Any]:
    try:
        return json.loads((path / META_FILE).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise DamagedFileError(f"RLlib checkpoint {str(path)!r} has a corrupt {META_FILE} ({error})") from None


_modules: dict[tuple[str, int], Any] = {}


def load_module(directory: Path) -> Any:
    """One RLModule from its checkpoint directory, cached per process by path and time."""
    require_rllib_extra()
    from ray.rllib.core.rl_module.rl_module import RLModule
    from ray.rllib.core.rl_module.torch import TorchRLModule

    key = (os.path.realpath(directory), os.stat(directory).st_mtime_ns)
    if key not in _modules:
        try:
            module = RLModule.from_checkpoint(str(directory))
        except Exception as error:  # RLlib raises many kinds for a damaged checkpoint
            raise DamagedFileError(f"RLlib module {str(directory)!r} cannot be loaded: {error}") from None
        if not isinstance(module, TorchRLModule):
            raise DamagedFileError(f"RLlib module {str(directory)!r} is a {type(module).__name__}, not a torch module")
        module.eval()
        _modules[key] = module
    return _modules[key]


@register
class RLlibPolicy(Policy):
    name = "rllib"
    summary = "A PPO agent trained on Ray RLlib (spec `rllib:runs/NAME`); needs the rllib extra."
    source = "Schulman et al. 2017 (PPO); Liang et al. 2018 (RLlib)"
    positional = "path"
    checkpoint: Path | str  # the checkpoint directory played (a snapshot's label for SnapshotPolicy)
    params = {
        "path": Param(None, "a run directory of `parlour train --backend rllib`, or one of its checkpoints", type=str),
        "module": Param(None, "the module that plays (default: shared, default_policy, else the seat's own)", type=str),
        "deterministic": Param(True, "play the most probable legal action (false: sample it)"),
    }

    def setup(self) -> None:
        if not self.config["path"]:
            raise ValueError("policy 'rllib' needs a checkpoint: rllib:runs/NAME or rllib:path=...")
        self.checkpoint = checkpoint_dir(self.config["path"])
        meta = read_checkpoint_meta(self.checkpoint)
        check_model_game(meta, self.game, self.checkpoint)
        self.module_ids = list(meta.get("modules", []))
        chosen = self.config["module"]
        if chosen is not None and chosen not in self.module_ids:
            raise ValueError(f"module {chosen!r} is not in RLlib checkpoint {str(self.checkpoint)!r}; modules are {self.module_ids}")
        require_rllib_extra()
        import torch

        self._torch = torch
        self._modules: dict[str, Any] = {}

    def module_for(self, seat: int) -> Any:
        """The module that plays ``seat`` (see the module docstring)."""
        module_id = self.config["module"] or next((m for m in (SHARED, SINGLE) if m in self.module_ids), f"player_{seat}")
        if module_id not in self.module_ids:
            raise ValueError(f"RLlib checkpoint {str(self.checkpoint)!r} has no module for seat {seat}; "
                             f"modules are {self.module_ids} (choose one with module=...)")
        if module_id not in self._modules:
            self._modules[module_id] = load_module(self.checkpoint / MODULES / module_id)
        return self._modules[module_id]

    def probabilities(self, seat: int, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The module's masked action distribution for one observation."""
        torch = self._torch
        batch = {"obs": {"observations": torch.as_tensor(observation, dtype=torch.float32)[None],
                         "action_mask": torch.as_tensor(mask, dtype=torch.float32)[None]}}
        with torch.no_grad():
            logits = self.module_for(seat).forward_inference(batch)["action_dist_inputs"][0]
        return torch.softmax(logits.double(), dim=0).numpy()

    def act(self, info_state: Any) -> int:
        seat = info_state.player
        state = info_state.sample(self.rng)
        mask = state.legal_mask(seat)
        probs = self.probabilities(seat, state.observation_tensor(seat), mask)
        legal = np.flatnonzero(mask)
        weights = probs[legal]
        if self.config["deterministic"] or not weights.sum() > 0:
            return int(legal[np.argmax(weights)])
        return int(legal[self.rng.choice(len(legal), p=weights / weights.sum())])

    def __getstate__(self) -> dict[str, Any]:
        # Modules and torch travel as the checkpoint's path: workers load them themselves.
        return {k: v for k, v in self.__dict__.items() if k not in ("_modules", "_torch")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        import torch

        self._torch = torch
        self._modules = {}


class SnapshotPolicy(RLlibPolicy):
    """Modules held in memory, not read from a checkpoint: a frozen snapshot of a run's
    learning modules, played inside the RLlib env as a league opponent.  ``label``
    names it in logs and tables (``league:step_N``)."""

    name = "rllib-snapshot"
    summary = "A frozen in-memory snapshot of RLlib modules (a league entry; not made from a spec)."

    def __init__(self, game: Any, modules: dict[str, Any], label: str, seed: int | None = None) -> None:
        self._given = dict(modules)
        self.label = label
        super().__init__(game, seed, path=label, deterministic=False)

    def setup(self) -> None:
        import torch

        self.module_ids = sorted(self._given)
        self.checkpoint = self.label
        self._torch = torch
        self._modules = self._given

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)  # the modules themselves: there is no file to reload them from

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return self.label
