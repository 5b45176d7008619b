"""``ppo:PATH`` over many games at once (its batched form, ``FrozenPPO``: one forward pass)
plays as the single-game player: on positions of random play in a batched engine, the
batched distribution is the single-game player's ``distribution`` and the batched move
its ``act`` (deterministic), or a draw from that distribution with the batch's generator;
an opponent mix and a batched teacher use the form."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
sb3_contrib = pytest.importorskip("sb3_contrib")

from helpers import played_engine  # noqa: E402

from parlour.baselines import make_from_spec  # noqa: E402
from parlour.baselines.batched import batched_names, batched_policy  # noqa: E402
from parlour.baselines.learned.ppo import PPOPolicy  # noqa: E402
from parlour.baselines.learned.ppo_batched import FrozenPPO  # noqa: E402
from parlour.games import load_game  # noqa: E402
from parlour.training.opponent_mix import OpponentMix  # noqa: E402
from parlour.training.opponents import parse_opponents  # noqa: E402
from parlour.training.teacher import BatchedTeacher, SingleTeacher  # noqa: E402
from parlour.vector import ENGINES  # noqa: E402
from parlour.vector.gym_env import BatchedVectorEnv  # noqa: E402


def tiny_ppo(path, name: str, seed: int = 0, **options) -> str:
    """A freshly initialised MaskablePPO for ``name`` saved by ``save_model``, its action
    logits spread out (a fresh network's are all near 0) so that its moves are not ties."""
    from sb3_contrib import MaskablePPO

    from parlour.baselines.learned.ppo import save_model
    from parlour.training.single_agent import SingleAgentEnv

    game = load_game(name, **options)
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(game), n_steps=16, batch_size=16, seed=seed, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    with torch.no_grad():
        model.policy.action_net.weight.mul_(200.0)
    return str(save_model(model, path / f"{name}-{seed}.zip", game))


CASES = [  # (game, options, longest random start, games)
    ("sticks", {}, 12, 16),
    ("tides_of_time", {}, 12, 16),
    ("goofspiel", {"num_cards": 5}, 4, 12),
    ("tribolo", {"width": 6, "height": 5, "walls": 2, "start_cells": 2}, 12, 12),
    ("double_card", {"max_moves": 30}, 20, 12),
]


def live_seats(engine):
    """The seats to act in the games not over: ``(rows, seats)``."""
    rows, seats = np.nonzero(engine.to_act())
    keep = ~engine.terminated[rows]
    return rows[keep], seats[keep]


@pytest.mark.parametrize(("name", "options", "plies", "games"), CASES, ids=[c[0] for c in CASES])
def test_the_batched_network_is_the_single_game_players(tmp_path, name, options, plies, games):
    model = tiny_ppo(tmp_path, name, **options)
    engine = played_engine(name, 3, games, plies, **options)
    rows, seats = live_seats(engine)
    assert len(rows) >= 8
    player = make_from_spec(f"ppo:{model}", engine.game, seed=0)
    form = batched_policy(player, engine)
    assert isinstance(form, FrozenPPO) and form.deterministic and form.spec == repr(player)
    infos = [engine.game_state(int(b)).info_state(int(s)) for b, s in zip(rows, seats)]
    single = np.array([player.distribution(info) for info in infos])
    batched = form.probabilities(engine, rows, seats)
    assert batched.shape == (len(rows), engine.num_actions)
    assert np.allclose(batched, single, rtol=1e-5, atol=1e-7)
    assert (batched[engine.legal_mask_at(rows, seats) == 0] == 0).all()
    assert np.allclose(batched.sum(axis=1), 1.0, atol=1e-5)
    moves = form.actions(engine, rows, seats, np.random.default_rng(0))
    assert moves.tolist() == [player.act(info) for info in infos]
    assert form.probabilities(engine, rows[:0], seats[:0]).shape == (0, engine.num_actions)


def test_a_sampling_player_draws_from_the_masked_distribution(tmp_path):
    engine = played_engine("tides_of_time", 5, 1, 1)
    player = make_from_spec(f"ppo:{tiny_ppo(tmp_path, 'tides_of_time', seed=1)},deterministic=false", engine.game)
    form = batched_policy(player, engine)
    assert isinstance(form, FrozenPPO) and not form.deterministic
    rows = np.zeros(4000, dtype=np.int64)  # one position, asked 4,000 times
    seats = np.zeros(4000, dtype=np.int64)  # Tides of Time is simultaneous: seat 0 acts
    probs = form.probabilities(engine, rows[:1], seats[:1])[0]
    assert np.allclose(probs, player.distribution(engine.game_state(0).info_state(int(seats[0]))), rtol=1e-5, atol=1e-7)
    moves = form.actions(engine, rows, seats, np.random.default_rng(0))
    assert probs[moves].min() > 0  # legal moves only
    share = np.bincount(moves, minlength=len(probs)) / len(moves)
    assert np.abs(share - probs).max() < 0.03
    assert np.array_equal(moves, form.actions(engine, rows, seats, np.random.default_rng(0)))  # the given generator's


def test_every_engine_has_the_ppo_form_and_snapshots_still_sample(tmp_path):
    for name in ENGINES:
        assert "ppo" in batched_names(name)
    snapshot = FrozenPPO(tiny_ppo(tmp_path, "sticks"), load_game("sticks"))
    assert not snapshot.deterministic and snapshot.spec.endswith(",deterministic=false")  # the self-play snapshots' form


def test_an_opponent_mix_and_a_teacher_use_the_form(tmp_path, monkeypatch):
    model = tiny_ppo(tmp_path, "tides_of_time")
    spec = f"ppo:{model}"
    calls = []
    original = FrozenPPO.actions

    def counted(self, engine, rows, seats, rng):
        calls.append(len(rows))
        return original(self, engine, rows, seats, rng)

    def refused(self, info_state):
        raise AssertionError("the mix played ppo through the rules module")

    monkeypatch.setattr(FrozenPPO, "actions", counted)
    monkeypatch.setattr(PPOPolicy, "act", refused)
    game = load_game("tides_of_time")
    mix = OpponentMix(game, parse_opponents(spec))
    env = BatchedVectorEnv("tides_of_time", 8, opponent=mix, seed=0)
    env.reset(seed=0)
    for _ in range(20):
        env.step(env.action_masks().argmax(axis=1))
    assert calls and sum(calls) >= 8 * 10  # every game's opponent, in one call per step
    monkeypatch.undo()
    engine = played_engine("tides_of_time", 4, 6, 10)
    rows, seats = live_seats(engine)
    taught = BatchedTeacher(spec, game).distributions(engine, seats, rows)
    single = SingleTeacher(spec, game, seed=0).distributions([engine.game_state(int(b)).info_state(int(s))
                                                             for b, s in zip(rows, seats)])
    assert np.allclose(taught, single, rtol=1e-5, atol=1e-7) and not np.isin(single.max(axis=1), [1.0]).all()


@pytest.mark.parametrize("network", ["mlp", "board"])
def test_the_players_lean_forward_pass_is_maskable_ppos_distribution(tmp_path, network):
    """``masked_policy`` (every PPO player's forward pass, without torch's distribution
    objects) gives MaskablePPO's ``get_distribution`` probabilities to float32 rounding, on
    the MLP and on the board policy, zero off the legal moves; a row without a legal move
    is all zero, not NaN."""
    from sb3_contrib import MaskablePPO

    from parlour.baselines.learned.networks import ppo_policy
    from parlour.baselines.learned.ppo import masked_policy
    from parlour.training.single_agent import SingleAgentEnv

    options = {"width": 6, "height": 5, "walls": 2, "start_cells": 2}
    engine = played_engine("tribolo", 4, 12, 12, **options)
    rows, seats = live_seats(engine)
    observations = engine.decode(engine.observation_at(rows, seats)).astype(np.float32)
    masks = engine.legal_mask_at(rows, seats).astype(bool)
    kind, kwargs = ppo_policy("mlp", [16], {}) if network == "mlp" else \
        ppo_policy("cnn", [16], {"channels": 8, "blocks": 1}, action_planes=engine.game.action_planes)
    model = MaskablePPO(kind, SingleAgentEnv(engine.game), n_steps=16, batch_size=16, seed=3, device="cpu",
                        policy_kwargs=kwargs)
    with torch.no_grad():
        for parameter in model.policy.parameters():
            parameter.mul_(5.0)  # spread the logits
        expected = model.policy.get_distribution(torch.as_tensor(observations), action_masks=masks).distribution.probs.numpy()
    lean = masked_policy(model.policy, observations, masks)
    assert lean.dtype == np.float64 and lean.shape == masks.shape
    assert np.allclose(lean, np.where(masks, expected, 0.0), rtol=1e-5, atol=1e-7)
    assert (lean[~masks] == 0).all() and np.allclose(lean.sum(axis=1), 1.0)
    assert (masked_policy(model.policy, observations[:1], np.zeros_like(masks[:1])) == 0).all()
