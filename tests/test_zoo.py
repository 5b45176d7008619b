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
    """What ``available`` lists is in the package's models folder and the wheel's package data."""
    assert zoo.MODELS == ROOT / "parlour" / "zoo" / "models"
    assert '"parlour.zoo" = ["models/*.json", "models/*.zip"]' in (ROOT / "pyproject.toml").read_text()
    for name in zoo.available():
        entry = zoo.card(name)
        assert entry.game == name and entry.command.startswith("parlour train")
        assert entry.rules_version == load_game(name).rules_version and entry.parlour_version
        assert entry.model.stat().st_size < 2_000_000  # small files
        assert entry.bench["game"] == name and "rating" in entry.bench, "each agent ships with its bench card"


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
    for bad, error in (("../best.zip", ValueError), ("best.pt", ValueError), ("gone.zip", FileNotFoundError)):
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
