"""The learned n-tuple evaluation: Double Card's window features, the model file, the
``ntuple:`` player, TD(lambda)'s targets and fit, and ``parlour train-ntuple`` (runs of
Double Card and of Tribolo; Tribolo's features: test_ntuple_tribolo.py)."""

import json
import sys
import zipfile

import numpy as np
import pytest

from parlour.baselines import make_from_spec
from parlour.baselines.learned.ntuple import NTupleEvaluation, load_ntuple, ntuple_features, save_ntuple
from parlour.baselines.players.double_card import FEATURE_WINDOW_CELLS, WINDOW_FEATURES, window_features
from parlour.cli import main
from parlour.errors import DamagedFileError
from parlour.games import load_game
from parlour.games.double_card import COLS, ROWS
from parlour.training.backends.ntuple import NTupleBackend, NTupleSettings, record_game, td_fit, td_targets
from parlour.training.config import TrainConfig
from parlour.training.devices import resolve_device
from parlour.training.gating import gating_match
from parlour.training.run_files import RunFiles
from parlour.training.trainer import Trainer


def random_positions(count, seed=0):
    game = load_game("double_card")
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(positions) < count:
            (seat,) = state.current_players()
            legal = state.legal_actions(seat)
            state.apply(legal[int(rng.integers(len(legal)))])
            if not state.is_terminal():
                positions.append(state.clone())
    return positions


def test_window_features_are_each_windows_code_threat_and_side_to_move():
    """Checked against the board cell by cell: a window's index holds its four segments
    (base 5), +625 for a three whose empty cell is at the surface, +1250 when the colours
    seat is to move."""
    for state in random_positions(60):
        indices = window_features(state)
        assert indices.shape == (len(FEATURE_WINDOW_CELLS),) and indices.min() >= 0 and indices.max() < WINDOW_FEATURES
        surface = {cell for cell in range(ROWS * COLS) if state.surface >> cell & 1}
        colours_to_move = state.to_move == state.game.colors_seat
        for index, cells in zip(indices, FEATURE_WINDOW_CELLS):
            segs = [state.seg[cell] for cell in cells]
            code = sum(seg * 5 ** (3 - i) for i, seg in enumerate(segs))
            empty = [cell for cell, seg in zip(cells, segs) if seg == 0]
            threat = len(empty) == 1 and empty[0] in surface
            assert index == code + 625 * threat + 1250 * colours_to_move


def test_the_evaluation_is_a_logistic_win_probability_for_the_colours_seat():
    game = load_game("double_card")
    features = ntuple_features(game, "windows")
    state = random_positions(10, seed=3)[-1]
    assert np.array_equal(NTupleEvaluation(np.zeros(WINDOW_FEATURES), features)(state), [0.0, 0.0])
    weights = np.zeros(WINDOW_FEATURES)
    weights[window_features(state)[0]] = 2.0  # one feature of this position: the colours seat's chances rise
    evaluation = NTupleEvaluation(weights, features)
    values = evaluation(state)
    colours = game.colors_seat
    count = int((window_features(state) == window_features(state)[0]).sum())
    assert values[colours] == pytest.approx(np.tanh(count)) and values[1 - colours] == -values[colours]
    assert evaluation.win_probability(state) == pytest.approx(1 / (1 + np.exp(-2.0 * count)))


def test_model_files_round_trip_and_refuse_what_they_cannot_play(tmp_path):
    game = load_game("double_card")
    weights = np.random.default_rng(0).normal(size=WINDOW_FEATURES)
    path = save_ntuple(weights, tmp_path / "m.zip", game, {"generation": 3}, features="windows")
    loaded, meta = load_ntuple(path, game)
    assert np.array_equal(loaded, weights) and meta["generation"] == 3 and meta["search"] == "double-card-best"
    with pytest.raises(ValueError, match="must be 2500 finite numbers, got shape \\(3,\\)"):
        save_ntuple(np.zeros(3), tmp_path / "bad.zip", game, features="windows")
    with pytest.raises(ValueError, match="must be 2500 finite numbers"):
        save_ntuple(np.full(WINDOW_FEATURES, np.nan), tmp_path / "bad.zip", game, features="windows")
    assert not (tmp_path / "bad.zip").exists()
    with pytest.raises(ValueError, match="no n-tuple features for goofspiel; games with them: \\['double_card', 'tribolo'\\]"):
        save_ntuple(weights, tmp_path / "t.zip", load_game("goofspiel"))
    with pytest.raises(ValueError, match="was trained for 'double_card', not 'tribolo'"):
        load_ntuple(path, load_game("tribolo"))
    # a weights entry of the wrong shape, or unreadable: a damaged file, named
    for name, content in (("shape.zip", np.zeros(7)), ("text.zip", b"not an array")):
        with zipfile.ZipFile(path) as archive:
            meta_text = archive.read("parlour.json")
        with zipfile.ZipFile(tmp_path / name, "w") as archive:
            archive.writestr("parlour.json", meta_text)
            if isinstance(content, bytes):
                archive.writestr("weights.npy", content)
            else:
                with archive.open("weights.npy", "w") as entry:
                    np.save(entry, content)
        with pytest.raises(DamagedFileError, match=f"{name}"):
            load_ntuple(tmp_path / name, game)
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(path.read_bytes()[:200])
    with pytest.raises(DamagedFileError):
        load_ntuple(truncated, game)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("parlour.json", json.dumps({**json.loads(meta_text), "kind": "alphazero"}))
    with pytest.raises(ValueError, match="is 'alphazero' model, not an n-tuple one"):
        load_ntuple(other, game)


