"""Diverse starts (parlour.training.starts): a share of the episodes starts some plies deep,
on the batched engine and on single games; legal, never finished, of the depth drawn,
seeded, off by default, and kept by a run's config.toml and its resume."""

from __future__ import annotations

import numpy as np
import pytest
import tomllib

from parlour.games import load_game
from parlour.training.single_agent import SingleAgentEnv
from parlour.training.starts import OpeningSeats, SingleOpenings, Starts, parse_players
from parlour.vector.gym_env import LearnerCore
from parlour.vector.seat_players import RandomSeats

SMALL = {
    "goofspiel": {"num_cards": 6},
    "sticks": {"num_sticks": 7},
    "tides_of_time": {},
    "tribolo": {"width": 8, "height": 7, "walls": 4, "start_cells": 6},
    "double_card": {"max_moves": 30},
}


def core(game, seed, starts, num_envs=16, **options):
    """A batched learner's view (random opponents) with ``starts``."""
    return LearnerCore(game, num_envs, OpeningSeats(RandomSeats(), starts), seed=seed, **{**SMALL[game], **options})


# ----- the option ------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [((1.5, 1, 2), "start_share must be in [0, 1], got 1.5"),
                                               ((0.5, 3, 2), "0 <= start_plies_min <= start_plies_max, got 3..2"),
                                               ((0.5, -1, 2), "got -1..2"),
                                               ((0.5, 1, 2, ()), "start_players must name at least one")])
def test_bad_options_are_refused_by_name(args, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Starts(*args)


def test_players_split_as_opponents_do():
    assert parse_players("random, mcts:simulations=4,c=2,greedy") == ["random", "mcts:simulations=4,c=2", "greedy"]
    with pytest.raises(ValueError, match="start_players must name"):
        parse_players("")


def test_off_by_default():
    assert Starts.from_settings({}) is None
    assert Starts.from_settings({"start_share": 0.0, "start_plies_min": 3, "start_plies_max": 9}) is None
    starts = Starts.from_settings({"start_share": 0.25, "start_plies_min": 3, "start_plies_max": 9, "start_players": "random,greedy"})
    assert starts == Starts(0.25, 3, 9, ("random", "greedy"))


def test_draws_respect_the_share_and_the_range_and_are_seeded():
    starts = Starts(0.3, 2, 5, ("random", "greedy"))
    deep, plies, player = starts.draw(np.random.default_rng(0), 20_000)
    assert 0.28 < deep.mean() < 0.32
    assert plies.min() == 2 and plies.max() == 5
    assert set(player.tolist()) == {0, 1}
    again = starts.draw(np.random.default_rng(0), 20_000)
    assert all(np.array_equal(a, b) for a, b in zip((deep, plies, player), again))
    other = starts.draw(np.random.default_rng(1), 20_000)
    assert not np.array_equal(deep, other[0])


# ----- the batched engine ------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(SMALL))
def test_batched_openings_play_the_plies_drawn_and_give_legal_positions(game):
    """Every game's opening on the batched engine: the positions are those of the rules
    module (the engine's observation of each is the single game's), never finished, and
    as deep as drawn unless the game would have ended."""
    view = core(game, 3, Starts(1.0, 0, 6), num_envs=32)
    view.reset(3)
    players, engine = view.players, view.engine
    rows = np.arange(engine.num_envs)
    plies = np.arange(engine.num_envs) % 7
    engine.reset()
    fresh = [engine.game_state(int(b)) for b in rows]
    players.open(rows, plies, np.zeros(len(rows), dtype=np.int64))
    for b in rows.tolist():
        state = engine.game_state(b)
        assert not state.is_terminal()
        for seat in range(engine.num_players):
            np.testing.assert_array_equal(engine.decode(engine.observation(seat))[b], state.observation_tensor(seat))
    if game == "goofspiel":  # one round a ply, and six rounds: none ends within 6 plies but the 6-ply openings
        assert [engine.game_state(int(b)).round for b in rows] == [min(p, 5) for p in plies.tolist()]
    if game == "double_card":  # one move a ply (short of a game won within the opening)
        assert (engine.moves <= plies).all() and (engine.moves == plies).mean() > 0.8
    assert any(engine.game_state(int(b)).observation_tensor(0).tolist() != fresh[b].observation_tensor(0).tolist()
               for b in rows)


def test_the_share_of_deep_starts_on_the_batched_engine():
    """Goofspiel with the learner at every seat's bid: a deep start is exactly a round
    other than the first when the learner first acts."""
    view = core("goofspiel", 0, Starts(0.4, 1, 3), num_envs=4000)
    view.reset(0)
    rounds = np.array([view.engine.game_state(b).round for b in range(4000)])
    assert 0.37 < (rounds > 0).mean() < 0.43
    assert rounds.max() == 3


@pytest.mark.parametrize("game", ["sticks", "double_card", "tribolo"])
def test_the_learner_never_gets_a_finished_game(game):
    """Openings far longer than the games: every episode still begins with the learner to
    move in a game that is going, on reset and after every autoreset."""
    view = core(game, 1, Starts(1.0, 0, 200), num_envs=16)
    view.reset(1)
    rng = np.random.default_rng(1)
    for _ in range(60):
        for b in range(16):
            state = view.engine.game_state(b)
            assert not state.is_terminal()
            assert view.seats[b] in state.current_players()
        masks = view.action_masks()
        view.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))


