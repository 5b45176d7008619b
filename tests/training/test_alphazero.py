"""The search-guided learner: self-play targets, exact resume, the same run with any
number of workers, the ``az:`` player, and (slow) learning on small games."""

import csv
import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from helpers import SMALL_GAMES

from parlour.baselines import make_from_spec
from parlour.baselines.engines.puct import PUCT
from parlour.baselines.learned.alphazero import inference_network, search_from
from parlour.baselines.learned.az_model import NetworkEvaluator, PolicyValueNet, read_az_net, run_network, save_az_model
from parlour.cli import main
from parlour.errors import EndlessGame
from parlour.evaluation.arena import play_match
from parlour.evaluation.report import summarize
from parlour.evaluation.win_rates import win_rates
from parlour.games import load_game
from parlour.training.backends.alphazero.backend import AlphaZeroBackend, AlphaZeroSettings
from parlour.training.backends.alphazero.self_play import (
    FIELDS,
    SEARCH_BATCH,
    Examples,
    ReplayBuffer,
    play_game,
    play_games,
    play_teacher_game,
)
from parlour.training.config import TrainConfig, make_config
from parlour.training.run_files import RunFiles, read_evaluations
from parlour.training.trainer import Trainer

AZ_DEFAULTS = AlphaZeroSettings.defaults()
SETTINGS = {**AZ_DEFAULTS, "simulations": 12, "temperature_moves": 2}

GAMES = SMALL_GAMES


def fresh_net(game, network="mlp"):
    torch.manual_seed(0)
    return PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, network=network, channels=4, blocks=1, hidden=16)


@pytest.mark.parametrize("name", ["sticks", "goofspiel", "tides_of_time", "tribolo"])
def test_self_play_targets(name):
    """Each example: the deciding seat's observation and mask, the search's visit
    distribution (legal moves only, in visit units), every seat's final return relative
    to the decider."""
    game = load_game(name, **GAMES[name])
    examples, returns = play_game(game, fresh_net(game), SETTINGS, seed=5)
    assert len(examples) >= 1 and np.allclose(examples.policies.sum(axis=1), 1)
    assert not (examples.policies[~examples.masks] > 0).any()
    visits = examples.policies * SETTINGS["simulations"]
    forced = examples.masks.sum(axis=1) == 1
    assert np.allclose(visits[~forced], np.round(visits[~forced]), atol=1e-4)
    for seat, values in zip(examples.seats, examples.values):
        assert np.allclose(values, np.roll(returns, -seat))
    assert set(examples.seats) <= set(range(game.num_players))


@pytest.mark.parametrize("name, network, mix, full", [("tides_of_time", "mlp", 0.0, False), ("tribolo", "cnn", 0.5, False),
                                                     ("goofspiel", "mlp", 0.0, True), ("tribolo", "cnn", 0.0, True),
                                                     ("double_card", "cnn", 0.0, False)])
def test_games_played_together_are_the_games_played_alone(name, network, mix, full):
    """Self-play in lockstep (one network call a round for all the games' searches) plays
    each seed's game exactly as it is played alone, in any grouping: the same examples to
    the last bit.  ``full``: the network of a real run (32 channels, 128 units), not the
    tiny one of the other tests."""
    game = load_game(name, **GAMES[name])
    torch.manual_seed(0)
    net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, network=network) if full else fresh_net(game, network)
    settings = {**SETTINGS, "simulations": 8, "rollout_mix": mix}
    seeds = [3, 1, 4, 1, 5, 9]
    alone = [play_game(game, net, settings, seed) for seed in seeds]
    groupings = [[result for group in grouping for result in play_games(game, net, settings, group)]
                 for grouping in ([seeds], [seeds[:1], seeds[1:4], seeds[4:]])]
    groupings.append(play_games(game, net, settings, seeds, lockstep=2))  # (two rows, each game taking a finished one's)
    for together in groupings:
        for (examples, returns), (expected, expected_returns) in zip(together, alone):
            assert np.array_equal(returns, expected_returns)
            for field in FIELDS:
                assert np.array_equal(getattr(examples, field), getattr(expected, field)), field


@pytest.mark.parametrize("search", ["tree", "vector", "teacher"])
def test_a_self_play_game_that_does_not_end_is_an_error(search):
    """A game still going after its max_game_length (here: rules that run longer than they
    say) stops self-play with the error ``play_out`` raises, rather than loop for ever: on
    the tree search, on the batched engine in lockstep, and in a teacher's game."""
    game = load_game("tribolo", **GAMES["tribolo"])
    game.info = dataclasses.replace(game.info, max_game_length=3)
    with pytest.raises(EndlessGame, match=r"tribolo: the game did not end within 3 steps \(max_game_length 3\)"):
        if search == "teacher":
            play_teacher_game(game, {**SETTINGS, "teacher": "random"}, seed=3)
        else:
            play_games(game, fresh_net(game), SETTINGS, [3, 4], search=search, lockstep=1)