def test_the_ntuple_player_is_the_search_with_the_learned_evaluation(tmp_path):
    game = load_game("double_card")
    path = save_ntuple(np.random.default_rng(1).normal(scale=0.1, size=WINDOW_FEATURES), tmp_path / "m.zip", game, features="windows")
    state = random_positions(9, seed=2)[-1]
    (seat,) = state.current_players()
    agent = make_from_spec(f"ntuple:{path},depth=2,time_limit=none", game, seed=0)
    move = agent.act(state.info_state(seat))
    assert move in state.legal_actions(seat)
    assert move == make_from_spec(f"ntuple:{path},depth=2,time_limit=none", game, seed=0).act(state.info_state(seat))
    assert isinstance(agent.search.evaluate, NTupleEvaluation) and agent.stats
    with pytest.raises(ValueError, match="policy 'ntuple' needs a model file"):
        make_from_spec("ntuple", game)
    with pytest.raises(ValueError, match="cannot play goofspiel"):
        make_from_spec(f"ntuple:{path}", load_game("goofspiel"))
    with pytest.raises(ValueError, match="was trained for 'double_card', not 'tribolo'"):
        make_from_spec(f"ntuple:{path}", load_game("tribolo"))
    with pytest.raises(ValueError, match="depth=0: must be at least 1"):
        make_from_spec(f"ntuple:{path},depth=0", game)
    observation, mask = state.observation_tensor(seat), state.legal_mask(seat)
    assert agent.act_observation(observation, mask) == move  # the search, from the position the observation shows
    with pytest.raises(ValueError, match="the observing seat moves"):
        agent.act_observation(state.observation_tensor(1 - seat), mask)


def test_td_targets_are_lambda_returns_game_by_game():
    predictions = np.array([0.2, 0.4, 0.6, 0.9, 0.1])  # a game of three positions, then one of two
    lengths, results = np.array([3, 2]), np.array([1.0, 0.0])
    lam = 0.5
    g2 = 1.0
    g1 = 0.5 * 0.6 + 0.5 * g2
    g0 = 0.5 * 0.4 + 0.5 * g1
    h1 = 0.0
    h0 = 0.5 * 0.1 + 0.5 * h1
    assert np.allclose(td_targets(predictions, lengths, results, lam), [g0, g1, g2, h0, h1])
    assert np.allclose(td_targets(predictions, lengths, results, 1.0), [1, 1, 1, 0, 0])  # Monte Carlo
    assert np.allclose(td_targets(predictions, lengths, results, 0.0), [0.4, 0.6, 1, 0.1, 0])  # one step


def test_td_fit_learns_which_features_win():
    """Games in which feature 5 shows up when the perspective seat wins and feature 9
    when it loses: the fit raises the one and lowers the other, and the result loss falls."""
    rng = np.random.default_rng(0)
    games = []
    for _ in range(200):
        won = bool(rng.integers(2))
        positions = rng.integers(20, 30, size=(6, 4))
        positions[:, 0] = 5 if won else 9
        games.append((positions, float(won)))
    settings = NTupleSettings(epochs=150, lam=0.7, learning_rate=0.05)
    weights, report = td_fit(games, np.zeros(WINDOW_FEATURES), settings)
    assert weights[5] > 1 and weights[9] < -1
    assert report.positions == 1200 and report.result_loss_after < 0.2 < report.result_loss_before


QUIET = {"progress": False, "log": lambda _: None}


TRIBOLO_TINY = {"width": 6, "height": 5, "walls": 2, "start_cells": 2}
GAMES = {"double_card": {"game_options": {}, "gate_games": 2, "eval_games": 2},
         "tribolo": {"game_options": TRIBOLO_TINY, "gate_games": 3, "eval_games": 3}}
