"""The model zoo: every shipped agent loads and plays, ``zoo:GAME`` works wherever a spec
does, and a model made for another rules version is refused."""

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")

import parlour.zoo as zoo
from parlour.baselines import make_from_spec, zoo_agent
from parlour.baselines.learned.az_model import PolicyValueNet, save_az_model
from parlour.baselines.learned.ntuple import ntuple_features
from parlour.baselines.policy import playable
from parlour.envs import sticks_v0
from parlour.evaluation.arena import play_match
from parlour.games import GAMES, load_game
from parlour.table.specs import vet_spec
from scripts.zoo_add import main as zoo_add

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_zoo_is_package_data():
    """What ``entries`` lists (every game's default agent and its ``GAME-VARIANT`` entries
    such as ``tides_of_time-ppo``) is in the package's models folder and the wheel's package data."""
    assert zoo.MODELS == ROOT / "parlour" / "zoo" / "models"
    assert '"parlour.zoo" = ["models/*.json", "models/*.zip"]' in (ROOT / "pyproject.toml").read_text()
    assert set(zoo.available()) <= set(zoo.entries())
    for name in zoo.entries():
        game, _ = zoo.split_entry(name)  # every file pair is an entry of a known game
        entry = zoo.card(name)
        assert entry.game == game and entry.name == name and entry.command.startswith("parlour train")
        assert entry.rules_version == load_game(game).rules_version and entry.parlour_version
        assert entry.model == zoo.MODELS / f"{name}.zip" and entry.model.stat().st_size < 2_000_000  # small files
        assert entry.bench["game"] == game and "rating" in entry.bench, "each agent ships with its bench card"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_shipped_agent_plays_legal_moves(name):
    if name not in zoo.available():
        with pytest.raises(ValueError, match=f"the zoo has no agent for {name} yet"):
            zoo_agent(name)
        return
    game = load_game(name, **zoo.card(name).game_options)
    agents = [f"zoo:{name}", *["random"] * (game.num_players - 1)]
    match = play_match(game, agents, games=2, seed=0, workers=1, progress=False)
    assert len(match.records) >= 2  # whole cycles of seats
    assert "zoo" in playable(game)
    policy = zoo_agent(name)  # on the options it was trained with
    assert policy.game == game


@pytest.mark.parametrize("name", [entry for entry in zoo.entries() if "-" in entry] or ["none"])
def test_each_shipped_variant_entry_plays_legal_moves(name):
    """Every ``GAME-VARIANT`` entry shipped (the ``GAME-ppo`` agents) plays through its spec,
    and a ``ppo`` one is a batched player too (an opponent or teacher on the batched engine)."""
    if name == "none":
        pytest.skip("the zoo ships no GAME-VARIANT entry yet")
    from parlour.baselines.batched import batched_policy
    from parlour.vector import ENGINES, make_engine

    entry = zoo.card(name)
    game = load_game(entry.game, **entry.game_options)
    agents = [f"zoo:{name}", *["random"] * (game.num_players - 1)]
    match = play_match(game, agents, games=2, seed=0, workers=1, progress=False)
    assert len(match.records) >= 2 and zoo_agent(name).card.name == name
    if entry.kind == "ppo" and entry.game in ENGINES:
        engine = make_engine(entry.game, 2, 0, **entry.game_options)
        assert batched_policy(make_from_spec(f"zoo:{name}", engine.game), engine) is not None


def test_an_agent_plays_the_options_it_was_trained_with():
    """The Goofspiel agent is the bench ladder's (6 cards): the 13-card game is refused by name."""
    assert zoo.card("goofspiel").game_options == {"num_cards": 6}
    thirteen = load_game("goofspiel")
    assert "zoo" not in playable(thirteen) and "zoo" in playable(load_game("goofspiel", num_cards=6))
    with pytest.raises(ValueError, match="the zoo's goofspiel agent was trained on goofspiel with num_cards=6; "
                                         "this game's observations and actions differ"):
        make_from_spec("zoo", thirteen)


