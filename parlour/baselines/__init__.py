"""Baseline policies, all playing on the games layer.

Layout (one job per folder):

- ``policy``: the policy protocol (``act(info_state)``), parameters and the registry
  (``make``, ``make_from_spec``, ``describe``);
- ``references``: each game's reference opponents (random, the original AI, a quick
  strong player, the strongest), which training and the results rate agents against;
- ``engines/``: the generic players, which never name a game: random, minimax,
  alpha-beta / paranoid, MCTS, sm-MCTS, PIMC, IS-MCTS, the exact equilibrium solver,
  and the leaf heuristics registry they share;
- ``players/``: everything one game knows, a module per game (its original AI, its
  heuristics, its own solver, its reference opponents), registered with the generic
  registries when imported;
- ``learned/``: players backed by trained models (``ppo:``, ``az:``, ``ntuple:``, and
  ``zoo:``, the shipped agents: ``zoo_agent(game)``) and their file formats;
- ``external``: players from outside parlour (a Python function, an SB3 model file, a
  TorchScript policy), for the arena and the benchmark.

Importing this package imports every module of those folders, so every name is
registered; torch and Stable-Baselines3 are only imported when a model is loaded.
"""

from parlour.baselines import engines, external, learned, players  # noqa: F401  (registers every policy)
from parlour.baselines.learned.zoo_player import zoo_agent
from parlour.baselines.policy import (
    REGISTRY,
    Param,
    Policy,
    describe,
    lookup,
    make,
    make_from_spec,
    parse_spec,
    register,
    unregister,
)
from parlour.baselines.references import References, references

__all__ = [
    "REGISTRY",
    "Param",
    "Policy",
    "References",
    "describe",
    "lookup",
    "make",
    "make_from_spec",
    "parse_spec",
    "references",
    "register",
    "unregister",
    "zoo_agent",
]
