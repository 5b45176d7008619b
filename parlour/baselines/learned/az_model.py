"""The policy-value network of the search-guided learner, its model file, and the
evaluator that lets it guide ``PUCT``.

The network reads one seat's observation tensor (the same array the environments give
that seat) and outputs logits over all actions and one value per seat *relative to the
observer*: entry ``k`` is the return of seat ``(observer + k) % num_players``.  Relative
values let one network play every seat, as the observations are already from the
observer's point of view (Tribolo's planes are "mine, next, the one after").  The trunk
is ``BoardCNN`` for board planes and two dense layers for flat observations, chosen as
``parlour train``'s ``network`` setting chooses for PPO.

A model file is a zip, like the PPO ones: ``parlour.json`` (the game, its options, the
observation and action sizes, and the network's shape) and ``weights.pt`` (the state
dict, read back with ``torch.load(weights_only=True)``, so loading runs no pickled
code).  ``save_az_model`` writes it atomically.
"""

from __future__ import annotations

import copy
import io
import json
import os
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
from gymnasium import spaces
from torch import nn

from parlour.atomic import replace_atomic
from parlour.baselines.engines.puct import Evaluation, Request, random_rollout
from parlour.baselines.engines.vector_puct import Leaves, random_playouts
from parlour.baselines.learned.board_layers import board_trunk, cell_value_layers
from parlour.baselines.learned.networks import BoardCNN
from parlour.baselines.learned.numpy_mlp import NumpyMLP
from parlour.baselines.learned.ppo import META_ENTRY, check_model_game, model_meta, read_model_meta
from parlour.errors import DamagedFileError
from parlour.games.base import Game, State
from parlour.games.engine import BatchedEngine

WEIGHTS_ENTRY = "weights.pt"
KIND = "alphazero"


class PolicyValueNet(nn.Module):
    """Logits over the actions and relative values per seat (see the module docstring).

    ``action_planes`` (with ``network="cnn"``, for games whose moves are cells,
    ``Game.action_planes``): the board trunk keeps its maps and a 1x1 convolution gives
    each move its logit from its own cell, the value coming from AlphaZero's head (a 1x1
    convolution to two maps, then dense layers), as PPO's ``BoardPolicy`` does; without
    it, ``BoardCNN``'s features feed dense heads (model files from before have none)."""

    trunk: nn.Module
    policy_head: nn.Module
    value_head: nn.Module

    def __init__(self, observation_shape: tuple[int, ...], num_actions: int, num_players: int,
                 network: str = "mlp", channels: int = 32, blocks: int = 2, hidden: int = 128,
                 action_planes: int | None = None) -> None:
        super().__init__()
        self.shape = {"observation_shape": list(observation_shape), "num_actions": num_actions, "num_players": num_players,
                      "network": network, "channels": channels, "blocks": blocks, "hidden": hidden}
        self.cells = action_planes is not None
        if action_planes is not None:
            if network != "cnn" or len(observation_shape) != 3:
                raise ValueError(f"action_planes needs the cnn network on board planes, got network {network!r} "
                                 f"and shape {tuple(observation_shape)}")
            planes, rows, columns = observation_shape
            if action_planes * rows * columns != num_actions:
                raise ValueError(f"action_planes={action_planes} on a {rows} x {columns} board gives "
                                 f"{action_planes * rows * columns} actions, not {num_actions}")
            self.shape["action_planes"] = action_planes
            self.trunk = board_trunk(planes, channels, blocks)
            self.policy_head = nn.Sequential(nn.Conv2d(channels, action_planes, 1), nn.Flatten())
            layers, width = cell_value_layers(channels, rows, columns, [hidden])
            self.value_head = nn.Sequential(*layers, nn.Linear(width, num_players))
            return
        if network == "cnn":
            box = spaces.Box(0.0, 1.0, tuple(observation_shape), dtype=np.float32)
            self.trunk = BoardCNN(box, channels=channels, blocks=blocks, features_dim=2 * hidden)
            features = 2 * hidden
        elif network == "mlp":
            size = int(np.prod(observation_shape))
            self.trunk = nn.Sequential(nn.Flatten(), nn.Linear(size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            features = hidden
        else:
            raise ValueError(f"network must be 'mlp' or 'cnn', got {network!r}")
        self.policy_head = nn.Linear(features, num_actions)
        self.value_head = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, num_players))

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.trunk(observations)
        return self.policy_head(features), self.value_head(features)


