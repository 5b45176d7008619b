"""The native TorchRL env against ``PettingZooWrapper`` over the single-game PettingZoo
envs: the same moves in both, and every observation, action mask, acting mask, reward,
done flag and info compared at every step, for every configuration of the engine
conformance suite.

Row ``b`` of the native env is played next to its own wrapped single-game env.  Chance
lines up because the single-game env starts from the native game's position: whenever
the native env (re)starts game ``b``, the wrapped env is reset with
``options={"position": engine.game_state(b).to_text()}``, the text form that holds the
whole state, the deal to come included (Goofspiel's prize order, Tides of Time's deck),
so both play the same deal from there.

The simultaneous games (Goofspiel, Tides of Time) are compared with the wrapper's
default over their ``parallel_env()``, which the native env matches in every key.  The
turn-based ones have no Parallel env: they are compared with the wrapper over their AEC
``env()`` with the native env's one group (``group_map={"player": agents}``), equal in
every key but at the step that ends a game, where the AEC wrapper still marks the seat
the AEC env selects as acting (its action mask all False) and the native env marks no
seat acting, every action allowed, as the Parallel wrapper does (checked here)."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from conformance import CASES, IDS, SMALL  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402

from parlour.vector import ENGINES, torchrl_env  # noqa: E402

SEEN = [("player", "observation", "observation"), ("player", "action_mask"), ("player", "mask"),
        ("player", "info", "illegal_action"), ("player", "info", "illegal_move")]
DONE = ["done", "terminated", "truncated", ("player", "done"), ("player", "terminated"), ("player", "truncated")]
BATCH = 3


def wrapped(name: str, options: dict) -> PettingZooWrapper:
    """The wrapper over one single game of ``name``: its Parallel env where it has one,
    else its AEC env with one group."""
    module = importlib.import_module(f"parlour.envs.{name}_v0")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
        if hasattr(module, "parallel_env"):
            return PettingZooWrapper(module.parallel_env(**options), use_mask=True, categorical_actions=True)
        env = module.env(**options)
        return PettingZooWrapper(env, use_mask=True, categorical_actions=True, group_map={"player": list(env.possible_agents)})


def compare(native, single, keys, where: str) -> None:
    for key in keys:
        assert torch.equal(native[key], single[key]), f"{where}: {key}\nnative {native[key]}\nwrapper {single[key]}"


def play(name: str, options: dict, steps: int, seed: int) -> int:
    """``steps`` random legal joint steps of the native env beside the wrapped single
    games, compared at every step; the number of games that ended."""
    torch.manual_seed(seed)
    env = torchrl_env(name, BATCH, seed=seed, **options)
    singles = [wrapped(name, options) for _ in range(BATCH)]
    turn_based = not env.engine.simultaneous
    ended = 0

    def restart(b: int, native_row, where: str):
        state = singles[b].reset(options={"position": env.engine.game_state(b).to_text()})
        compare(native_row, state, SEEN + DONE, where)
        return state

    td = env.reset()
    current = [restart(b, td[b], "reset") for b in range(BATCH)]
    for step in range(steps):
        td = env.rand_action(td)
        stepped, td = env.step_and_maybe_reset(td)
        done = stepped["next", "done"].squeeze(-1)
        for b in range(BATCH):
            where = f"{name} {options} step {step} game {b}"
            single_in = current[b].set(("player", "action"), stepped["player", "action"][b].clone())
            single = singles[b].step(single_in)["next"]
            native = stepped["next"][b]
            last = bool(done[b])
            keys = SEEN + DONE + [("player", "reward")]
            if turn_based and last:  # the AEC wrapper's end-of-game masks (module docstring)
                keys = [k for k in keys if k not in (("player", "mask"), ("player", "action_mask"))]
                assert not native["player", "mask"].any() and native["player", "action_mask"].all(), where
            compare(native, single, keys, where)
            if last:
                ended += 1
                current[b] = restart(b, td[b], where + " restart")
            else:
                current[b] = single.clone()
    return ended


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_native_env_plays_as_the_wrapped_single_games(name: str, options: dict) -> None:
    play(name, options, steps=40, seed=0)


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_whole_games_and_restarts_match(name: str) -> None:
    ended = play(name, SMALL[name], steps=60, seed=1)
    assert ended >= BATCH, f"{name}: only {ended} games ended in 60 steps"


def test_the_start_position_holds_the_deal() -> None:
    """Two native games with different deals differ, and so do their wrapped copies."""
    env = torchrl_env("tides_of_time", 2, seed=np.random.default_rng(5))
    env.reset()
    texts = [env.engine.game_state(b).to_text() for b in range(2)]
    assert texts[0] != texts[1] and "deal:" in texts[0]


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_the_specs_of_one_game_are_the_wrappers(name: str) -> None:
    """Leaf by leaf (shape, dtype, bounds, kind), the specs of one game of the batch."""
    env, single = torchrl_env(name, 3, seed=0, **SMALL[name]), wrapped(name, SMALL[name])
    for spec in ("full_observation_spec", "full_action_spec", "full_reward_spec", "full_done_spec"):
        native, reference = getattr(env, spec)[0], getattr(single, spec)
        assert set(native.keys(True, True)) == set(reference.keys(True, True)), spec
        for key in reference.keys(True, True):
            assert native[key] == reference[key], f"{spec} {key}:\n{native[key]}\n{reference[key]}"
