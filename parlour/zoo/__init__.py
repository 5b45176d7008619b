"""parlour's model zoo: the best trained agent of each game, shipped inside the package.

Users asked OpenSpiel and PettingZoo for trained models to compare against (OpenSpiel
issue 904, PettingZoo issues 226 and 773); pgx ships baseline models for its games.
Here each game's agent is two small files of package data in ``parlour/zoo/models``:

- ``GAME.zip``, the model file as ``parlour train`` (``az:``, ``ppo:``) or
  ``parlour train-ntuple`` (``ntuple:``) wrote it, and
- ``GAME.json``, its card: how it plays (``kind`` and ``play``, the player's parameters),
  the training command and configuration that made it, the parlour version and the
  game's rules version it was made with, and its ``parlour bench`` card.

This package is the data alone (it imports only the rules): finding a card, reading it,
and checking it against the game's rules version (a card made for another version of
the rules is refused: its moves may mean something else).  The players layer makes the
policy: the spec ``zoo:GAME`` plays the agent wherever a policy spec is accepted
(``parlour arena``, ``play``, ``serve``, ``bench``), and
:func:`parlour.baselines.zoo_agent` gives it from Python (``act`` searches from an
information state; ``act_observation`` takes a PettingZoo observation).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from parlour.games import GAMES, load_game

MODELS = Path(str(resources.files("parlour.zoo") / "models"))
"""Where the zoo's files are (package data)."""

KINDS = ("az", "ppo", "ntuple")


@dataclass(frozen=True)
class ZooCard:
    """What the zoo says about one game's agent (``GAME.json``)."""

    game: str
    kind: str
    play: dict[str, Any]
    """The player's parameters (``simulations`` and the like), the path aside."""
    command: str
    config: dict[str, Any]
    parlour_version: str
    rules_version: int
    bench: dict[str, Any]
    notes: str = ""
    run_model: str = "best.zip"
    """Which model file of the training run this is (best.zip; last.zip, its last generation)."""

    @property
    def model(self) -> Path:
        return MODELS / f"{self.game}.zip"

    @property
    def game_options(self) -> dict[str, Any]:
        """The options of the game it was trained on (Goofspiel's agent: 6 cards, the
        bench ladder's game); it plays games whose observations and actions are those."""
        return dict(self.config.get("game_options", {}))

    def plays(self, game: Any) -> str | None:
        """Why this agent cannot play ``game`` (a ``Game``), or ``None`` if it can."""
        trained = load_game(self.game, **self.game_options)
        if (trained.observation_shape, trained.num_actions) == (game.observation_shape, game.num_actions):
            return None
        options = ", ".join(f"{key}={value}" for key, value in self.game_options.items()) or "its default options"
        return f"the zoo's {self.game} agent was trained on {self.game} with {options}; this game's observations and actions differ"

    def player_params(self, **overrides: Any) -> dict[str, Any]:
        """The parameters its ``kind`` of player plays with: the card's ``play``, changed by
        ``overrides`` (``None``: the card's), the model's path aside."""
        return {**self.play, **{key: value for key, value in overrides.items() if value is not None}}

    def spec(self, **overrides: Any) -> str:
        """The policy spec that plays this agent (``az:PATH,simulations=...``), as text to
        show or to give the command line."""
        params = self.player_params(**overrides)
        return ",".join([f"{self.kind}:{self.model}", *(f"{key}={_text(value)}" for key, value in params.items())])


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def available() -> list[str]:
    """The games the zoo has an agent for."""
    return sorted(path.stem for path in MODELS.glob("*.json") if (MODELS / f"{path.stem}.zip").is_file())


def card(game: str) -> ZooCard:
    """The card of ``game``'s agent; ``ValueError`` naming the games the zoo has, or
    saying why the card cannot be used."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games are {sorted(GAMES)}")
    have = available()
    if game not in have:
        raise ValueError(f"the zoo has no agent for {game} yet; it has agents for {', '.join(have) or 'no game'}")
    path = MODELS / f"{game}.json"
    try:
        data = json.loads(path.read_text())
        made = ZooCard(**data)
    except (OSError, ValueError, TypeError) as error:
        raise ValueError(f"zoo card {str(path)!r} cannot be read: {error}") from None
    if made.game != game or made.kind not in KINDS:
        raise ValueError(f"zoo card {str(path)!r} is for game {made.game!r} and kind {made.kind!r}, "
                         f"expected {game!r} and one of {list(KINDS)}")
    version = load_game(game).rules_version
    if made.rules_version != version:
        raise ValueError(f"the zoo's {game} agent was made for version {made.rules_version} of the {game} rules; "
                         f"this parlour plays version {version}: it needs a new model")
    return made