def absolute_values(relative: np.ndarray, observer: int) -> np.ndarray:
    """Per-seat values from values relative to ``observer`` (``relative[k]`` is seat
    ``(observer + k) % n``'s)."""
    if observer == 0:
        return relative
    return np.concatenate((relative[..., -observer:], relative[..., :-observer]), axis=-1)


def relative_values(returns: np.ndarray, observer: int) -> np.ndarray:
    """The inverse of ``absolute_values``: the value targets of ``observer``'s position."""
    return np.roll(returns, -observer, axis=-1)


class NetworkEvaluator:
    """``PUCT``'s evaluator: priors from each seat to move's own observation, and the
    mean of their value estimates (one seat's alone at a turn).

    ``rollout_mix`` (lambda) mixes in the returns of one random playout from the leaf:
    ``(1 - lambda) * network + lambda * playout``, AlphaGo's leaf evaluation (Silver et al.
    2016 mixed at 0.5).  With it the search is at least as strong as plain MCTS while the
    value network is still untrained, so early self-play produces useful targets (expert
    iteration with an MCTS expert, as in Anthony et al. 2017); ``rng`` draws the playouts.

    ``min_batch``: the network is called on at least this many rows (the rest zeros).
    torch's CPU kernels differ with the batch's size below about 16 rows (a row alone
    is computed by another kernel than in a batch of 64, to the last bit), so self-play
    pads every call to 16 rows: then a position gets exactly the same priors and values
    whatever else is evaluated with it, and a game is the same played alone or in a
    batch of any size (:func:`evaluate_together`; a test checks it)."""

    def __init__(self, net: PolicyValueNet, game: Game, rollout_mix: float = 0.0, rng: np.random.Generator | None = None,
                 min_batch: int = 1) -> None:
        if not 0 <= rollout_mix <= 1:
            raise ValueError(f"rollout_mix must be in [0, 1], got {rollout_mix}")
        if rollout_mix > 0 and rng is None:
            raise ValueError("rollout_mix needs a generator for the playouts")
        self.net = net.eval()
        self.game = game
        self.rollout_mix = rollout_mix
        self.rng = rng
        self.min_batch = min_batch

    def __call__(self, state: State, players: tuple[int, ...]) -> tuple[dict[int, np.ndarray], np.ndarray]:
        return evaluate_together([(self, state, players)])[0]

    def finish(self, state: State, players: tuple[int, ...], probs: np.ndarray,
               values: np.ndarray) -> tuple[dict[int, np.ndarray], np.ndarray]:
        """The evaluation of ``state`` from its rows of the network's output."""
        if len(players) == 1:  # a turn: one observer (most calls; no mean to take)
            value = absolute_values(values[0], players[0])
        else:
            value = np.mean([absolute_values(values[i], p) for i, p in enumerate(players)], axis=0)
        if self.rollout_mix:
            assert self.rng is not None  # checked in __init__
            value = (1 - self.rollout_mix) * value + self.rollout_mix * random_rollout(state.clone(), self.rng)
        return {p: probs[i] for i, p in enumerate(players)}, value

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The network's own move distribution over the legal actions (no search)."""
        return masked_policies(self.net, np.asarray(observation)[None], np.asarray(mask)[None])[0]


