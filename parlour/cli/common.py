"""What several commands share: ``--out`` checked before the work, game options and
agent specs from the command line (each refused in one line that says what is allowed)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parlour.errors import DamagedFileError, Failure, UsageError
from parlour.games import GAMES, OPENSPIEL_PREFIX, Game, load_game

OPTION_HELP = "game option key=value (repeatable), e.g. --option num_cards=6 --option prize_order=descending"


def check_out(path: str | os.PathLike[str]) -> None:
    """``UsageError`` unless ``--out`` can be a directory that this process can write in
    (checked before the work, so that an hour of games is not lost on a typo)."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise UsageError(f"--out {str(path)!r} is a file, not a directory")
    parent = target if target.exists() else target.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"--out {str(path)!r} cannot be created: {str(parent)!r} is a file, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"--out {str(path)!r}: no permission to write in {str(parent)!r}")


def parse_option_value(text: str) -> Any:
    """A game option's value from text: JSON first (``6``, ``true``, ``[5,4,3]``,
    ``[[4,5,6],[1,2,3]]``), then ``True``/``False``/``None`` in any case, then a
    comma-separated list of numbers (``5,4,3,2,1``), else the text itself."""
    text = text.strip()
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: brackets nested too deep
        pass
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("none", "null"):
        return None
    if "," in text:
        items = [item.strip() for item in text.split(",")]
        try:
            return [json.loads(item) for item in items]
        except (ValueError, RecursionError):
            raise UsageError(f"--option value {text!r}: a list must hold numbers, e.g. 5,4,3,2,1 or [5,4,3,2,1]") from None
    return text


def parse_options(items: Sequence[str] | None) -> dict[str, Any]:
    """``["num_cards=6", ...]`` -> ``{"num_cards": 6, ...}``; ``UsageError`` on bad text."""
    options: dict[str, Any] = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--option {item!r} is not key=value (e.g. --option num_cards=6)")
        options[key.strip()] = parse_option_value(value)
    return options


def game_name(text: str) -> str:
    """A ``--game`` value: a parlour game, or ``openspiel:NAME`` (an OpenSpiel game)."""
    if text in GAMES or (text.startswith(OPENSPIEL_PREFIX) and len(text) > len(OPENSPIEL_PREFIX)):
        return text
    raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {', '.join(sorted(GAMES))}, or {OPENSPIEL_PREFIX}NAME)")


GAME_ARG: dict[str, Any] = {"type": game_name, "metavar": "GAME"}
"""How every ``--game`` (or ``GAME``) argument is read."""


def make_game(name: str, options: dict[str, Any]) -> Game:
    try:
        return load_game(name, **options)
    except ValueError as error:
        raise UsageError(f"bad game option for {name}: {error}") from None


def check_spec(spec: str, game: Game) -> None:
    """Build the policy once; ``UsageError`` (one line) with the policy's parameters, or
    the policies that can play the game, if the spec is bad."""
    from parlour.baselines import REGISTRY, lookup, make_from_spec
    from parlour.baselines.policy import playable

    try:
        make_from_spec(spec, game)
        return
    except DamagedFileError as error:
        raise Failure(str(error)) from None
    except ValueError as error:
        problem = str(error)
    name = spec.partition(":")[0].strip()
    if name in REGISTRY and name in playable(game):
        params = lookup(name, game).param_text()
        hint = "" if params in problem else f"; {name} takes these parameters: {params}"
    else:
        if name not in REGISTRY:
            problem = f"unknown policy {name!r}"
        hint = f"; policies that can play {game.name}: {', '.join(playable(game)) or 'none'}"
    raise UsageError(f"bad agent {spec!r}: {problem}{hint} (`parlour policies --game {game.name}` describes them)")
