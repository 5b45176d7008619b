"""The benchmark's ladders: which baseline players, at which budgets, for which game.

A ladder is fixed and versioned: its game options, its rungs (player specs with fixed
node budgets: simulations or depth, never a time limit, so a rung plays the same moves on
every machine), its opening rule and its calibrated ratings.  The definitions live here;
the calibrated ratings are package data (``parlour/ladder/data/<game>.json``) written by
``parlour bench --calibrate`` and read by :func:`load_ladder`.  Changing a definition
means a new ladder version: the calibration file records the definition it was made for,
and a mismatch is an error rather than a silently wrong scale.

Rungs were chosen from exploratory round-robins so that neighbouring rungs are roughly
100-400 Elo apart, from ``random`` (the anchor, rated 0) to the strongest player the
project ships at a budget a benchmark can afford (docs/benchmark.md gives the
reasons per game).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from parlour.games import load_game
from parlour.games.base import Game
from parlour.ladder.statistics import Calibration

PROTOCOL = "parlour-bench/v1"
"""The protocol version every card and calibration file names."""

ANCHOR = "random"
"""The rung rated 0 by definition."""


@dataclass(frozen=True)
class LadderSpec:
    """A ladder's definition (everything but the calibrated ratings)."""

    game: str
    options: dict[str, Any]
    rungs: tuple[str, ...]
    games_per_rung: int
    """A candidate's games against each rung (whole seat rotations; in games of more than
    two seats, half in each format, see ``parlour.ladder.matches.both_ways``)."""
    calibration_games: int
    """Games per pair of rungs in the calibration (per direction in three-seat games)."""
    opening: int = 0
    """Uniformly random moves from the game seed before the players take over: the
    game's only chance where it has none of its own (sticks, Double Card), so that
    deterministic players do not replay one game."""
    move_budget_ms: float = 1000.0
    """The per-move time a searching candidate is expected to stay within (the card
    states whether it did)."""
    notes: str = ""

    @property
    def version(self) -> str:
        return f"{self.game}/v1"

    def make_game(self) -> Game:
        return load_game(self.game, **self.options)

    def definition(self) -> dict[str, Any]:
        """What a calibration file must match (the ratings are only valid for it)."""
        return {
            "protocol": PROTOCOL,
            "ladder": self.version,
            "game": self.game,
            "options": self.options,
            "rungs": list(self.rungs),
            "opening": self.opening,
        }


LADDERS: dict[str, LadderSpec] = {
    spec.game: spec
    for spec in (
        LadderSpec(
            game="sticks",
            options={},
            rungs=("random", "mcts:simulations=4", "mcts:simulations=16", "mcts:simulations=64", "optimal"),
            games_per_rung=100,
            calibration_games=400,
            opening=1,
            move_budget_ms=100.0,
            notes=(
                "the opening stands in for the chance the game lacks; optimal plays perfectly, so a perfect player "
                "scores 50% against it (whoever the opening leaves to move in a won position wins)"
            ),
        ),
        LadderSpec(
            game="goofspiel",
            options={"num_cards": 6},
            rungs=("random", "mcts:simulations=8", "rudimentary", "equilibrium"),
            games_per_rung=100,
            calibration_games=400,
            move_budget_ms=100.0,
            notes="equilibrium is an exact Nash equilibrium: no agent beats it in expectation",
        ),
        LadderSpec(
            game="tides_of_time",
            options={},
            rungs=("random", "sm-mcts:simulations=10", "original-alphabeta", "sm-mcts:simulations=100", "sm-mcts:simulations=300"),
            games_per_rung=100,
            calibration_games=120,
        ),
        LadderSpec(
            game="tribolo",
            options={},
            rungs=("random", "greedy", "paranoid:depth=2", "original-strategy", "paranoid:depth=3", "paranoid:depth=4"),
            games_per_rung=48,
            calibration_games=60,
            notes=("three seats: in half the games the candidate plays alone against two copies of a rung, "
                   "in the other half two copies of it play against the rung"),
        ),
        LadderSpec(
            game="double_card",
            options={},
            rungs=(
                "random",
                "mcts:simulations=100",
                "alphabeta:depth=1,evaluation=h1",
                "original-tournament:depth=2,time_limit=none",
                "double-card-best:depth=2,time_limit=none",
                "double-card-best:depth=3,time_limit=none",
            ),
            games_per_rung=100,
            calibration_games=200,
            opening=2,
            notes=("the opening (one move per player) stands in for the chance the game lacks, "
                   "against which deterministic searchers would replay one game"),
        ),
    )
}


def ladder_spec(game: str) -> LadderSpec:
    """The ladder of ``game``; ``ValueError`` naming the games that have one."""
    if game not in LADDERS:
        raise ValueError(f"no benchmark ladder for game {game!r}; ladders exist for {sorted(LADDERS)}")
    return LADDERS[game]


@dataclass(frozen=True)
class Ladder:
    """A calibrated ladder: the definition, the rungs' ratings, and how they were made."""

    spec: LadderSpec
    calibration: Calibration
    record: dict[str, Any] = field(repr=False)
    """The calibration file's content (pair results, games, machine, version)."""

    @property
    def rungs(self) -> tuple[str, ...]:
        return self.spec.rungs

    def rating(self, rung: str) -> float:
        return float(self.calibration.elo[self.spec.rungs.index(rung)])


DATA = "data"


def data_path(game: str) -> Path:
    """Where ``game``'s calibration file lives inside the package (it may not exist yet)."""
    return Path(__file__).parent / DATA / f"{game}.json"


def ladder_from_record(spec: LadderSpec, record: dict[str, Any], source: str) -> Ladder:
    """A ``Ladder`` from a calibration file's content, checked against ``spec``."""
    if record.get("definition") != json.loads(json.dumps(spec.definition())):
        raise ValueError(
            f"calibration {source} was made for {record.get('definition')}, but the ladder is now "
            f"{spec.definition()}: recalibrate (parlour bench --calibrate --game {spec.game})"
        )
    try:
        elo = np.array([rung["elo"] for rung in record["rungs"]], dtype=np.float64)
        covariance = np.array(record["covariance"], dtype=np.float64)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"calibration {source} is malformed ({type(error).__name__}: {error})") from None
    k = len(spec.rungs)
    if elo.shape != (k,) or covariance.shape != (k, k) or not np.all(np.isfinite(covariance)):
        raise ValueError(f"calibration {source} is malformed: expected {k} rungs and a {k}x{k} covariance")
    return Ladder(spec=spec, calibration=Calibration(elo=elo, covariance=covariance), record=record)


def load_ladder(game: str, path: str | Path | None = None) -> Ladder:
    """The calibrated ladder of ``game`` (from the package, or from ``path``)."""
    spec = ladder_spec(game)
    source = Path(path) if path is not None else data_path(game)
    if not source.is_file():
        raise ValueError(f"the {game} ladder has no calibration file at {source}; make one with parlour bench --calibrate --game {game}")
    try:
        record = json.loads(source.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"calibration file {source} cannot be read: {error}") from None
    return ladder_from_record(spec, record, str(source))
