"""The registry of the games' pictures: each game's module in :mod:`parlour.render`
registers its drawing (:func:`register`) and which shapes choose which move
(:func:`register_targets`); :mod:`parlour.render` looks them up.  A module of its own so
that the game modules and the package that loads them do not import each other."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from parlour.games.base import State
from parlour.render.drawing import Drawing

Painter = Callable[[State, "int | None", Any, Sequence[str]], Drawing]
Targets = Callable[[State, int], dict[int, list[str]]]
PAINTERS: dict[str, Painter] = {}
TARGETS: dict[str, Targets] = {}


def register(game_name: str) -> Callable[[Painter], Painter]:
    """Decorator: ``fn(state, seat, last, who) -> Drawing`` draws the game ``game_name``
    (``who``: who sits in each seat, ``""`` where nobody is named; see
    :func:`parlour.render.picture`)."""

    def decorate(fn: Painter) -> Painter:
        PAINTERS[game_name] = fn
        return fn

    return decorate


def register_targets(game_name: str) -> Callable[[Targets], Targets]:
    """Decorator: ``fn(state, seat) -> {action: [target, ...]}`` names the shapes of the
    picture (their ``target``) that choose each legal move of ``seat``."""

    def decorate(fn: Targets) -> Targets:
        TARGETS[game_name] = fn
        return fn

    return decorate
