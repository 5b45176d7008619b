"""docs/benchmark.md shows the shipped calibrations and the published cards as they are."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from parlour.ladder.leaderboard import leaderboard_markdown, render_page, replace_section

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_page_is_up_to_date_with_the_calibrations_and_cards():
    page = ROOT / "docs" / "benchmark.md"
    text = page.read_text()
    assert render_page(text, ROOT / "docs" / "benchmark") == text, "run python -m scripts.make_leaderboard"


def test_every_published_card_is_a_protocol_card_of_a_known_ladder():
    for path in sorted((ROOT / "docs" / "benchmark").glob("*.json")):
        card = json.loads(path.read_text())
        assert card["protocol"] == "parlour-bench/v1" and card["protocol_games"], path


def test_every_agent_trained_in_the_results_has_a_card():
    """The leaderboard lists every model that docs/results.md trains (each ``--out runs/results/NAME``)."""
    trained = set(re.findall(r"--out (runs/results/\w+)", (ROOT / "docs" / "results.md").read_text()))
    agents = [json.loads(path.read_text())["agent"] for path in (ROOT / "docs" / "benchmark").glob("*.json")]
    carded = {found.group(1) for agent in agents if (found := re.search(r"(runs/results/\w+)/best\.zip", agent))}  # and the zoo's
    assert len(trained) == 18 and trained <= carded, sorted(trained - carded)


def test_the_leaderboard_orders_each_game_by_rating_and_marks_off_scale_agents():
    def card(game, agent, rating, off=None):
        return {"game": game, "ladder": f"{game}/v1", "agent": agent, "rating": rating, "interval": [rating - 10, rating + 10],
                "off_scale": off, "games": 500, "timing": {"ms_per_move": 1.0},
                "rungs": [{"rung": "random", "score": 0.9}, {"rung": "best", "score": 0.25}]}

    text = leaderboard_markdown([card("sticks", "a", 10), card("sticks", "b", 900, "above"), card("goofspiel", "c", 5)])
    rows = [line for line in text.splitlines() if line.startswith("| ") and "/v1" in line]
    assert [row.split("`")[1] for row in rows] == ["c", "b", "a"]
    assert "(above the ladder)" in rows[1]
    assert "25.0% against `best`" in rows[0]


def test_the_leaderboard_says_when_a_card_stopped_early():
    card = {"game": "tribolo", "ladder": "tribolo/v1", "agent": "a", "rating": 200.0, "interval": [130.0, 270.0],
            "off_scale": None, "games": 144, "timing": {"ms_per_move": 1.0}, "rungs": [{"rung": "best", "score": 0.4}],
            "adaptive": {"on": True, "target": 75.0, "stopped_early": True}}
    assert "| 144 (adaptive, +-75) |" in leaderboard_markdown([card])
    card["adaptive"] = {"on": True, "target": 75.0, "stopped_early": False}
    assert "| 144 |" in leaderboard_markdown([card])


def test_a_page_without_the_markers_is_refused():
    with pytest.raises(ValueError, match="ladders:begin"):
        replace_section("no markers here", "ladders", "x")