"""The tiny runs of each game: Tribolo on a 6 x 5 board, its matches a multiple of its three seats."""


def ntuple_config(game="double_card", **changes):
    tiny = GAMES[game]
    table = {"depth": 1, "opening": 2, "epochs": 5, "gate_games": tiny["gate_games"], **changes.pop("ntuple", {})}
    settings = {"game": game, "game_options": tiny["game_options"], "algo": "ntuple", "timesteps": 8, "eval_every": 4,
                "eval_games": tiny["eval_games"], "eval_opponents": ["random"], "seed": 1, "ntuple": table, **changes}
    return TrainConfig(**settings)


def same_weights(a, b, game="double_card"):
    game = load_game(game, **GAMES[game]["game_options"])
    return np.array_equal(load_ntuple(a, game)[0], load_ntuple(b, game)[0])


def assert_runs_with_one_and_two_workers_agree(tmp_path, game):
    """The same run with ``workers`` 1 and 2: the same steps, evaluations, gates and weights."""
    one = Trainer(ntuple_config(game), tmp_path / "one", **QUIET)
    assert isinstance(one.backend, NTupleBackend)
    one = one.run()
    two = Trainer(ntuple_config(game, ntuple={"workers": 2}), tmp_path / "two", **QUIET).run()
    assert one.steps == two.steps == 8 and one.evaluations == two.evaluations and one.best_step == two.best_step
    assert (tmp_path / "one" / "gating.csv").read_text() == (tmp_path / "two" / "gating.csv").read_text()
    for name in ("best.zip", "last.zip"):
        assert same_weights(tmp_path / "one" / name, tmp_path / "two" / name, game)


def test_recorded_games_and_a_run_do_not_depend_on_the_workers(tmp_path):
    game = load_game("double_card")
    [(positions, result)] = record_game(game, None, depth=1, opening=2, seed=4)  # one chain: the colours seat's
    assert positions.shape[1] == len(FEATURE_WINDOW_CELLS) + 1 and result in (0.0, 0.5, 1.0)  # reach: the windows and the threats
    windows = record_game(game, None, depth=1, opening=2, seed=4, features="windows")[0][0]
    assert windows.shape == (len(positions), len(FEATURE_WINDOW_CELLS))
    assert np.array_equal(record_game(game, None, depth=1, opening=2, seed=4)[0][0], positions)
    assert_runs_with_one_and_two_workers_agree(tmp_path, "double_card")
    gating = (tmp_path / "one" / "gating.csv").read_text().splitlines()
    assert len(gating) == 3 and gating[0].startswith("step,best_step,games,score")  # a gate per generation
    with pytest.raises(FileExistsError, match="already exists and is not empty"):
        Trainer(ntuple_config(), tmp_path / "one", **QUIET)


def test_a_tribolo_run_does_not_depend_on_the_workers(tmp_path):
    """Three chains a game (one per seat) through the same loop, on a tiny board."""
    assert_runs_with_one_and_two_workers_agree(tmp_path, "tribolo")
    weights, meta = load_ntuple(tmp_path / "one" / "last.zip", load_game("tribolo", **TRIBOLO_TINY))
    assert meta["search"] == "paranoid" and weights.any()


@pytest.mark.parametrize("game", GAMES)
def test_a_run_resumes_exactly(tmp_path, game):
    """A run stopped after its first generation and resumed plays the second generation's
    games as the whole run does, from the window's games played again."""
    whole = Trainer(ntuple_config(game, timesteps=12, ntuple={"window": 2}), tmp_path / "whole", **QUIET).run()
    Trainer(ntuple_config(game, timesteps=8, ntuple={"window": 2}), tmp_path / "cut", **QUIET).run()
    resumed = Trainer(None, tmp_path / "cut", resume=True, timesteps=12, **QUIET).run()
    assert resumed.steps == whole.steps == 12
    assert resumed.evaluations == whole.evaluations and resumed.best_step == whole.best_step
    assert same_weights(tmp_path / "whole" / "last.zip", tmp_path / "cut" / "last.zip", game)
    assert (tmp_path / "whole" / "gating.csv").read_text() == (tmp_path / "cut" / "gating.csv").read_text()


def test_without_gate_games_every_generation_is_best(tmp_path):
    result = Trainer(ntuple_config(ntuple={"gate_games": 0}), tmp_path / "run", **QUIET).run()
    assert result.best_step == 8 and result.warnings == []
    assert same_weights(tmp_path / "run" / "best.zip", tmp_path / "run" / "last.zip")


