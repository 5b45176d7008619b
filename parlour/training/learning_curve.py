"""A run's learning curve (learning_curve.png): the win rate against each evaluation
opponent over the training steps, with 95% bands.  matplotlib is the ``plot`` extra."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from parlour.games.base import Game


def run_title(game: Game) -> str:
    """The curve's title: the game and its options."""
    options = ", ".join(f"{key}={value}" for key, value in game.config.items())
    return "\n".join(textwrap.wrap(f"{game.name} ({options})", 80))


def plot_learning_curve(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    """Win rate against each evaluation opponent over training steps, with 95% bands
    (written atomically; ``ImportError`` without matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for opponent in dict.fromkeys(row["opponent"] for row in rows):
        mine = [row for row in rows if row["opponent"] == opponent]
        steps = [row["step"] for row in mine]
        axes.plot(steps, [row["win_rate"] for row in mine], marker="o", label=f"vs {opponent}")
        axes.fill_between(steps, [row["win_low"] for row in mine], [row["win_high"] for row in mine], alpha=0.2)
    axes.set_xlabel("training steps")
    axes.set_ylabel("win rate (95% interval)")
    axes.set_ylim(0, 1)
    axes.set_title(title, fontsize=9)
    axes.grid(alpha=0.3)
    axes.legend(loc="best", fontsize=8)
    figure.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    figure.savefig(tmp)
    plt.close(figure)
    tmp.replace(path)
