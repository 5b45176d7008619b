"""``zoo:GAME``: the model zoo's agent for a game (``parlour.zoo``, its cards and model
files), as a policy spec; ``zoo:GAME-VARIANT`` another of its entries
(``zoo:tides_of_time-ppo``, a PPO network); :func:`zoo_agent` is the same from Python.

It is the card's own player (``az:``, ``ppo:`` or ``ntuple:`` on the shipped model file,
made with the card's parameters) under a name that does not depend on where parlour is
installed; ``simulations``, ``deterministic``, ``temperature`` and ``inference`` override
the card's.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from parlour.baselines.policy import Param, Policy, make, register
from parlour.games import load_game
from parlour.zoo import available, card, split_entry


@runtime_checkable
class ObservationPlayer(Protocol):
    """A learned player that also moves from an observation and its mask alone (the
    ``az:``, ``ppo:`` and ``ntuple:`` players, every kind a zoo card names)."""

    def act_observation(self, observation: np.ndarray, mask: np.ndarray) -> int: ...


@register
class ZooPolicy(Policy):
    name = "zoo"
    summary = ("The model zoo's trained agent for the game (`zoo`, or `zoo:GAME`; another of its entries: `zoo:GAME-VARIANT`, "
               "such as `zoo:tides_of_time-ppo`; see parlour.zoo); a network agent needs the train extra.")
    source = "parlour's own training runs (each card states its command)"
    positional = "entry"
    params = {
        "entry": Param(None, "the zoo entry: a game's name (default: the game played) or GAME-VARIANT (tides_of_time-ppo)", type=str),
        "simulations": Param(None, "search simulations per move (None: the card's; 0: the network alone)", int),
        "deterministic": Param(None, "play the most visited or probable move (None: the card's)", bool),
        "temperature": Param(None, "with deterministic=false, the sampling temperature (None: the card's)", float),
        "inference": Param(None, "a network agent's arithmetic in its search, as az's inference= (None: the card's)", str),
    }

    @classmethod
    def unsupported(cls, game: Any, full_states: bool = False) -> str | None:
        if game.name not in available():
            return f"the zoo has no agent for it yet (it has agents for {', '.join(available()) or 'no game'})"
        try:
            return card(game.name).plays(game)
        except ValueError as error:  # a damaged card or another rules version: said when it is asked for
            return str(error)

    def setup(self) -> None:
        entry = self.config["entry"] or self.game.name
        game, _ = split_entry(entry)
        if game != self.game.name:
            raise ValueError(f"zoo:{entry} is the zoo's {game} agent; it cannot play {self.game.name} (use zoo:{self.game.name})")
        self.card = card(entry)
        reason = self.card.plays(self.game)
        if reason:
            raise ValueError(reason)
        overrides = {key: self.config[key] for key in ("simulations", "deterministic", "temperature", "inference")}
        if self.card.kind == "ppo" and any(overrides[key] is not None for key in ("simulations", "temperature", "inference")):
            raise ValueError(f"the zoo's {entry} agent is a ppo model (no search): simulations, temperature and inference do not apply")
        if self.card.kind == "ntuple" and any(value is not None for value in overrides.values()):
            raise ValueError(f"the zoo's {entry} agent is an n-tuple evaluation inside an alpha-beta search: "
                             "simulations, deterministic, temperature and inference do not apply")
        self.inner = make(self.card.kind, self.game, seed=self.seed, path=str(self.card.model), **self.card.player_params(**overrides))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.inner.reset(seed)

    def act(self, info_state: Any) -> int:
        action = self.inner.act(info_state)
        self.stats = self.inner.stats
        return action

    def distribution(self, info_state: Any) -> np.ndarray | None:
        """The card's player's own distribution over the moves of ``info_state``, what a
        learner distilling it is pulled towards (a network alone: its masked policy; an
        AlphaZero search: its visit counts), or ``None`` for a player that cannot say one
        (an n-tuple search without ``temperature``)."""
        own = getattr(self.inner, "distribution", None)
        return None if own is None else own(info_state)

    def act_observation(self, observation: Any, mask: np.ndarray | None = None) -> int:
        """The agent's move from a seat's observation: a PettingZoo observation
        (``{"observation": ..., "action_mask": ...}``) or the array and the mask.  A
        network agent plays its network alone (no search); an n-tuple agent searches from
        the position the observation shows (its game's observation determines it)."""
        if isinstance(observation, dict):
            observation, mask = observation["observation"], observation["action_mask"]
        if mask is None:
            raise ValueError("act_observation needs the legal mask: pass the PettingZoo observation dict, or the mask")
        assert isinstance(self.inner, ObservationPlayer), f"a zoo card's {self.card.kind!r} player plays from observations"
        return self.inner.act_observation(np.asarray(observation, dtype=np.float32), np.asarray(mask).astype(bool))

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "inner"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.setup()


def zoo_agent(entry: str, seed: int | None = None, **overrides: Any) -> ZooPolicy:
    """The zoo's agent ``entry`` (a game's name, its default agent, or ``GAME-VARIANT``
    such as ``tides_of_time-ppo``), on the options it was trained with
    (``ZooCard.game_options``), as a policy; ``overrides`` change how it plays
    (``simulations=0``: the network alone).  ``ValueError`` naming the entries the zoo
    has, or why its card cannot be used."""
    made = card(entry)  # the zoo's own error for an entry it does not have
    return ZooPolicy(load_game(made.game, **made.game_options), seed=seed, entry=entry, **overrides)
