"""A game's one registration: what every registry of the house reads about it.

Each game package (``parlour/games/<game>/__init__.py``) declares one
:class:`GameEntry`, ``ENTRY``; ``parlour.games`` lists the game packages once
(``GAME_PACKAGES``) and derives ``GAMES`` from their entries, ``parlour.vector`` derives
``ENGINES``, and the upper layers find their per-game modules (pictures, players) by the
registered names.  So a new game is its folder plus one name in that list.
"""

from __future__ import annotations

from dataclasses import dataclass

from parlour.games.base import Game
from parlour.games.engine import BatchedEngine

PACKAGE_FILES = ("__init__.py", "rules.py", "notation.py", "observation.py", "engine.py")
"""The files every game package ``parlour/games/<game>/`` holds, its template
(``tests/games/test_package_template.py`` holds each game to it, and docs/architecture.md's
list of the files of a new game is checked against it)."""


@dataclass(frozen=True)
class GameEntry:
    """A game as the registries know it: its ``Game`` class and, where it has one, its
    batched engine (``parlour.vector.make_engine`` builds it)."""

    game: type[Game]
    engine: type[BatchedEngine] | None = None

    def __post_init__(self) -> None:
        if self.engine is not None and self.engine.game_class is not self.game:
            raise ValueError(f"{self.game.name}: the engine {self.engine.__name__} plays {self.engine.game_name}, not this game")

    @property
    def name(self) -> str:
        """The game's name (``Game.name``): its key in every registry."""
        return self.game.name
