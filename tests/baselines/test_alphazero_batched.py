"""``az:PATH,simulations=0`` over many games at once (its batched form, one forward pass)
plays as the single-game player: on positions of random play in a batched engine, the
engine's observation of a seat is the one the single-game player reads, the batched
distribution is its network's, and the batched move its move; an opponent mix plays it
through the form; a search (``simulations`` above 0) has none."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs the train extra")

from parlour.baselines import make_from_spec
from parlour.baselines.batched import BatchedSeats, batched_names, batched_policy
from parlour.baselines.learned.alphazero import AlphaZeroPolicy
from parlour.baselines.learned.alphazero_batched import AlphaZeroBatched, last_positive
from parlour.baselines.learned.az_model import PolicyValueNet, save_az_model
from parlour.training.opponent_mix import OpponentMix
from parlour.training.opponents import parse_opponents
from parlour.vector import ENGINES, make_engine
from parlour.vector.gym_env import BatchedVectorEnv
from parlour.zoo import MODELS

TIDES = str(MODELS / "tides_of_time.zip")
STICKS = str(MODELS / "sticks.zip")


def fresh_model(tmp_path, name: str, network: str = "mlp", **options) -> str:
    """A small freshly initialised network for ``name`` saved as a model file."""
    import torch

    game = make_engine(name, 1, 0, **options).game
    torch.manual_seed(0)
    net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, network=network, channels=4, blocks=1,
                         hidden=16)
    return str(save_az_model(net, tmp_path / f"{name}-{network}.zip", game))


def positions(name: str, steps: int, seed: int, num_envs: int = 6, **options):
    """``(engine, rows, seats)`` at every step of random play in a batched engine: the
    seats to act and their games."""
    engine = make_engine(name, num_envs, seed, **options)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        rows, seats = np.nonzero(engine.to_act())
        yield engine, rows, seats
        engine.step(engine.random_actions(rng))


def single_game(player: AlphaZeroPolicy, engine, rows, seats, rng):
    """The single-game player's network distribution and move at each (row, seat), with
    the observation it reads (of a sample of the seat's information state)."""
    observations, probs, moves = [], [], []
    for b, seat in zip(rows.tolist(), seats.tolist()):
        state = engine.game_state(b)
        info = state.info_state(seat)
        observation = info.sample(rng).observation_tensor(seat)
        observations.append(observation)
        probs.append(player.evaluator.policy(observation, state.legal_mask(seat)))
        moves.append(player.act(info))
    return np.array(observations), np.array(probs), np.array(moves)


CASES = [
    ("tides_of_time", TIDES, {}),
    ("tides_of_time", f"{TIDES},inference=numpy", {}),
    ("sticks", STICKS, {}),
    ("goofspiel", "fresh:mlp", {"num_cards": 5}),
    ("tribolo", "fresh:cnn", {"width": 6, "height": 5, "walls": 2, "start_cells": 2}),
]


@pytest.mark.parametrize(("name", "model", "options"), CASES, ids=[f"{c[0]}-{c[1].rpartition('/')[2]}" for c in CASES])
def test_the_batched_network_is_the_single_game_players(tmp_path, name, model, options):
    if model.startswith("fresh:"):
        model = fresh_model(tmp_path, name, model.partition(":")[2], **options)
    rng = np.random.default_rng(1)
    count = 0
    player = form = None
    for engine, rows, seats in positions(name, 24, seed=3, **options):
        if form is None:
            player = make_from_spec(f"az:{model},simulations=0", engine.game)
            form = batched_policy(player, engine)
            assert isinstance(form, AlphaZeroBatched)
        observations, probs, moves = single_game(player, engine, rows, seats, rng)
        assert np.array_equal(engine.decode(engine.observation_at(rows, seats)), observations)
        batched = form.probabilities(engine, rows, seats)
        assert batched.shape == (len(rows), engine.num_actions)
        assert np.allclose(batched, probs, rtol=1e-5, atol=1e-7)
        assert (batched[engine.legal_mask_at(rows, seats) == 0] == 0).all()
        assert np.array_equal(form.actions(engine, rows, seats, np.random.default_rng(0)), moves)
        count += len(rows)
    assert count >= 60


def test_a_sampling_player_draws_from_the_masked_distribution():
    engine = make_engine("tides_of_time", 1, 5)
    player = make_from_spec(f"az:{TIDES},simulations=0,deterministic=false", engine.game)
    form = batched_policy(player, engine)
    assert isinstance(form, AlphaZeroBatched)
    rows = np.zeros(4000, dtype=np.int64)  # one position, asked 4,000 times
    seats = np.zeros(4000, dtype=np.int64)
    probs = form.probabilities(engine, rows[:1], seats[:1])[0]
    moves = form.actions(engine, rows, seats, np.random.default_rng(0))
    assert probs[moves].min() > 0  # legal moves only
    share = np.bincount(moves, minlength=len(probs)) / len(moves)
    assert np.abs(share - probs).max() < 0.03
    again = form.actions(engine, rows, seats, np.random.default_rng(0))
    assert np.array_equal(moves, again)  # the draws are the given generator's
    assert last_positive(np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])).tolist() == [1, 2]


def test_every_batched_engine_has_the_form_of_the_network_alone_only(tmp_path):
    for name in ENGINES:
        assert "az" in batched_names(name)
    engine = make_engine("sticks", 2, 0)
    for spec in (f"az:{STICKS}", f"az:{STICKS},simulations=1", f"az:{STICKS},simulations=24,deterministic=false"):
        assert batched_policy(make_from_spec(spec, engine.game), engine) is None  # a search plays through the rules
    with pytest.raises(ValueError, match="has no batched form for sticks"):
        BatchedSeats(f"az:{STICKS},simulations=8").bind(engine, np.random.default_rng(0))
    with pytest.raises(ValueError, match="simulations=0"):
        AlphaZeroBatched(make_from_spec(f"az:{STICKS},simulations=4", engine.game))
    assert AlphaZeroBatched(make_from_spec(f"az:{STICKS},simulations=0", engine.game)).spec.startswith("az:")


def test_an_opponent_mix_plays_it_through_the_batched_form(monkeypatch):
    spec = f"az:{TIDES},simulations=0"
    engine = make_engine("tides_of_time", 8, 0)
    assert isinstance(batched_policy(make_from_spec(spec, engine.game), engine), AlphaZeroBatched)
    calls = []
    original = AlphaZeroBatched.actions

    def counted(self, engine, rows, seats, rng):
        calls.append(len(rows))
        return original(self, engine, rows, seats, rng)

    def refused(self, info_state):
        raise AssertionError("the mix played az through the rules module")

    monkeypatch.setattr(AlphaZeroBatched, "actions", counted)
    monkeypatch.setattr(AlphaZeroPolicy, "act", refused)
    mix = OpponentMix(engine.game, parse_opponents(spec))
    env = BatchedVectorEnv("tides_of_time", 8, opponent=mix, seed=0)
    env.reset(seed=0)
    for _ in range(30):
        env.step(env.action_masks().argmax(axis=1))
    assert calls and sum(calls) >= 8 * 20  # every game's opponent, in one call per step
