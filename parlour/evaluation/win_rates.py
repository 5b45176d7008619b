"""Rate one agent against fixed opponents through the arena: its win rate, with a 95%
Wilson interval, against each opponent in turn (the opponent fills every other seat).

With more than two seats, a game counts once per opponent seat: the agent wins a
comparison when its return is higher than that seat's (the arena's pairwise rule).
Which opponents each game is rated against is the game's own knowledge
(:func:`parlour.baselines.references`); this module only plays and counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlour.baselines import Policy, make_from_spec, references
from parlour.evaluation.arena import play_match
from parlour.evaluation.ratings import wilson_interval
from parlour.evaluation.report import summarize
from parlour.games.base import Game


def rates_deterministic(game: Game) -> bool:
    """Whether a trained model is rated by its most probable move: yes, except in games
    without chance (sticks, Double Card), where a deterministic agent against a
    deterministic baseline would replay the same game every time; there it samples
    from its policy, so the games differ and the interval means something."""
    return game.info.has_chance


def quick_opponents(game: Game) -> list[str]:
    """What training evaluates against by default: random and the game's quick strong
    reference player (a few ms per move, so a few hundred games fit every evaluation)."""
    refs = references(game)
    return list(dict.fromkeys([refs.random, refs.quick]))


def win_rates(
    game: Game,
    agent: str | Policy,
    opponents: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
    opening: int = 0,
) -> list[dict[str, Any]]:
    """One row per opponent: games, win/draw rates, the win rate's 95% interval, the
    score (win 1, draw 1/2) and the agent's mean return; ``opening`` random plies start
    every game (so that deterministic players do not replay one game)."""
    rows = []
    for index, spec in enumerate(opponents):
        others = [make_from_spec(spec, game) if workers == 1 else spec for _ in range(game.num_players - 1)]
        result = play_match(game, [agent, *others], games=games, seed=seed + index, workers=workers, progress=False,
                            opening=opening)
        summary = summarize(result)
        mine = next(row for row in summary["agents"] if row["index"] == 0)
        comparisons = mine["wins"] + mine["draws"] + mine["losses"]
        low, high = wilson_interval(mine["wins"], comparisons)
        rows.append(
            {
                "opponent": spec,
                "games": mine["games"],
                "win_rate": mine["wins"] / comparisons,
                "win_low": low,
                "win_high": high,
                "draw_rate": mine["draws"] / comparisons,
                "score": mine["score"],
                "mean_return": mine["mean_return"],
            }
        )
    return rows