@pytest.fixture
def tiny_zoo(tmp_path, monkeypatch):
    """A zoo with one sticks agent (an untrained network), made by scripts/zoo_add.py (``python -m scripts.zoo_add``)."""
    game = load_game("sticks")
    torch.manual_seed(0)
    net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, hidden=8)
    run = tmp_path / "run"
    run.mkdir()
    save_az_model(net, run / "best.zip", game)
    (run / "config.toml").write_text('game = "sticks"\nalgo = "alphazero"\n')
    (tmp_path / "bench.json").write_text(json.dumps({"game": "sticks", "rating": 12.0}))
    models = tmp_path / "models"
    monkeypatch.setattr(zoo, "MODELS", models)
    assert zoo_add([str(run), "--command", "parlour train --game sticks --algo alphazero", "--play", "simulations=8",
                "--bench", str(tmp_path / "bench.json")]) == 0
    with pytest.raises(FileExistsError, match="the zoo has an agent for sticks already"):
        zoo_add([str(run), "--command", "parlour train", "--play", "simulations=8"])
    return models


def test_zoo_specs_and_zoo_agent(tiny_zoo):
    assert zoo.available() == ["sticks"]
    entry = zoo.card("sticks")
    assert entry.play == {"simulations": 8} and entry.config["algo"] == "alphazero"
    assert entry.spec() == f"az:{tiny_zoo / 'sticks.zip'},simulations=8"
    assert entry.spec(simulations=0, deterministic=False) == f"az:{tiny_zoo / 'sticks.zip'},simulations=0,deterministic=false"
    assert entry.player_params(simulations=0, deterministic=None) == {"simulations": 0}  # None: the card's
    game = load_game("sticks")
    state = game.new_initial_state()
    built = make_from_spec("zoo:sticks,deterministic=false", game, seed=5)
    spelled = make_from_spec(entry.spec(deterministic=False), game, seed=5)
    # the card's player itself
    assert repr(built.inner) == repr(spelled) and built.act(state.info_state(0)) == spelled.act(state.info_state(0))
    for spec in ("zoo", "zoo:sticks", "zoo:sticks,simulations=0", "zoo:entry=sticks,deterministic=false,temperature=0.5"):
        a, b = make_from_spec(spec, game, seed=3), make_from_spec(spec, game, seed=3)
        move = a.act(state.info_state(0))
        assert move in state.legal_actions(0) and move == b.act(state.info_state(0))
    assert "zoo" in playable(game) and "zoo" not in playable(load_game("tribolo"))
    with pytest.raises(ValueError, match="policy 'zoo' cannot play tribolo: the zoo has no agent for it yet"):
        make_from_spec("zoo", "tribolo")
    with pytest.raises(ValueError, match="the zoo has no agent for goofspiel yet; it has agents for sticks"):
        zoo_agent("goofspiel")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        zoo_agent("chess")
    spec, _ = vet_spec("zoo:sticks,simulations=4", game, None, 3.0)  # a web client may seat it
    assert make_from_spec(spec, game).config["simulations"] == 4 and spec.startswith("zoo:")


def test_zoo_agent_acts_on_a_pettingzoo_observation(tiny_zoo):
    env = sticks_v0.env()
    env.reset(seed=0)
    policy = zoo_agent("sticks", simulations=0)
    observation, *_ = env.last()
    action = policy.act_observation(observation)
    assert observation["action_mask"][action] == 1
    assert action == policy.act_observation(observation["observation"], observation["action_mask"])
    with pytest.raises(ValueError, match="needs the legal mask"):
        policy.act_observation(observation["observation"])


