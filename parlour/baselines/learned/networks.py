"""Networks for the learned players: a residual CNN over a board game's planes.

A flat MLP reads Tribolo's 5 x 11 x 16 planes or Double Card's 12 x 8 x 12 as 880 or
1,152 unrelated numbers: nothing tells it that a pattern means the same on every
cell.  ``BoardCNN`` shares 3x3 filters over the board (the AlphaZero trunk, small:
a stem convolution and ``blocks`` residual blocks of ``channels`` filters), keeps the
board's layout to the end (a 1x1 convolution to ``head_channels`` planes, flattened, so
that a move's logit can depend on its own cell), and joins the non-board features after
the convolutions: every plane's mean over the board, which for the planes a game fills
uniformly (Double Card's "you play colors", "recycling", moves played) is the feature
itself.  No batch normalisation: PPO switches the policy between training and
evaluation modes, and with small batches of self-play positions the running statistics
would differ from the batch ones.

It is an SB3 ``BaseFeaturesExtractor`` around the layers of ``board_layers`` (torch
only, shared with the RLlib module), so MaskablePPO uses it through
``policy_kwargs={"features_extractor_class": BoardCNN, ...}`` and saves it by reference
in the model file: a model trained with it loads wherever parlour is installed.
The module imports torch and SB3: import it only when the ``train`` extra is there.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from parlour.baselines.learned.board_layers import board_features, board_layers, check_board_shape
from parlour.baselines.learned.network_choice import check_precision


class BoardCNN(BaseFeaturesExtractor):
    """Features of board planes (see the module docstring): ``features_dim`` numbers
    from the flattened head planes and the planes' means, through one linear layer."""

    def __init__(
        self,
        observation_space: gymnasium.spaces.Box,
        channels: int = 32,
        blocks: int = 2,
        head_channels: int = 8,
        features_dim: int = 256,
    ) -> None:
        shape = tuple(observation_space.shape)
        check_board_shape(shape, channels, blocks, head_channels, features_dim)
        super().__init__(observation_space, features_dim)
        self.trunk, self.joint = board_layers(shape, channels, blocks, head_channels, features_dim)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return board_features(self.trunk, self.joint, observations)


def ppo_policy(network: str, net_arch: list[int], cnn: dict[str, Any], shared: bool = True,
               action_planes: int | None = None, precision: str = "float32") -> tuple[Any, dict[str, Any]]:
    """MaskablePPO's policy and ``policy_kwargs`` for a chosen network: ``mlp``, SB3's
    dense layers on the flat observation; ``cnn``, ``board_policy.BoardPolicy`` (a logit
    from each move's own cell) when the game's moves are cells (``action_planes``), else
    ``BoardCNN`` under SB3's dense heads. ``shared``: one trunk for the policy and the
    value, else one each. ``precision``: the board policy's trunk in ``float32`` or under
    ``bfloat16`` autocast (``board_policy.BoardTrunk``); ``cnn["lines"]``, its blocks'
    line convolutions (``board_layers.LineConv``; the board policy only)."""
    check_precision(precision, network, action_planes)
    kwargs: dict[str, Any] = {"net_arch": list(net_arch)}
    if network != "cnn":
        return "MlpPolicy", kwargs
    kwargs["share_features_extractor"] = shared
    if action_planes is not None:
        from parlour.baselines.learned.board_policy import BoardPolicy

        kwargs["features_extractor_kwargs"] = {key: cnn[key] for key in ("channels", "blocks")}
        if precision != "float32":  # absent from older model files: they load as float32
            kwargs["features_extractor_kwargs"]["precision"] = precision
        if cnn.get("lines"):  # absent from older model files: they load with 3x3 blocks
            kwargs["features_extractor_kwargs"]["lines"] = cnn["lines"]
        return BoardPolicy, kwargs
    if cnn.get("lines"):
        raise ValueError(f"cnn_lines={cnn['lines']} needs the board policy, for games whose moves are cells of the board "
                         f"(Game.action_planes); this game's are not")
    kwargs["features_extractor_class"] = BoardCNN
    kwargs["features_extractor_kwargs"] = {key: cnn[key] for key in ("channels", "blocks")}
    return "MlpPolicy", kwargs