@pytest.mark.parametrize("name, network", [("tribolo", "cnn"), ("tides_of_time", "mlp"),
                                           pytest.param("double_card", "cnn", marks=pytest.mark.slow)])  # (40 s of emulated bfloat16)
def test_bfloat16_inference_is_close_and_keeps_the_games_of_any_grouping(name, network):
    """``inference = "bfloat16"``: the copy's priors and values are the float32 network's
    to bfloat16's precision, the weights it trains are untouched, and a seed's game is
    still the game it plays alone, in lockstep with any others (one padded call a round)."""
    game = load_game(name, **GAMES[name])
    torch.manual_seed(0)
    net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, network=network)
    before = {key: value.clone() for key, value in net.state_dict().items()}
    copy = inference_network(net, "bfloat16")
    assert inference_network(net, "float32") is net
    rows = np.stack([load_game(name, **GAMES[name]).new_initial_state().observation_tensor(0)] * 3).astype(np.float32)
    rows[1:] = np.random.default_rng(0).random(rows[1:].shape) < 0.3
    exact_probs, exact_values = run_network(net, rows)
    probs, values = run_network(copy, rows)
    assert np.allclose(probs, exact_probs, atol=0.02, rtol=0.1) and np.allclose(values, exact_values, atol=0.05)
    assert not np.array_equal(values, exact_values)  # (it is the copy that ran)
    assert all(torch.equal(before[key], value) for key, value in net.state_dict().items())
    settings = {**SETTINGS, "simulations": 8, "inference": "bfloat16"}
    seeds = [3, 1, 4]
    alone = [play_game(game, net, settings, seed) for seed in seeds]
    together = play_games(game, net, settings, seeds) + play_games(game, net, settings, seeds, lockstep=2)
    for (examples, returns), (expected, expected_returns) in zip(together, alone + alone):
        assert np.array_equal(returns, expected_returns)
        for field in FIELDS:
            assert np.array_equal(getattr(examples, field), getattr(expected, field)), field
    with pytest.raises(ValueError, match="inference must be one of .*float16"):
        inference_network(net, "float16")


@pytest.mark.parametrize("name, gumbel", [("tides_of_time", False), ("tides_of_time", True), ("goofspiel", True), ("tribolo", True),
                                          ("sticks", True)])
def test_gumbel_roots_and_playout_caps_in_any_grouping(name, gumbel):
    """With a Gumbel root the targets are the improved policies (legal, summing to 1, no
    longer visit fractions), and with playout cap randomization about ``full_fraction``
    of the searched decisions are full (forced moves always are); the games are still the
    games each seed plays alone (Tides of Time: on its engine's vectorised search, whose
    Gumbel root is the tree search's, tests/training/test_vector_search.py)."""
    game = load_game(name, **GAMES[name])
    net = fresh_net(game)
    settings = {**SETTINGS, "simulations": 8, "gumbel": gumbel, "gumbel_considered": 4, "fast_simulations": 2, "full_fraction": 0.5}
    seeds = [2, 7, 1, 8]
    alone = [play_game(game, net, settings, seed) for seed in seeds]
    together = play_games(game, net, settings, seeds)
    for (examples, returns), (expected, expected_returns) in zip(together, alone):
        assert np.array_equal(returns, expected_returns)
        for field in FIELDS:
            assert np.array_equal(getattr(examples, field), getattr(expected, field)), field
    examples = Examples.concatenate([examples for examples, _ in alone])
    assert np.allclose(examples.policies.sum(axis=1), 1) and not (examples.policies[~examples.masks] > 0).any()
    forced = examples.masks.sum(axis=1) == 1
    assert examples.full[forced].all()
    share = examples.full[~forced].mean()
    assert 0.25 < share < 0.75, share
    if gumbel:
        visits = examples.policies[~forced & examples.full] * settings["simulations"]
        assert not np.allclose(visits, np.round(visits), atol=1e-4)  # improved policies, not visit counts


def test_policy_loss_counts_the_full_searches_only(tmp_path):
    """A run with Gumbel roots and playout caps trains, its replay buffer keeps which
    targets are full, and its evaluations play with the Gumbel root."""
    config = small_config(timesteps=30, alphazero={"gumbel": True, "fast_simulations": 2, "full_fraction": 0.5})
    trainer = Trainer(config, tmp_path / "run", progress=False, log=lambda _: None)
    assert trainer.learner_spec("x.zip") == "az:x.zip,simulations=4,gumbel=true,deterministic=false,temperature=0.25"
    trainer.run()
    agent = make_from_spec(f"az:{tmp_path}/run/best.zip,simulations=6,gumbel=true", "sticks", seed=0)
    state = load_game("sticks").new_initial_state()
    assert agent.act(state.info_state(0)) in state.legal_actions(0)
    buffer = ReplayBuffer(100, (1,), 2, 2)
    buffer.restore({"observations": np.zeros((3, 1)), "masks": np.ones((3, 2), bool), "policies": np.zeros((3, 2)),
                    "values": np.zeros((3, 2)), "seats": np.zeros(3, int), "next": 3})  # saved before "full" existed
    assert buffer.full[:3].all()