def masked_policies(net: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(k, num_actions)`` float64: the network's own move distributions (no search) for
    a batch of observations, softmax of its logits over each row's legal actions (zero
    off them); ``net`` a ``PolicyValueNet``, its ``InferenceCopy`` or its ``NumpyMLP``.
    A player alone (``az:...,simulations=0``) calls it with one row, its batched form
    (``alphazero_batched``) with every game it plays at once: the same arithmetic."""
    rows = np.ascontiguousarray(observations, dtype=np.float32)
    if isinstance(net, NumpyMLP):
        logits = net.forward(rows)[0].astype(np.float64)
    else:
        with torch.inference_mode():
            logits = net(torch.from_numpy(rows).to(device_of(net)))[0].double().cpu().numpy()
    logits[np.asarray(masks) == 0] = -np.inf
    return softmax(logits)


SEARCH_BATCH = 16
"""Rows of every network call in self-play, padding included (see ``NetworkEvaluator``)."""


def run_network(net: PolicyValueNet, observations: np.ndarray | list[np.ndarray], min_batch: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(probabilities, relative values)`` in float64 for a batch of observations, the
    network called on at least ``min_batch`` rows (zeros after the real ones)."""
    if isinstance(net, NumpyMLP):  # players' calls, one position each: the padding is for self-play's torch kernels
        logits, values = net.forward(np.asarray(observations, dtype=np.float32))
        return softmax(logits.astype(np.float64)), values.astype(np.float64)
    count = len(observations)
    batch = np.zeros((max(count, min_batch), *np.shape(observations[0])), dtype=np.float32)
    batch[:count] = observations
    with torch.inference_mode():
        logits, values = net(torch.from_numpy(batch).to(device_of(net)))
        probs = torch.softmax(logits.double(), dim=1).cpu().numpy()
    return probs[:count], values.double().cpu().numpy()[:count]


