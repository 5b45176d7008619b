"""Trained agents as players: ``ppo:runs/NAME/best.zip`` in the arena and in ``parlour play``.

A model file is Stable-Baselines3's zip (``MaskablePPO.save``) with one more entry,
``parlour.json``, naming the game, its configuration and the observation and action
sizes, so that loading a model for the wrong game fails with a clear message instead
of a shape error deep inside torch.  ``save_model`` writes the file atomically (a
temporary file in the same directory, then ``os.replace``): a run killed while saving
never leaves a half-written model behind under the real name.

The policy acts like every other baseline, from its seat's information state: any
full state sampled from it has the same observation tensor (the games protocol
encodes exactly the information state), and the legal moves are the information
state's.  Sampling (``deterministic=false``) draws from the masked action
distribution with the policy's own ``numpy`` generator, never torch's global one, so
the same seed gives the same moves in any process.

Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch); without it, making
a ``ppo`` player raises an error saying so.
"""

from __future__ import annotations

import json
import os
import random
import warnings
import zipfile
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from parlour.atomic import replace_atomic
from parlour.baselines.policy import Param, Policy, register
from parlour.errors import DamagedFileError
from parlour.games import load_game
from parlour.games.base import Game

META_ENTRY = "parlour.json"
"""The zip entry with the game a model was trained for."""


def require_train_extra() -> None:
    """Import check with an actionable message (the ``train`` extra is optional)."""
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        raise ImportError(
            f"trained agents need the train extra ({error.name} is missing): "
            "pip install 'parlour[train]'"
        ) from None


def global_rng_state() -> dict[str, Any]:
    """The global generators SB3 draws from (torch for actions, numpy for minibatches)."""
    import torch

    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}


def set_global_rng_state(state: dict[str, Any]) -> None:
    import torch

    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])


@contextmanager
def preserved_global_rng() -> Iterator[None]:
    """SB3's ``load`` reseeds the global generators; this undoes it, so that loading an
    opponent in the middle of a training run changes nothing the learner draws."""
    state = global_rng_state()
    try:
        yield
    finally:
        set_global_rng_state(state)


def model_meta(game: Game) -> dict[str, Any]:
    """What a model file records about its game."""
    return {
        "game": game.name,
        "rules_version": game.rules_version,
        "config": game.config,
        "observation_shape": list(game.observation_shape),
        "num_actions": game.num_actions,
    }


def save_model(model: Any, path: str | os.PathLike, game: Game, extra: dict[str, Any] | None = None) -> Path:
    """Save ``model`` (a MaskablePPO) to ``path`` atomically, with the game's metadata."""
    path = Path(path)
    meta = json.dumps({**model_meta(game), **(extra or {})}, default=list)

    def write(tmp: str) -> None:
        model.save(tmp)
        with zipfile.ZipFile(tmp, "a") as archive:
            archive.writestr(META_ENTRY, meta)

    replace_atomic(path, write, suffix=".tmp.zip")  # SB3 adds ".zip" to other names
    return path


