"""The benchmark's games: who sits where, with which seeds, and what each game scores.

A *match* is one player (the "hero") alone against copies of another.  In a two-seat
game the two swap seats every other game; in Tribolo the hero plays against two copies
of the other, in every seat equally often (the arena's six seatings of three agents),
and every pair plays two matches, each of the two as the hero (see ``both_ways``).
Every match of a ladder uses the same arena schedule (one
seed per protocol), so the hero meets the same deals and openings, seat for seat,
against every rung ("duplicate" play across the ladder), and a game's seeds depend only
on its number: the cards are the same for any number of workers.

Games are numbered ``block * block_size + local``: ``block`` is the match (the rung, or
the calibration pair), ``local`` the game's number in the schedule, so playing the first
``n`` games of every block, then the next ones, gives the same games as playing them all
at once (the adaptive mode relies on it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from parlour.evaluation.arena import GameRecord, GameSpec, Schedule, make_schedule

BENCH_SEED = 20261126
"""The master seed of every candidate's games (protocol v1)."""

CALIBRATION_SEED = 1
"""The master seed of the calibration's games (different from the candidates', so a
rung benchmarked as a candidate plays games the calibration never saw)."""


def copies(num_seats: int) -> int:
    """How many copies of the opponent sit at one game: all seats but the hero's."""
    return num_seats - 1


def both_ways(num_seats: int) -> bool:
    """Whether a pair plays in both formats, each alone against copies of the other.

    In games of more than two seats the two formats are not mirror images: two copies of
    a strong player fight each other, and a weak player between them scores more than
    its share (in Tribolo, random alone against two copies of paranoid:depth=4 scores
    about 27%, against two copies of greedy about 33%).  The calibration fits one
    rating gap to both formats together, so a candidate must play both too, or its
    rating is biased (random, playing only the first format, rated +70 [+17, +123])."""
    return num_seats > 2


@dataclass(frozen=True)
class Match:
    """The hero (an index into the agent list) against one opponent's copies."""

    block: int
    hero: int
    opponents: tuple[int, ...]
    """The agent-list indices of the opponent's copies (one per other seat)."""


def match_schedule(num_seats: int, games: int, seed: int) -> Schedule:
    """The schedule every match of a ladder follows (local agents: 0 = hero, 1.. = copies)."""
    return make_schedule(num_seats, num_seats, games, seed)


def match_specs(schedule: Schedule, match: Match, locals_: Sequence[int], block_size: int, opening: int) -> list[GameSpec]:
    """The games ``locals_`` of ``match``, with agent-list indices and global numbers."""
    members = (match.hero, *match.opponents)
    specs = []
    for local in locals_:
        spec = schedule.game(local)
        specs.append(
            replace(
                spec,
                index=match.block * block_size + local,
                agents=tuple(members[a] for a in spec.agents),
                opening=opening,
            )
        )
    return specs


def hero_score(record: GameRecord, hero: int) -> float:
    """The hero's score in one game: the mean over the other seats of 1 (above), 1/2
    (level) or 0 (below), by the game's returns."""
    seat = record.agents.index(hero)
    mine = record.returns[seat]
    others = [r for s, r in enumerate(record.returns) if s != seat]
    return float(np.mean([1.0 if mine > r else 0.5 if mine == r else 0.0 for r in others]))


def candidate_scores(score: np.ndarray, games: np.ndarray, flipped: Sequence[bool], num_rungs: int) -> tuple[np.ndarray, np.ndarray]:
    """Per rung, the candidate's score and games from the matches' hero scores: a
    flipped match's hero is the rung, so the candidate scores the rest."""
    directions = len(flipped) // num_rungs
    mine = np.where(flipped, games - score, score)
    return mine.reshape(num_rungs, directions).sum(axis=1), games.reshape(num_rungs, directions).sum(axis=1)


def block_scores(records: Sequence[GameRecord], matches: Sequence[Match], block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(score, games)`` of the hero in each match, from the records played so far."""
    score = np.zeros(len(matches))
    games = np.zeros(len(matches))
    by_block = {m.block: k for k, m in enumerate(matches)}
    for record in records:
        k = by_block[record.index // block_size]
        score[k] += hero_score(record, matches[k].hero)
        games[k] += 1
    return score, games
