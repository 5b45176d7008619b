"""Rating one agent on a ladder: the fixed protocol, the adaptive mode and the card.

Protocol ``parlour-bench/v1``: the candidate plays ``games_per_rung`` games against every
rung (each seat equally often; in Tribolo half of them alone against two copies of the
rung and half as two copies against the rung, as the calibration plays), from the
master seed :data:`parlour.ladder.matches.BENCH_SEED`, with the ladder's openings; its
rating is fitted with the rungs' calibrated ratings held fixed
(:func:`parlour.ladder.statistics.rate_candidate`).  The games depend only on their
numbers, so the card is the same for any number of workers apart from its ``timing``
and ``machine`` fields.

Adaptive mode plays the same games in rounds (a fifth of every rung's games per round,
whole seat rotations) and stops after a round once the 95% interval's half-width is at
most ``target`` Elo; a stopped run's games are exactly the first ones of a full run.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from parlour.evaluation.arena import build_agents, play_specs
from parlour.evaluation.ratings import wilson_interval
from parlour.ladder.candidate import candidate_spec
from parlour.ladder.ladders import PROTOCOL, Ladder, load_ladder
from parlour.ladder.machine import machine_info
from parlour.ladder.matches import BENCH_SEED, Match, block_scores, both_ways, candidate_scores, copies, match_schedule, match_specs
from parlour.ladder.statistics import rate_candidate

ROUNDS = 5
"""Rounds of the adaptive mode (each a fifth of the games, in whole seat rotations)."""


def bench(
    game: str,
    agent: str,
    workers: int = 1,
    adaptive: bool = False,
    target: float = 50.0,
    progress: bool = True,
    ladder: Ladder | None = None,
    games_per_rung: int | None = None,
) -> dict[str, Any]:
    """Play ``agent`` (anything :func:`candidate_spec` accepts) against ``game``'s ladder
    and return its card (a JSON-ready dict).  ``games_per_rung`` other than the
    protocol's makes a card marked ``"protocol_games": false`` (for quick looks)."""
    if target <= 0 or not math.isfinite(target):
        raise ValueError(f"target must be a positive number of Elo, got {target!r}")
    ladder = ladder or load_ladder(game)
    spec = ladder.spec
    the_game = spec.make_game()
    agent_spec = candidate_spec(agent, game)
    seats = the_game.num_players
    n_copies = copies(seats)
    both = both_ways(seats)
    mine = list(range(n_copies)) if both else [0]  # the candidate's own instances
    agents = [agent_spec] * len(mine) + [rung for rung in spec.rungs for _ in range(n_copies)]
    policies = build_agents(the_game, agents)  # bad specs fail here, before any game
    per_rung = spec.games_per_rung if games_per_rung is None else games_per_rung
    schedule = match_schedule(seats, per_rung // 2 if both else per_rung, BENCH_SEED)
    size = schedule.num_games
    matches: list[Match] = []
    flipped: list[bool] = []
    for k in range(len(spec.rungs)):
        theirs = tuple(len(mine) + k * n_copies + c for c in range(n_copies))
        matches.append(Match(block=len(matches), hero=mine[0], opponents=theirs))
        flipped.append(False)
        if both:  # the rung alone against copies of the candidate
            matches.append(Match(block=len(matches), hero=theirs[0], opponents=tuple(mine)))
            flipped.append(True)
    rotation = len(schedule.seatings)
    step = max(rotation, math.ceil(size / ROUNDS / rotation) * rotation) if adaptive else size
    records: list[Any] = []
    seconds, moves_timing = 0.0, [0.0] * len(agents)
    played = 0
    rating = None
    while played < size:
        chunk = range(played, min(size, played + step))
        specs = [s for m in matches for s in match_specs(schedule, m, chunk, size, spec.opening)]
        new, took, per_move, used = play_specs(
            the_game, agents, specs, workers=workers, progress=progress, policies=policies, description=f"{game} bench"
        )
        weight = len(new)
        moves_timing = [(a * len(records) + b * weight) / max(1, len(records) + weight) for a, b in zip(moves_timing, per_move)]
        records += new
        seconds += took
        played = chunk.stop
        score, games = candidate_scores(*block_scores(records, matches, size), flipped, len(spec.rungs))
        rating = rate_candidate(score, games, ladder.calibration)
        low, high = rating.interval
        if adaptive and (high - low) / 2 <= target:
            break
    per_move = [float(np.mean(moves_timing[: len(mine)]))] + moves_timing[len(mine) :]
    return _card(ladder, agent, agent_spec, rating, score, games, played < size, adaptive, target, per_rung, seconds, per_move,
                 workers, n_copies)


def _card(ladder, agent, agent_spec, rating, score, games, stopped_early, adaptive, target, per_rung, seconds, per_move, workers,
          n_copies) -> dict[str, Any]:
    spec = ladder.spec
    low, high = rating.interval
    rungs = []
    for k, rung in enumerate(spec.rungs):
        s, n = float(score[k]), int(games[k])
        rungs.append(
            {
                "rung": rung,
                "rating": float(ladder.calibration.elo[k]),
                "games": n,
                "score": s / n if n else math.nan,
                "score_interval": list(wilson_interval(s, n)),
            }
        )
    candidate_ms = 1000.0 * per_move[0]
    return {
        "protocol": PROTOCOL,
        "ladder": spec.version,
        "game": spec.game,
        "options": ladder.record["definition"]["options"],
        "agent": agent.replace("{game}", spec.game),
        "player": agent_spec,
        "rating": rating.elo,
        "interval": [low, high],
        "stderr": {"games": rating.stderr_games, "ladder": rating.stderr_ladder},
        "off_scale": rating.off_scale,
        "games": int(sum(games)),
        "protocol_games": per_rung == spec.games_per_rung,
        "adaptive": {"on": adaptive, "target": target if adaptive else None, "stopped_early": stopped_early},
        "rungs": rungs,
        "move_budget_ms": spec.move_budget_ms,
        "timing": {
            "ms_per_move": candidate_ms,
            "within_budget": candidate_ms <= spec.move_budget_ms,
            "rung_ms_per_move": {rung: 1000.0 * sum(per_move[1 + k * n_copies : 1 + (k + 1) * n_copies]) / n_copies
                                 for k, rung in enumerate(spec.rungs)},
            "seconds": seconds,
            "workers": workers,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        "machine": machine_info(),
    }


TIMING_FIELDS = ("timing", "machine")
"""The card's fields that depend on the machine and the run, not on the games."""


def card_text(card: dict[str, Any]) -> str:
    """The card for people: the rating, its interval, and the score against each rung."""
    low, high = card["interval"]
    scale = f" ({card['off_scale']} the ladder: a bound, not a measurement)" if card["off_scale"] else ""
    lines = [
        f"{card['protocol']} {card['ladder']}: {card['agent']}",
        f"rating {card['rating']:+.0f} [{low:+.0f}, {high:+.0f}] (95%; games +-{1.96 * card['stderr']['games']:.0f}, "
        f"ladder +-{1.96 * card['stderr']['ladder']:.0f}){scale}",
        "",
        f"{'rung':48s} {'rating':>7s} {'games':>6s}  score [95%]",
    ]
    for rung in card["rungs"]:
        lo, hi = rung["score_interval"]
        lines.append(f"{rung['rung']:48s} {rung['rating']:+7.0f} {rung['games']:6d}  "
                     f"{100 * rung['score']:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
    timing = card["timing"]
    budget = "" if timing["within_budget"] else f"  OVER the protocol's {card['move_budget_ms']:.0f} ms budget"
    lines.append("")
    lines.append(f"{card['games']} games in {timing['seconds']:.1f} s with {timing['workers']} worker(s); "
                 f"{timing['ms_per_move']:.2f} ms per move{budget}")
    if card["adaptive"]["stopped_early"]:
        lines.append(f"adaptive: stopped once the interval was within +-{card['adaptive']['target']:.0f}")
    if not card["protocol_games"]:
        lines.append("NOT the protocol's number of games: not comparable with published cards")
    return "\n".join(lines)


def write_card(card: dict[str, Any], path: str | Path, force: bool = False) -> Path:
    """Write a card as JSON (never over an existing file unless ``force``)."""
    from parlour.atomic import write_atomic

    path = Path(path)
    if path.exists() and not force:
        raise FileExistsError(f"{path} exists; pass --force to replace it")
    write_atomic(path, json.dumps(card, indent=1) + "\n")
    return path
