"""``az:runs/NAME/best.zip``: a network trained by ``parlour train --algo alphazero``,
playing with ``PUCT`` search at a stated budget per move, or alone (``simulations=0``).

Like every baseline it acts from its seat's information state: in a game with hidden
information or chance each simulation starts from a fresh sample of the positions that
seat cannot tell apart (see ``parlour.baselines.engines.puct``).  Needs the ``train``
extra (torch); the import happens when a player is made.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from parlour.baselines.engines.gumbel import Gumbel
from parlour.baselines.engines.puct import PUCT, Evaluation, Request, SearchResult, drive, evaluate_each
from parlour.baselines.learned.ppo import read_model_meta, require_train_extra
from parlour.baselines.policy import Param, Policy, register
from parlour.games.base import State

INFERENCE = ("float32", "bfloat16")
"""How self-play's search calls the network (``alphazero.inference``): ``float32``, the
network as it trains; ``bfloat16``, a half-precision copy (``az_model.InferenceCopy``),
about twice as fast on a CPU with native bfloat16."""

PLAY_INFERENCE = (*INFERENCE, "numpy")
"""How a playing ``az`` agent calls it (``inference=``): also ``numpy``, a numpy copy of a
dense network (``numpy_mlp.NumpyMLP``), several times faster at the one leaf per call of
a player's search."""


def inference_network(net: Any, inference: str) -> Any:
    """The network a search calls: ``net`` itself, its bfloat16 ``InferenceCopy`` or its
    ``NumpyMLP`` (needs torch, like ``net``)."""
    if inference not in PLAY_INFERENCE:
        raise ValueError(f"inference must be one of {list(PLAY_INFERENCE)}, got {inference!r}")
    if inference == "float32":
        return net
    if inference == "numpy":
        from parlour.baselines.learned.numpy_mlp import NumpyMLP

        return NumpyMLP(net)
    from parlour.baselines.learned.az_model import InferenceCopy

    return InferenceCopy(net)


def search_from(puct: PUCT, info_state: Any, simulations: int, rng: np.random.Generator, perfect_information: bool) -> SearchResult:
    """``PUCT`` from a seat's information state: one sample searched throughout when
    nothing is hidden, else a fresh sample for every simulation."""
    return drive([searching_from(puct, info_state, simulations, rng, perfect_information)], evaluate_each)[0]


def searching_from(puct: PUCT, info_state: Any, simulations: int, rng: np.random.Generator,
                   perfect_information: bool) -> Generator[Request, Evaluation, SearchResult]:
    """:func:`search_from` as a generator of the positions to evaluate (``puct.drive``)."""
    first = info_state.sample(rng)
    if perfect_information:
        return (yield from puct.searching(first, first.clone, info_state.player, simulations, rng))
    return (yield from puct.searching(first, lambda: info_state.sample(rng), info_state.player, simulations, rng))