def test_the_target_is_the_search_of_the_seat_to_move():
    """The first example's policy is exactly what PUCT finds for the first mover from
    the same generator state (noise included)."""
    game = load_game("tribolo", **GAMES["tribolo"])
    net = fresh_net(game)
    examples, _ = play_game(game, net, SETTINGS, seed=9)
    rng = np.random.default_rng(9)
    state = game.new_initial_state(rng)
    (seat,) = state.current_players()
    puct = PUCT(NetworkEvaluator(net, game, min_batch=SEARCH_BATCH), game.num_actions, c=SETTINGS["c"],
                noise=(SETTINGS["dirichlet_alpha"], SETTINGS["dirichlet_fraction"]))
    result = search_from(puct, state.info_state(seat), SETTINGS["simulations"], rng, True)
    assert examples.seats[0] == seat
    assert np.allclose(examples.policies[0], result.policy(game.num_actions))
    assert np.array_equal(examples.observations[0], state.observation_tensor(seat))


@pytest.mark.parametrize("name, teacher", [("tribolo", "paranoid:depth=1"), ("double_card", "double-card-best:depth=1,time_limit=none"),
                                           ("goofspiel", "random")])
def test_teacher_games_target_the_teachers_moves(name, teacher):
    """In a teacher game each example's target is all on the move the teacher (a fresh
    copy, from the game's own seeds) chooses from that seat's information state; after
    a seat's opening moves that is also the move played, and the values are the returns."""
    game = load_game(name, **GAMES[name])
    settings = {**SETTINGS, "teacher": teacher, "temperature_moves": 2}
    examples, returns = play_teacher_game(game, settings, seed=3)
    assert np.array_equal(examples.policies.max(axis=1), np.ones(len(examples)))
    assert not (examples.policies[~examples.masks] > 0).any()
    for seat, values in zip(examples.seats, examples.values):
        assert np.allclose(values, np.roll(returns, -seat))
    if teacher == "random":
        return
    rng = np.random.default_rng(3)
    teachers = [make_from_spec(teacher, game, seed=int(rng.integers(2**63))) for _ in range(game.num_players)]
    state = game.new_initial_state(rng)
    decided = [0] * game.num_players
    for i, (seat, pi) in enumerate(zip(examples.seats, examples.policies)):
        assert state.current_players() == (seat,)
        assert np.array_equal(examples.observations[i], state.observation_tensor(seat))
        target = int(np.argmax(pi))
        legal = state.legal_actions(seat)
        if len(legal) > 1:
            assert target == teachers[seat].act(state.info_state(seat))
            if decided[seat] < 2:  # the opening: the generator decides whether a random move is played
                target = legal[int(rng.integers(len(legal)))] if rng.random() < 0.5 else target
        decided[seat] += 1
        state.apply(target)
    assert state.is_terminal()


def test_a_teacher_run_learns_the_teachers_moves_then_plays_itself(tmp_path):
    """The first ``teacher_positions`` positions come from the teacher (sticks' perfect
    player: every target is a winning move where there is one), and the run goes on with
    self-play after them; the run is the same with two workers."""
    quiet = {"progress": False, "log": lambda _: None}
    az = {"teacher": "minimax", "teacher_positions": 40, "games_per_iteration": 8}
    config = small_config(timesteps=80, eval_every=80, eval_games=2, alphazero=az)
    Trainer(config, tmp_path / "one", **quiet).run()
    two = small_config(timesteps=80, eval_every=80, eval_games=2, alphazero={**az, "workers": 2})
    Trainer(two, tmp_path / "two", **quiet).run()
    assert same_weights(tmp_path / "one" / "last.zip", tmp_path / "two" / "last.zip")
    assert 'teacher = "minimax"' in (tmp_path / "one" / "config.toml").read_text()
    game = load_game("sticks")
    settings = {**AZ_DEFAULTS, **az}
    for seed in range(5):
        examples, _ = play_teacher_game(game, {**settings, "temperature_moves": 0}, seed=seed)
        state = game.new_initial_state()
        for pi in examples.policies:
            winning = optimal_moves(state)
            assert not winning or int(np.argmax(pi)) in winning
            state.apply(int(np.argmax(pi)))
    with pytest.raises(ValueError, match="nosuch"):
        Trainer(small_config(alphazero={"teacher": "nosuch"}), tmp_path / "bad", **quiet)
    assert not (tmp_path / "bad").exists()


