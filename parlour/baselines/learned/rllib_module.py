"""The RLlib module parlour's games train: a masked policy and a value over one encoder.

RLlib's default encoders have no config for a dict observation, and its action-masking
example module builds an MLP only (Tribolo's 5 x 11 x 16 planes need ``conv_filters``
there).  This module reads the env's ``{"observations", "action_mask"}`` itself:

- the encoder is the board network of ``parlour train`` (``board_layers``: 3x3
  residual convolutions, a 1x1 head kept per cell, the planes' means joined after)
  for observations with planes, or an MLP for flat ones (``network="auto"`` picks by
  the observation's rank, as ``parlour train --network auto`` does);
- the policy head's logits get ``log(mask)`` added (clamped to RLlib's ``FLOAT_MIN``),
  so forbidden moves get probability zero in exploration, inference and the loss;
- the value head reads the same features (PPO's ``ValueFunctionAPI``).

Model settings (``model_config``): ``network`` (``auto``, ``mlp`` or ``cnn``),
``hidden`` (the MLP's layer sizes), ``channels``, ``blocks``, ``head_channels``,
``features_dim`` (the board network's).
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from parlour.baselines.learned.board_layers import board_features, board_layers
from parlour.baselines.learned.network_choice import NETWORKS

DEFAULTS: dict[str, Any] = {"network": "auto", "hidden": [256, 256], "channels": 32, "blocks": 2, "head_channels": 8,
                            "features_dim": 256}


def model_settings(model_config: dict[str, Any] | None, strict: bool = True) -> dict[str, Any]:
    """``DEFAULTS`` updated by ``model_config``; an unknown network is an error, and so is
    an unknown key if ``strict`` (RLlib adds its own keys, e.g. PPO's ``vf_share_layers``,
    to the config a module is built with: the module reads only its own)."""
    given = dict(model_config or {})
    unknown = sorted(set(given) - set(DEFAULTS))
    if not strict:
        given = {key: value for key, value in given.items() if key in DEFAULTS}
    elif unknown:
        raise ValueError(f"unknown model_config key(s) {unknown} for parlour's RLlib module; keys are {sorted(DEFAULTS)}")
    settings = {**DEFAULTS, **given}
    if settings["network"] not in NETWORKS:
        raise ValueError(f"model_config network must be one of {list(NETWORKS)}, got {settings['network']!r}")
    return settings


class MaskedEncoder(nn.Module):
    """Observation planes or vector -> features (see the module docstring)."""

    def __init__(self, shape: tuple[int, ...], settings: dict[str, Any]) -> None:
        super().__init__()
        network = settings["network"]
        if network == "auto":
            network = "cnn" if len(shape) == 3 else "mlp"
        self.network = network
        if network == "cnn":
            self.trunk, self.joint = board_layers(shape, settings["channels"], settings["blocks"],
                                                  settings["head_channels"], settings["features_dim"])
            self.features_dim = settings["features_dim"]
        else:
            layers: list[nn.Module] = [nn.Flatten()]
            size = 1
            for dim in shape:
                size *= dim
            for width in settings["hidden"]:
                layers += [nn.Linear(size, width), nn.Tanh()]
                size = width
            self.mlp = nn.Sequential(*layers)
            self.features_dim = size

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        if self.network == "cnn":
            return board_features(self.trunk, self.joint, observations)
        return self.mlp(observations)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """PPO's policy and value for a parlour env (see the module docstring)."""

    def setup(self) -> None:
        # The env's spaces, and the model_config dict the training config built (model_settings).
        assert isinstance(self.observation_space, gymnasium.spaces.Dict) and isinstance(self.action_space, gymnasium.spaces.Discrete)
        settings = model_settings(cast("dict[str, Any] | None", self.model_config), strict=False)
        inner = self.observation_space["observations"]
        assert inner.shape is not None
        self.encoder = MaskedEncoder(tuple(inner.shape), settings)
        self.pi = nn.Linear(self.encoder.features_dim, int(self.action_space.n))
        self.vf = nn.Linear(self.encoder.features_dim, 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        observations = batch[Columns.OBS]
        features = self.encoder(observations["observations"])
        logits = self.pi(features) + torch.clamp(torch.log(observations["action_mask"]), min=FLOAT_MIN)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.encoder(batch[Columns.OBS]["observations"])
        return self.vf(embeddings).squeeze(-1)
