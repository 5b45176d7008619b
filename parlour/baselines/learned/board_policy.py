"""The PPO policy for games whose moves are cells of the board (``Game.action_planes``):
every action's logit comes from its own cell's features.

``BoardCNN`` with SB3's usual heads flattens the board and maps it to the 176 or 864
logits through dense layers, so what it learns about a move on one cell teaches it
nothing about the same pattern on another; with a few hundred thousand PPO steps it
learned no more than the flat MLP did (docs/results.md). Here the residual trunk keeps
its maps of the board to the end and a 1x1 convolution turns each cell's features into
the logits of the ``k`` kinds of move on that cell (the fully convolutional policy head
of Go and Othello programs): a good move's pattern is worth the same everywhere. The
value is AlphaZero's head: a 1x1 convolution to two maps, then dense layers
(``ppo.net_arch``) to the latent SB3's value layer reads.

SB3 builds a policy from three parts, and this fills them: ``BoardTrunk`` is the
features extractor (the maps, flattened), ``BoardHeads`` the "mlp_extractor" whose
policy latent is already the logits, and the action layer is the identity. The model
file names these classes, so it loads wherever parlour is installed; it needs the
``train`` extra.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from parlour.baselines.learned.board_layers import board_trunk, cell_value_layers, check_board_shape
from parlour.baselines.learned.network_choice import check_precision


class BoardTrunk(BaseFeaturesExtractor):
    """The stem and residual blocks; features: the ``channels`` maps, flattened.

    ``precision="bfloat16"`` runs the convolutions under torch's autocast (weights,
    gradients and the optimizer stay float32; the maps come out as float32): on CPUs
    with bfloat16 instructions the trunk's update costs half as much per position
    (benchmarks/RESULTS.md, "Self-play on the batched engines"). The model file keeps
    the choice, so snapshots and loaded players compute as the learner did.  ``lines``:
    the residual blocks' first convolutions see that many cells either side along the
    board's lines (``board_layers.LineConv``), 0 their 3x3 neighbours."""

    def __init__(self, observation_space: gymnasium.spaces.Box, channels: int = 32, blocks: int = 2,
                 precision: str = "float32", lines: int = 0) -> None:
        shape = tuple(observation_space.shape)
        check_board_shape(shape, channels, blocks, 1, 1)
        check_precision(precision, "cnn", 1)  # this is the board policy's trunk
        planes, rows, columns = shape
        super().__init__(observation_space, channels * rows * columns)
        self.maps = (channels, rows, columns)
        self.precision = precision
        self.trunk = nn.Sequential(board_trunk(planes, channels, blocks, lines), nn.Flatten())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        if self.precision == "float32":
            return self.trunk(observations)
        with torch.autocast(device_type=observations.device.type, dtype=torch.bfloat16):
            return self.trunk(observations).float()


class BoardHeads(nn.Module):
    """The policy and value heads over the trunk's maps, in the place of SB3's
    ``MlpExtractor``: ``forward_actor`` gives every action's logit, ``forward_critic``
    the value head's last hidden layer."""

    def __init__(self, maps: tuple[int, int, int], action_planes: int, value_arch: list[int]) -> None:
        super().__init__()
        channels, rows, columns = maps
        self.maps = maps
        self.policy = nn.Conv2d(channels, action_planes, 1)
        layers, width = cell_value_layers(channels, rows, columns, value_arch)
        self.value = nn.Sequential(*layers)
        self.latent_dim_pi = action_planes * rows * columns
        self.latent_dim_vf = width

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy(features.view(-1, *self.maps)).flatten(1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value(features.view(-1, *self.maps))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class BoardPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with ``BoardTrunk`` and ``BoardHeads`` (module docstring).
    The action space must be ``k`` moves on each of the observation's cells, laid out as
    ``Game.action_planes`` says."""

    def __init__(self, observation_space: gymnasium.spaces.Box, action_space: gymnasium.spaces.Discrete,
                 lr_schedule: Any, **kwargs: Any) -> None:
        kwargs.setdefault("features_extractor_class", BoardTrunk)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        trunk = self.features_extractor
        assert isinstance(trunk, BoardTrunk) and isinstance(self.action_space, gymnasium.spaces.Discrete)
        _, rows, columns = trunk.maps
        actions = int(self.action_space.n)
        if actions % (rows * columns):
            raise ValueError(f"BoardPolicy needs k moves per cell of the {rows} x {columns} board; the game has {actions} actions")
        arch = self.net_arch["vf"] if isinstance(self.net_arch, dict) else self.net_arch
        # SB3 reads latent_dim_pi / latent_dim_vf and calls forward_actor / forward_critic:
        # BoardHeads has all four, so it stands where SB3 types an MlpExtractor.
        self.mlp_extractor = BoardHeads(trunk.maps, actions // (rows * columns), list(arch))

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the heads' policy latent is the logits already
        heads = self.mlp_extractor
        assert isinstance(heads, BoardHeads)
        if self.ortho_init:  # small first logits, as SB3 gives its action layer
            heads.policy.apply(partial(self.init_weights, gain=0.01))
        # As SB3 builds it: optimizer_class is a torch optimizer taking lr (Adam by default),
        # which SB3's annotation (the Optimizer base class) does not say.
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