def test_network_values_are_relative_to_the_observer():
    game = load_game("tribolo", **GAMES["tribolo"])
    net = fresh_net(game, "cnn")
    state = game.new_initial_state(seed=0)
    (seat,) = state.current_players()
    priors, values = NetworkEvaluator(net, game)(state, (seat,))
    with torch.no_grad():
        _, relative = net(torch.from_numpy(state.observation_tensor(seat)[None]))
    assert np.allclose(values, np.roll(relative[0].double().numpy(), seat))
    assert priors[seat].shape == (game.num_actions,) and priors[seat].sum() == pytest.approx(1)


def test_replay_buffer_ring_and_restore():
    game = load_game("sticks")
    buffer = ReplayBuffer(5, game.observation_shape, game.num_actions, 2)
    examples, _ = play_game(game, fresh_net(game), SETTINGS, seed=1)
    for _ in range(3):
        buffer.add(examples)
    assert len(buffer) == 5
    copy = ReplayBuffer(5, game.observation_shape, game.num_actions, 2)
    copy.restore(buffer.state())
    a, b = buffer.sample(8, np.random.default_rng(0)), copy.sample(8, np.random.default_rng(0))
    assert all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("observations", "masks", "policies", "values", "seats"))
    with pytest.raises(ValueError, match="holds 5 examples, more than its capacity 2"):
        ReplayBuffer(2, game.observation_shape, game.num_actions, 2).restore(buffer.state())


def small_config(**changes):
    az = {"simulations": 8, "games_per_iteration": 4, "train_steps": 4, "batch_size": 32, "hidden": 16, "eval_simulations": 4,
          "gate_games": 4}
    az.update(changes.pop("alphazero", {}))
    settings = {"game": "sticks", "algo": "alphazero", "timesteps": 90, "eval_every": 30, "eval_games": 6,
                "eval_opponents": ["random"], "alphazero": az, **changes}
    return TrainConfig(**settings)


def weights(path):
    net, _ = read_az_net(path)
    return net.state_dict()


def same_weights(a, b):
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def test_a_run_saves_evaluates_and_resumes_exactly(tmp_path):
    quiet = {"progress": False, "log": lambda _: None}
    whole = Trainer(small_config(), tmp_path / "whole", **quiet).run()
    files = RunFiles(tmp_path / "whole")
    for path in (files.config, files.best, files.last, files.pointer, files.evaluations, files.gating, files.untrained):
        assert path.exists(), path
    assert list(files.tensorboard.rglob("events.*"))
    assert [row["step"] for row in read_evaluations(files)][0] == 0 and whole.steps >= 90
    Trainer(small_config(timesteps=40), tmp_path / "cut", **quiet).run()
    resumed = Trainer(None, tmp_path / "cut", resume=True, timesteps=90, **quiet)
    assert isinstance(resumed.backend, AlphaZeroBackend)
    result = resumed.run()
    assert result.steps == whole.steps
    assert result.evaluations == whole.evaluations
    assert (result.best_step, result.warnings) == (whole.best_step, whole.warnings)
    assert (tmp_path / "whole" / "gating.csv").read_text() == (tmp_path / "cut" / "gating.csv").read_text()
    assert same_weights(tmp_path / "whole" / "last.zip", tmp_path / "cut" / "last.zip")
    assert same_weights(tmp_path / "whole" / "best.zip", tmp_path / "cut" / "best.zip")


def test_device(tmp_path, monkeypatch):
    """``device``: auto is the CPU on a machine without a GPU (the same run as cpu), cuda
    there is refused before anything is written, and a resumed run may change it."""
    quiet = {"progress": False, "log": lambda _: None}
    Trainer(small_config(timesteps=30, device="cpu"), tmp_path / "cpu", **quiet).run()
    auto = Trainer(small_config(timesteps=30), tmp_path / "auto", **quiet)
    assert auto.device == ("cuda" if torch.cuda.is_available() else "cpu")
    auto.run()
    assert same_weights(tmp_path / "cpu" / "last.zip", tmp_path / "auto" / "last.zip")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match=r"device 'cuda': torch sees no GPU here \(torch.cuda.is_available\(\) is False\)"):
        Trainer(small_config(device="cuda"), tmp_path / "cuda", **quiet)
    assert not (tmp_path / "cuda" / "config.toml").exists()
    assert main(["train", "--resume", "--out", str(tmp_path / "cpu"), "--device", "cuda", "--timesteps", "60", "--quiet"]) == 2
    assert main(["train", "--resume", "--out", str(tmp_path / "cpu"), "--device", "cpu", "--timesteps", "60", "--final-games", "0",
                 "--quiet"]) == 0


def gating_rows(run):
    with open(run / "gating.csv", newline="") as stream:
        return list(csv.DictReader(stream))