def run_batched(game, seed, starts, steps=20):
    view = core(game, seed, starts)
    observations = [view.reset(seed)]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = view.action_masks()
        observations.append(view.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))[0])
    return np.stack(observations)


@pytest.mark.parametrize("game", ["tides_of_time", "goofspiel"])
def test_batched_starts_are_seeded(game):
    starts = Starts(0.5, 1, 8)
    a, b, c = run_batched(game, 5, starts), run_batched(game, 5, starts), run_batched(game, 6, starts)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_an_opening_player_without_a_batched_form_is_refused():
    with pytest.raises(ValueError, match="start player 'mcts' has no batched form for sticks; batched players are"):
        core("sticks", 0, Starts(0.5, 1, 2, ("mcts",)))


# ----- single games ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(SMALL))
def test_single_openings_give_going_games_of_the_depth_drawn(game):
    g = load_game(game, **SMALL[game])
    openings = SingleOpenings(g, Starts(1.0, 0, 6))
    rng = np.random.default_rng(2)
    for _ in range(10):
        state = openings.open(g.new_initial_state(int(rng.integers(2**31))), rng)
        assert not state.is_terminal()
    if game == "goofspiel":
        depths = [openings.open(g.new_initial_state(i), rng).round for i in range(40)]
        assert min(depths) == 0 and max(depths) == 5


@pytest.mark.parametrize("game", ["sticks", "tribolo"])
def test_single_games_never_start_finished(game):
    env = SingleAgentEnv(game, starts=Starts(1.0, 0, 200), **SMALL[game])
    for seed in range(30):
        env.reset(seed=seed)
        assert not env.game_state.is_terminal()
        assert env.seat in env.game_state.current_players()


def episode_starts(seed, starts, episodes=8):
    env = SingleAgentEnv("tides_of_time", starts=starts)
    first = [env.reset(seed=seed)[0]]
    first += [env.reset()[0] for _ in range(episodes - 1)]
    return np.stack(first)


def test_single_starts_are_seeded_and_share_0_changes_nothing():
    starts = Starts(0.5, 1, 8)
    a, b, c = episode_starts(7, starts), episode_starts(7, starts), episode_starts(8, starts)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert not np.array_equal(a, episode_starts(7, None))
    # a share of 0 is no option at all: the same episodes as without one
    assert Starts.from_settings({"start_share": 0.0}) is None


def test_the_share_of_deep_starts_on_single_games():
    env = SingleAgentEnv("goofspiel", starts=Starts(0.4, 1, 3), num_cards=6)
    rounds = []
    for episode in range(2000):
        env.reset(seed=0 if episode == 0 else None)
        rounds.append(env.game_state.round)
    share = np.mean(np.array(rounds) > 0)
    assert 0.36 < share < 0.44


# ----- a run -------------------------------------------------------------------------------------

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from parlour.cli import main  # noqa: E402
from parlour.training.backends.ppo.backend import make_vec_env  # noqa: E402
from parlour.training.config import make_config, saved_config  # noqa: E402
from parlour.training.opponent_mix import OpponentMix  # noqa: E402
from parlour.training.trainer import Trainer  # noqa: E402

RUN = {"n_steps": 64, "batch_size": 64, "n_epochs": 2, "net_arch": [32]}
STARTS = {"start_share": 0.5, "start_plies_min": 1, "start_plies_max": 4}


def same_params(a, b):
    from sb3_contrib import MaskablePPO

    pa, pb = (MaskablePPO.load(path, device="cpu").policy.state_dict() for path in (a, b))
    return pa.keys() == pb.keys() and all(torch.equal(pa[k], pb[k]) for k in pa)


