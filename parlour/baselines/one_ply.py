"""Every child of many games at once: what a batched one-ply player scores.

A one-ply player (Double Card's ``alphabeta:depth=1,evaluation=h1``, the n-tuple player
at depth 1) values each legal move of the seat to act by the position it leads to.  On
a batched engine all those children are made in one go: the games are copied into a
scratch engine, a row per child, and one ``step`` plays each child's move.  The players
differ only in how they score a child and settle ties; the expansion and "the first best
move of each game" live here once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parlour.games.engine import BatchedEngine, BatchStep


@dataclass(frozen=True)
class Children:
    """The children of the games asked: child ``i`` is game ``parent[i]`` (an index into the
    rows asked) after ``moves[i]``, in row ``i`` of ``scratch`` (its first ``len(moves)``
    rows); ``starts[g]`` is where game ``g``'s children begin (a game's children are a
    contiguous run, its legal moves ascending); ``movers[i]`` is the seat that moved into
    child ``i``; ``step`` is the scratch engine's step."""

    parent: np.ndarray
    moves: np.ndarray
    movers: np.ndarray
    starts: np.ndarray
    scratch: BatchedEngine
    step: BatchStep

    def values(self, leaf_values: np.ndarray) -> np.ndarray:
        """Each child's value for its mover: its return where the move ended the game, else
        ``leaf_values`` (the player's evaluation of the child)."""
        n = len(self.moves)
        return np.where(self.step.terminated[:n], self.step.rewards[:n][np.arange(n), self.movers], leaf_values)

    def first_best(self, values: np.ndarray) -> np.ndarray:
        """``(games,)``: the index of each game's first child of the highest value."""
        best = np.maximum.reduceat(values, self.starts)
        first = np.flatnonzero(values == best[self.parent])
        return first[np.r_[True, self.parent[first][1:] != self.parent[first][:-1]]]


class ChildExpander:
    """Makes the children of games of one engine in a scratch engine of its own, kept and
    grown by doubling (so a player answering every step allocates rarely)."""

    def __init__(self) -> None:
        self._scratch: BatchedEngine | None = None

    def scratch_for(self, engine: BatchedEngine, rows: int) -> BatchedEngine:
        """A scratch engine of ``engine``'s game with at least ``rows`` games, whose
        finished games stay finished."""
        scratch = self._scratch
        if scratch is None or scratch.num_envs < rows or scratch.game != engine.game or type(scratch) is not type(engine):
            size = 1 << max(6, (rows - 1).bit_length())
            scratch = self._scratch = type(engine)(size, 0, autoreset=False, **engine.game.config)
        return scratch

    def children(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray) -> Children:
        """The children of seat ``seats[i]``'s legal moves in game ``rows[i]`` (each seat the
        one to act there; every game must have a legal move for it)."""
        parent, moves = np.nonzero(engine.legal_mask_at(rows, seats))  # each game's legal actions, ascending
        starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
        if len(starts) != len(rows):
            raise ValueError(f"some of the games {np.asarray(rows).tolist()} have no legal action for the seat asked")
        n = len(moves)
        scratch = self.scratch_for(engine, n)
        filler = np.zeros(scratch.num_envs - n, dtype=np.int64)  # rows past n: copies of the first child, not stepped
        scratch.copy_rows(engine, np.concatenate([rows[parent], rows[parent[filler]]]), np.arange(scratch.num_envs))
        where = np.zeros(scratch.num_envs, dtype=bool)
        where[:n] = True
        step = scratch.step(np.concatenate([moves, filler]), where=where)
        return Children(parent, moves, np.asarray(seats)[parent], starts, scratch, step)