@pytest.mark.parametrize("threshold", [0.0, 1.0])
def test_best_is_earned_in_a_gating_match(tmp_path, threshold):
    """After step 0, a network becomes best.zip only by scoring gate_threshold against
    the best in gate_games games; the run says loudly when best is still the step-0 network."""
    run = tmp_path / "run"
    config = small_config(alphazero={"gate_threshold": threshold, "gate_games": 4})
    result = Trainer(config, run, progress=False, log=lambda _: None).run()
    rows = gating_rows(run)
    steps = sorted({row["step"] for row in result.evaluations})
    assert [int(row["step"]) for row in rows] == steps[1:]  # every evaluation after step 0 is gated
    best = 0
    for row in rows:
        assert int(row["best_step"]) == best and int(row["games"]) == 4
        assert (row["passed"] == "True") == (float(row["score"]) >= threshold)
        best = int(row["step"]) if row["passed"] == "True" else best
    assert result.best_step == best
    checkpoint = run / "checkpoints" / f"step_{steps[-1]:09d}" / "model.zip"
    if threshold == 0.0:  # every gate passes: the last network is best
        assert best == steps[-1] and same_weights(run / "best.zip", checkpoint) and result.warnings == []
    else:  # a 100% score against the step-0 network is not reached here: it stays best, and the run says so
        assert best == 0 and not same_weights(run / "best.zip", checkpoint)
        (warning,) = result.warnings
        assert warning.startswith("best.zip is the UNTRAINED step-0 network: no trained network reached 100% against it")


def test_the_run_does_not_depend_on_the_number_of_workers(tmp_path):
    quiet = {"progress": False, "log": lambda _: None}
    config = small_config(timesteps=30, eval_every=30, eval_games=2)
    Trainer(config, tmp_path / "one", **quiet).run()
    two = small_config(timesteps=30, eval_every=30, eval_games=2, alphazero={"workers": 2})
    Trainer(two, tmp_path / "two", **quiet).run()
    assert same_weights(tmp_path / "one" / "last.zip", tmp_path / "two" / "last.zip")
    assert read_evaluations(RunFiles(tmp_path / "one")) == read_evaluations(RunFiles(tmp_path / "two"))


def test_az_player_specs_and_model_files(tmp_path):
    game = load_game("tribolo", **GAMES["tribolo"])
    path = save_az_model(fresh_net(game, "cnn"), tmp_path / "net.zip", game)
    state = game.new_initial_state(seed=4)
    (seat,) = state.current_players()
    for spec in (f"az:{path}", f"az:{path},simulations=0", f"az:{path},simulations=5,deterministic=false",
                 f"az:{path},simulations=5,deterministic=false,temperature=0.25", f"az:{path},simulations=5,inference=bfloat16",
                 f"az:{path},simulations=0,inference=bfloat16"):
        agent = make_from_spec(spec, game, seed=1)
        again = make_from_spec(spec, game, seed=1)
        move = agent.act(state.info_state(seat))
        assert move in state.legal_actions(seat) and move == again.act(state.info_state(seat))
    match = play_match(game, [f"az:{path},simulations=4", "random", "random"], games=3, progress=False, workers=1)
    assert summarize(match)["agents"]
    with pytest.raises(ValueError, match="policy 'az' needs a model file"):
        make_from_spec("az", game)
    with pytest.raises(ValueError, match="does not exist"):
        make_from_spec(f"az:{tmp_path}/missing.zip", game)
    with pytest.raises(ValueError, match="was trained for 'tribolo', not 'sticks'"):
        make_from_spec(f"az:{path}", load_game("sticks"))
    with pytest.raises(ValueError, match="temperature=0.0: must be positive"):
        make_from_spec(f"az:{path},temperature=0", game)
    with pytest.raises(ValueError, match="simulations=-1: must be 0 or more"):
        make_from_spec(f"az:{path},simulations=-1", game)
    with pytest.raises(ValueError, match=r"inference='half': must be one of \['float32', 'bfloat16', 'numpy'\]"):
        make_from_spec(f"az:{path},inference=half", game)
    with pytest.raises(ValueError, match="is an alphazero model"):
        make_from_spec(f"ppo:{path}", game)
    with pytest.raises(ValueError, match="inference='numpy' needs a dense network \\(network='mlp'\\), this model's is 'cnn'"):
        make_from_spec(f"az:{path},inference=numpy", game)


