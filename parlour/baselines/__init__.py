"""Baseline policies: random, the seeds' players, minimax, alpha-beta, MCTS, and
search for simultaneous and hidden-information play, all on the games layer.

``make(name, game, seed=None, **params)`` builds one; ``describe()`` lists them
with their parameters; ``REGISTRY`` maps names to classes.  Every module of this
package registers its policies when imported, and this package imports them all.
"""

import importlib
import pkgutil

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
)

# Modules whose name starts with "_" are work in progress and stay out of the registry.
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")):
    importlib.import_module(f"{__name__}.{_module}")

__all__ = ["REGISTRY", "Param", "Policy", "describe", "lookup", "make", "make_from_spec", "parse_spec", "register"]
