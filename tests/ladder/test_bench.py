"""parlour bench: the shipped ladders, the protocol's cards, and the statistics' honesty
checked on real games (the ladders of the quick games; the others in slow tests)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from parlour.evaluation.ratings import Z95
from parlour.ladder import LADDERS, load_ladder
from parlour.ladder.calibrate import fit_pairs, play_pairs
from parlour.ladder.ladders import data_path, ladder_from_record, ladder_spec
from parlour.ladder.run import TIMING_FIELDS, bench, card_text
from parlour.ladder.statistics import expected_score

QUICK = ["sticks", "goofspiel"]


@pytest.mark.parametrize("game", sorted(LADDERS))
def test_every_ladder_is_shipped_calibrated_with_random_at_zero_and_rising_rungs(game):
    ladder = load_ladder(game)
    record = ladder.record
    assert record["definition"] == json.loads(json.dumps(ladder.spec.definition()))
    assert ladder.rating("random") == 0.0
    assert np.all(np.diff(ladder.calibration.elo) > 0), "a ladder climbs: every rung above the one before"
    pairs = {(p["hero"], p["opponent"]) for p in record["pairs"]}
    rungs = ladder.rungs
    for i in range(len(rungs)):
        for j in range(i + 1, len(rungs)):
            assert (rungs[i], rungs[j]) in pairs
    refit = fit_pairs(ladder.spec, record["pairs"])  # the file's ratings are its own games' fit
    np.testing.assert_allclose(refit.elo, ladder.calibration.elo, atol=1e-6)
    np.testing.assert_allclose(refit.covariance, ladder.calibration.covariance, atol=1e-6)


def test_a_calibration_for_another_definition_or_malformed_is_refused(tmp_path):
    record = load_ladder("sticks").record
    changed = json.loads(json.dumps(record))
    changed["definition"]["rungs"][1] = "mcts:simulations=5"
    with pytest.raises(ValueError, match="recalibrate"):
        ladder_from_record(ladder_spec("sticks"), changed, "test")
    broken = json.loads(json.dumps(record))
    broken["covariance"] = [[0.0]]
    with pytest.raises(ValueError, match="malformed"):
        ladder_from_record(ladder_spec("sticks"), broken, "test")
    bad_file = tmp_path / "sticks.json"
    bad_file.write_text("{not json")
    with pytest.raises(ValueError, match="cannot be read"):
        load_ladder("sticks", bad_file)
    with pytest.raises(ValueError, match="ladders exist for"):
        load_ladder("chess")
    assert data_path("sticks").is_file()


@pytest.mark.parametrize("game", QUICK)
def test_a_fresh_round_robin_of_some_pairs_agrees_with_the_calibration(game):
    """Re-derive part of the calibration from new games (another seed): each pair's
    score must fall inside the binomial interval around what the calibrated ratings
    predict, widened by the ratings' own uncertainty."""
    ladder = load_ladder(game)
    spec = ladder.spec
    k = len(spec.rungs)
    pairs = [(0, 1), (k - 3, k - 2), (k - 2, k - 1)]
    played = play_pairs(spec, games=200, pairs=pairs, workers=2, progress=False, seed=12345)
    for (i, j), pair in zip(pairs, played["pairs"]):
        diff = ladder.calibration.elo[i] - ladder.calibration.elo[j]
        cov = ladder.calibration.covariance
        diff_sd = np.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j])
        low = float(expected_score(diff - Z95 * diff_sd, 0.0))
        high = float(expected_score(diff + Z95 * diff_sd, 0.0))
        n = pair["games"]
        slack = Z95 * np.sqrt(0.25 / n)  # the new games' own sampling error (at most)
        observed = pair["score"] / n
        assert low - slack <= observed <= high + slack, (pair, low, high)


@pytest.mark.parametrize("game", QUICK)
def test_random_lands_on_zero_and_the_strongest_rung_on_its_own_rating(game):
    ladder = load_ladder(game)
    for agent, expected in (("random", 0.0), (ladder.rungs[-1], ladder.calibration.elo[-1])):
        card = bench(game, agent, workers=2, progress=False)
        low, high = card["interval"]
        assert low <= expected <= high, (agent, card["rating"], card["interval"], expected)
        assert card["off_scale"] is None


def test_the_card_does_not_depend_on_the_workers_and_says_what_was_played(tmp_path):
    one = bench("sticks", "mcts:simulations=8", workers=1, progress=False)
    two = bench("sticks", "mcts:simulations=8", workers=2, progress=False)
    strip = lambda card: {k: v for k, v in card.items() if k not in TIMING_FIELDS}  # noqa: E731
    assert strip(one) == strip(two)
    assert one["protocol"] == "parlour-bench/v1" and one["ladder"] == "sticks/v1"
    assert one["games"] == ladder_spec("sticks").games_per_rung * len(ladder_spec("sticks").rungs)
    assert [r["games"] for r in one["rungs"]] == [100] * 5
    assert one["protocol_games"] and one["timing"]["within_budget"]
    assert set(one["machine"]) >= {"cpu", "cores", "python", "parlour"}
    text = card_text(one)
    assert "rating" in text and "mcts:simulations=64" in text
    json.dumps(one)  # a card is JSON


def test_the_adaptive_mode_stops_early_on_a_prefix_of_the_full_run():
    full = bench("sticks", "optimal", workers=1, progress=False)
    quick = bench("sticks", "optimal", workers=1, progress=False, adaptive=True, target=200)
    assert quick["adaptive"]["stopped_early"] and quick["games"] < full["games"]
    assert (quick["interval"][1] - quick["interval"][0]) / 2 <= 200
    never = bench("sticks", "optimal", workers=1, progress=False, adaptive=True, target=1)
    assert not never["adaptive"]["stopped_early"]
    assert never["rating"] == full["rating"]  # the same games, played in rounds


def test_bad_benchmark_input_is_named():
    with pytest.raises(ValueError, match="'nosuch:x=1' is not a player spec"):
        bench("sticks", "nosuch:x=1", progress=False)
    with pytest.raises(ValueError, match="unknown parameter"):
        bench("sticks", "mcts:bogus=1", progress=False)
    with pytest.raises(ValueError, match="target must be"):
        bench("sticks", "random", target=0, progress=False)


def test_a_three_seat_game_scores_the_mean_of_the_heros_comparisons_once():
    from parlour.evaluation.arena import GameRecord
    from parlour.ladder.matches import Match, block_scores, hero_score

    def record(index, agents, returns):
        return GameRecord(index=index, agents=agents, returns=returns, length=1, game_seed=0)

    assert hero_score(record(0, (1, 0, 2), (-1.0, 1.0, -1.0)), 0) == 1.0
    assert hero_score(record(0, (0, 1, 2), (0.5, 0.5, -1.0)), 0) == 0.75
    assert hero_score(record(0, (2, 1, 0), (1.0, -1.0, -1.0)), 0) == 0.25
    matches = [Match(block=0, hero=0, opponents=(1, 2)), Match(block=1, hero=0, opponents=(3, 4))]
    records = [record(0, (0, 1, 2), (1.0, -1.0, -1.0)), record(7, (3, 0, 4), (0.0, 0.0, 0.0)), record(6, (0, 3, 4), (-1.0, 1.0, -1.0))]
    score, games = block_scores(records, matches, block_size=6)
    assert score.tolist() == [1.0, 0.75] and games.tolist() == [1, 2]
