"""The native TorchRL env over the batched engines (``parlour.vector.torchrl_env``):
TorchRL's own spec checks on every configuration of the engine conformance suite, its
layout, random legal rollouts, resets, seeding and bad input.  The game-by-game
comparison with ``PettingZooWrapper`` over the single-game envs is
``test_torchrl_env_differential.py``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from conformance import CASES, IDS, SMALL  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from parlour.vector import ENGINES, torchrl_env  # noqa: E402


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_check_env_specs(name: str, options: dict) -> None:
    check_env_specs(torchrl_env(name, 3, seed=0, **options), seed=0)


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_layout(name: str) -> None:
    env = torchrl_env(name, 4, seed=0, **SMALL[name])
    engine = env.engine
    players, actions = engine.num_players, engine.num_actions
    td = env.reset()
    assert list(env.group_map) == ["player"] and env.group_map["player"] == [f"player_{i}" for i in range(players)]
    assert td["player", "observation", "observation"].shape == (4, players, *engine.observation_shape)
    assert td["player", "observation", "observation"].dtype == torch.float32
    assert td["player", "action_mask"].shape == (4, players, actions) and td["player", "action_mask"].dtype == torch.bool
    assert td["player", "mask"].shape == (4, players) and td["player", "mask"].dtype == torch.bool
    assert env.full_action_spec["player", "action"].shape == (4, players)
    assert env.full_action_spec["player", "action"].dtype == torch.int64
    assert env.full_reward_spec["player", "reward"].shape == (4, players, 1)
    for key in ("done", "terminated", "truncated"):
        assert env.full_done_spec[key].shape == (4, 1)
        assert env.full_done_spec["player", key].shape == (4, players, 1)
    # the seats to act are the engine's; the others may play anything
    assert torch.equal(td["player", "mask"], torch.from_numpy(engine.to_act()))
    legal = torch.from_numpy(engine.legal_masks()).bool()
    acting = td["player", "mask"]
    assert torch.equal(td["player", "action_mask"][acting], legal[acting])
    assert td["player", "action_mask"][~acting].all()


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_random_rollout_plays_legal_moves_and_restarts_games(name: str) -> None:
    torch.manual_seed(0)
    env = torchrl_env(name, 5, seed=1, **SMALL[name])
    td = env.rollout(120, break_when_any_done=False)  # an illegal move would raise
    done = td["next", "done"].squeeze(-1)
    assert done.any(), "every game ends within 120 steps"
    actions, masks, acting = td["player", "action"], td["player", "action_mask"], td["player", "mask"]
    chosen = masks.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    assert chosen[acting].all()
    rewards = td["next", "player", "reward"].squeeze(-1)
    assert (rewards[~done] == 0).all()
    # a finished game is restarted: the step after it starts afresh (nobody done)
    after = done[:, :-1]
    assert not td["done"][:, 1:].squeeze(-1)[after].any()
    assert td["player", "mask"][:, 1:][after].any(-1).all()


def test_partial_reset_restarts_only_the_games_named() -> None:
    env = torchrl_env("goofspiel", 4, seed=0, num_cards=3)
    td = env.reset()
    for _ in range(3):
        td = env.step(env.rand_action(td))["next"]
    assert td["done"].all()
    before = td["player", "observation", "observation"].clone()
    reset = torch.tensor([[True], [False], [True], [False]])
    td.set("_reset", reset)
    after = env.reset(td)
    assert after["done"].squeeze(-1).tolist() == [False, True, False, True]
    assert env.engine.terminated.tolist() == [False, True, False, True]
    assert torch.equal(after["player", "observation", "observation"][1], before[1])
    assert after["player", "mask"][[0, 2]].all() and not after["player", "mask"][[1, 3]].any()


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_steps_tensors_stay_as_they_were(name: str) -> None:
    """The tensors share the engine's arrays (``from_numpy``): later steps must not
    write into a step a rollout still holds."""
    torch.manual_seed(0)
    env = torchrl_env(name, 4, seed=0, **SMALL[name])
    td = env.reset()
    kept, copies = [td], [td.clone()]
    for _ in range(24):
        td = env.rand_action(td)
        stepped, td = env.step_and_maybe_reset(td)
        kept.append(stepped["next"])
        copies.append(stepped["next"].clone())
    # (TorchRL writes the next actions into the same tensordicts: compare what the env wrote)
    assert all((a.select(*b.keys(True, True)) == b).all() for a, b in zip(kept, copies))
    assert not all(torch.equal(kept[0]["player", "observation", "observation"], t["player", "observation", "observation"])
                   for t in kept[1:])


def test_partial_steps_play_only_the_games_named() -> None:
    torch.manual_seed(0)
    env = torchrl_env("goofspiel", 3, seed=0, num_cards=4)
    td = env.rand_action(env.reset())
    td.set("_step", torch.tensor([True, False, True]))
    after = env.step(td)["next"]
    assert after["player", "observation", "observation"][1].equal(td["player", "observation", "observation"][1])
    assert not after["player", "observation", "observation"][0].equal(td["player", "observation", "observation"][0])
    # rollout until every game is over, each game stepped only until it ends
    env = torchrl_env("sticks", 4, seed=0, num_sticks=6)
    rollout = env.rollout(50, break_when_any_done=False, break_when_all_done=True)
    assert rollout.shape[1] < 50 and rollout["next", "done"][:, -1].all()


def test_stepping_a_finished_game_leaves_it_over() -> None:
    env = torchrl_env("sticks", 2, seed=0, num_sticks=1)
    td = env.step(env.rand_action(env.reset()))
    assert td["next", "done"].all()
    again = env.step(env.rand_action(td["next"].clone()))
    assert again["next", "done"].all() and (again["next", "player", "reward"] == 0).all()


def _rollout(seed: int, game: str = "tides_of_time", **options) -> object:
    env = torchrl_env(game, 3, **options)
    env.set_seed(seed)
    torch.manual_seed(seed)
    return env.rollout(30, break_when_any_done=False)


def test_same_seed_same_rollout_different_seed_different() -> None:
    first, second, other = _rollout(7), _rollout(7), _rollout(8)
    assert (first == second).all()
    assert not torch.equal(first["player", "observation", "observation"], other["player", "observation", "observation"])


def test_constructor_seed_fixes_the_deal() -> None:
    one = torchrl_env("goofspiel", 4, seed=3, num_cards=6).reset()
    two = torchrl_env("goofspiel", 4, seed=np.random.default_rng(3), num_cards=6).reset()
    assert (one == two).all()


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: torchrl_env("chess", 2), ["'chess'", "goofspiel", "tides_of_time"]),
        (lambda: torchrl_env("sticks", 0), ["num_envs", "0"]),
        (lambda: torchrl_env("sticks", 2.5), ["num_envs", "2.5"]),
        (lambda: torchrl_env("sticks", 2, device="tpu"), ["'tpu'", "'cpu'"]),
        (lambda: torchrl_env("sticks", 2, device="cuda:7"), ["'cuda:7'", "'cpu'"]),
        (lambda: torchrl_env("goofspiel", 2, bogus=1), ["bogus", "num_cards"]),
        (lambda: torchrl_env("goofspiel", 2, num_cards=0), ["num_cards", "0"]),
    ],
    ids=["game", "num_envs", "num_envs-float", "device", "device-cuda", "option-name", "option-value"],
)
def test_bad_input_is_a_clear_error(call, words) -> None:
    with pytest.raises(ValueError) as error:
        call()
    for word in words:
        assert word in str(error.value)


def test_illegal_action_raises() -> None:
    env = torchrl_env("goofspiel", 2, seed=0, num_cards=3)
    td = env.reset()
    td["player", "action"] = torch.full((2, 2), 2)
    env.step(td)  # bid card 3 in every game: legal once
    with pytest.raises(Exception, match="illegal|legal"):
        env.step(td["next"].clone().set(("player", "action"), torch.full((2, 2), 2)))


def test_importing_parlour_vector_loads_no_torch() -> None:
    code = "import sys, parlour.vector; print(any(m == 'torch' or m.startswith(('torch.', 'torchrl', 'tensordict')) for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("name", ["goofspiel", "tribolo"])
def test_a_collector_with_a_multi_agent_mlp_policy(name: str) -> None:
    """What a TorchRL learner runs: a collector, ``MultiAgentMLP`` over the seat
    dimension, ``MaskedCategorical`` over ``action_mask`` (a collector's default random
    policy clones the action spec once, so it would not follow the masks: as with the
    wrapper, a collector needs a policy that reads them)."""
    from tensordict.nn import TensorDictModule
    from torchrl.collectors import Collector
    from torchrl.modules import MaskedCategorical, MultiAgentMLP, ProbabilisticActor

    torch.manual_seed(0)
    env = torchrl_env(name, 6, seed=0, **SMALL[name])
    engine = env.engine
    body = torch.nn.Sequential(
        torch.nn.Flatten(-len(engine.observation_shape)),
        MultiAgentMLP(n_agent_inputs=int(np.prod(engine.observation_shape)), n_agent_outputs=engine.num_actions,
                      n_agents=engine.num_players, centralised=False, share_params=True, depth=1, num_cells=16))
    actor = ProbabilisticActor(
        TensorDictModule(body, in_keys=[("player", "observation", "observation")], out_keys=[("player", "logits")]),
        in_keys={"logits": ("player", "logits"), "mask": ("player", "action_mask")}, out_keys=[("player", "action")],
        distribution_class=MaskedCategorical, return_log_prob=True, log_prob_key=("player", "log_prob"))
    collector = Collector(env, actor, frames_per_batch=6 * 20, total_frames=6 * 40, auto_register_policy_transforms=False)
    try:
        batches = list(collector)
    finally:
        collector.shutdown()
    assert [b.batch_size for b in batches] == [torch.Size([6, 20])] * 2
    assert batches[-1]["player", "log_prob"].shape == (6, 20, engine.num_players)
    assert any(b["next", "done"].any() for b in batches)
