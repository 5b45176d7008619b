"""The configuration without PPO inside: PPO's games, threads, network and snapshots are
settings of the backends' tables, and everything written before still works: old
config.toml files (those settings at the top level) load and resume exactly, zoo cards'
configs and commands still read, the old names still work as flags, ``--set`` and
``TrainConfig`` keywords, and the runs resolve to the same settings as before."""

from __future__ import annotations

import json
import shlex

import pytest
import tomllib

from parlour import zoo
from parlour.cli import build_parser, main
from parlour.cli.train import DEFAULT_TRAINING, ntuple_settings_given, settings_given
from parlour.training import registry
from parlour.training.backends.ppo.backend import PPOSettings
from parlour.training.config import MOVED_SETTINGS, TrainConfig, make_config, saved_config, saved_settings
from parlour.training.settings import check_backend_settings

MOVED_PPO = ("n_envs", "vec_env", "opponent_workers", "snapshot_every", "max_snapshots", "network", "cnn_channels", "cnn_blocks",
             "cnn_shared", "cnn_precision", "torch_threads")

RESOLVED_BEFORE = {
    "default": ({}, {"n_envs": 256, "vec_env": "batched", "opponent_workers": 0, "snapshot_every": 10000, "max_snapshots": 20,
                     "network": "auto", "cnn_channels": 32, "cnn_blocks": 2, "cnn_shared": True, "cnn_precision": "float32",
                     "torch_threads": 2, "n_steps": 64, "batch_size": 4096}),
    "tribolo": ({"game": "tribolo", "opponents": ["random"]},
                {"n_envs": 256, "vec_env": "batched", "opponent_workers": 0, "snapshot_every": 10000, "max_snapshots": 20,
                 "network": "auto", "cnn_channels": 32, "cnn_blocks": 2, "cnn_shared": True, "cnn_precision": "bfloat16",
                 "torch_threads": 2, "n_steps": 64, "batch_size": 256}),
    "sticks_dummy": ({"game": "sticks", "vec_env": "dummy"},
                     {"n_envs": 4, "vec_env": "dummy", "opponent_workers": 0, "snapshot_every": 10000, "max_snapshots": 20,
                      "network": "auto", "cnn_channels": 32, "cnn_blocks": 2, "cnn_shared": True, "cnn_precision": "float32",
                      "torch_threads": 1, "n_steps": 256, "batch_size": 256}),
    "goof_n8": ({"game": "goofspiel", "n_envs": 8, "ppo": {"n_steps": 16}},
                {"n_envs": 8, "vec_env": "batched", "opponent_workers": 0, "snapshot_every": 10000, "max_snapshots": 20,
                 "network": "auto", "cnn_channels": 32, "cnn_blocks": 2, "cnn_shared": True, "cnn_precision": "float32",
                 "torch_threads": 2, "n_steps": 16, "batch_size": 32}),
}
"""What these configurations resolved to when the settings were top-level (captured from
``TrainConfig`` before the change: ``default`` is ``parlour train`` without arguments)."""


@pytest.mark.parametrize("case", sorted(RESOLVED_BEFORE))
def test_runs_resolve_to_the_settings_they_had(case, bfloat16_cpu):  # captured on such a CPU
    changes, before = RESOLVED_BEFORE[case]
    settings = json.loads(json.dumps(DEFAULT_TRAINING)) if case == "default" else {}
    settings_given(build_parser().parse_args(["train"])).apply(settings)
    settings.update(changes)
    config = make_config(settings)
    assert {key: config.ppo[key] for key in before} == before
    assert {key: config.value(key) for key in MOVED_PPO} == {key: before[key] for key in MOVED_PPO}
    assert make_config(tomllib.loads(config.to_toml())) == config


def test_alphazero_and_rllib_keep_their_network_and_threads():
    az = make_config({"game": "double_card", "algo": "alphazero"})
    assert {key: az.alphazero[key] for key in ("network", "cnn_channels", "cnn_blocks", "torch_threads")} == \
        {"network": "auto", "cnn_channels": 32, "cnn_blocks": 2, "torch_threads": 1}
    rl = make_config({"game": "tribolo", "backend": "rllib"})
    assert {key: rl.rllib[key] for key in ("network", "cnn_channels", "cnn_blocks", "snapshot_every", "max_snapshots")} == \
        {"network": "auto", "cnn_channels": 32, "cnn_blocks": 2, "snapshot_every": 10000, "max_snapshots": 20}
    for config in (az, rl):
        assert make_config(tomllib.loads(config.to_toml())) == config


