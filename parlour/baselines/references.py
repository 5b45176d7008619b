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
    """The reference opponents of ``game``; ``ValueError`` if its players module registered none."""
    try:
        fn = _REFERENCES[game.name]
    except KeyError:
        raise ValueError(f"no reference opponents are registered for {game.name}; games with them: {sorted(_REFERENCES)}") from None
    return fn(game)