@pytest.mark.parametrize("name", ["tides_of_time", "goofspiel", "sticks"])
def test_numpy_inference_is_the_dense_network(tmp_path, name):
    """``inference=numpy``: the numpy copy gives the torch network's priors and values to
    float32 rounding, on real and random rows, alone or padded; the players' raw-network
    moves are the same, and a searching player with it plays legal moves, the same ones
    for the same seed."""
    game = load_game(name, **GAMES.get(name, {}))
    net = fresh_net(game, "mlp")
    copy = inference_network(net, "numpy")
    state = game.new_initial_state(seed=2)
    rows = np.stack([state.observation_tensor(0)] * 4).astype(np.float32)
    rows[1:] = np.random.default_rng(0).random(rows[1:].shape)
    for count, min_batch in ((1, 1), (4, 1), (3, SEARCH_BATCH)):
        exact_probs, exact_values = run_network(net, rows[:count], min_batch)
        probs, values = run_network(copy, rows[:count], min_batch)
        assert probs.shape == exact_probs.shape and values.shape == exact_values.shape
        assert np.allclose(probs, exact_probs, atol=1e-6) and np.allclose(values, exact_values, atol=1e-5)
        assert np.allclose(probs.sum(axis=1), 1.0)
    path = save_az_model(net, tmp_path / "net.zip", game)
    plain, fast = (make_from_spec(f"az:{path},simulations=0,inference={mode}", game, seed=1) for mode in ("float32", "numpy"))
    mask = state.legal_mask(0)
    assert np.allclose(fast.evaluator.policy(rows[0], mask), plain.evaluator.policy(rows[0], mask), atol=1e-6)
    assert fast.act_observation(rows[0], mask) == plain.act_observation(rows[0], mask)
    seat = state.current_players()[0]
    moves = [make_from_spec(f"az:{path},simulations=12,inference=numpy", game, seed=3).act(state.info_state(seat)) for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in state.legal_actions(seat)


def test_az_refuses_a_ppo_model(tmp_path):
    run = tmp_path / "ppo"
    assert main(["train", "--game", "sticks", "--opponents", "random", "--timesteps", "64", "--n-envs", "1", "--eval-every", "64",
                 "--eval-games", "2", "--eval-opponents", "random", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64",
                 "--final-games", "0", "--quiet", "--out", str(run)]) == 0
    with pytest.raises(ValueError, match="is not an alphazero model"):
        make_from_spec(f"az:{run}/best.zip", load_game("sticks"))


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"algo": "muzero"}, r"algo must be one of \['ppo', 'alphazero', 'ntuple'\], got 'muzero'"),
        ({"alphazero": {"simulations": 0}}, "alphazero.simulations must be at least 1, got 0"),
        ({"alphazero": {"dirichlet_fraction": 1.5}}, r"alphazero.dirichlet_fraction must be in \[0, 1\], got 1.5"),
        ({"alphazero": {"learning_rate": 0.0}}, "alphazero.learning_rate must be positive"),
        ({"alphazero": {"sims": 3}}, "unknown alphazero setting"),
        ({"alphazero": {"teacher_positions": 100}}, "alphazero.teacher_positions=100 needs alphazero.teacher"),
        ({"alphazero": {"teacher": 3}}, "alphazero.teacher must be a str, got 3"),
        ({"alphazero": {"inference": "float16"}}, r"alphazero.inference must be one of \['float32', 'bfloat16'\], got 'float16'"),
        ({"alphazero": {"gate_threshold": 1.5}}, r"alphazero.gate_threshold must be in \[0, 1\], got 1.5"),
        ({"alphazero": {"gate_games": 0}}, "alphazero.gate_games must be at least 1, got 0"),
        ({"backend": "ray"}, "algo 'ppo' runs on backend 'local' or 'rllib', got backend 'ray' \\(which trains 'alphazero'\\)"),
        ({"device": "tpu"}, r"device must be one of \['auto', 'cpu', 'cuda'\], got 'tpu'"),
        ({"device": "cpu", "backend": "rllib"}, "device 'cpu' is not for backend 'rllib', which places its learners itself"),
    ],
)
def test_bad_alphazero_settings(settings, message):
    with pytest.raises(ValueError, match=message):
        make_config(settings)


