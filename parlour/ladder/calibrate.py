"""Calibrating a ladder: a round-robin of its rungs, rated with ``random`` at 0.

Every pair of rungs plays ``calibration_games`` games (in Tribolo, that many with each of
the two as the lone player against two copies of the other), under the same match
protocol as a candidate (:mod:`parlour.ladder.matches`) but from its own master seed.
The ratings are fitted jointly and anchored (:func:`parlour.ladder.statistics.calibrate`);
the file keeps every pair's result, so anyone can refit or check it.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parlour._version import __version__
from parlour.atomic import write_atomic
from parlour.evaluation.arena import play_specs
from parlour.evaluation.ratings import wilson_interval
from parlour.ladder.ladders import ANCHOR, LadderSpec, ladder_from_record
from parlour.ladder.machine import machine_info
from parlour.ladder.matches import CALIBRATION_SEED, Match, block_scores, both_ways, copies, match_schedule, match_specs
from parlour.ladder.statistics import calibrate
from parlour.registration import env_id


def pair_matches(
    spec: LadderSpec, num_seats: int, pairs: Sequence[tuple[int, int]] | None = None
) -> tuple[list[str], list[Match], list[tuple[int, int]]]:
    """The agent list (each rung once per opponent seat), the matches and their (hero, rung) pairs."""
    n_copies = copies(num_seats)
    agents = [rung for rung in spec.rungs for _ in range(n_copies)]
    base = [k * n_copies for k in range(len(spec.rungs))]
    if pairs is None:
        pairs = list(itertools.combinations(range(len(spec.rungs)), 2))
    directed = [p for pair in pairs for p in ((pair, pair[::-1]) if both_ways(num_seats) else (pair,))]
    matches = [
        Match(block=b, hero=base[i], opponents=tuple(base[j] + c for c in range(n_copies)))
        for b, (i, j) in enumerate(directed)
    ]
    return agents, matches, directed


def play_pairs(
    spec: LadderSpec,
    games: int,
    pairs: Sequence[tuple[int, int]] | None = None,
    workers: int = 1,
    progress: bool = True,
    seed: int = CALIBRATION_SEED,
) -> dict[str, Any]:
    """Play the calibration's games (all pairs, or ``pairs``) and return the pair results."""
    game = spec.make_game()
    agents, matches, directed = pair_matches(spec, game.num_players, pairs)
    schedule = match_schedule(game.num_players, games, seed)
    size = schedule.num_games
    specs = [s for m in matches for s in match_specs(schedule, m, range(size), size, spec.opening)]
    records, seconds, per_move, workers = play_specs(
        game, agents, specs, workers=workers, progress=progress, description=f"calibrating {spec.game}"
    )
    score, played = block_scores(records, matches, size)
    n_copies = copies(game.num_players)
    return {
        "pairs": [
            {"hero": spec.rungs[i], "opponent": spec.rungs[j], "score": float(s), "games": int(n)}
            for (i, j), s, n in zip(directed, score, played)
        ],
        "ms_per_move": [1000.0 * sum(per_move[k * n_copies : (k + 1) * n_copies]) / n_copies for k in range(len(spec.rungs))],
        "seconds": seconds,
        "workers": workers,
        "games_per_pair": size,
        "seed": seed,
    }


def fit_pairs(spec: LadderSpec, pairs: Sequence[dict[str, Any]]):
    """The anchored calibration from a file's (or a run's) pair results."""
    index = {rung: k for k, rung in enumerate(spec.rungs)}
    results = [(index[p["hero"]], index[p["opponent"]], p["score"], p["games"]) for p in pairs]
    return calibrate(len(spec.rungs), results, anchor=index[ANCHOR])


def calibrate_ladder(spec: LadderSpec, games: int | None = None, workers: int = 1, progress: bool = True) -> dict[str, Any]:
    """The calibration file's content for ``spec`` (a full round-robin)."""
    started = time.time()
    played = play_pairs(spec, spec.calibration_games if games is None else games, workers=workers, progress=progress)
    calibration = fit_pairs(spec, played["pairs"])
    rungs = []
    for k, rung in enumerate(spec.rungs):
        low, high = calibration.interval(k)
        rungs.append(
            {
                "rung": rung,
                "elo": float(calibration.elo[k]),
                "stderr": float(calibration.stderr[k]),
                "low": low,
                "high": high,
                "ms_per_move": played["ms_per_move"][k],
            }
        )
    for pair in played["pairs"]:
        pair["score_interval"] = list(wilson_interval(pair["score"], pair["games"]))
    record = {
        "definition": spec.definition(),
        "parlour_version": __version__,
        "rules": env_id(spec.game),
        "made": time.strftime("%Y-%m-%d", time.gmtime(started)),
        "games_per_pair": played["games_per_pair"],
        "seed": played["seed"],
        "rungs": rungs,
        "covariance": calibration.covariance.tolist(),
        "pairs": played["pairs"],
        "seconds": played["seconds"],
        "workers": played["workers"],
        "machine": machine_info(),
    }
    ladder_from_record(spec, json.loads(json.dumps(record)), "(new)")  # round-trips
    return record


def write_calibration(record: dict[str, Any], path: str | Path, force: bool = False) -> Path:
    """Write a calibration file (never over an existing one unless ``force``)."""
    path = Path(path)
    if path.exists() and not force:
        raise FileExistsError(f"{path} exists; pass --force to replace it")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(record, indent=1) + "\n")
    return path
