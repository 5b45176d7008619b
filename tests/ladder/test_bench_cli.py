"""``parlour bench`` on the command line: cards written once, clear errors, the ladders."""

from __future__ import annotations

import json

import pytest

import parlour.ladder.cli
from parlour.cli import main
from parlour.ladder import LADDERS


def run(capsys, argv):
    code = main(["bench", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_bench_prints_a_rating_and_writes_the_card_once(tmp_path, capsys):
    out = tmp_path / "cards"
    code, text, _ = run(capsys, ["--game", "sticks", "--agent", "mcts:simulations=8", "--out", str(out), "--workers", "2", "--quiet"])
    assert code == 0
    assert "parlour-bench/v1 sticks/v1: mcts:simulations=8" in text and "rating " in text
    card = json.loads((out / "sticks.json").read_text())
    assert card["agent"] == "mcts:simulations=8" and card["games"] == 500
    before = (out / "sticks.json").read_bytes()
    code, _, err = run(capsys, ["--game", "sticks", "--agent", "random", "--out", str(out), "--quiet"])
    assert code == 2 and "exists; pass --force" in err
    assert (out / "sticks.json").read_bytes() == before  # nothing a user saved is replaced silently
    code, _, _ = run(capsys, ["--game", "sticks", "--agent", "random", "--out", str(out), "--quiet", "--force"])
    assert code == 0 and json.loads((out / "sticks.json").read_text())["agent"] == "random"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agent", "random"], "give --game GAME or --all-games"),
        (["--game", "sticks"], "--agent SPEC"),
        (["--game", "sticks", "--agent", "nosuch"], "is not a player spec"),
        (["--game", "sticks", "--agent", "random", "--workers", "0"], "--workers must be at least 1"),
        (["--game", "sticks", "--agent", "random", "--target", "-1"], "--target must be a positive"),
    ],
)
def test_bad_bench_input_is_named(tmp_path, capsys, argv, message):
    code, _, err = run(capsys, [*argv, "--out", str(tmp_path)])
    assert code == 2 and message in err


def test_all_games_rates_on_every_ladder_with_the_game_in_the_agent(tmp_path, capsys, monkeypatch):
    calls = []

    def fake_bench(game, agent, **kwargs):
        calls.append((game, agent))
        return {"fake": game}

    import parlour.ladder.run

    monkeypatch.setattr(parlour.ladder.run, "bench", fake_bench)
    monkeypatch.setattr(parlour.ladder.run, "card_text", lambda card: f"card {card['fake']}")
    code, text, _ = run(capsys, ["--all-games", "--agent", "ppo:runs/{game}/best.zip", "--out", str(tmp_path)])
    assert code == 0
    assert [game for game, _ in calls] == sorted(LADDERS)
    assert all(agent == "ppo:runs/{game}/best.zip" for _, agent in calls)  # bench substitutes it per game
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{g}.json" for g in LADDERS)


def test_ladders_lists_every_calibrated_ladder(capsys):
    code, text, _ = run(capsys, ["--ladders"])
    assert code == 0
    for _game, spec in LADDERS.items():
        assert spec.version in text
        assert spec.rungs[-1] in text


def test_calibrate_writes_a_new_file_and_never_the_shipped_one_without_force(tmp_path, capsys):
    target = tmp_path / "sticks.json"
    code, text, _ = run(capsys, ["--game", "sticks", "--calibrate", "--calibration-file", str(target), "--workers", "2", "--quiet"])
    assert code == 0 and "sticks/v1" in text
    fresh = json.loads(target.read_text())
    shipped = json.loads(parlour.ladder.cli.data_path("sticks").read_text())
    assert fresh["pairs"] == [{**p, "score_interval": p["score_interval"]} for p in shipped["pairs"]]  # the same games
    code, _, err = run(capsys, ["--game", "sticks", "--calibrate", "--quiet"])
    assert code == 2 and "exists; pass --force" in err