def test_cli_alphazero(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", "--game", "sticks", "--algo", "alphazero", "--timesteps", "30", "--eval-every", "30", "--eval-games", "4",
            "--eval-opponents", "random", "--set", "alphazero.simulations=4", "--set", "alphazero.games_per_iteration=4",
            "--set", "alphazero.eval_simulations=4", "--set", "alphazero.gate_games=4", "--set", "alphazero.gate_threshold=1",
            "--set", "alphazero.learning_rate=1e-9",
            "--final-games", "2", "--quiet", "--out", str(out)]
    assert main(args) == 0  # a network that barely moved (learning rate 1e-9) does not win all four gating games
    text = capsys.readouterr().out
    assert f"az:{out}/best.zip,simulations=4,deterministic=false,temperature=0.25" in text
    assert "WARNING: best.zip is the UNTRAINED step-0 network" in text
    assert "**WARNING**: best.zip is the UNTRAINED step-0 network" in (out / "arena.md").read_text()
    assert main(["train", "--game", "sticks", "--algo", "alphazero", "--opponents", "random", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "parlour train: error: --algo alphazero learns by self-play only: --opponents and --weights are for ppo"


def optimal_moves(state):
    """Winning moves of misère sticks (take 1..3): leave 4k + 1 sticks."""
    return [a for a in state.legal_actions(state.current_players()[0]) if (state.sticks - (a + 1)) % 4 == 1]


def test_learns_perfect_play_at_sticks(tmp_path):
    """A short run's network, without search, plays a winning move in every winning
    position of sticks-10 (and the search player wins every game against random)."""
    config = small_config(timesteps=1500, eval_every=500, eval_games=20,
                          alphazero={"simulations": 24, "games_per_iteration": 16, "train_steps": 32, "hidden": 32})
    Trainer(config, tmp_path / "run", progress=False, log=lambda _: None).run()
    game = load_game("sticks")
    agent = make_from_spec(f"az:{tmp_path}/run/last.zip,simulations=0", game)
    for sticks in range(1, 11):
        state = game.new_initial_state()
        state.sticks = sticks
        winning = optimal_moves(state)
        if winning:
            assert agent.act(state.info_state(0)) in winning, sticks


@pytest.mark.slow
def test_learns_to_beat_random_on_a_small_tribolo(tmp_path):
    """Expert iteration on an 8 x 6 Tribolo: the network alone, without any search, beats
    random clearly after 8,000 self-play positions (greedy scores 0.60 here, random 0.50);
    the search with its rollouts plays at MCTS's level from the start, so it is the
    network's own play that shows the learning."""
    options = {"width": 8, "height": 6, "walls": 4, "start_cells": 3}
    az = {"simulations": 32, "games_per_iteration": 32, "train_steps": 64, "hidden": 64, "workers": 2,
          "eval_simulations": 16, "batch_size": 128, "rollout_mix": 0.5, "gate_games": 2}
    # (the run's own evaluations and gating matches do not touch last.zip: two games each)
    config = TrainConfig(game="tribolo", game_options=options, algo="alphazero", timesteps=8000, eval_every=2666,
                         eval_games=2, eval_opponents=["random"], cnn_channels=16, cnn_blocks=1, alphazero=az)
    Trainer(config, tmp_path / "run", progress=False, log=lambda _: None).run()
    game = load_game("tribolo", **options)
    (trained,) = win_rates(game, f"az:{tmp_path}/run/last.zip,simulations=0", ["random"], games=60, seed=1, workers=2)
    assert trained["score"] >= 0.6, trained  # pairwise against each random seat: random itself scores 0.5


def test_relative_and_absolute_values_literally():
    from parlour.baselines.learned.az_model import absolute_values, relative_values

    assert relative_values(np.array([10.0, 20.0, 30.0]), 1).tolist() == [20.0, 30.0, 10.0]  # seats 1, 2, 0
    assert absolute_values(np.array([20.0, 30.0, 10.0]), 1).tolist() == [10.0, 20.0, 30.0]


def test_rollout_mix_blends_the_network_value_with_a_playout():
    game = load_game("sticks")
    net = fresh_net(game)
    state = game.new_initial_state()
    state.sticks = 2  # the mover (seat 0) takes 1 and wins, or takes 2 and loses: a playout ends at once
    _, pure = NetworkEvaluator(net, game)(state, (0,))
    evaluator = NetworkEvaluator(net, game, rollout_mix=1.0, rng=np.random.default_rng(0))
    for _ in range(5):
        _, value = evaluator(state, (0,))
        assert sorted(value.tolist()) == [-1.0, 1.0]  # a finished game's returns, nothing of the network
    _, half = NetworkEvaluator(net, game, rollout_mix=0.5, rng=np.random.default_rng(0))(state, (0,))
    assert np.allclose(np.abs(half - pure / 2), 0.5)
    with pytest.raises(ValueError, match=r"rollout_mix must be in \[0, 1\], got 2"):
        NetworkEvaluator(net, game, rollout_mix=2)
    with pytest.raises(ValueError, match="needs a generator"):
        NetworkEvaluator(net, game, rollout_mix=0.5)


def test_an_az_player_is_a_training_opponent(tmp_path):
    from parlour.training.single_agent import SingleAgentEnv

    game = load_game("goofspiel", **GAMES["goofspiel"])
    path = save_az_model(fresh_net(game), tmp_path / "net.zip", game)
    env = SingleAgentEnv(game, f"az:{path},simulations=4")
    env.reset(seed=0)
    done, rng = False, np.random.default_rng(0)
    while not done:
        _, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert not info["illegal_action"] and reward in (-1.0, 0.0, 1.0)


def test_an_arena_worker_that_cannot_rebuild_a_player_is_reported(tmp_path):
    """The model file goes between making the player and the workers rebuilding it: the
    arena fails with the worker's reason instead of restarting workers forever."""
    from parlour.evaluation.arena import GameFailed

    game = load_game("sticks")
    path = save_az_model(fresh_net(game), tmp_path / "net.zip", game)
    agent = make_from_spec(f"az:{path},simulations=2", game)
    path.unlink()
    with pytest.raises(GameFailed, match="a worker could not set up the agents: .*does not exist"):
        play_match(game, [agent, "random"], games=4, progress=False, workers=2)


def test_tribolo_on_its_engine_plays_the_same_games_in_any_grouping():
    """Tribolo searches on its batched engine only when asked (it was measured slower
    there): asked, its games are the same in any grouping too."""
    game = load_game("tribolo", **GAMES["tribolo"])
    net = fresh_net(game, "cnn")
    settings = {**SETTINGS, "simulations": 6}
    seeds = [2, 7, 1]
    alone = [play_games(game, net, settings, [seed], search="vector")[0] for seed in seeds]
    for together in (play_games(game, net, settings, seeds, search="vector"),
                     play_games(game, net, settings, seeds, search="vector", lockstep=2)):
        for (examples, returns), (expected, expected_returns) in zip(together, alone):
            assert np.array_equal(returns, expected_returns)
            for field in FIELDS:
                assert np.array_equal(getattr(examples, field), getattr(expected, field)), field
    with pytest.raises(ValueError, match="search must be one of"):
        play_games(game, net, settings, seeds, search="fast")


def test_augmentation_moves_examples_by_the_games_symmetries():
    """Each augmented example is its original moved by one of the symmetries (or left as
    it is), all of them drawn; values and seats unchanged."""
    from parlour.training.backends.alphazero.self_play import augment

    game = load_game("tribolo", width=6, height=6, walls=3, start_cells=3)
    examples, _ = play_game(game, fresh_net(game, "cnn"), SETTINGS, seed=4)
    symmetries = game.symmetries()
    out = augment(examples, symmetries, np.random.default_rng(0))
    used = set()
    for i in range(len(examples)):
        images = [(examples.observations[i], examples.masks[i], examples.policies[i])]
        images += [(s.observations(examples.observations[i]), s.over_actions(examples.masks[i]), s.over_actions(examples.policies[i]))
                   for s in symmetries]
        k = next(k for k, (o, m, p) in enumerate(images)
                 if np.array_equal(o, out.observations[i]) and np.array_equal(m, out.masks[i]) and np.array_equal(p, out.policies[i]))
        used.add(k)
    assert np.array_equal(out.values, examples.values) and np.array_equal(out.seats, examples.seats)
    assert len(used) >= 5  # (8 images; a few dozen examples draw most of them)
    assert augment(examples, [], np.random.default_rng(0)) is examples


def test_a_cell_policy_scores_each_move_from_its_own_cell(tmp_path):
    """``action_planes``: with no residual block a piece on one cell changes the logits of
    the moves on the nine cells around it at most, the value anywhere; the model file
    keeps the shape, and ``alphazero.cell_policy`` trains it."""
    game = load_game("tribolo", **GAMES["tribolo"])
    _, rows, columns = game.observation_shape
    torch.manual_seed(0)
    net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, network="cnn", channels=16, blocks=0,
                         hidden=16, action_planes=game.action_planes)
    empty = torch.zeros(1, *game.observation_shape)
    piece = empty.clone()
    piece[0, 0, 2, 3] = 1
    with torch.no_grad():
        (a, va), (b, _vb) = net(empty), net(piece)
    changed = (a != b).view(rows, columns)
    near = torch.zeros(rows, columns, dtype=torch.bool)
    near[1:4, 2:5] = True
    assert changed[2, 3] and not (changed & ~near).any()
    with torch.no_grad():
        assert not torch.equal(va, net(torch.rand(1, *game.observation_shape).round())[1])
    path = save_az_model(net, tmp_path / "cells.zip", game)
    again, _ = read_az_net(path)
    assert again.cells and all(torch.equal(x, y) for x, y in zip(net.state_dict().values(), again.state_dict().values()))
    with pytest.raises(ValueError, match="action_planes=2 on a 5 x 6 board gives 60 actions, not 30"):
        PolicyValueNet(game.observation_shape, game.num_actions, 3, network="cnn", action_planes=2)
    with pytest.raises(ValueError, match="action_planes needs the cnn network"):
        PolicyValueNet(game.observation_shape, game.num_actions, 3, network="mlp", action_planes=1)
    config = TrainConfig(game="tribolo", game_options=GAMES["tribolo"], algo="alphazero", timesteps=60, eval_every=60,
                         eval_games=2, eval_opponents=["random"], cnn_channels=4, cnn_blocks=1,
                         alphazero={**SETTINGS, "games_per_iteration": 2, "workers": 1, "gate_games": 3, "cell_policy": True})
    Trainer(config, tmp_path / "run", progress=False, log=lambda _: None).run()
    assert read_az_net(RunFiles(tmp_path / "run").last)[0].cells