def network_leaves(net: PolicyValueNet, rollout_mix: float = 0.0, max_steps: int = 0) -> Leaves:
    """Leaf evaluations by ``net``: each mover's observation gives its priors and values
    relative to it (made absolute, and averaged over the movers at a simultaneous step,
    as ``NetworkEvaluator`` does); ``rollout_mix`` mixes in one random playout per leaf
    (of at most ``max_steps`` steps: the game's ``max_game_length``).  The vectorised
    search's (``vector_puct``) counterpart of :class:`NetworkEvaluator`."""

    def evaluate(engine: BatchedEngine, rows: np.ndarray, movers: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k, M = movers.shape
        P = engine.num_players
        observations = engine.observations_of(rows)  # [k, P, *shape]
        batch = observations[np.arange(k)[:, None], movers].reshape(k * M, *observations.shape[2:])
        probs, relative = run_network(net, batch, SEARCH_BATCH)
        relative = relative.reshape(k, M, P)
        # absolute[..., j] = relative[..., (j - observer) % P]
        index = (np.arange(P)[None, None, :] - movers[:, :, None]) % P
        absolute = np.take_along_axis(relative, index, axis=2)
        values = absolute[:, 0] if M == 1 else absolute.sum(axis=1) / M
        if rollout_mix:
            values = (1 - rollout_mix) * values + rollout_mix * random_playouts(engine, rows, draws.reshape(k, max_steps, -1))
        return probs.reshape(k, M, -1), values

    evaluate.leaf_draws = 0  # type: ignore[attr-defined]
    if rollout_mix:
        if max_steps < 1:
            raise ValueError("a playout needs max_steps, the game's longest")
        evaluate.leaf_draws = max_steps * 2  # type: ignore[attr-defined]  # a float per mover and step; two seats at most
    return evaluate


class InferenceCopy(nn.Module):
    """A bfloat16, channels-last copy of a network for the many calls of a search.

    Self-play spends most of its time in the board network's convolutions at batches of
    16 rows (benchmarks/self_play.py).  On a CPU with native bfloat16 (AVX-512 BF16, AMX)
    oneDNN runs them about twice as fast in bfloat16 with the maps stored channels-last,
    as KataGo and Leela evaluate in half precision while training in float32.  Priors and
    values keep about three significant digits, far below the noise of a search's visit
    counts.  The copy is made once per batch of games; training never sees it.  On a CPU
    without native bfloat16 torch emulates it, slower than float32: keep ``float32``."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        # Module.to takes memory_format too (torch's docs).
        self.net = copy.deepcopy(net).eval().to(dtype=torch.bfloat16, memory_format=torch.channels_last)

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = observations.to(torch.bfloat16)
        if x.dim() == 4:
            x = x.contiguous(memory_format=torch.channels_last)
        logits, values = self.net(x)
        return logits.float(), values.float()


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of float64 logits (``-inf`` entries get probability 0)."""
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def device_of(net: nn.Module) -> torch.device:
    """Where the network's weights are (its inputs go there)."""
    return next(net.parameters()).device


def evaluate_together(requests: list[Request]) -> list[Evaluation]:
    """The evaluations of many positions (``PUCT`` requests of evaluators sharing one
    network, e.g. the searches of many self-play games) with one call of the network:
    every seat to move's observation in one batch, padded to the evaluators' ``min_batch``.
    Every request's evaluator is a :class:`NetworkEvaluator` (what ``PUCT`` is given to
    search with a network)."""
    evaluators = cast("list[NetworkEvaluator]", [evaluator for evaluator, _, _ in requests])
    rows = [state.observation_tensor(p) for _, state, players in requests for p in players]
    probs, values = run_network(evaluators[0].net, rows, max(evaluator.min_batch for evaluator in evaluators))
    out, first = [], 0
    for evaluator, (_, state, players) in zip(evaluators, requests):
        last = first + len(players)
        out.append(evaluator.finish(state, players, probs[first:last], values[first:last]))
        first = last
    return out


# --- the model file ------------------------------------------------------------------------


def save_az_model(net: PolicyValueNet, path: str | os.PathLike, game: Game, extra: dict[str, Any] | None = None) -> Path:
    """Write ``net`` for ``game`` to ``path`` atomically (see the module docstring)."""
    path = Path(path)
    buffer = io.BytesIO()
    torch.save(net.state_dict(), buffer)
    meta = json.dumps({**model_meta(game), "kind": KIND, "net": net.shape, **(extra or {})}, default=list)

    def write(tmp: str) -> None:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(META_ENTRY, meta)
            archive.writestr(WEIGHTS_ENTRY, buffer.getvalue())

    replace_atomic(path, write, suffix=".tmp.zip")
    return path


def read_az_net(path: str | os.PathLike) -> tuple[PolicyValueNet, dict[str, Any]]:
    """The network in an alphazero model file and the file's metadata (clear errors for a
    missing, damaged or PPO file)."""
    meta = read_model_meta(path)
    if meta.get("kind") != KIND:
        raise ValueError(f"model file {str(path)!r} is not an alphazero model (a PPO model plays as ppo:{path})")
    try:
        shape = dict(meta["net"])
        net = PolicyValueNet(tuple(shape.pop("observation_shape")), **shape)
        with zipfile.ZipFile(path) as archive:
            weights = torch.load(io.BytesIO(archive.read(WEIGHTS_ENTRY)), map_location="cpu", weights_only=True)
        net.load_state_dict(weights)
    except (KeyError, TypeError, ValueError, RuntimeError, zipfile.BadZipFile, EOFError, OSError) as error:
        raise DamagedFileError(f"model file {str(path)!r} cannot be loaded: {type(error).__name__}: {error}") from None
    return net.eval(), meta


_nets: OrderedDict[tuple[str, int, int, int], PolicyValueNet] = OrderedDict()
NET_CACHE_SIZE = 16


def load_az_net(path: str | os.PathLike, game: Game) -> PolicyValueNet:
    """The network of ``path``, checked against ``game``; cached by file (path, inode, size,
    modification time) for inference."""
    meta = read_model_meta(path)
    check_model_game(meta, game, path)
    stat = os.stat(path)
    key = (os.path.realpath(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)  # a rewritten file has a new inode
    net = _nets.pop(key, None)
    if net is None:
        net, _ = read_az_net(path)
        while len(_nets) >= NET_CACHE_SIZE:
            _nets.popitem(last=False)
    _nets[key] = net
    return net
