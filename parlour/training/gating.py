"""Best is earned: a gating match between a run's newest model and its best, for the
backends whose best model must win its place (AlphaZero, the n-tuple learner) rather
than score best once against the evaluation opponents, where noise can crown a worse
model.  AlphaGo Zero's evaluator (Silver et al. 2017: 400 games, a 55% threshold)."""

from __future__ import annotations

from typing import Any

from parlour.evaluation.win_rates import win_rates
from parlour.training.seeds import segment_seed

GATING_FIELDS = ["step", "best_step", "games", "score", "win_rate", "win_low", "win_high", "draw_rate", "threshold", "passed"]
"""The columns of a run's gating.csv, a row per gating match."""


def gating_match(run: Any, agent: Any, best_spec: str, step: int, best_step: int, games: int, threshold: float,
                 workers: int = 1, opening: int = 0) -> dict[str, Any]:
    """The match of ``agent`` (the model of ``step``) against ``best_spec`` (the best, of
    ``best_step``) over ``games`` games with every seat equally often, each game opened by
    ``opening`` random plies: its gating.csv row, ``passed`` if the candidate's score (win
    1, draw 1/2, against each other seat) reaches ``threshold``; logged to ``run.log``."""
    (row,) = win_rates(run.game, agent, [best_spec], games, seed=segment_seed(run.config.seed, 2 * 10**6 + step),
                       workers=workers, opening=opening)
    passed = row["score"] >= threshold
    verdict = "becomes best" if passed else f"the model of step {best_step:,} stays best"
    run.log(f"step {step:,}: gating against the best (step {best_step:,}): score {row['score']:.0%} over "
            f"{row['games']} games, threshold {threshold:.0%}: {verdict}")
    return {"step": step, "best_step": best_step, "games": row["games"], "score": row["score"], "win_rate": row["win_rate"],
            "win_low": row["win_low"], "win_high": row["win_high"], "draw_rate": row["draw_rate"], "threshold": threshold,
            "passed": passed}


def untrained_best_warning(gating: list[dict[str, Any]], threshold: float, games: int, kind: str = "model") -> str:
    """What a run whose best is still the step-0 ``kind`` (a network, a model) says about it."""
    tried = ", ".join(f"{row['score']:.0%} at step {row['step']:,}" for row in gating[-3:])
    return (f"best.zip is the UNTRAINED step-0 {kind}: no trained {kind} reached {threshold:.0%} against it "
            f"in a gating match of {games} games ({len(gating)} tried; the last: {tried or 'none'}); "
            "the learning did not show at this budget (see gating.csv)")
