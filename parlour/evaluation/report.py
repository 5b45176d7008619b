"""Arena results for people and programs: the summary tables, markdown, CSV, JSON and a
PNG heatmap of the pairwise score matrix.

Outcomes come from the game's returns: in every game, each pair of seated agents is
compared, and the one with the higher return wins (equal returns: a draw).  Games of
more than two seats thus give several pairwise results each.  The statistics are in
:mod:`parlour.evaluation.ratings`.  Nothing a user saved is overwritten silently: files are
created exclusively unless ``force`` is given.  matplotlib is imported only to draw the
PNG (the ``plot`` extra).
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from parlour._version import __version__
from parlour.evaluation.arena import MatchResult
from parlour.evaluation.ratings import fit_ratings, mean_interval, wilson_interval

FILES = {
    "markdown": "arena.md",
    "json": "arena.json",
    "agents": "arena_agents.csv",
    "pairs": "arena_pairs.csv",
    "games": "arena_games.csv",
    "png": "arena_winrate.png",
}


def summarize(result: MatchResult) -> dict[str, Any]:
    """Per-agent rows (rating, mean return, score), per-pair rows and the score matrix.

    Agents are listed in rating order (best first); ``index`` is their place in the
    original agent list.
    """
    k = len(result.labels)
    wins = np.zeros((k, k), dtype=np.int64)  # wins[i, j]: games i finished above j
    draws = np.zeros((k, k), dtype=np.int64)
    returns: list[list[float]] = [[] for _ in range(k)]
    seats = np.zeros((k, result.schedule.num_seats), dtype=np.int64)
    for record in result.records:
        for seat, (agent, value) in enumerate(zip(record.agents, record.returns)):
            returns[agent].append(value)
            seats[agent, seat] += 1
        for (s, a), (t, b) in _seat_pairs(record.agents):
            ra, rb = record.returns[s], record.returns[t]
            if ra > rb:
                wins[a, b] += 1
            elif rb > ra:
                wins[b, a] += 1
            else:
                draws[a, b] += 1
                draws[b, a] += 1
    games = wins + wins.T + draws
    score = wins + draws / 2
    pair_results = [(i, j, float(score[i, j]), float(games[i, j])) for i in range(k) for j in range(i + 1, k) if games[i, j]]
    ratings = fit_ratings(k, pair_results)
    order = sorted(range(k), key=lambda i: (-ratings.elo[i], i))

    agents = []
    for rank, i in enumerate(order, 1):
        mean, low, high = mean_interval(returns[i])
        total = int(games[i].sum())
        elo_low, elo_high = ratings.interval(i)
        agents.append(
            {
                "rank": rank,
                "agent": result.labels[i],
                "index": i,
                "elo": float(ratings.elo[i]),
                "elo_low": elo_low,
                "elo_high": elo_high,
                "games": len(returns[i]),
                "games_by_seat": seats[i].tolist(),
                "mean_return": mean,
                "return_low": low,
                "return_high": high,
                "wins": int(wins[i].sum()),
                "draws": int(draws[i].sum()),
                "losses": int(wins[:, i].sum()),
                "score": float(score[i].sum() / total) if total else math.nan,
            }
        )
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            n = int(games[i, j])
            if not n:
                continue
            win_low, win_high = wilson_interval(int(wins[i, j]), n)
            draw_low, draw_high = wilson_interval(int(draws[i, j]), n)
            loss_low, loss_high = wilson_interval(int(wins[j, i]), n)
            score_low, score_high = wilson_interval(float(score[i, j]), n)
            pairs.append(
                {
                    "agent_a": result.labels[i],
                    "agent_b": result.labels[j],
                    "games": n,
                    "a_wins": int(wins[i, j]),
                    "draws": int(draws[i, j]),
                    "b_wins": int(wins[j, i]),
                    "a_win_rate": wins[i, j] / n,
                    "a_win_low": win_low,
                    "a_win_high": win_high,
                    "draw_rate": draws[i, j] / n,
                    "draw_low": draw_low,
                    "draw_high": draw_high,
                    "b_win_rate": wins[j, i] / n,
                    "b_win_low": loss_low,
                    "b_win_high": loss_high,
                    "a_score": score[i, j] / n,
                    "a_score_low": score_low,
                    "a_score_high": score_high,
                    "elo_difference": float(ratings.elo[i] - ratings.elo[j]),
                    "elo_difference_stderr": ratings.difference_stderr(i, j),
                }
            )
    with np.errstate(invalid="ignore", divide="ignore"):
        matrix = np.where(games > 0, score / np.maximum(games, 1), np.nan)
    schedule = result.schedule
    return {
        "parlour": __version__,
        "game": result.game.name,
        "options": dict(result.game.config),
        "seed": schedule.seed,
        "schedule": {
            "games_per_group": schedule.games_per_group,
            "groups": len(schedule.groups),
            "seatings": len(schedule.seatings),
            "total_games": schedule.num_games,
        },
        "agents": agents,
        "pairs": pairs,
        "score_matrix": {"agents": [result.labels[i] for i in order], "score": matrix[np.ix_(order, order)].tolist()},
        "timing": {
            "seconds": result.seconds,
            "workers": result.workers,
            "seconds_per_move": dict(zip(result.labels, result.seconds_per_move)),
        },
    }


def _seat_pairs(agents: tuple[int, ...]):
    seated = list(enumerate(agents))
    for x in range(len(seated)):
        for y in range(x + 1, len(seated)):
            yield seated[x], seated[y]


# --- text -------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return "-" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _num(x: float, fmt: str) -> str:
    """``format`` without a "-0" for values that round to zero."""
    if x is None or math.isnan(x):
        return "-"
    text = format(x, fmt)
    return format(0.0, fmt) if float(text) == 0 else text


def _interval(low: float, high: float, fmt: str) -> str:
    if low is None or math.isnan(low):
        return "-"
    return f"[{_num(low, fmt)}, {_num(high, fmt)}]"


def _options_text(options: dict[str, Any]) -> str:
    shown = {k: v for k, v in options.items() if v is not None}
    return ", ".join(f"{k}={v}" for k, v in shown.items())


def head_to_head(summary: dict[str, Any], agent: str) -> list[str]:
    """Markdown lines: ``agent`` against each other agent, its own games only (win, draw,
    loss counts and its score with a 95% interval), in the order the agents were given."""
    lines = [
        f"Head to head: {agent} against each opponent",
        "",
        "| opponent | games | wins | draws | losses | score [95%] |",
        "|---|---:|---:|---:|---:|---|",
    ]
    found = False
    for row in summary["pairs"]:
        if agent not in (row["agent_a"], row["agent_b"]):
            continue
        found = True
        mine = row["agent_a"] == agent
        opponent = row["agent_b"] if mine else row["agent_a"]
        wins, losses = (row["a_wins"], row["b_wins"]) if mine else (row["b_wins"], row["a_wins"])
        points = wins + row["draws"] / 2
        low, high = wilson_interval(points, row["games"])
        lines.append(
            f"| {opponent} | {row['games']} | {wins} | {row['draws']} | {losses} "
            f"| {_pct(points / row['games'])} {_interval(100 * low, 100 * high, '.1f')} |"
        )
    if not found:
        raise ValueError(f"{agent!r} played in no pairing; agents are {[r['agent'] for r in summary['agents']]}")
    return lines


def to_markdown(summary: dict[str, Any], focus: str | None = None) -> str:
    """The ratings table and the pairwise table, as GitHub-flavoured markdown; with
    ``focus`` (an agent's label), that agent's head-to-head results come first.

    Deterministic for a given seed (no timings), so it can be compared across runs.
    """
    sched = summary["schedule"]
    lines = [
        f"### {summary['game']} ({_options_text(summary['options'])})",
        "",
        (
            f"{len(summary['agents'])} agents, {sched['games_per_group']} games per pairing "
            f"({sched['total_games']} games; every agent plays every seat equally often), seed {summary['seed']}"
        ),
        "",
    ]
    if focus is not None:
        lines += [*head_to_head(summary, focus), "", "Ratings of every agent, pooling all its games (see the note below):", ""]
    lines += [
        "| rank | agent | Elo | 95% interval | games | W-D-L | score | mean return | 95% interval |",
        "|---:|---|---:|---|---:|---|---:|---:|---|",
    ]
    for row in summary["agents"]:
        lines.append(
            f"| {row['rank']} | {row['agent']} | {_num(row['elo'], '+.0f')} | {_interval(row['elo_low'], row['elo_high'], '+.0f')} "
            f"| {row['games']} | {row['wins']}-{row['draws']}-{row['losses']} | {_pct(row['score'])} "
            f"| {_num(row['mean_return'], '+.3f')} | {_interval(row['return_low'], row['return_high'], '+.3f')} |"
        )
    lines += [
        "",
        "| A | B | games | A wins | draws | B wins | A win rate [95%] | B win rate [95%] | A score [95%] |",
        "|---|---|---:|---:|---:|---:|---|---|---|",
    ]
    for row in summary["pairs"]:
        lines.append(
            f"| {row['agent_a']} | {row['agent_b']} | {row['games']} | {row['a_wins']} | {row['draws']} | {row['b_wins']} "
            f"| {_pct(row['a_win_rate'])} {_interval(100 * row['a_win_low'], 100 * row['a_win_high'], '.1f')} "
            f"| {_pct(row['b_win_rate'])} {_interval(100 * row['b_win_low'], 100 * row['b_win_high'], '.1f')} "
            f"| {_pct(row['a_score'])} {_interval(100 * row['a_score_low'], 100 * row['a_score_high'], '.1f')} |"
        )
    lines += [
        "",
        (
            "Elo: Bradley-Terry maximum likelihood (draws count half, weak prior), ratings sum to 0; "
            "intervals 95% (Wilson for rates). A rating pools an agent's games against every "
            "opponent, so wins against weak ones can rank it above an agent it loses to head to "
            "head: the pairwise rows say who beats whom."
        ),
    ]
    return "\n".join(lines)


def timing_text(summary: dict[str, Any]) -> str:
    timing = summary["timing"]
    per_move = ", ".join(f"{name} {seconds * 1000:.2f}" for name, seconds in timing["seconds_per_move"].items())
    return (f"{summary['schedule']['total_games']} games in {timing['seconds']:.1f} s with {timing['workers']} worker(s); "
            f"ms per move: {per_move}")


# --- files ------------------------------------------------------------------------------


def result_paths(out: str | Path, plot: bool = True) -> dict[str, Path]:
    """The files a report writes into ``out``."""
    folder = Path(out)
    return {kind: folder / name for kind, name in FILES.items() if plot or kind != "png"}


def check_writable(out: str | Path, plot: bool = True, force: bool = False) -> dict[str, Path]:
    """The result paths; ``FileExistsError`` listing any that exist unless ``force``.

    Call it before a long match so a clash is reported before the work, not after.
    """
    paths = result_paths(out, plot)
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise FileExistsError(f"--out {str(out)!r} is a file, not a folder")
    existing = [str(p) for p in paths.values() if p.exists()]
    if existing and not force:
        raise FileExistsError(
            f"result files already exist: {', '.join(existing)}; choose another --out folder or pass --force to overwrite them"
        )
    return paths


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    return value


def _csv_text(rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (" ".join(map(str, v)) if isinstance(v, list) else v) for k, v in row.items()})
    return buffer.getvalue()


def _games_rows(result: MatchResult) -> list[dict[str, Any]]:
    rows = []
    for record in result.records:
        row: dict[str, Any] = {"game": record.index, "game_seed": record.game_seed, "length": record.length}
        for seat, agent in enumerate(record.agents):
            row[f"seat_{seat}"] = result.labels[agent]
        for seat, value in enumerate(record.returns):
            row[f"return_{seat}"] = value
        # an action per step; a simultaneous step as seat:action pairs joined by "/"
        row["moves"] = " ".join("/".join(f"{s}:{a}" for s, a in step) if isinstance(step, tuple) else str(step) for step in record.moves)
        rows.append(row)
    return rows


def write_report(result: MatchResult, summary: dict[str, Any], out: str | Path, force: bool = False, plot: bool = True) -> dict[str, Path]:
    """Write markdown, JSON, CSVs and (with ``plot``) the PNG heatmap into ``out``.

    Returns the paths written.  ``FileExistsError`` if any exists and not ``force``;
    ``ImportError`` with an install hint if ``plot`` and matplotlib is missing (the
    other files are written first).
    """
    paths = check_writable(out, plot, force)
    Path(out).mkdir(parents=True, exist_ok=True)
    mode = "w" if force else "x"
    texts = {
        "markdown": to_markdown(summary) + "\n\n" + timing_text(summary) + "\n",
        "json": json.dumps(_jsonable({**summary, "games_played": _games_rows(result)}), indent=2) + "\n",
        "agents": _csv_text([{k: v for k, v in row.items()} for row in summary["agents"]]),
        "pairs": _csv_text(summary["pairs"]),
        "games": _csv_text(_games_rows(result)),
    }
    written = {}
    for kind, text in texts.items():
        with open(paths[kind], mode, encoding="utf-8", newline="") as handle:
            handle.write(text)
        written[kind] = paths[kind]
    if plot:
        write_heatmap(summary, paths["png"], force)
        written["png"] = paths["png"]
    return written


def _cell(rate: float) -> str:
    """A percentage that never rounds a near-sweep to 0% or 100%."""
    text = f"{100 * rate:.0f}%"
    if text in ("0%", "100%") and 0 < rate < 1:
        text = f"{100 * rate:.1f}%"
    return text


def write_heatmap(summary: dict[str, Any], path: str | Path, force: bool = False) -> None:
    """A PNG of the score matrix (row agent's score against the column agent)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(
            "the PNG heatmap needs matplotlib: pip install 'parlour[plot]' (or pass --no-plot)"
        ) from None
    labels = summary["score_matrix"]["agents"]
    matrix = np.array(summary["score_matrix"]["score"], dtype=float)
    size = max(3.5, 0.9 * len(labels) + 2)
    figure = Figure(figsize=(size + 1.5, size), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    image = axes.imshow(np.ma.masked_invalid(matrix), cmap="RdBu", vmin=0, vmax=1)
    axes.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    axes.set_yticks(range(len(labels)), labels)
    axes.set_xlabel("opponent")
    axes.set_ylabel("agent")
    for i in range(len(labels)):
        for j in range(len(labels)):
            if not math.isnan(matrix[i, j]):
                dark = abs(matrix[i, j] - 0.5) > 0.3
                axes.text(j, i, _cell(matrix[i, j]), ha="center", va="center", color="white" if dark else "black")
    figure.colorbar(image, ax=axes, label="score (wins + half the draws)")
    axes.set_title(f"{summary['game']}: score of row vs column")
    mode = "wb" if force else "xb"
    with open(path, mode) as handle:
        figure.savefig(handle, format="png", dpi=120)
