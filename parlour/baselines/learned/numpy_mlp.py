"""A numpy copy of a dense (``network="mlp"``) policy-value network, for searches that
evaluate one position per call.

A searching player (``az:...,simulations=N``) asks the network about one leaf at a time.
For the small dense network of a card game (Tides of Time's 128 units) torch then
spends more on the call (module dispatch, tensor wrapping) than on the arithmetic:
a call costs 3-4 times less in numpy, and a move of 200 simulations is 1.7 times faster
(``benchmarks/az_inference.py``), so with the numpy copy the same search fits more
simulations in the same time per move.  Self-play evaluates dozens of leaves per call,
where torch is efficient, and keeps the torch network.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class NumpyMLP:
    """The float32 weights of a dense ``PolicyValueNet``, evaluated with numpy: the same
    logits and values as the network to float32 rounding.  ``run_network`` calls it
    (``forward``) where it would call the network."""

    def __init__(self, net: Any) -> None:
        shape = getattr(net, "shape", {})
        if shape.get("network") != "mlp" or getattr(net, "cells", False):
            raise ValueError(f"inference='numpy' needs a dense network (network='mlp'), this model's is {shape.get('network')!r}")
        self.shape = dict(shape)

        def dense(layer: Any) -> tuple[np.ndarray, np.ndarray]:
            return (np.ascontiguousarray(layer.weight.detach().cpu().numpy().T, dtype=np.float32),
                    layer.bias.detach().cpu().numpy().astype(np.float32))

        self.trunk = [dense(net.trunk[1]), dense(net.trunk[3])]
        self.policy = dense(net.policy_head)
        self.value = [dense(net.value_head[0]), dense(net.value_head[2])]

    def eval(self) -> NumpyMLP:
        """(Always in inference mode; ``NetworkEvaluator`` calls this as on a network.)"""
        return self

    def forward(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits and relative values, float32, for a batch of observations."""
        x = observations.reshape(len(observations), -1)
        for weight, bias in self.trunk:
            x = np.maximum(x @ weight + bias, 0.0)
        (w1, b1), (w2, b2) = self.value
        return x @ self.policy[0] + self.policy[1], np.maximum(x @ w1 + b1, 0.0) @ w2 + b2