def test_models_are_judged_at_the_play_depth(tmp_path, monkeypatch):
    """``play_depth``: the self-play games (and so the weights) are those of ``depth``; the
    evaluations and gating matches play the models at ``play_depth``."""
    played = []
    real = gating_match

    def spy(run, agent, best, *args, **kwargs):
        played.append((agent, best))
        return real(run, agent, best, *args, **kwargs)

    monkeypatch.setattr("parlour.training.backends.ntuple.gating_match", spy)
    plain = Trainer(ntuple_config(), tmp_path / "plain", **QUIET).run()
    deeper = Trainer(ntuple_config(ntuple={"play_depth": 2}), tmp_path / "deeper", **QUIET)
    assert deeper.backend.learner_spec("m.zip") == "ntuple:m.zip,depth=2,time_limit=none"
    deeper = deeper.run()
    assert [agent.endswith(",depth=1,time_limit=none") for agent, _ in played[:2]] == [True, True]
    assert all(agent.endswith(",depth=2,time_limit=none") and best.endswith(",depth=2,time_limit=none") for agent, best in played[2:])
    assert len(played) == 4 and plain.steps == deeper.steps == 8
    first = "checkpoints/step_000000004/model.zip"
    assert same_weights(tmp_path / "plain" / first, tmp_path / "deeper" / first)
    with pytest.raises(ValueError, match="play_depth must be at least 0, got -1"):
        ntuple_config(ntuple={"play_depth": -1})


def test_the_command_trains_and_refuses_bad_settings(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train-ntuple", "--out", str(out), "--generations", "1", "--games", "2", "--depth", "1",
                 "--epochs", "2", "--gate-games", "0", "--eval-games", "2", "--eval-opponents", "random", "--quiet"]) == 0
    assert f"play the best with ntuple:{out / 'best.zip'},depth=1,time_limit=none" in capsys.readouterr().out
    config = RunFiles(out).config.read_text()
    assert 'algo = "ntuple"' in config and "timesteps = 2" in config and "gate_games = 0" in config
    assert main(["train-ntuple", "--out", str(out), "--resume", "--generations", "2", "--games", "2", "--depth", "1",
                 "--epochs", "2", "--gate-games", "0", "--eval-games", "2", "--eval-opponents", "random", "--quiet"]) == 0
    assert "resuming" in capsys.readouterr().out
    assert [line.split(",")[0] for line in (out / "evaluations.csv").read_text().splitlines()[1:]] == ["0", "2", "4"]
    assert main(["train-ntuple", "--out", str(out), "--resume", "--generations", "3", "--games", "2", "--depth", "2",
                 "--quiet"]) == 2
    assert "--depth 2 changes ntuple.depth (saved 1, given 2)" in capsys.readouterr().err
    assert main(["train-ntuple", "--out", str(tmp_path / "d"), "--generations", "1", "--games", "2", "--depth", "1", "--play-depth", "2",
                 "--epochs", "2", "--learning-rate", "0.003", "--gate-games", "0", "--eval-games", "2", "--eval-opponents", "random",
                 "--quiet"]) == 0
    assert f"play the best with ntuple:{tmp_path / 'd' / 'best.zip'},depth=2,time_limit=none" in capsys.readouterr().out
    config = RunFiles(tmp_path / "d").config.read_text()
    assert "play_depth = 2" in config and "learning_rate = 0.003" in config
    assert main(["train-ntuple", "--out", str(tmp_path / "x"), "--lam", "2"]) == 2
    assert "ntuple.lam must be in [0, 1], got 2.0" in capsys.readouterr().err
    assert main(["train-ntuple", "--game", "goofspiel", "--out", str(tmp_path / "y"), "--generations", "1", "--games", "1"]) == 2
    assert "no n-tuple features for goofspiel" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()
    assert main(["train", "--algo", "ntuple", "--game", "double_card", "--opponents", "random", "--out", str(tmp_path / "z")]) == 2
    assert "--algo ntuple learns by self-play only" in capsys.readouterr().err


def test_the_learner_needs_no_torch(monkeypatch):
    """The n-tuple learner is numpy only: without torch a run's device ``auto`` is the CPU
    (``cuda`` says torch is missing), so ``parlour train --algo ntuple`` runs on the core
    dependencies (as .ci/compat runs it)."""
    monkeypatch.setitem(sys.modules, "torch", None)  # as if it were not installed
    assert resolve_device("auto") == resolve_device("cpu") == "cpu"
    with pytest.raises(ValueError, match=r"device 'cuda': torch is not installed \(pip install 'parlour\[train\]'\)"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match="device must be 'auto', 'cpu' or 'cuda', got 'tpu'"):
        resolve_device("tpu")