def small_config(**changes):
    from parlour.training.config import TrainConfig

    settings = dict(game="sticks", opponents=["random", "self"], timesteps=768, n_envs=2, eval_every=256, eval_games=10,
                    snapshot_every=256, eval_opponents=["random"], ppo={**RUN, **STARTS})
    settings.update(changes)
    return TrainConfig(**settings)


def test_a_run_without_the_option_plays_its_mix_directly():
    config = make_config({"game": "sticks", "ppo": {"vec_env": "batched", "n_envs": 4}})
    env = make_vec_env(config, [])
    try:
        assert isinstance(env.venv.core.players, OpponentMix)
    finally:
        env.close()


@pytest.mark.parametrize("vec_env", ["batched", "dummy"])
def test_resume_is_exact_with_starts(tmp_path, vec_env):
    whole = Trainer(small_config(vec_env=vec_env), tmp_path / "whole", progress=False, log=lambda _: None).run()
    Trainer(small_config(timesteps=512, vec_env=vec_env), tmp_path / "cut", progress=False, log=lambda _: None).run()
    resumed = Trainer(None, tmp_path / "cut", resume=True, timesteps=768, progress=False, log=lambda _: None).run()
    assert resumed.steps == whole.steps == 768
    assert same_params(tmp_path / "whole" / "last.zip", tmp_path / "cut" / "last.zip")
    assert resumed.evaluations == whole.evaluations
    plain = small_config(timesteps=256, vec_env=vec_env, ppo=dict(RUN))
    Trainer(plain, tmp_path / "plain", progress=False, log=lambda _: None).run()
    Trainer(small_config(timesteps=256, vec_env=vec_env), tmp_path / "deep", progress=False, log=lambda _: None).run()
    assert not same_params(tmp_path / "plain" / "last.zip", tmp_path / "deep" / "last.zip")  # the starts were played


def test_the_settings_go_through_set_into_config_toml(tmp_path, capsys):
    run = tmp_path / "run"
    args = ["train", "--game", "sticks", "--opponents", "random", "--timesteps", "128", "--n-envs", "2", "--eval-every", "128",
            "--eval-games", "2", "--eval-opponents", "random", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64",
            "--set", "ppo.n_epochs=1", "--set", "ppo.net_arch=[8]", "--set", "ppo.start_share=0.5",
            "--set", "ppo.start_plies_max=3", "--set", "ppo.start_players=random", "--final-games", "0", "--quiet",
            "--out", str(run)]
    assert main(args) == 0
    table = tomllib.loads((run / "config.toml").read_text())["ppo"]
    assert (table["start_share"], table["start_plies_min"], table["start_plies_max"], table["start_players"]) == (0.5, 1, 3, "random")
    assert saved_config(run / "config.toml").ppo["start_share"] == 0.5
    assert main([*args[:-1], str(tmp_path / "bad"), "--set", "ppo.start_plies_min=5"]) == 2
    assert "start_plies_min=5 is larger than start_plies_max=3" in capsys.readouterr().err


def test_the_evaluations_open_with_the_random_plies_asked_for(tmp_path, monkeypatch):
    """``ppo.eval_opening``: every evaluation's games open with that many random plies (a
    deterministic learner against a deterministic opponent would otherwise replay one game
    a seat); it goes into config.toml, and the default opens none."""
    import parlour.training.trainer as trainer

    openings: list[int] = []

    def recording(*args, **kwargs):
        openings.append(kwargs["opening"])
        return win_rates(*args, **kwargs)

    win_rates = trainer.win_rates
    monkeypatch.setattr(trainer, "win_rates", recording)
    args = ["train", "--game", "sticks", "--opponents", "random", "--timesteps", "128", "--n-envs", "2", "--eval-every", "128",
            "--eval-games", "2", "--eval-opponents", "optimal", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64",
            "--set", "ppo.n_epochs=1", "--set", "ppo.net_arch=[8]", "--final-games", "0", "--quiet"]
    assert main([*args, "--set", "ppo.eval_opening=2", "--out", str(tmp_path / "opened")]) == 0
    assert openings == [2, 2]  # step 0's evaluation and step 128's
    assert tomllib.loads((tmp_path / "opened" / "config.toml").read_text())["ppo"]["eval_opening"] == 2
    openings.clear()
    assert main([*args, "--out", str(tmp_path / "plain")]) == 0
    assert openings == [0, 0]
