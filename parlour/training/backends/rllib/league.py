"""A league for RLlib runs: frozen snapshots of the learning modules as opponents.

RLlib's self-play examples grow a league by adding frozen copies of the main module to
the algorithm as extra, untrained modules.  parlour's RLlib env already plays every
non-learning seat itself (a baseline from its information state), so a snapshot is one
more policy of that kind: the opponents entry ``league`` draws, for a seat and an
episode, one of the latest ``max_snapshots`` snapshots uniformly, and a
``SnapshotPolicy`` plays it inside the env.  RLlib never sees those seats, so its
batches hold the learning seats only and no module mapping changes during the run.

A snapshot is every learning module's weights (numpy arrays from the learner group),
labelled ``league:step_N``.  ``add_league_snapshot`` takes one and sends it to every env
of every env runner (the local one included); the trainer calls it at step 0 and every
``snapshot_every`` steps, and keeps each snapshot in the run as ``snapshots/step_N.npz``
(plain arrays, loaded without pickle) so that a resumed run gets its league back.

Until an env receives its first snapshot, a ``league`` draw seats a live learner instead
(the current version is then the only one there is; on the batched path, which has one
learning seat per game, a uniformly random player); an env runner that RLlib rebuilds
after a failure starts with an empty league in the same way.  On the batched path
(``batched_env``) a snapshot is the one module, ``default_policy``, sent to each env
runner's one batched env.
"""

from __future__ import annotations

import functools
import os
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parlour.errors import DamagedFileError

Weights = dict[str, dict[str, np.ndarray]]
"""Module id -> parameter name -> array."""


def learning_modules(algo: Any) -> dict[str, dict[str, Any]]:
    """Module id -> model config of the algorithm's modules (a single-agent algorithm, the
    batched path's, has one: RLlib's ``default_policy``)."""
    spec = algo.config.rl_module_spec
    specs = getattr(spec, "rl_module_specs", None)
    if specs is None:
        from ray.rllib.core import DEFAULT_MODULE_ID

        specs = {DEFAULT_MODULE_ID: spec}
    return {module_id: dict(spec.model_config or {}) for module_id, spec in specs.items()}


def snapshot_weights(algo: Any, module_ids: Sequence[str]) -> Weights:
    """The learner group's current weights of ``module_ids``, as numpy arrays."""
    weights = algo.learner_group.get_weights(list(module_ids))
    return {module_id: {name: np.asarray(value) for name, value in weights[module_id].items()} for module_id in module_ids}


def build_modules(env: Any, weights: Weights, model_configs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """Frozen ``MaskedPPOModule``s with ``weights``, for ``env``'s spaces (eval mode): a
    multi-agent env's seat spaces, or a batched env's single ones."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from parlour.baselines.learned.rllib_module import MaskedPPOModule

    if hasattr(env, "single_observation_space"):
        observation_space, action_space = env.single_observation_space, env.single_action_space
    else:
        agent = env.possible_agents[0]
        observation_space, action_space = env.observation_spaces[agent], env.action_spaces[agent]
    modules = {}
    for module_id, state in weights.items():
        spec = RLModuleSpec(module_class=MaskedPPOModule, observation_space=observation_space,
                            action_space=action_space, model_config=model_configs[module_id])
        module = spec.build()
        assert isinstance(module, MaskedPPOModule)  # a torch module: eval() exists
        module.set_state(state)
        module.eval()
        modules[module_id] = module
    return modules


def _push_to_runner(runner: Any, label: str, weights: Weights, model_configs: Mapping[str, dict[str, Any]]) -> int:
    """Give every env of one env runner the snapshot (modules built once per runner)."""
    vector = getattr(runner, "env", None)
    if vector is None:  # the driver's env runner holds no env when remote runners sample
        return 0
    if hasattr(vector.unwrapped, "league"):  # the batched path: one env, one module, for all its games
        batched = vector.unwrapped
        (module,) = build_modules(batched, weights, model_configs).values()
        batched.add_snapshot(label, module)
        return 1
    envs = [env.unwrapped for env in vector.envs]
    modules = build_modules(envs[0], weights, model_configs)
    for env in envs:
        env.add_snapshot(label, modules)
    return len(envs)


def push_snapshot(algo: Any, label: str, weights: Weights) -> int:
    """Send a snapshot to every env of every env runner; the number of envs reached."""
    configs = learning_modules(algo)
    push = functools.partial(_push_to_runner, label=label, weights=weights, model_configs=configs)
    return sum(algo.env_runner_group.foreach_env_runner(push, local_env_runner=True))


def add_league_snapshot(algo: Any, label: str) -> Weights:
    """Freeze the algorithm's learning modules now, as ``label``, into every env's league."""
    weights = snapshot_weights(algo, sorted(learning_modules(algo)))
    push_snapshot(algo, label, weights)
    return weights


def save_snapshot(path: Path, weights: Weights) -> None:
    """``weights`` as one ``.npz`` (keys ``module/parameter``), written whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = {f"{module_id}/{name}": value for module_id, state in weights.items() for name, value in state.items()}
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)  # (arrays' values typed Any: numpy 2's stub types **kwds as its allow_pickle flag)
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def load_snapshot(path: Path) -> Weights:
    """The weights ``save_snapshot`` wrote; ``DamagedFileError`` for a damaged file."""
    weights: Weights = {}
    try:
        with np.load(path, allow_pickle=False) as arrays:
            for key in arrays.files:
                module_id, _, name = key.partition("/")
                weights.setdefault(module_id, {})[name] = arrays[key]
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise DamagedFileError(f"league snapshot {str(path)!r} cannot be read: {error}") from None
    return weights