OLD_TOP_LEVEL = """game = "goofspiel"
algo = "ppo"
backend = "local"
opponents = ["random", "rudimentary", "self"]
seat = "random"
timesteps = 1500000
n_envs = 256
vec_env = "batched"
opponent_workers = 0
seed = 0
snapshot_every = 5000
max_snapshots = 7
eval_every = 150000
eval_games = 100
network = "auto"
cnn_channels = 32
cnn_blocks = 2
cnn_shared = true
cnn_precision = "float32"
torch_threads = 2
device = "auto"

[game_options]
num_cards = 6

[ppo]
learning_rate = 0.0003
n_steps = 64
batch_size = 4096
"""
"""The top of a config.toml of ``parlour train``'s default run as written before the
settings moved (snapshots changed from their defaults to show where they go)."""


def test_an_old_config_toml_reads_its_top_level_settings_into_the_tables(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(OLD_TOP_LEVEL)
    config = saved_config(path)
    assert {key: config.ppo[key] for key in MOVED_PPO} == {
        "n_envs": 256, "vec_env": "batched", "opponent_workers": 0, "snapshot_every": 5000, "max_snapshots": 7, "network": "auto",
        "cnn_channels": 32, "cnn_blocks": 2, "cnn_shared": True, "cnn_precision": "float32", "torch_threads": 2}
    assert (config.ppo["n_steps"], config.ppo["batch_size"]) == (64, 4096)
    assert config.rllib["snapshot_every"] == 5000  # every table that declares it: the old file had one value for all
    new = config.to_toml()
    assert not any(line.split(" = ")[0] in MOVED_SETTINGS for line in new.split("\n[")[0].splitlines())  # top level: none
    assert make_config(tomllib.loads(new)) == config == saved_settings(tomllib.loads(new))


def test_an_old_alphazero_config_keeps_its_network_and_threads(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('game = "tribolo"\nalgo = "alphazero"\nbackend = "sb3"\nn_envs = 4\nvec_env = "dummy"\n'
                    'cnn_channels = 16\ncnn_blocks = 3\ntorch_threads = 2\n[alphazero]\nsimulations = 8\n')
    config = saved_config(path)
    assert (config.backend, config.alphazero["cnn_channels"], config.alphazero["cnn_blocks"], config.alphazero["torch_threads"],
            config.alphazero["simulations"]) == ("local", 16, 3, 2, 8)
    assert config.value("cnn_channels") == 16 and config.value("n_envs") is None  # alphazero has no n_envs


def test_a_table_setting_wins_over_its_old_top_level_name():
    config = TrainConfig(n_envs=8, ppo={"n_envs": 2, "n_steps": 16}, game="goofspiel")
    assert config.ppo["n_envs"] == 2
    assert TrainConfig(n_envs=8, game="goofspiel").ppo["n_envs"] == 8
    with pytest.raises(AttributeError, match="a backend's setting now"):
        _ = config.n_envs


def old_format(text: str) -> str:
    """A config.toml of today as it was written before: the settings that moved at the top
    level (the run's backend's values), and no longer in the tables."""
    data = tomllib.loads(text)
    active = data["ppo"]
    top = {key: value for key, value in data.items() if not isinstance(value, dict)}
    top.update({key: active[key] for key in MOVED_SETTINGS if key in active})
    tables = {name: {key: value for key, value in table.items() if key not in MOVED_SETTINGS}
              for name, table in data.items() if isinstance(table, dict)}
    lines = [f"{key} = {json.dumps(value)}" for key, value in top.items()]
    for name, table in tables.items():
        lines += [f"[{name}]", *(f"{key} = {json.dumps(value)}" for key, value in table.items())]
    return "\n".join(lines) + "\n"


def test_an_old_run_resumes_exactly(tmp_path):
    """A run whose config.toml has the old top-level settings resumes as the same run
    uninterrupted (the model's parameters and the evaluations)."""
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    import torch
    from sb3_contrib import MaskablePPO

    from parlour.training.trainer import Trainer

    settings = dict(game="goofspiel", game_options={"num_cards": 5}, opponents=["random", "self"], n_envs=8, snapshot_every=256,
                    eval_every=256, eval_games=10, eval_opponents=["random"], timesteps=768,
                    ppo={"n_steps": 32, "batch_size": 64, "n_epochs": 2, "net_arch": [32]})
    whole = Trainer(TrainConfig(**settings), tmp_path / "whole", progress=False, log=lambda _: None).run()
    Trainer(TrainConfig(**{**settings, "timesteps": 512}), tmp_path / "cut", progress=False, log=lambda _: None).run()
    saved = tmp_path / "cut" / "config.toml"
    saved.write_text(old_format(saved.read_text()))
    assert "\nn_envs = 8\n" in saved.read_text() and "snapshot_every = 256\n" in saved.read_text()
    resumed = Trainer(None, tmp_path / "cut", resume=True, timesteps=768, progress=False, log=lambda _: None).run()
    assert resumed.steps == whole.steps == 768 and resumed.evaluations == whole.evaluations
    a, b = (MaskablePPO.load(run / "last.zip", device="cpu").policy.state_dict() for run in (tmp_path / "whole", tmp_path / "cut"))
    assert a.keys() == b.keys() and all(torch.equal(a[key], b[key]) for key in a)


@pytest.mark.parametrize("name", zoo.entries())
def test_zoo_cards_configs_and_commands_still_read(name):
    card = zoo.card(name)
    config = saved_settings(card.config)
    assert config.algo == card.config["algo"]
    table = config.table
    for key in MOVED_SETTINGS:
        if key in card.config and key in table and key != "cnn_precision":
            assert table[key] == card.config[key], key
    words = shlex.split(card.command)
    assert words[0] == "parlour"
    args = build_parser().parse_args(words[1:])
    given = ntuple_settings_given(args) if words[1] == "train-ntuple" else settings_given(args)
    settings: dict = {}
    sources = given.apply(settings)
    commanded = make_config(settings)
    check_backend_settings(commanded, sources)
    ran = (config.game, config.algo, config.timesteps, config.seed)
    assert (commanded.game, commanded.algo, commanded.timesteps, commanded.seed) == ran
    for key in sources:  # what the command gives is what the card's run ran with (its other defaults may have changed since)
        head, _, sub = key.partition(".")
        if key in MOVED_SETTINGS or head == registry.backend_class(config.algo, config.backend).table_name():
            assert commanded.value(key) == config.value(key), key


@pytest.mark.parametrize(("args", "text"), [
    (["--algo", "alphazero", "--n-envs", "8"], "--n-envs 8: n_envs is a setting of algo 'ppo' on backend local, not of algo 'alphazero'"),
    (["--algo", "alphazero", "--vec-env", "dummy"], "--vec-env dummy: vec_env is a setting of algo 'ppo' on backend local"),
    (["--algo", "ntuple", "--game", "double_card", "--network", "mlp"],
     "--network mlp: network is a setting of algo 'ppo' on backend local and of algo 'alphazero' on backend local/ray and of "
     "algo 'ppo' on backend rllib, not of algo 'ntuple'"),
    (["--algo", "alphazero", "--set", "snapshot_every=10"], "--set snapshot_every=10: snapshot_every is a setting of algo 'ppo'"),
])
def test_a_flag_of_another_backend_is_an_error_naming_flag_and_algo(args, text, tmp_path, capsys):
    assert main(["train", "--game", "sticks", *args, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and text in err, err
    assert not (tmp_path / "x").exists()


def test_the_old_names_still_set_the_run_backends_table():
    config = make_config({"game": "tribolo", "algo": "alphazero", "cnn_channels": 16, "network": "mlp"})
    assert (config.alphazero["cnn_channels"], config.alphazero["network"]) == (16, "mlp")
    assert PPOSettings.defaults()["n_envs"] is None  # resolved for the run, never written as None


def test_an_old_name_given_later_wins_over_a_table_given_earlier(tmp_path):
    """Precedence holds across the names: a flag (``--n-envs``) over a ``--config`` file's
    ``[ppo]``, and ``--set ppo.n_envs`` over the flag."""
    from parlour.training.settings import Given, SettingsGiven

    path = tmp_path / "run.toml"
    path.write_text('game = "goofspiel"\nsnapshot_every = 512\n[ppo]\nn_envs = 8\nn_steps = 16\n')
    for flags, overrides, n_envs in [((), (), 8), ((Given("n_envs", 4, "--n-envs 4"),), (), 4),
                                     ((Given("n_envs", 4, "--n-envs 4"),), (Given("ppo.n_envs", 2, "--set ppo.n_envs=2"),), 2)]:
        settings: dict = {}
        SettingsGiven(str(path), flags, None, overrides).apply(settings)
        config = make_config(settings)
        assert (config.ppo["n_envs"], config.ppo["snapshot_every"], config.ppo["n_steps"]) == (n_envs, 512, 16)


def test_a_resume_refuses_an_old_name_that_changes_the_run(tmp_path):
    from parlour.training.settings import Given, SettingsGiven, resume_changes

    saved = make_config({"game": "goofspiel", "n_envs": 8})
    settings = saved.to_dict()
    given = SettingsGiven(None, (Given("n_envs", 4, "--n-envs 4"), Given("snapshot_every", 10_000, "--snapshot-every 10000")))
    sources = given.apply(settings)
    assert resume_changes(saved, make_config(settings), sources) == ["--n-envs 4 changes n_envs (saved 8, given 4)"]
