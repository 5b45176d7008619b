"""Many whole games on one batched engine, each from its own generator: the loop that
self-play's vectorised searches (``self_play.play_games``) and a search teacher's
pretraining games (``parlour.training.pretrain_lockstep``) share.

As many games are played at once as the engine has rows (``lockstep_engine``: at most
``at_once``); when one ends, its row is dealt the next game, so the batch stays full.  A
game is dealt from its own generator and the caller's ``decide`` draws from that game's
generators only, so a game does not depend on the row it plays in or on the games beside
it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

from parlour.errors import EndlessGame
from parlour.games.base import Game, State
from parlour.games.engine import SearchableEngine

Decide = Callable[[SearchableEngine, np.ndarray, np.ndarray], np.ndarray]
"""``decide(engine, alive, playing) -> joint``: the joint actions of every row (``[B]``,
or ``[B, players]`` at a simultaneous step) for the rows ``alive``, whose games are
``playing[row]`` (indices into the generators); other rows' entries are ignored."""


@dataclass
class Round:
    """One step of the rows ``alive`` of an engine in lockstep, as a ``decide`` reads it."""

    legal: np.ndarray
    """``[B, players, actions]`` bool: every row's legal moves of every seat."""
    observations: np.ndarray
    """``[len(alive), players, *shape]``: the observations of the rows alive, in their order."""
    deciding: list[tuple[int, int, int]]
    """``(i, row, seat)`` for every seat to act in a row alive (``i``: the row's place in ``alive``)."""
    searched: list[tuple[int, int]]
    """``(row, seat)`` of those with more than one legal move (a search's work)."""
    joint: np.ndarray
    """The joint actions to fill (:meth:`play`) and return."""

    def play(self, row: int, seat: int, move: int) -> None:
        if self.joint.ndim == 2:
            self.joint[row, seat] = move
        else:
            self.joint[row] = move


def round_of(engine: SearchableEngine, alive: np.ndarray) -> Round:
    """What the seats to act in the rows ``alive`` of ``engine`` see and may do."""
    to_act, legal = engine.to_act(), engine.legal_masks().astype(bool)
    deciding = [(i, int(b), p) for i, b in enumerate(alive) for p in range(engine.num_players) if to_act[b, p]]
    joint = np.zeros((engine.num_envs, engine.num_players) if engine.simultaneous else engine.num_envs, dtype=np.int64)
    return Round(legal, engine.observations_of(alive), deciding, [(b, p) for _, b, p in deciding if legal[b, p].sum() > 1],
                 joint)


def play_in_lockstep(game: Game, engine: SearchableEngine, rngs: list[np.random.Generator], decide: Decide,
                     start: Callable[[np.random.Generator], State] | None = None) -> list[np.ndarray]:
    """Play ``len(rngs)`` games of ``game`` (game ``g`` dealt from ``rngs[g]``) on
    ``engine``, its engine made with ``autoreset=False``, as many at once as it has rows,
    choosing each step's moves by ``decide``; each game's returns (the engine's rewards at
    its last step), in order.  ``start``: game ``g`` begins at the (unfinished) position
    ``start(rngs[g])`` instead of the deal.  A game that outlasts
    ``game.info.max_game_length`` steps raises ``EndlessGame``, as ``playout.playing`` does."""
    G, B = len(rngs), engine.num_envs
    if not 0 < B <= G:
        raise ValueError(f"an engine of {B} rows for {G} games: it needs between 1 and {G}")
    playing = np.arange(B)  # the game (index into rngs) in each row
    begin(engine, np.arange(B), rngs[:B], start)
    waiting = B  # the next game to start
    returns: list[np.ndarray | None] = [None] * G
    active = np.ones(B, dtype=bool)
    lengths, limit = np.zeros(B, dtype=np.int64), game.info.max_game_length  # the steps of each row's game
    while active.any():
        alive = np.flatnonzero(active)
        if lengths[alive].max() >= limit:
            raise EndlessGame(game.name, limit, limit)
        step = engine.step(decide(engine, alive, playing), where=active)
        lengths[alive] += 1
        for b in np.flatnonzero(step.terminated).tolist():
            returns[playing[b]] = np.array(step.rewards[b])
            if waiting < G:  # the row takes the next game
                playing[b], lengths[b] = waiting, 0
                begin(engine, np.array([b]), [rngs[waiting]], start)
                waiting += 1
            else:
                active[b] = False
    return cast(list[np.ndarray], returns)


def begin(engine: SearchableEngine, rows: np.ndarray, rngs: list[np.random.Generator],
          start: Callable[[np.random.Generator], State] | None) -> None:
    """Start the games ``rows``, each from its generator: dealt, or at ``start``'s position."""
    if start is None:
        engine.deal(rows, rngs)
    else:
        engine.load_states([start(rng) for rng in rngs], rows)


def lockstep_engine(game: Game, games: int, at_once: int | None = None) -> SearchableEngine:
    """``game``'s batched engine for :func:`play_in_lockstep`: ``min(games, at_once)`` rows
    (``at_once`` ``None``: all of them), no autoreset; the caller checked that it is a
    ``SearchableEngine`` (``vector_puct.search_refusal``)."""
    from parlour.vector import make_engine

    return cast(SearchableEngine, make_engine(game.name, min(games, at_once or games), seed=0, autoreset=False, **game.config))