def test_an_ntuple_agent_searches_from_a_pettingzoo_observation(tmp_path, monkeypatch):
    """A ``parlour train-ntuple`` run enters the zoo like any other (its card from the
    run's summary.json) and acts on a PettingZoo observation with its search."""
    from parlour.baselines.learned.ntuple import load_ntuple, save_ntuple
    from parlour.envs import double_card_v0

    game = load_game("double_card")
    run = tmp_path / "run"
    run.mkdir()
    weights = np.random.default_rng(0).normal(scale=0.1, size=ntuple_features(game).size)
    save_ntuple(weights, run / "best.zip", game)
    settings = {"generations": 1, "games": 10, "depth": 2}
    (run / "summary.json").write_text(json.dumps({"game": "double_card", "options": game.config, "settings": settings}))
    monkeypatch.setattr(zoo, "MODELS", tmp_path / "models")
    assert zoo_add([str(run), "--command", "parlour train-ntuple --games 10", "--play", "depth=2", "time_limit=none"]) == 0
    entry = zoo.card("double_card")
    assert entry.kind == "ntuple" and entry.config["ntuple"] == settings and entry.game_options == game.config
    env = double_card_v0.env()
    env.reset(seed=0)
    policy = zoo_agent("double_card")
    for _ in range(4):
        observation, *_ = env.last()
        action = policy.act_observation(observation)
        assert observation["action_mask"][action] == 1
        env.step(action)
    observation, *_ = env.last()
    state = env.unwrapped.game_state
    assert policy.act_observation(observation) == make_from_spec(f"ntuple:{run / 'best.zip'},depth=2,time_limit=none",
                                                                 game).act(state.info_state(state.to_move))
    with pytest.raises(ValueError, match="an n-tuple evaluation inside an alpha-beta search: simulations, "
                                         "deterministic, temperature and inference do not apply"):
        make_from_spec("zoo:double_card,simulations=8", game)
    # another model file of the run: its last generation, named on the card
    last = np.random.default_rng(1).normal(scale=0.1, size=ntuple_features(game).size)
    save_ntuple(last, run / "last.zip", game)
    assert zoo_add([str(run), "--command", "parlour train-ntuple", "--model", "last.zip", "--play", "depth=2", "--force"]) == 0
    assert zoo.card("double_card").run_model == "last.zip"
    assert np.array_equal(load_ntuple(tmp_path / "models" / "double_card.zip", game)[0], last)
    # or one in a folder of the run (a PPO run's snapshots), named on the card by its path inside the run
    (run / "snapshots").mkdir()
    save_ntuple(last * 2, run / "snapshots" / "step_0.zip", game)
    assert zoo_add([str(run), "--command", "x", "--model", "snapshots/step_0.zip", "--play", "depth=2", "--force"]) == 0
    assert zoo.card("double_card").run_model == "snapshots/step_0.zip"
    assert np.array_equal(load_ntuple(tmp_path / "models" / "double_card.zip", game)[0], last * 2)
    for bad, error in (("../best.zip", ValueError), ("snapshots/../../best.zip", ValueError), (str(run / "best.zip"), ValueError),
                       ("best.pt", ValueError), ("gone.zip", FileNotFoundError)):
        with pytest.raises(error):
            zoo_add([str(run), "--command", "x", "--model", bad, "--force"])


def test_the_tides_agent_calls_its_network_in_numpy_unless_told_otherwise():
    """The card plays ``inference=numpy``; ``inference=`` overrides it for a network agent only."""
    from parlour.baselines.learned.numpy_mlp import NumpyMLP

    game = load_game("tides_of_time")
    assert zoo.card("tides_of_time").play["inference"] == "numpy"
    assert make_from_spec("zoo:tides_of_time,simulations=4", game).inner.config["c"] == zoo.card("tides_of_time").play["c"] == 1.0
    assert isinstance(make_from_spec("zoo:tides_of_time,simulations=4", game).inner.evaluator.net, NumpyMLP)
    in_torch = make_from_spec("zoo:tides_of_time,simulations=4,inference=float32", game).inner.evaluator.net
    assert isinstance(in_torch, torch.nn.Module)
    with pytest.raises(ValueError, match="a ppo model \\(no search\\): simulations, temperature and inference do not apply"):
        make_from_spec("zoo:goofspiel,inference=numpy", load_game("goofspiel", num_cards=6))


def test_another_rules_version_is_refused(tiny_zoo, monkeypatch):
    game_class = type(load_game("sticks"))
    monkeypatch.setattr(game_class, "rules_version", 2)
    with pytest.raises(ValueError, match="the zoo's sticks agent was made for version 1 of the sticks rules; "
                                         "this parlour plays version 2: it needs a new model"):
        zoo_agent("sticks")
    with pytest.raises(ValueError, match=r"was made for version 1 of the sticks rules; this parlour plays version 2.*train it again"):
        make_from_spec(f"az:{tiny_zoo / 'sticks.zip'}", "sticks")


def test_a_damaged_card_is_named(tiny_zoo):
    (tiny_zoo / "sticks.json").write_text("{not json")
    with pytest.raises(ValueError, match="zoo card .*sticks.json' cannot be read"):
        zoo.card("sticks")


