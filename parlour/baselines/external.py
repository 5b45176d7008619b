"""Players from outside parlour: a Python function, a Stable-Baselines3 model file, a
TorchScript policy.  Each sees what every parlour player sees, its seat's observation
tensor (the PettingZoo env's ``observation["observation"]``) and legal-action mask
(``observation["action_mask"]``), so an agent trained on parlour's envs with any
library plays in the arena and on the benchmark ladders without a wrapper:

* ``python:MODULE:FUNCTION`` (or ``python:path/to/file.py:FUNCTION``): a callable
  ``(observation, action_mask) -> action``;
* ``sb3:PATH`` (``algo=auto``): a model saved by SB3 or sb3-contrib (PPO, A2C, DQN,
  MaskablePPO, QRDQN...), trained on a Box observation (the tensor) or a Dict one with
  ``observation``/``action_mask`` keys; the legal action of highest probability (or
  value) is played, so a model trained without masks never plays an illegal move;
* ``torchscript:PATH``: a ``torch.jit`` module (or a ``.pt2`` file of ``torch.export``)
  whose ``forward(observation)`` or ``forward(observation, action_mask)`` returns one
  score (logit, value) per action for a batch of one; the best legal one is played.

Sampling (``deterministic=false``) draws from the masked distribution with the player's
own seeded generator.  A function that returns an illegal action raises an error naming
it and the legal ones.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from parlour.baselines.policy import Param, Policy, register
from parlour.errors import DamagedFileError


def _observation(policy: Policy, info_state: Any) -> tuple[np.ndarray, np.ndarray]:
    state = info_state.sample(policy.rng)
    return state.observation_tensor(info_state.player), state.legal_mask(info_state.player)


def _best_legal(scores: np.ndarray, mask: np.ndarray, deterministic: bool, rng: np.random.Generator, probabilities: bool) -> int:
    """The best legal action by ``scores``; or sampled: by the masked probabilities
    (``probabilities``) or a softmax of the masked scores (logits)."""
    legal = np.flatnonzero(mask)
    values = np.asarray(scores, dtype=np.float64).reshape(-1)[legal]
    if deterministic:
        return int(legal[np.argmax(values)])
    if probabilities:
        weights = np.clip(values, 0, None)
    else:
        weights = np.exp(values - values.max())
    total = weights.sum()
    if not total > 0:
        return int(rng.choice(legal))
    return int(legal[rng.choice(len(legal), p=weights / total)])


def load_callable(target: str) -> Callable[..., Any]:
    """``module:function`` or ``path/to/file.py:function`` to the function itself."""
    module_name, sep, attribute = target.rpartition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"python agent {target!r}: expected MODULE:FUNCTION or path/to/file.py:FUNCTION")
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise ValueError(f"python agent {target!r}: no file {module_name!r}")
        name = "parlour_agent_" + "".join(c if c.isalnum() else "_" for c in str(path.resolve()))
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ValueError(f"python agent {target!r}: {module_name!r} cannot be loaded as a module")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise ValueError(f"python agent {target!r}: cannot import {module_name!r} ({error})") from None
    function: Any = module
    for part in attribute.split("."):
        function = getattr(function, part, None)
        if function is None:
            raise ValueError(f"python agent {target!r}: {module_name!r} has no {attribute!r}")
    if not callable(function):
        raise ValueError(f"python agent {target!r}: {attribute!r} is not callable")
    return function


@register
class PythonPolicy(Policy):
    name = "python"
    summary = "a Python function (observation, action_mask) -> action, given as python:MODULE:FUNCTION or python:FILE.py:FUNCTION."
    source = "the user"
    positional = "target"
    params = {"target": Param(None, "MODULE:FUNCTION or path/to/file.py:FUNCTION", type=str)}

    def setup(self) -> None:
        if not self.config["target"]:
            raise ValueError("policy 'python' needs a function: python:MODULE:FUNCTION")
        self.function = load_callable(self.config["target"])

    def act(self, info_state: Any) -> int:
        observation, mask = _observation(self, info_state)
        action = self.function(observation, mask)
        try:
            action = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"python agent {self.config['target']!r} returned {action!r}, not an action number") from None
        if not 0 <= action < len(mask) or not mask[action]:
            raise ValueError(f"python agent {self.config['target']!r} returned illegal action {action}; "
                             f"legal actions: {np.flatnonzero(mask).tolist()}")
        return action

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "function"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.setup()


SB3_ALGORITHMS = {
    "PPO": "stable_baselines3",
    "A2C": "stable_baselines3",
    "DQN": "stable_baselines3",
    "MaskablePPO": "sb3_contrib",
    "QRDQN": "sb3_contrib",
    "TRPO": "sb3_contrib",
}
"""Algorithms whose policies give per-action scores for a discrete action space."""


def sb3_algorithm(path: str | os.PathLike) -> str:
    """The algorithm that saved an SB3 zip, from its policy class's module."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (OSError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as error:
        raise DamagedFileError(f"model file {str(path)!r} is not a Stable-Baselines3 zip ({error})") from None
    module = str(data.get("policy_class", {}).get("__module__", ""))
    if "maskable" in module:
        return "MaskablePPO"
    if "qrdqn" in module:
        return "QRDQN"
    if "dqn" in module:
        return "DQN"
    if "trpo" in module:
        return "TRPO"
    return "PPO"  # stable_baselines3.common.policies: PPO's and A2C's (which load alike)


