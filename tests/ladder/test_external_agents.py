"""Players from outside parlour (python:, sb3:, torchscript:) and what ``--agent`` accepts."""

from __future__ import annotations

import pytest

from parlour.baselines import make_from_spec
from parlour.baselines.playout import play_out
from parlour.evaluation.arena import play_match
from parlour.games import load_game
from parlour.ladder.candidate import candidate_spec

STICKS = load_game("sticks")


def test_a_python_function_plays_by_module_and_by_file(tmp_path):
    by_module = make_from_spec("python:agents_for_tests:first_legal", STICKS, seed=0)
    source = tmp_path / "my_agent.py"
    source.write_text("import numpy as np\n\ndef act(observation, action_mask):\n    return int(np.flatnonzero(action_mask)[-1])\n")
    by_file = make_from_spec(f"python:{source}:act", STICKS, seed=0)
    state = STICKS.new_initial_state(0)
    assert by_module.act(state.info_state(0)) == 0
    assert by_file.act(state.info_state(0)) == 2
    result = play_match(STICKS, [f"python:{source}:act", "random"], games=4, seed=0, workers=2, progress=False)
    assert len(result.records) == 4


def test_a_python_function_that_answers_an_illegal_move_is_named():
    agent = make_from_spec("python:agents_for_tests:illegal", STICKS, seed=0)
    with pytest.raises(ValueError, match=r"returned illegal action 3; legal actions: \[0, 1, 2\]"):
        agent.act(STICKS.new_initial_state(0).info_state(0))


@pytest.mark.parametrize(
    ("target", "message"),
    [("agents_for_tests:nothing", "has no 'nothing'"), ("no_such_module_x:f", "cannot import"), ("missing.py:f", "no file"),
     ("nocolon", "expected MODULE:FUNCTION")],
)
def test_bad_python_targets_are_named(target, message):
    with pytest.raises(ValueError, match=message):
        make_from_spec(f"python:{target}", STICKS)


def test_candidate_texts_become_player_specs(tmp_path):
    assert candidate_spec("mcts:simulations=8", "sticks") == "mcts:simulations=8"
    assert candidate_spec("agents_for_tests:first_legal", "sticks") == "python:agents_for_tests:first_legal"
    assert candidate_spec("dir/agent.py:act", "sticks") == "python:dir/agent.py:act"
    script = tmp_path / "policy.pt"
    script.write_bytes(b"x")
    assert candidate_spec(str(script), "sticks") == f"torchscript:{script}"
    assert candidate_spec(str(tmp_path), "sticks") == f"rllib:{tmp_path}"
    assert candidate_spec("ppo:runs/{game}/best.zip", "tribolo") == "ppo:runs/tribolo/best.zip"
    with pytest.raises(ValueError, match="not a player spec"):
        candidate_spec("no such thing", "sticks")
    bad_zip = tmp_path / "model.zip"
    bad_zip.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a zip file"):
        candidate_spec(str(bad_zip), "sticks")


def _trained(algo: str, path) -> str:
    from parlour.training.single_agent import SingleAgentEnv

    env = SingleAgentEnv("sticks", opponent="random", seat="random")
    if algo == "MaskablePPO":
        from sb3_contrib import MaskablePPO as cls
    else:
        import stable_baselines3

        cls = getattr(stable_baselines3, algo)
    kwargs = ({"learning_starts": 0, "buffer_size": 100} if algo == "DQN"
              else {"n_steps": 32, "batch_size": 16} if algo != "A2C" else {"n_steps": 8})
    model = cls("MlpPolicy", env, seed=0, device="cpu", **kwargs)
    model.learn(64)
    model.save(path)
    return str(path)


@pytest.mark.parametrize("algo", ["PPO", "A2C", "DQN", "MaskablePPO"])
def test_an_sb3_model_file_plays_only_legal_moves(tmp_path, algo):
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    path = _trained(algo, tmp_path / f"{algo}.zip")
    assert candidate_spec(path, "sticks") == f"sb3:{path}"
    agent = make_from_spec(f"sb3:{path}", STICKS, seed=0)
    assert agent.algo == algo or (algo == "A2C" and agent.algo == "PPO")
    for seed in range(20):
        state = STICKS.new_initial_state(seed)
        play_out(state, [agent, make_from_spec("random", STICKS, seed=seed)])  # an illegal move would raise
    sampled = make_from_spec(f"sb3:{path},deterministic=false", STICKS, seed=3)
    state = STICKS.new_initial_state(0)
    assert sampled.act(state.info_state(0)) in state.legal_actions(0)


def test_an_sb3_file_for_another_game_or_damaged_is_refused(tmp_path):
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    path = _trained("PPO", tmp_path / "sticks.zip")
    with pytest.raises(ValueError, match="takes observations of shape"):
        make_from_spec(f"sb3:{path}", load_game("goofspiel", num_cards=5))
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(open(path, "rb").read()[:200])
    with pytest.raises(ValueError, match="not a Stable-Baselines3 zip|cannot be loaded"):
        make_from_spec(f"sb3:{damaged}", STICKS)


def test_a_torchscript_policy_with_or_without_the_mask_plays(tmp_path):
    torch = pytest.importorskip("torch")

    class Scores(torch.nn.Module):
        def forward(self, observation: torch.Tensor) -> torch.Tensor:
            return torch.arange(3, dtype=torch.float32).unsqueeze(0).repeat(observation.shape[0], 1)

    class MaskedScores(torch.nn.Module):
        def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
            return torch.where(action_mask, -torch.arange(3, dtype=torch.float32), torch.full((1, 3), -1e9))

    torch.jit.save(torch.jit.script(Scores()), str(tmp_path / "scores.pt"))
    torch.jit.save(torch.jit.script(MaskedScores()), str(tmp_path / "masked.pt"))
    state = STICKS.new_initial_state(0)
    assert make_from_spec(f"torchscript:{tmp_path / 'scores.pt'}", STICKS).act(state.info_state(0)) == 2
    assert make_from_spec(f"torchscript:{tmp_path / 'masked.pt'}", STICKS).act(state.info_state(0)) == 0
    state.apply(2)
    state.apply(2)
    state.apply(2)  # one stick left: only "take 1" is legal
    assert make_from_spec(f"torchscript:{tmp_path / 'scores.pt'}", STICKS).act(state.info_state(state.current_players()[0])) == 0
    network = torch.nn.Sequential(torch.nn.Linear(13, 3))
    with torch.no_grad():
        network[0].weight.zero_()
        network[0].bias.copy_(torch.tensor([0.0, 5.0, 1.0]))
    torch.export.save(torch.export.export(network, (torch.zeros(1, 13),)), str(tmp_path / "exported.pt2"))
    assert candidate_spec(str(tmp_path / "exported.pt2"), "sticks") == f"torchscript:{tmp_path / 'exported.pt2'}"
    assert make_from_spec(f"torchscript:{tmp_path / 'exported.pt2'}", STICKS).act(STICKS.new_initial_state(0).info_state(0)) == 1
    (tmp_path / "junk.pt").write_bytes(b"junk")
    with pytest.raises(ValueError, match="cannot be loaded"):
        make_from_spec(f"torchscript:{tmp_path / 'junk.pt'}", STICKS)
    sampled = make_from_spec(f"torchscript:{tmp_path / 'scores.pt'},deterministic=false", STICKS, seed=0)
    draws = {sampled.act(STICKS.new_initial_state(0).info_state(0)) for _ in range(50)}
    assert draws == {0, 1, 2}