def test_a_zoo_agent_plays_its_own_game_only():
    with pytest.raises(ValueError, match="zoo:sticks is the zoo's sticks agent; it cannot play goofspiel"):
        make_from_spec("zoo:sticks", load_game("goofspiel", num_cards=6))
    with pytest.raises(ValueError, match="zoo:sticks-ppo is the zoo's sticks agent; it cannot play goofspiel \\(use zoo:goofspiel\\)"):
        make_from_spec("zoo:sticks-ppo", load_game("goofspiel", num_cards=6))  # another game's entry, named with both
    with pytest.raises(ValueError, match="the zoo's sticks agent was trained on sticks with its default options; "
                                         "this game's observations and actions differ"):
        make_from_spec("zoo", load_game("sticks", num_sticks=12))


def test_a_missing_card_is_named(tiny_zoo):
    (tiny_zoo / "sticks.json").unlink()
    (tiny_zoo / "sticks.json").mkdir()  # listed (a json entry beside the zip) but unreadable
    with pytest.raises(ValueError, match="zoo card .*sticks.json' cannot be read"):
        zoo.card("sticks")


def test_parlour_play_seats_a_zoo_agent(capsys, monkeypatch):
    """``parlour play sticks --opponent zoo:sticks``: the shipped agent answers a person."""
    import io

    from parlour.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 12))
    assert main(["play", "sticks", "--opponent", "zoo:sticks", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "opponents: zoo:sticks" in out and ("you win" in out or "you lose" in out), out[-400:]


def test_parlour_bench_rates_a_zoo_agent(tmp_path, capsys):
    """``parlour bench --agent zoo:sticks`` rates the shipped agent on the sticks ladder;
    its card names the spec the user gave."""
    from parlour.cli import main

    code = main(["bench", "--game", "sticks", "--agent", "zoo:sticks,simulations=8", "--out", str(tmp_path), "--quiet"])
    assert code == 0, capsys.readouterr().err
    card = json.loads((tmp_path / "sticks.json").read_text())
    assert card["agent"] == "zoo:sticks,simulations=8" and card["games"] == 500
    assert "zoo:sticks,simulations=8" in capsys.readouterr().out


@pytest.fixture
def ppo_entry(tiny_zoo, tmp_path):
    """The tiny zoo with a second sticks entry, ``sticks-ppo``: a freshly initialised PPO
    network (its logits spread out, so its moves are no ties), added by ``scripts/zoo_add.py --variant ppo``."""
    from sb3_contrib import MaskablePPO

    from parlour.baselines.learned.ppo import read_model_meta, save_model
    from parlour.training.single_agent import SingleAgentEnv

    game = load_game("sticks")
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(game), n_steps=16, batch_size=16, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    with torch.no_grad():
        model.policy.action_net.weight.mul_(200.0)
    run = tmp_path / "ppo-run"
    run.mkdir()
    save_model(model, run / "best.zip", game)
    (run / "config.toml").write_text('game = "sticks"\nalgo = "ppo"\n')
    (tmp_path / "bench-ppo.json").write_text(json.dumps({"game": "sticks", "rating": 7.0, "ms_per_move": 0.3}))
    assert zoo_add([str(run), "--command", "parlour train --game sticks", "--variant", "ppo",
                    "--bench", str(tmp_path / "bench-ppo.json")]) == 0
    model.learn(32)  # Adam's moments exist now: the zoo's copy leaves them out, with the same weights
    save_model(model, run / "best.zip", game)
    (tiny_zoo / "sticks-ppo.json").unlink()
    assert zoo_add([str(run), "--command", "parlour train --game sticks", "--variant", "ppo",
                    "--bench", str(tmp_path / "bench-ppo.json")]) == 0
    shipped = MaskablePPO.load(tiny_zoo / "sticks-ppo.zip", device="cpu")
    assert all(torch.equal(value, shipped.policy.state_dict()[key]) for key, value in model.policy.state_dict().items())
    assert not shipped.policy.optimizer.state_dict()["state"] and model.policy.optimizer.state_dict()["state"]
    assert read_model_meta(tiny_zoo / "sticks-ppo.zip") == read_model_meta(run / "best.zip")
    with pytest.raises(FileExistsError, match="the zoo has an entry sticks-ppo already"):
        zoo_add([str(run), "--command", "parlour train", "--variant", "ppo"])
    with pytest.raises(ValueError, match="--variant 'PPO'"):
        zoo_add([str(run), "--command", "parlour train", "--variant", "PPO"])
    return tiny_zoo


def test_a_game_has_more_entries_than_its_default_agent(ppo_entry):
    assert zoo.entries() == ["sticks", "sticks-ppo"]
    assert zoo.available() == ["sticks"]  # the games with an agent (their default entries)
    assert zoo.game_entries("sticks") == ["sticks", "sticks-ppo"] and zoo.game_entries("tribolo") == []
    assert zoo.split_entry("sticks-ppo") == ("sticks", "ppo") and zoo.split_entry("sticks") == ("sticks", "")
    entry = zoo.card("sticks-ppo")
    assert entry.game == "sticks" and entry.name == "sticks-ppo" and entry.kind == "ppo"
    assert entry.model == ppo_entry / "sticks-ppo.zip" and entry.bench["rating"] == 7.0
    assert entry.spec() == f"ppo:{ppo_entry / 'sticks-ppo.zip'}"
    default = zoo.card("sticks")
    assert default.name == "sticks" and default.model == ppo_entry / "sticks.zip"  # unchanged beside it
    with pytest.raises(ValueError, match="the zoo has no entry 'sticks-big' yet; its entries are sticks, sticks-ppo"):
        zoo.card("sticks-big")
    with pytest.raises(ValueError, match="unknown game 'chess' in zoo entry 'chess-ppo'; games are"):
        zoo.card("chess-ppo")
    with pytest.raises(ValueError, match="zoo entry 'sticks-PPO': an entry is GAME or GAME-VARIANT"):
        zoo.card("sticks-PPO")
    with pytest.raises(ValueError, match="zoo entry 'sticks-'"):
        zoo.card("sticks-")


def test_an_entry_plays_as_its_own_player(ppo_entry):
    from parlour.baselines.learned.ppo import PPOPolicy

    game = load_game("sticks")
    state = game.new_initial_state()
    policy = make_from_spec("zoo:sticks-ppo", game, seed=1)
    assert isinstance(policy.inner, PPOPolicy) and policy.inner.config["path"] == str(ppo_entry / "sticks-ppo.zip")
    spelled = make_from_spec(f"ppo:{ppo_entry / 'sticks-ppo.zip'}", game, seed=1)
    assert policy.act(state.info_state(0)) == spelled.act(state.info_state(0))
    assert np.array_equal(policy.distribution(state.info_state(0)), spelled.distribution(state.info_state(0)))
    searched = make_from_spec("zoo:sticks,simulations=8", game, seed=1).distribution(state.info_state(0))
    assert np.isclose(searched.sum(), 1.0) and (searched[state.legal_mask(0) == 0] == 0).all()  # a search: its visits
    assert zoo_agent("sticks-ppo").card.name == "sticks-ppo" and zoo_agent("sticks-ppo").game == game
    assert isinstance(make_from_spec("zoo", game).inner, type(make_from_spec("zoo:sticks", game).inner))  # the default entry
    with pytest.raises(ValueError, match="a ppo model \\(no search\\): simulations"):
        make_from_spec("zoo:sticks-ppo,simulations=4", game)
    with pytest.raises(ValueError, match="the zoo has no entry 'sticks-az' yet"):
        zoo_agent("sticks-az")
    match = play_match(game, ["zoo:sticks-ppo", "zoo:sticks"], games=2, seed=0, workers=1, progress=False)
    assert len(match.records) == 2
    spec, _ = vet_spec("zoo:sticks-ppo", game, None, 3.0)  # a web client may seat it
    assert spec == "zoo:entry=sticks-ppo"


def test_an_entry_made_for_other_rules_is_refused_by_its_name(ppo_entry, monkeypatch):
    monkeypatch.setattr(type(load_game("sticks")), "rules_version", 2)
    with pytest.raises(ValueError, match="the zoo's sticks-ppo agent was made for version 1 of the sticks rules"):
        zoo_agent("sticks-ppo")


def test_zoo_entries_are_batched_players_where_their_players_are(ppo_entry):
    """``zoo:sticks-ppo`` (a ppo card) and ``zoo:sticks,simulations=0`` (an az card's network
    alone) are batched players: their card's player's form, move for move the single game's;
    the az card's search is not."""
    import helpers

    from parlour.baselines.batched import BatchedSeats, batched_names, batched_policy
    from parlour.baselines.learned.alphazero_batched import AlphaZeroBatched
    from parlour.baselines.learned.ppo_batched import FrozenPPO
    from parlour.baselines.learned.zoo_batched import ZooBatched
    from parlour.training.teacher import BatchedTeacher, SingleTeacher

    engine = helpers.played_engine("sticks", 2, 12, 8)
    rows, seats = np.nonzero(engine.to_act())
    keep = ~engine.terminated[rows]
    rows, seats = rows[keep], seats[keep]
    infos = [engine.game_state(int(b)).info_state(int(s)) for b, s in zip(rows, seats)]
    assert "zoo" in batched_names("sticks") and len(rows) >= 6
    for spec, inner in (("zoo:sticks-ppo", FrozenPPO), ("zoo:sticks,simulations=0", AlphaZeroBatched),
                        ("zoo:sticks-ppo,deterministic=false", FrozenPPO)):
        single = make_from_spec(spec, engine.game, seed=0)
        form = batched_policy(single, engine)
        assert isinstance(form, ZooBatched) and isinstance(form.inner, inner) and form.spec == repr(single)
        probs = form.probabilities(engine, rows, seats)
        assert np.allclose(probs, [single.distribution(info) for info in infos], rtol=1e-5, atol=1e-7)
        if "deterministic=false" not in spec:
            assert form.actions(engine, rows, seats, np.random.default_rng(0)).tolist() == [single.act(i) for i in infos]
        taught = BatchedTeacher(spec, engine.game).distributions(engine, seats, rows)
        assert np.allclose(taught, SingleTeacher(spec, engine.game).distributions(infos), rtol=1e-5, atol=1e-6)
    assert batched_policy(make_from_spec("zoo:sticks", engine.game), engine) is None  # the card's search: 8 simulations
    seated = BatchedSeats("zoo:sticks-ppo")
    seated.bind(engine, np.random.default_rng(0))
    assert seated.describe() == "zoo:sticks-ppo"


def test_the_web_page_offers_a_games_other_entries(ppo_entry):
    from parlour.table.specs import offered_players

    offered = offered_players(load_game("sticks"))
    assert "zoo" in offered and "zoo:sticks-ppo" in offered
    assert not [p for p in offered_players(load_game("goofspiel", num_cards=6)) if p.startswith("zoo:")]


def test_parlour_train_takes_a_zoo_entry_as_batched_opponent_and_teacher(ppo_entry, tmp_path, monkeypatch):
    """``--opponents zoo:sticks-ppo,self --teacher zoo:sticks-ppo`` on the batched engine:
    both are answered by the entry's batched form, never through the rules module."""
    from parlour.baselines.learned.zoo_batched import ZooBatched
    from parlour.baselines.learned.zoo_player import ZooPolicy
    from parlour.training.config import TrainConfig
    from parlour.training.trainer import Trainer

    asked = {"actions": 0, "probabilities": 0}
    actions, probabilities = ZooBatched.actions, ZooBatched.probabilities

    def counted_actions(self, *args):
        asked["actions"] += 1
        return actions(self, *args)

    def counted_probabilities(self, *args):
        asked["probabilities"] += 1
        return probabilities(self, *args)

    def refused(self, info_state):
        raise AssertionError("zoo:sticks-ppo played through the rules module")

    monkeypatch.setattr(ZooBatched, "actions", counted_actions)
    monkeypatch.setattr(ZooBatched, "probabilities", counted_probabilities)
    monkeypatch.setattr(ZooPolicy, "act", refused)
    config = TrainConfig(game="sticks", opponents=["zoo:sticks-ppo", "self"], timesteps=256, n_envs=4, vec_env="batched",
                         eval_every=256, eval_games=2, snapshot_every=128, eval_opponents=["random"],
                         ppo={"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16], "teacher": "zoo:sticks-ppo"})
    Trainer(config, tmp_path / "train-run", progress=False, log=lambda _: None).run()
    assert asked["actions"] > 0 and asked["probabilities"] > 0
    assert "zoo:sticks-ppo" in (tmp_path / "train-run" / "config.toml").read_text()
