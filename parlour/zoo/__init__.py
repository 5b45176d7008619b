"""parlour's model zoo: the best trained agent of each game, shipped inside the package.

Users asked OpenSpiel and PettingZoo for trained models to compare against (OpenSpiel
issue 904, PettingZoo issues 226 and 773); pgx ships baseline models for its games.
Here each game's agent is two small files of package data in ``parlour/zoo/models``:

- ``GAME.zip``, the model file as ``parlour train`` (``az:``, ``ppo:``) or
  ``parlour train-ntuple`` (``ntuple:``) wrote it, and
- ``GAME.json``, its card: how it plays (``kind`` and ``play``, the player's parameters),
  the training command and configuration that made it, the parlour version and the
  game's rules version it was made with, and its ``parlour bench`` card.

That pair is the game's entry, its default agent.  A game may have more entries, each
named ``GAME-VARIANT`` (``tides_of_time-ppo``, a PPO network that plays in a
millisecond) with its own ``GAME-VARIANT.zip`` and ``GAME-VARIANT.json``; the card's
``game`` is the game, the entry's name comes from the file's.

This package is the data alone (it imports only the rules): finding a card, reading it,
and checking it against the game's rules version (a card made for another version of
the rules is refused: its moves may mean something else).  The players layer makes the
policy: the spec ``zoo:GAME`` (or ``zoo:GAME-VARIANT``) plays the agent wherever a policy spec is accepted
(``parlour arena``, ``play``, ``serve``, ``bench``), and
:func:`parlour.baselines.zoo_agent` gives it from Python (``act`` searches from an
information state; ``act_observation`` takes a PettingZoo observation).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from parlour.games import GAMES, load_game

MODELS = Path(str(resources.files("parlour.zoo") / "models"))
"""Where the zoo's files are (package data)."""

KINDS = ("az", "ppo", "ntuple")
VARIANT = re.compile(r"[a-z0-9][a-z0-9_]*")
"""What may follow ``GAME-`` in an entry's name (``ppo``)."""


@dataclass(frozen=True)
class ZooCard:
    """What the zoo says about one of a game's agents (``ENTRY.json``: ``GAME.json`` or
    ``GAME-VARIANT.json``)."""

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
    entry: str = ""
    """The entry's name, from its file's (set by :func:`card`; empty: the game's own entry)."""

    @property
    def name(self) -> str:
        """The entry's name: ``GAME`` or ``GAME-VARIANT``."""
        return self.entry or self.game

    @property
    def model(self) -> Path:
        return MODELS / f"{self.name}.zip"

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
        return f"the zoo's {self.name} agent was trained on {self.game} with {options}; this game's observations and actions differ"

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


def entries() -> list[str]:
    """Every entry of the zoo: ``GAME`` (a game's default agent) and ``GAME-VARIANT``
    (its other agents, ``tides_of_time-ppo``), those with a card beside a model file."""
    return sorted(path.stem for path in MODELS.glob("*.json") if (MODELS / f"{path.stem}.zip").is_file())


def available() -> list[str]:
    """The games the zoo has an agent for (their default entries, ``zoo:GAME``)."""
    return [name for name in entries() if name in GAMES]


def split_entry(entry: str) -> tuple[str, str]:
    """``(game, variant)`` of an entry's name (``("tides_of_time", "ppo")``; the variant is
    ``""`` for a game's own entry); ``ValueError`` naming the games, or what a variant may be."""
    game, _, variant = entry.partition("-")
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}" + (f" in zoo entry {entry!r}" if "-" in entry else "")
                         + f"; games are {sorted(GAMES)}")
    if "-" in entry and not VARIANT.fullmatch(variant):
        raise ValueError(f"zoo entry {entry!r}: an entry is GAME or GAME-VARIANT, the variant lower-case letters, "
                         "digits and '_' (tides_of_time-ppo)")
    return game, variant


def game_entries(game: str) -> list[str]:
    """The entries of ``game``: its default agent's first (if it has one), then its variants."""
    return [name for name in entries() if name == game] + [name for name in entries() if name.startswith(f"{game}-")]


def card(entry: str) -> ZooCard:
    """The card of the zoo entry ``entry`` (``GAME``, the game's default agent, or
    ``GAME-VARIANT``); ``ValueError`` naming the entries the zoo has, or saying why the
    card cannot be used."""
    game, variant = split_entry(entry)
    have = entries()
    if entry not in have:
        if not variant:
            raise ValueError(f"the zoo has no agent for {game} yet; it has agents for {', '.join(available()) or 'no game'}")
        raise ValueError(f"the zoo has no entry {entry!r} yet; its entries are {', '.join(have) or 'none'}")
    path = MODELS / f"{entry}.json"
    try:
        data = json.loads(path.read_text())
        made = ZooCard(**data)
    except (OSError, ValueError, TypeError) as error:
        raise ValueError(f"zoo card {str(path)!r} cannot be read: {error}") from None
    if made.game != game or made.kind not in KINDS:
        raise ValueError(f"zoo card {str(path)!r} is for game {made.game!r} and kind {made.kind!r}, "
                         f"expected {game!r} and one of {list(KINDS)}")
    made = replace(made, entry=entry)
    version = load_game(game).rules_version
    if made.rules_version != version:
        raise ValueError(f"the zoo's {entry} agent was made for version {made.rules_version} of the {game} rules; "
                         f"this parlour plays version {version}: it needs a new model")
    return made
