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

It is an SB3 ``BaseFeaturesExtractor``, so MaskablePPO uses it through
``policy_kwargs={"features_extractor_class": BoardCNN, ...}`` and saves it by reference
in the model file: a model trained with it loads wherever parlour is installed.
The module imports torch and SB3: import it only when the ``train`` extra is there.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class ResidualBlock(nn.Module):
    """Two 3x3 convolutions and a skip connection (He et al. 2016), ReLU after the sum."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


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
        if len(shape) != 3:
            raise ValueError(f"BoardCNN needs observations of shape (channels, rows, columns), got {shape}")
        for name, value in (("channels", channels), ("head_channels", head_channels), ("features_dim", features_dim)):
            if value < 1:
                raise ValueError(f"BoardCNN {name} must be at least 1, got {value}")
        if blocks < 0:
            raise ValueError(f"BoardCNN blocks must be at least 0, got {blocks}")
        super().__init__(observation_space, features_dim)
        planes, rows, columns = shape
        self.trunk = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1),
            nn.ReLU(),
            *(ResidualBlock(channels) for _ in range(blocks)),
            nn.Conv2d(channels, head_channels, 1),
            nn.ReLU(),
            nn.Flatten(),
        )
        self.joint = nn.Sequential(nn.Linear(head_channels * rows * columns + planes, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        board = self.trunk(observations)
        means = observations.mean(dim=(2, 3))
        return self.joint(torch.cat([board, means], dim=1))


def policy_kwargs(network: str, net_arch: list[int], cnn: dict[str, Any]) -> dict[str, Any]:
    """MaskablePPO's ``policy_kwargs`` for a chosen network (``mlp`` or ``cnn``)."""
    kwargs: dict[str, Any] = {"net_arch": list(net_arch)}
    if network == "cnn":
        kwargs["features_extractor_class"] = BoardCNN
        kwargs["features_extractor_kwargs"] = dict(cnn)
    return kwargs