@register
class AlphaZeroPolicy(Policy):
    name = "az"
    summary = (
        "A policy-value network trained with `parlour train --algo alphazero`, guiding PUCT search "
        "(spec `az:runs/NAME/best.zip,simulations=100`; simulations=0: the network alone); needs the train extra."
    )
    source = "Silver et al. 2018 (AlphaZero); decoupled selection at simultaneous moves (Lanctot et al. 2013)"
    positional = "path"
    params = {
        "path": Param(None, "the model file (a zip written by `parlour train --algo alphazero`)", type=str),
        "simulations": Param(100, "PUCT simulations per move (0: play the network's own policy)", int),
        "c": Param(1.5, "PUCT exploration constant (values normalised to [0, 1])", float),
        "rollout_mix": Param(None, "weight of one random playout in each leaf's value (None: the training run's setting)", float),
        "deterministic": Param(True, "play the most visited (or, without search, most probable) move; false: sample it", bool),
        "temperature": Param(1.0, "with deterministic=false: sample from the visit counts raised to 1/temperature", float),
        "gumbel": Param(False, "choose at the root by sequential halving (Gumbel AlphaZero, without its random draws) "
                               "and sample from the improved policy instead of the visit counts", bool),
        "inference": Param("float32", f"the network's arithmetic in the search, one of {list(PLAY_INFERENCE)} "
                                      "(bfloat16: about twice as fast on a CPU with native bfloat16; numpy: a dense "
                                      "network several times faster at one leaf per call)", str),
    }

    def setup(self) -> None:
        path = self.config["path"]
        if not path:
            raise ValueError("policy 'az' needs a model file: az:runs/NAME/best.zip or az:path=...")
        if self.config["simulations"] < 0:
            raise ValueError(f"parameter simulations={self.config['simulations']}: must be 0 or more")
        if self.config["c"] < 0:
            raise ValueError(f"parameter c={self.config['c']}: must be >= 0")
        if not self.config["temperature"] > 0:
            raise ValueError(f"parameter temperature={self.config['temperature']}: must be positive")
        if self.config["inference"] not in PLAY_INFERENCE:
            raise ValueError(f"parameter inference={self.config['inference']!r}: must be one of {list(PLAY_INFERENCE)}")
        require_train_extra()
        from parlour.baselines.learned.az_model import NetworkEvaluator, load_az_net

        mix = self.config["rollout_mix"]
        if mix is None:
            mix = float(read_model_meta(path).get("rollout_mix", 0.0))
        if not 0 <= mix <= 1:
            raise ValueError(f"parameter rollout_mix={mix}: must be in [0, 1]")
        net = inference_network(load_az_net(path, self.game), self.config["inference"])
        self.evaluator = NetworkEvaluator(net, self.game, mix, self.rng)
        gumbel = Gumbel(sample=False) if self.config["gumbel"] else None
        self.puct = PUCT(self.evaluator, self.game.num_actions, c=self.config["c"], gumbel=gumbel)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.evaluator.rng = self.rng  # the playouts of rollout_mix draw from the game's generator

    def act(self, info_state: Any) -> int:
        player = info_state.player
        legal = info_state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        sims = self.config["simulations"]
        if sims == 0:
            state: State = info_state.sample(self.rng)
            return self.act_observation(state.observation_tensor(player), state.legal_mask(player))
        result = self.search(info_state)
        if self.config["deterministic"]:
            return result.action
        pi = result.policy(self.game.num_actions, self.config["temperature"])
        return int(self.rng.choice(len(pi), p=pi))

    def distribution(self, info_state: Any) -> np.ndarray:
        """The distribution over the moves of ``info_state`` that this player plays the
        mode of, or draws from with ``deterministic=false`` (what a learner distilling it is
        pulled towards: ``parlour.training.teacher``, ``parlour.training.pretrain``):
        without search (``simulations=0``) the network's masked softmax; with search, a
        fresh search's visit counts raised to ``1/temperature`` (AlphaZero's ``pi``: its
        most visited move is the one :meth:`act` plays, up to ties), or with ``gumbel``
        the improved policy; a position with one legal move puts all weight on it."""
        player = info_state.player
        sims = self.config["simulations"]
        if sims == 0:
            state: State = info_state.sample(self.rng)
            return self.evaluator.policy(state.observation_tensor(player), state.legal_mask(player))
        legal = info_state.legal_actions()
        if len(legal) == 1:
            pi = np.zeros(self.game.num_actions, dtype=np.float32)
            pi[legal[0]] = 1.0
            return pi
        return self.search(info_state).policy(self.game.num_actions, self.config["temperature"]).astype(np.float32)

    def search(self, info_state: Any) -> SearchResult:
        """One search of ``simulations`` from ``info_state``, its figures kept in ``stats``
        (what :meth:`act` and :meth:`distribution` both read)."""
        result = search_from(self.puct, info_state, self.config["simulations"], self.rng, self.game.info.perfect_information)
        self.stats = {"simulations": result.simulations, "visits": result.visits, "value": result.value}
        return result

    def act_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The network's own move from an observation and legal mask (no search)."""
        probs = self.evaluator.policy(observation, mask)
        if self.config["deterministic"]:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs))

    def __getstate__(self) -> dict[str, Any]:
        # The network travels as its file name: workers load it themselves.
        return {k: v for k, v in self.__dict__.items() if k not in ("evaluator", "puct")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.setup()
