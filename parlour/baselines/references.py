"""Each game's reference opponents: what a trained agent of that game is measured against.

A game's players module registers a function of the configured game (the right opponents
can depend on the options, e.g. the exact solver only for small Goofspiel), so that
training, the results script and the docs pick opponents by lookup, never by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from parlour.games.base import Game


@dataclass(frozen=True)
class References:
    """Policy specs of one configured game's reference opponents.

    ``original``: the game's original AI (from the document the game came from);
    ``quick``: a strong player fast enough for a few hundred games at every evaluation
    during training; ``strongest``: the strongest baseline, for the final arena;
    ``final_games``: games per pairing there (fewer where the strongest player needs
    seconds per game).
    """

    original: str
    quick: str
    strongest: str
    final_games: int = 100
    random: str = "random"

    def final(self) -> dict[str, str]:
        """The final arena's opponents by role: random, the original AI, the strongest."""
        return {"random": self.random, "original": self.original, "strongest": self.strongest}


_REFERENCES: dict[str, Callable[[Game], References]] = {}


def register_references(game_name: str) -> Callable[[Callable[[Game], References]], Callable[[Game], References]]:
    """Decorator: ``fn(game) -> References`` gives the reference opponents of ``game_name``."""

    def decorate(fn: Callable[[Game], References]) -> Callable[[Game], References]:
        _REFERENCES[game_name] = fn
        return fn

    return decorate


def references(game: Game) -> References:
    """The reference opponents of ``game``: those its players module registered, else
    :func:`generic_references`."""
    fn = _REFERENCES.get(game.name)
    return fn(game) if fn is not None else generic_references(game)


def generic_references(game: Game) -> References:
    """Reference opponents for a game that parlour has no players module for (an
    OpenSpiel game through ``parlour.interop.openspiel``): the generic tree search that
    fits the game (MCTS; sm-MCTS where seats move at once; IS-MCTS where something is
    hidden) at 100 simulations per move as the quick opponent, and in the ``original``
    role, since such a game has no original AI in parlour, and at 1,000 as the strongest."""
    if game.simultaneous:
        search = "sm-mcts"
    elif game.info.perfect_information:
        search = "mcts"
    else:
        search = "ismcts"
    return References(original=f"{search}:simulations=100", quick=f"{search}:simulations=100",
                      strongest=f"{search}:simulations=1000", final_games=20)
