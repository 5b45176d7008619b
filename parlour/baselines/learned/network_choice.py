"""Which network a learned player computes with, and how: the allowed values, defined
once for every place that reads them (the training settings, the PPO policy's
construction, the board policy's trunk, the RLlib module).

Plain Python, no torch: the training configuration checks its settings with these
before torch or SB3 is imported.  Only ``native_bfloat16``, asked when a PPO run on the
batched board network resolves ``cnn_precision = "auto"``, imports torch to ask the CPU.
"""

from __future__ import annotations

import importlib.util
from functools import cache

NETWORKS = ("auto", "mlp", "cnn")
"""A network setting's values: ``mlp`` (dense layers on the flat observation), ``cnn``
(the residual CNN over board planes), or ``auto``: ``cnn`` where the observation is board
planes (a 3-D observation: Tribolo, Double Card), else ``mlp``."""

PRECISIONS = ("float32", "bfloat16")
"""What the board policy's convolutions compute in: ``float32``, or under ``bfloat16``
autocast (``board_policy.BoardTrunk``)."""


@cache
def native_bfloat16() -> bool:
    """Whether this CPU computes bfloat16 in hardware (AVX-512 BF16 or AMX, as torch's
    oneDNN reports it).  Elsewhere torch emulates bfloat16 autocast: measured on a 2-core
    AVX2 EPYC, a 48-channel Tribolo board policy took 23.7 ms a forward pass under it
    against 3.2 ms in float32, so ``auto`` precision asks for it only where it is native.
    ``False`` without torch (the choice is then moot)."""
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a torch without the check: do not guess
        return False


def choose_network(network: str, shape: tuple[int, ...], game: str) -> str:
    """``mlp`` or ``cnn`` for a game whose observation has ``shape`` (``auto``: ``cnn``
    for board planes, i.e. a 3-D observation); ``ValueError`` for ``cnn`` without a board."""
    if network not in NETWORKS:
        raise ValueError(f"network must be one of {list(NETWORKS)}, got {network!r}")
    board = len(shape) == 3
    if network == "auto":
        return "cnn" if board else "mlp"
    if network == "cnn" and not board:
        raise ValueError(
            f"network 'cnn' needs board planes (an observation of shape (channels, rows, columns)); "
            f"{game}'s observation has shape {tuple(shape)}: use 'mlp'"
        )
    return network


def check_precision(precision: str, network: str, action_planes: int | None, name: str = "precision") -> None:
    """``ValueError`` unless ``precision`` is one of :data:`PRECISIONS` and, other than
    ``float32``, is asked of the board policy (``network`` ``cnn`` on a game whose moves
    are cells: ``action_planes``), the one network that computes in it.  ``name``: the
    setting's name in the message."""
    if precision not in PRECISIONS:
        raise ValueError(f"{name} must be one of {list(PRECISIONS)}, got {precision!r}")
    if precision != "float32" and (network != "cnn" or action_planes is None):
        raise ValueError(f"{name} {precision!r} is for the board policy (network 'cnn' on a game whose moves are cells: "
                         "Tribolo, Double Card); use 'float32'")
