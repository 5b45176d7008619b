"""Rate one agent against fixed opponents through the arena: its win rate, with a 95%
Wilson interval, against each opponent in turn (the opponent fills every other seat).

With more than two seats, a game counts once per opponent seat: the agent wins a
comparison when its return is higher than that seat's (the arena's pairwise rule).
The per-game defaults name, for each game, ``random``, the seed's own AI and the
strongest search baseline (for the final arena), and a quick strong baseline for the
evaluations during training.
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
    """``{"random": ..., "seed": ..., "strongest": ...}`` specs for ``game``: random, the
    seed's own AI and the strongest search baseline of the game's docs (the final arena
    of ``parlour train`` and docs/results.md)."""
    name = game.name
    if name == "sticks":
        return {"random": "random", "seed": "seed-minimax", "strongest": "optimal"}
    if name == "goofspiel":
        small = game.config["num_cards"] <= 8 and game.num_players == 2
        return {"random": "random", "seed": "rudimentary", "strongest": "equilibrium" if small else "mcts:simulations=1000"}
    if name == "tides_of_time":
        return {"random": "random", "seed": "seed-alphabeta", "strongest": "sm-mcts:simulations=1000"}
    if name == "tribolo":
        return {"random": "random", "seed": "seed-strategy", "strongest": "paranoid:depth=4"}
    if name == "double_card":
        return {"random": "random", "seed": "seed-tournament:time_limit=1.0", "strongest": "double-card-best"}
    return {"random": "random"}


def rates_deterministic(game: Game) -> bool:
    """Whether a trained model is rated by its most probable move: yes, except in games
    without chance (sticks, Double Card), where a deterministic agent against a
    deterministic baseline would replay the same game every time; there it samples
    from its policy, so the games differ and the interval means something."""
    return game.info.has_chance


def learner_spec(path: str, game: Game) -> str:
    """The ``ppo:`` spec that rates a trained model (see ``rates_deterministic``)."""
    return f"ppo:{path}" if rates_deterministic(game) else f"ppo:{path},deterministic=false"


FINAL_GAMES = {"sticks": 100, "goofspiel": 100, "tides_of_time": 40, "tribolo": 12, "double_card": 10}
"""Games per pairing of the final arena by default: fewer where the strongest players
need seconds per game (Tribolo, Double Card)."""


def quick_opponents(game: Game) -> list[str]:
    """What training evaluates against by default: random and a strong baseline that is
    quick enough for a few hundred games every evaluation (a few ms per move)."""
    name = game.name
    strong = {
        "sticks": "optimal",
        "tides_of_time": "seed-alphabeta:objective=difference",
        "tribolo": "paranoid:depth=2",
        "double_card": "alphabeta:depth=2,evaluation=h1",
    }.get(name)
    if name == "goofspiel":
        strong = default_opponents(game)["strongest"] if game.config["num_cards"] <= 8 else "mcts:simulations=200"
    return ["random"] + ([strong] if strong else [])


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
