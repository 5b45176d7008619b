"""The TorchRL recipe (``examples/torchrl_ppo.py``) at a few hundred frames: it trains on
the native env of a simultaneous and a turn-based game, writes a TorchScript policy that
the arena's ``torchscript:`` player loads and plays, gives the same weights for the same
seed, and its GAE passes over the steps a seat waits through."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from tensordict import TensorDict  # noqa: E402
from torchrl.objectives.value.functional import vec_generalized_advantage_estimate  # noqa: E402

from parlour.evaluation.arena import play_match  # noqa: E402
from parlour.games import load_game  # noqa: E402
from parlour.vector import make_engine  # noqa: E402

RECIPE = Path(__file__).resolve().parents[2] / "examples" / "torchrl_ppo.py"
SMALL = {"goofspiel": {"num_cards": 4}, "tides_of_time": {"rounds": 1}, "sticks": {}}


@pytest.fixture(scope="module")
def recipe():
    spec = importlib.util.spec_from_file_location("torchrl_ppo_recipe", RECIPE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def train(recipe, tmp_path: Path, game: str, seed: int = 0, name: str = "policy.pt") -> Path:
    options = [f"--option={k}={v}" for k, v in SMALL[game].items()]
    out = tmp_path / name
    argv = [game, *options, "--num-envs", "8", "--steps", "4", "--frames", "320", "--snapshot-every", "2",
            "--first-weight", "0.5", "--seed", str(seed), "--out", str(out), "--quiet"]
    torch_threads = torch.get_num_threads()
    try:
        assert recipe.main(argv) == out
    finally:
        torch.set_num_threads(torch_threads)
    return out


def load(path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return torch.jit.load(str(path))


@pytest.mark.parametrize("game", ["goofspiel", "tides_of_time", "sticks"])
def test_trains_and_the_arena_plays_the_exported_policy(recipe, tmp_path, game):
    path = train(recipe, tmp_path, game)
    module = load(path)
    engine = make_engine(game, 16, seed=1, **SMALL[game])
    observations = torch.as_tensor(engine.observations()[:, 0])
    masks = torch.as_tensor(engine.legal_masks()[:, 0].astype(bool))
    scores = module(observations, masks)
    assert scores.shape == masks.shape
    assert bool(masks[torch.arange(16), scores.argmax(-1)].all()), "the exported scores rank an illegal move first"
    result = play_match(load_game(game, **SMALL[game]), [f"torchscript:{path}", "random"], games=4, progress=False)
    assert len(result.records) == 4


def test_same_seed_same_weights(recipe, tmp_path):
    first = load(train(recipe, tmp_path, "goofspiel", seed=3, name="a.pt")).state_dict()
    again = load(train(recipe, tmp_path, "goofspiel", seed=3, name="b.pt")).state_dict()
    other = load(train(recipe, tmp_path, "goofspiel", seed=4, name="c.pt")).state_dict()
    assert first.keys() == again.keys()
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert not all(torch.equal(first[k], other[k]) for k in first)


def test_gae_passes_over_the_steps_a_seat_waits(recipe):
    """Seat 0 acts at steps 0 and 2, waits at 1 (reward 0.5 arrives there) and the game
    ends at step 3 (seat 0 waits again, reward 1).  Its advantage at step 0 is that of
    the two-step trajectory (0 -> 2) with the waiting steps' rewards in its moves."""
    gamma, lmbda = 0.9, 0.8
    acts = torch.tensor([True, False, True, False])
    values = torch.tensor([0.1, 7.0, 0.3, -5.0])  # the values where seat 0 waits must not count
    next_values = torch.cat([values[1:], torch.tensor([9.0])])
    rewards = torch.tensor([0.0, 0.5, 0.0, 1.0])
    done = torch.tensor([False, False, False, True])
    next_acts = torch.cat([acts[1:], torch.tensor([False])])
    data = TensorDict(
        {
            ("player", "state_value"): values.view(1, 4, 1, 1),
            ("player", "mask"): acts.view(1, 4, 1),
            ("next", "player", "state_value"): next_values.view(1, 4, 1, 1),
            ("next", "player", "reward"): rewards.view(1, 4, 1, 1),
            ("next", "player", "done"): done.view(1, 4, 1, 1),
            ("next", "player", "terminated"): done.view(1, 4, 1, 1),
            ("next", "player", "mask"): next_acts.view(1, 4, 1),
        },
        batch_size=[1, 4],
    )

    class Given(torch.nn.Module):  # the critic: the values are already in the data
        def forward(self, tensordict):
            return tensordict

    recipe.advantages(data, Given(), "player", gamma, lmbda)
    # seat 0's own trajectory: step 0 (reward 0.5 while it waits), step 2 (reward 1, the end)
    own_values = torch.tensor([0.1, 0.3]).view(1, 2, 1)
    own_next = torch.tensor([0.3, 0.0]).view(1, 2, 1)
    own_rewards = torch.tensor([0.5, 1.0]).view(1, 2, 1)
    own_done = torch.tensor([False, True]).view(1, 2, 1)
    expected, _ = vec_generalized_advantage_estimate(gamma, lmbda, own_values, own_next, own_rewards, own_done, own_done, time_dim=1)
    advantage = data.get("advantage").view(4)
    assert np.allclose(advantage[[0, 2]].numpy(), expected.view(2).numpy())
