"""Rate one agent against fixed opponents through the arena: its win rate, with a 95%
Wilson interval, against each opponent in turn (the opponent fills every other seat).

With more than two seats, a game counts once per opponent seat: the agent wins a
comparison when its return is higher than that seat's (the arena's pairwise rule).
The per-game defaults name, for each game, ``random``, the seed's own AI and the
strongest search baseline that is quick enough to play hundreds of games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlour.baselines import Policy, make_from_spec
from parlour.games.base import Game
from parlour.training.arena import play_match
from parlour.training.ratings import wilson_interval
from parlour.training.report import summarize


def default_opponents(game: Game) -> dict[str, str]:
    """``{"random": ..., "seed": ..., "strongest": ...}`` specs for ``game``."""
    name = game.name
    if name == "sticks":
        return {"random": "random", "seed": "seed-minimax", "strongest": "optimal"}
    if name == "goofspiel":
        small = game.config["num_cards"] <= 6 and game.num_players == 2
        return {"random": "random", "seed": "rudimentary", "strongest": "equilibrium" if small else "mcts:simulations=200"}
    if name == "tides_of_time":
        return {"random": "random", "seed": "seed-alphabeta", "strongest": "tides-equilibrium"}
    if name == "tribolo":
        return {"random": "random", "seed": "seed-strategy", "strongest": "mcts:simulations=200"}
    if name == "double_card":
        return {"random": "random", "seed": "seed-tournament:time_limit=0.5", "strongest": "double-card-best:time_limit=0.5"}
    return {"random": "random"}


def evaluate(
    game: Game,
    agent: str | Policy,
    opponents: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
) -> list[dict[str, Any]]:
    """One row per opponent: games, win/draw rates, the win rate's 95% interval, the
    score (win 1, draw 1/2) and the agent's mean return."""
    rows = []
    for index, spec in enumerate(opponents):
        others = [make_from_spec(spec, game) if workers == 1 else spec for _ in range(game.num_players - 1)]
        result = play_match(game, [agent, *others], games=games, seed=seed + index, workers=workers, progress=False)
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
