"""The layers of the board network (see ``networks.BoardCNN`` for why this shape), in
plain torch: SB3's ``BoardCNN`` and the RLlib module of ``parlour.training.backends.rllib`` build
the same trunk from here, so a board reads the same to either library."""

from __future__ import annotations

import torch
from torch import nn


class ResidualBlock(nn.Module):
    """Two 3x3 convolutions and a skip connection (He et al. 2016), ReLU after the sum."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


class LineConv(nn.Module):
    """A convolution along lines: each cell's outputs from the cells up to ``reach`` away
    along its row, its column and its two diagonals (``4 * 2 * reach + 1`` cells; a 3x3
    convolution sees the 9 around it).  Where a game is won by lines (Double Card's four
    in a row) one such layer sees every line through a cell, which a stack of 3x3
    convolutions only sees after ``reach`` of them.  Its parameters are a ``1 x k`` row
    and a ``k x 1`` column convolution (``k = 2 * reach + 1``) and a ``k x k`` pair whose
    weights count only on its two diagonals (initialised as ``k``-tap ones); at each call
    they are added into one ``k x k`` kernel that is zero off the four lines, and the layer
    is that one torch convolution: the sum of the four is the same map, and one kernel of
    ``k * k`` taps does less than three convolutions of ``k``, ``k`` and ``2 * k * k``
    (benchmarks/RESULTS.md, "Line convolutions as one kernel").  Model files store the parts, as before.
    Without gradients (play, evaluation) the kernel is built once and kept until a
    parameter changes (an optimiser's step, a load, a move to another device): building
    it was a third of a move's forward pass."""

    DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
    """Row, column, diagonal, anti-diagonal: a step along each, (rows, columns)."""

    def __init__(self, channels_in: int, channels_out: int, reach: int) -> None:
        super().__init__()
        if reach < 1:
            raise ValueError(f"a line convolution needs a reach of at least 1 cell, got {reach}")
        k = 2 * reach + 1
        self.reach = reach
        self.row = nn.Conv2d(channels_in, channels_out, (1, k), padding=(0, reach))
        self.column = nn.Conv2d(channels_in, channels_out, (k, 1), padding=(reach, 0), bias=False)
        self.diagonals = nn.Conv2d(channels_in, 2 * channels_out, k, padding=reach, bias=False)
        with torch.no_grad():
            self.diagonals.weight.mul_(k**0.5)  # torch's default scale for k inputs a channel, not k * k
        eye = torch.eye(k)
        self.register_buffer("eye", eye, persistent=False)
        self.register_buffer("anti_eye", eye.flip(1).contiguous(), persistent=False)
        self.zero_off_lines()
        self._kept: tuple[tuple[tuple[int, int], ...], torch.Tensor] | None = None

    def zero_off_lines(self) -> None:
        """Zero the diagonal pair's weights off its two diagonals.  They never count (the
        kernel takes the diagonals only, so they get no gradient either); zeros make a model
        file deflate to about half (the zoo's ``scripts/zoo_add.py`` zeroes them in a run's
        model made before this)."""
        half = self.row.out_channels
        with torch.no_grad():
            self.diagonals.weight[:half].mul_(self.eye)
            self.diagonals.weight[half:].mul_(self.anti_eye)

    def kernel(self) -> torch.Tensor:
        """The one ``k x k`` kernel the row, the column and the two diagonals add up to."""
        reach, half = self.reach, self.row.out_channels
        diagonals = self.diagonals.weight
        kernel = diagonals[:half] * self.eye + diagonals[half:] * self.anti_eye
        kernel = kernel + nn.functional.pad(self.row.weight, (0, 0, reach, reach))
        return kernel + nn.functional.pad(self.column.weight, (reach, reach, 0, 0))

    def _versions(self) -> tuple[tuple[int, int], ...]:
        """What identifies the parameters' current values: each one's storage and the count
        of its in-place changes (which an optimiser's step and a load make)."""
        return tuple((weight.data_ptr(), weight._version) for weight in (self.row.weight, self.column.weight, self.diagonals.weight))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled():  # training: the kernel in the graph, so that its parts get gradients
            self._kept = None
            kernel = self.kernel()
        else:
            versions = self._versions()
            if self._kept is None or self._kept[0] != versions:
                self._kept = (versions, self.kernel())
            kernel = self._kept[1]
        return nn.functional.conv2d(x, kernel, self.row.bias, padding=self.reach)


class LineBlock(nn.Module):
    """A residual block whose first convolution is a :class:`LineConv`, the second 3x3."""

    def __init__(self, channels: int, reach: int) -> None:
        super().__init__()
        self.conv1 = LineConv(channels, channels, reach)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


def check_board_shape(shape: tuple[int, ...], channels: int, blocks: int, head_channels: int, features_dim: int) -> None:
    """A clear error for observations that are not planes or sizes that make no network."""
    if len(shape) != 3:
        raise ValueError(f"BoardCNN needs observations of shape (channels, rows, columns), got {shape}")
    for name, value in (("channels", channels), ("head_channels", head_channels), ("features_dim", features_dim)):
        if value < 1:
            raise ValueError(f"BoardCNN {name} must be at least 1, got {value}")
    if blocks < 0:
        raise ValueError(f"BoardCNN blocks must be at least 0, got {blocks}")


def board_trunk(planes: int, channels: int, blocks: int, lines: int = 0) -> nn.Sequential:
    """The stem convolution and ``blocks`` residual blocks: ``channels`` maps of the
    board's size, each cell's computed from the cells around it; with ``lines``, each
    block's first convolution a :class:`LineConv` of that reach."""
    return nn.Sequential(
        nn.Conv2d(planes, channels, 3, padding=1),
        nn.ReLU(),
        *(LineBlock(channels, lines) if lines else ResidualBlock(channels) for _ in range(blocks)),
    )


def cell_value_layers(channels: int, rows: int, columns: int, sizes: list[int]) -> tuple[list[nn.Module], int]:
    """AlphaZero's value head over the trunk's maps, up to its last hidden layer: a 1x1
    convolution to two maps, flattened, then dense layers of ``sizes``; and its width.
    (The policy head beside it is one 1x1 convolution: each move's logit from its own cell.)"""
    layers: list[nn.Module] = [nn.Conv2d(channels, 2, 1), nn.ReLU(), nn.Flatten()]
    width = 2 * rows * columns
    for size in sizes:
        layers += [nn.Linear(width, size), nn.ReLU()]
        width = size
    return layers, width


def board_layers(shape: tuple[int, ...], channels: int = 32, blocks: int = 2, head_channels: int = 8,
                 features_dim: int = 256) -> tuple[nn.Sequential, nn.Sequential]:
    """``(trunk, joint)``: a stem convolution, ``blocks`` residual blocks and a 1x1 head
    to ``head_channels`` planes, flattened; then one linear layer over those and the
    planes' means to ``features_dim`` features."""
    check_board_shape(shape, channels, blocks, head_channels, features_dim)
    planes, rows, columns = shape
    trunk = nn.Sequential(
        *board_trunk(planes, channels, blocks),
        nn.Conv2d(channels, head_channels, 1),
        nn.ReLU(),
        nn.Flatten(),
    )
    joint = nn.Sequential(nn.Linear(head_channels * rows * columns + planes, features_dim), nn.ReLU())
    return trunk, joint


def board_features(trunk: nn.Module, joint: nn.Module, observations: torch.Tensor) -> torch.Tensor:
    """The features of a batch of board planes ``(B, planes, rows, columns)``."""
    board = trunk(observations)
    means = observations.mean(dim=(2, 3))
    return joint(torch.cat([board, means], dim=1))
