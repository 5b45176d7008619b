"""parlour on a real two-node Ray cluster on this machine (Ray's own ``cluster_utils``,
every node on 127.0.0.1): the Ray arena gives exactly the local arena's tables, and
``parlour train --backend rllib --address`` trains across the nodes."""

import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra")

import ray
from ray.cluster_utils import Cluster

from parlour.cli import main
from parlour.evaluation.arena import play_match
from parlour.evaluation.report import summarize, to_markdown
from parlour.games import load_game
from parlour.ray_cluster import loopback_only
from parlour.training.run_files import RunFiles, read_evaluations


@pytest.fixture(scope="module")
def two_nodes():
    if ray.is_initialized():
        ray.shutdown()
    loopback_only()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()


def test_the_cluster_has_two_nodes_on_the_loopback(two_nodes):
    ray.init(address=two_nodes, log_to_driver=False)
    try:
        nodes = [node for node in ray.nodes() if node["Alive"]]
        assert len(nodes) == 2 and {node["NodeManagerAddress"] for node in nodes} == {"127.0.0.1"}

        @ray.remote(num_cpus=1)
        def where() -> str:
            import time

            time.sleep(0.3)
            return ray.get_runtime_context().get_node_id()

        assert len(set(ray.get([where.remote() for _ in range(8)]))) == 2  # tasks ran on both nodes
    finally:
        ray.shutdown()


@pytest.mark.parametrize(("name", "options", "agents"), [
    ("goofspiel", {"num_cards": 5}, ["random", "rudimentary", "mcts:simulations=20"]),
    ("tribolo", {"width": 6, "height": 5, "walls": 2, "start_cells": 2}, ["random", "greedy", "original-strategy"]),
])
def test_the_ray_arena_gives_the_local_tables(two_nodes, name, options, agents):
    game = load_game(name, **options)
    local = play_match(game, agents, 4, seed=3, progress=False)
    remote = play_match(game, agents, 4, seed=3, progress=False, backend="ray", address=two_nodes)
    assert remote.records == local.records and remote.workers == 2
    assert to_markdown(summarize(remote)) == to_markdown(summarize(local))


@pytest.mark.slow  # two training runs and an arena on the cluster: about two minutes of two cores
def test_training_runs_across_the_cluster(two_nodes, tmp_path, capsys, monkeypatch):
    """docs/rllib.md's Tribolo command (every seat learning) on a small board, the driver
    joined to the cluster through RAY_ADDRESS and sampling in an env runner on one of its
    nodes; resumed with --address (a resumed run may name another cluster); then the
    run's best checkpoint in a Ray arena spread over the cluster's two nodes."""
    out = tmp_path / "run"
    small = ["--option", "width=6", "--option", "height=5", "--option", "walls=2", "--option", "start_cells=2"]
    monkeypatch.setenv("RAY_ADDRESS", two_nodes)
    code = main(["train", "--backend", "rllib", "--game", "tribolo", *small, "--opponents", "self",
                 "--timesteps", "200", "--eval-every", "200", "--eval-games", "2", "--set", "rllib.num_env_runners=1",
                 "--set", "rllib.train_batch_size=200", "--set", "rllib.minibatch_size=100", "--set", "cnn_channels=4",
                 "--final-games", "0", "--quiet", "--out", str(out)])
    assert code == 0
    assert [row["step"] for row in read_evaluations(RunFiles(out))][::2] == [0, 200]
    monkeypatch.delenv("RAY_ADDRESS")
    code = main(["train", "--resume", "--address", two_nodes, "--timesteps", "400", "--final-games", "0", "--quiet",
                 "--out", str(out)])
    assert code == 0
    assert [row["step"] for row in read_evaluations(RunFiles(out))][::2] == [0, 200, 400]
    capsys.readouterr()
    code = main(["arena", "--game", "tribolo", *small, "--agents", f"rllib:{out}", "random", "greedy", "--games", "2",
                 "--backend", "ray", "--address", two_nodes, "--quiet"])
    assert code == 0 and "rllib:" in capsys.readouterr().out


@pytest.mark.slow  # the same run locally and on two Ray actors: about a minute and a half
def test_alphazero_self_play_on_ray_actors_is_the_local_run(two_nodes, tmp_path):
    """``--backend ray``: the self-play games are played by two Ray actors of the cluster,
    the learner in the driver; the games, hence the weights, evaluations and gating
    matches, are those of the run with local worker processes."""
    args = ["train", "--game", "sticks", "--algo", "alphazero", "--timesteps", "60", "--eval-every", "30", "--eval-games", "2",
            "--eval-opponents", "random", "--set", "alphazero.simulations=4", "--set", "alphazero.games_per_iteration=4",
            "--set", "alphazero.eval_simulations=4", "--set", "alphazero.gate_games=2", "--set", "alphazero.workers=2",
            "--final-games", "0", "--quiet"]
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    assert main([*args, "--backend", "ray", "--address", two_nodes, "--out", str(tmp_path / "ray")]) == 0
    local, remote = RunFiles(tmp_path / "local"), RunFiles(tmp_path / "ray")
    assert read_evaluations(remote) == read_evaluations(local)
    assert remote.gating.read_text() == local.gating.read_text()
    assert (tmp_path / "ray" / "last.zip").read_bytes() != b""
    import torch

    from parlour.baselines.learned.az_model import read_az_net

    (a, _), (b, _) = read_az_net(tmp_path / "local" / "last.zip"), read_az_net(tmp_path / "ray" / "last.zip")
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    assert 'backend = "ray"' in remote.config.read_text() and f'address = "{two_nodes}"' in remote.config.read_text()