def read_model_meta(path: str | os.PathLike) -> dict[str, Any]:
    """The ``parlour.json`` of a model file; ``ValueError`` if it is missing,
    ``DamagedFileError`` (a ``ValueError``) if it is truncated, corrupt or foreign."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"model file {str(path)!r} does not exist")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if META_ENTRY not in names:
                raise DamagedFileError(
                    f"model file {str(path)!r} was not written by parlour (no {META_ENTRY}); "
                    "train it with `parlour train` or save it with parlour.baselines.learned.ppo.save_model"
                )
            bad = archive.testzip()
            if bad is not None:
                raise DamagedFileError(f"model file {str(path)!r} is corrupt (entry {bad!r} fails its checksum)")
            return json.loads(archive.read(META_ENTRY))
    except (zipfile.BadZipFile, EOFError, OSError, json.JSONDecodeError) as error:
        raise DamagedFileError(f"model file {str(path)!r} is corrupt or truncated ({error})") from None


def check_model_game(meta: dict[str, Any], game: Game, path: str | os.PathLike) -> None:
    """``ValueError`` unless the model can play ``game``; a warning if only options differ."""
    if meta.get("game") != game.name:
        raise ValueError(f"model file {str(path)!r} was trained for {meta.get('game')!r}, not {game.name!r}")
    made_for = meta.get("rules_version", game.rules_version)  # files from before versions: the first rules
    if made_for != game.rules_version:
        raise ValueError(f"model file {str(path)!r} was made for version {made_for!r} of the {game.name} rules; "
                         f"this parlour plays version {game.rules_version}, where its moves may mean something else: "
                         "train it again")
    shape_ok = list(meta.get("observation_shape", [])) == list(game.observation_shape)
    if not shape_ok or meta.get("num_actions") != game.num_actions:
        raise ValueError(
            f"model file {str(path)!r} was trained for {game.name} with options {meta.get('config')}, "
            f"whose observations and actions differ from {game!r}"
        )
    try:
        same = load_game(game.name, **meta.get("config", {})) == game
    except ValueError:
        same = False
    if not same:
        warnings.warn(f"model {str(path)!r} was trained with {meta.get('config')}, now playing {game!r}", stacklevel=3)


MODEL_CACHE_SIZE = 64
"""Loaded models kept per process (self-play draws among up to 20 snapshots per episode,
and SB3's ``load`` takes tens of milliseconds)."""

_models: OrderedDict[tuple[str, int, int, str], Any] = OrderedDict()


def load_model(path: str | os.PathLike, game: Game, device: str = "cpu") -> Any:
    """The MaskablePPO in ``path``, checked against ``game`` (clear errors, see above),
    its network on ``device``.

    Models are cached by file (path, size and modification time) and device, so many
    policies and environments in one process share one copy; use it for inference only.
    """
    require_train_extra()
    from sb3_contrib import MaskablePPO

    meta = read_model_meta(path)
    if meta.get("kind", "ppo") != "ppo":
        raise ValueError(f"model file {str(path)!r} is an {meta['kind']} model, not a PPO one: it plays as az:{path}")
    check_model_game(meta, game, path)
    stat = os.stat(path)
    key = (os.path.realpath(path), stat.st_size, stat.st_mtime_ns, device)
    model = _models.pop(key, None)
    if model is None:
        try:
            with preserved_global_rng():
                model = MaskablePPO.load(str(path), device=device)
        except Exception as error:  # SB3 raises many kinds for a damaged archive
            raise DamagedFileError(f"model file {str(path)!r} cannot be loaded: {error}") from None
        for stale in [k for k in _models if k[0] == key[0] and k[3] == device]:  # an older version of the file
            del _models[stale]
        while len(_models) >= MODEL_CACHE_SIZE:
            _models.popitem(last=False)
    _models[key] = model
    return model


def masked_policy(policy: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(k, num_actions)`` float64: an SB3 actor-critic ``policy``'s masked move
    distribution for a batch of observations and legal masks (zero off the legal moves).

    The actor's path alone (features, the actor's latent, the action layer, a softmax over
    the legal logits): the distribution MaskablePPO's ``get_distribution`` gives, to
    float32 rounding, without building torch distribution objects, whose cost was a third
    of a Tribolo move (2.0 against 1.3 ms for the 32-channel board network on one AVX2
    thread).  Every PPO player, single-game and batched, reads its policy here."""
    import torch

    legal = np.asarray(masks, dtype=bool)
    with torch.no_grad():
        obs = torch.as_tensor(observations, dtype=torch.float32, device=policy.device)
        features = policy.extract_features(obs, policy.pi_features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
        logits = logits.masked_fill(~torch.as_tensor(legal, device=logits.device), float("-inf"))
        probs = torch.softmax(logits, dim=1).cpu().numpy().astype(np.float64)
    return np.where(legal, probs, 0.0)  # a row with no legal move: all zero, not NaN


class MaskedActor:
    """Action choice of a loaded model from an observation and a legal mask."""

    def __init__(self, model: Any, deterministic: bool) -> None:
        self.model = model
        self.deterministic = deterministic

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked action distribution of the model's policy (``masked_policy``)."""
        return masked_policy(self.model.policy, np.asarray(observation)[None], np.asarray(mask)[None])[0]

    def choose(self, observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        probs = self.probabilities(observation, mask)
        legal = np.flatnonzero(mask)
        if self.deterministic:
            return int(legal[np.argmax(probs[legal])])
        weights = probs[legal]
        total = weights.sum()
        if not total > 0:
            return int(rng.choice(legal))
        return int(legal[rng.choice(len(legal), p=weights / total)])


@register
class PPOPolicy(Policy):
    name = "ppo"
    summary = (
        "A MaskablePPO agent trained with `parlour train` (spec `ppo:runs/NAME/best.zip`); "
        "needs the train extra."
    )
    source = "Schulman et al. 2017 (PPO); Huang & Ontanon 2020 (invalid action masking); sb3-contrib"
    positional = "path"
    params = {
        "path": Param(None, "the model file (a zip written by `parlour train`)", type=str),
        "deterministic": Param(True, "play the most probable legal action (false: sample it)"),
    }

    def setup(self) -> None:
        path = self.config["path"]
        if not path:
            raise ValueError("policy 'ppo' needs a model file: ppo:runs/NAME/best.zip or ppo:path=...")
        self.actor = MaskedActor(load_model(path, self.game), self.config["deterministic"])

    def act(self, info_state: Any) -> int:
        player = info_state.player
        state = info_state.sample(self.rng)
        return self.actor.choose(state.observation_tensor(player), state.legal_mask(player), self.rng)

    def act_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The same choice from the seat's observation tensor and legal mask."""
        return self.actor.choose(observation, mask, self.rng)

    def distribution(self, info_state: Any) -> np.ndarray:
        """The model's masked policy over the moves of ``info_state`` (zero off them): the
        distribution it draws from, or plays the mode of (what a learner distilling it is
        pulled towards: ``parlour.training.teacher``; its batched form's ``probabilities``)."""
        player = info_state.player
        state = info_state.sample(self.rng)
        mask = state.legal_mask(player)
        return np.where(np.asarray(mask, dtype=bool), self.actor.probabilities(state.observation_tensor(player), mask), 0.0)

    def __getstate__(self) -> dict[str, Any]:
        # The torch model travels as its file name: workers load it themselves.
        return {k: v for k, v in self.__dict__.items() if k != "actor"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.setup()
