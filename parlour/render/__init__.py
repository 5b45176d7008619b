"""Pictures of the games: each game's position as a :class:`Drawing`, the one picture
behind ``render_mode="rgb_array"`` (rasterised) and the web page (SVG).

``picture(state, seat=None, last=None, players=None)``: ``seat`` draws what that seat
may see (its own hand face up, hidden cards face down), ``None`` everything (a
spectator's view, as the text form); ``last`` is the last move where the state does not
keep it itself, ``(seat, action)`` or, for a simultaneous step, ``{seat: action}``;
``players`` names who sits in each seat (``["person", "alphabeta"]``), so that the
legend says ``player_1 (alphabeta)`` and, for ``seat``, ``player_0 (you)``.  Each game's module
registers its drawing with :func:`register`, and with :func:`register_targets` which
shapes choose which move (``move_targets``: the web page's clicks); the module of each
registered game (``parlour.games.GAMES``) is loaded when a picture is asked for.  This package imports
the games only (and Pillow when a picture is rasterised).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Sequence
from typing import Any

from parlour.games import GAMES
from parlour.games.base import State
from parlour.render.drawing import Drawing
from parlour.render.registry import PAINTERS, TARGETS, register, register_targets

MAX_NAME = 18
"""The most characters of a player's name a legend shows."""


def move_targets(state: State, seat: int) -> dict[int, list[str]]:
    """Each legal action of ``seat`` and the picture's shapes that choose it (a page
    plays the move when one shape names it alone, or offers the moves a shape names)."""
    _load()
    fn = TARGETS.get(state.game.name)
    return fn(state, seat) if fn is not None else {}


def has_picture(game_name: str) -> bool:
    _load()
    return game_name in PAINTERS


def picture(state: State, seat: int | None = None, last: Any = None, players: Sequence[str] | None = None) -> Drawing:
    """The picture of ``state`` (see the module docstring)."""
    _load()
    try:
        painter = PAINTERS[state.game.name]
    except KeyError:
        raise ValueError(f"no picture for {state.game.name}; games with pictures: {sorted(PAINTERS)}") from None
    seats = state.game.num_players
    if seat is not None and not 0 <= seat < seats:
        raise ValueError(f"{state.game.name}: no seat {seat!r}; seats are 0..{seats - 1}")
    if players is not None and (len(players) != seats or not all(isinstance(p, str) for p in players)):
        raise ValueError(f"{state.game.name}: players must name the {seats} seats, one string each, got {players!r}")
    who = ["you" if s == seat else _short(players[s]) if players is not None else "" for s in range(seats)]
    return painter(state, seat, last, who)


def _short(name: str) -> str:
    """A player's name as short as a legend wants it (a model's long path cut)."""
    return name if len(name) <= MAX_NAME else name[: MAX_NAME - 1] + "…"


@functools.cache
def _load() -> None:
    """Import the games' drawings, ``parlour.render.<game>`` for each registered game
    that has one (they register themselves)."""
    for name in GAMES:
        if importlib.util.find_spec(f"{__name__}.{name}") is not None:
            importlib.import_module(f"{__name__}.{name}")


__all__ = ["Drawing", "has_picture", "move_targets", "picture", "register", "register_targets"]