@register
class SB3Policy(Policy):
    name = "sb3"
    summary = ("a Stable-Baselines3 or sb3-contrib model file (spec sb3:PATH), trained on parlour's observation tensors; "
               "needs the train extra.")
    source = "Stable-Baselines3 (Raffin et al. 2021), sb3-contrib"
    positional = "path"
    params = {
        "path": Param(None, "the model zip (model.save(...))", type=str),
        "algo": Param("auto", "the algorithm that saved it (auto: from the file)", choices=("auto", *SB3_ALGORITHMS)),
        "deterministic": Param(True, "play the best legal action (false: sample from the masked distribution)"),
    }

    def setup(self) -> None:
        from parlour.baselines.learned.ppo import preserved_global_rng, require_train_extra

        require_train_extra()
        path = self.config["path"]
        if not path or not Path(path).is_file():
            raise ValueError(f"policy 'sb3' needs an existing model file, got {path!r}")
        algo = self.config["algo"] if self.config["algo"] != "auto" else sb3_algorithm(path)
        cls = getattr(importlib.import_module(SB3_ALGORITHMS[algo]), algo)
        try:
            with preserved_global_rng():
                self.model = cls.load(path, device="cpu")
        except Exception as error:  # SB3 raises many kinds for a damaged or foreign archive
            raise DamagedFileError(f"model file {path!r} cannot be loaded as {algo}: {error}") from None
        self.algo = algo
        space = self.model.observation_space
        self.dict_observation = hasattr(space, "spaces")
        expected = space.spaces["observation"].shape if self.dict_observation else space.shape
        if int(np.prod(expected)) != int(np.prod(self.game.observation_shape)) or self.model.action_space.n != self.game.num_actions:
            raise ValueError(
                f"model file {path!r} takes observations of shape {expected} and {self.model.action_space.n} actions; "
                f"{self.game!r} has {self.game.observation_shape} and {self.game.num_actions}"
            )
        self.shape = expected

    def scores(self, observation: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, bool]:
        """Per-action probabilities (``True``) or Q-values (``False``)."""
        import torch

        board = observation.reshape(self.shape).astype(np.float32)
        obs: np.ndarray | dict[str, np.ndarray] = board
        if self.dict_observation:
            obs = {"observation": board, "action_mask": mask.astype(np.int8)}
        policy = self.model.policy
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            if self.algo == "MaskablePPO":
                dist = policy.get_distribution(tensor, action_masks=mask.astype(bool)[None])
                return dist.distribution.probs[0].double().numpy(), True
            if hasattr(policy, "get_distribution"):
                return policy.get_distribution(tensor).distribution.probs[0].double().numpy(), True
            q_net = getattr(policy, "q_net", None) or policy.quantile_net
            values = q_net(tensor)
            if values.dim() == 3:  # QR-DQN: quantiles per action
                values = values.mean(dim=1)
            return values[0].double().numpy(), False

    def act(self, info_state: Any) -> int:
        observation, mask = _observation(self, info_state)
        scores, probabilities = self.scores(observation, mask)
        deterministic = self.config["deterministic"] or not probabilities
        return _best_legal(scores, mask, deterministic, self.rng, probabilities=probabilities)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "model"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.setup()


@register
class TorchScriptPolicy(Policy):
    name = "torchscript"
    summary = "a TorchScript policy file (spec torchscript:PATH): forward(observation[, action_mask]) -> a score per action; needs torch."
    source = "the user (torch.jit.save)"
    positional = "path"
    params = {
        "path": Param(None, "the file written by torch.jit.save (or torch.export.save, .pt2)", type=str),
        "deterministic": Param(True, "play the best legal action (false: sample from the softmax of the legal scores)"),
    }

    def setup(self) -> None:
        try:
            import torch
        except ImportError:
            raise ImportError("torchscript players need torch: pip install 'parlour[train]'") from None
        path = self.config["path"]
        if not path or not Path(path).is_file():
            raise ValueError(f"policy 'torchscript' needs an existing file, got {path!r}")
        try:
            if path.endswith(".pt2"):  # torch.export's format, TorchScript's successor
                program = torch.export.load(path)
                self.module = program.module()
                arguments = len(program.graph_signature.user_inputs)
            else:
                with warnings.catch_warnings():  # torch 2.10+ calls TorchScript deprecated; it still loads
                    warnings.simplefilter("ignore", DeprecationWarning)
                    self.module = torch.jit.load(path, map_location="cpu")
                self.module.eval()
                arguments = len(self.module.forward.schema.arguments) - 1  # a scripted method has a schema; without self
        except Exception as error:  # torch raises RuntimeError and others for a bad file
            raise DamagedFileError(f"policy file {path!r} cannot be loaded: {error}") from None
        if arguments not in (1, 2):
            raise ValueError(f"policy file {path!r}: forward takes {arguments} inputs; "
                             "expected (observation) or (observation, action_mask)")
        self.with_mask = arguments == 2
        self._torch = torch

    def act(self, info_state: Any) -> int:
        observation, mask = _observation(self, info_state)
        torch = self._torch
        with torch.no_grad():
            obs = torch.as_tensor(observation, dtype=torch.float32).unsqueeze(0)
            inputs = (obs, torch.as_tensor(mask.astype(bool)).unsqueeze(0)) if self.with_mask else (obs,)
            out = self.module(*inputs)
            if isinstance(out, (tuple, list)):
                out = out[0]
        scores = out.reshape(-1).double().numpy()
        if scores.size != len(mask):
            raise ValueError(f"TorchScript file {self.config['path']!r} returned {scores.size} scores for {len(mask)} actions")
        return _best_legal(scores, mask, self.config["deterministic"], self.rng, probabilities=False)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("module", "_torch")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.setup()
