"""Training runs: a CI-sized run saves, reloads and plays; kill-and-resume continues
exactly; damaged files are rejected with clear messages; the CLI."""

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import zipfile

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from parlour import toml_read
from parlour.baselines import make_from_spec
from parlour.cli import main
from parlour.errors import DamagedFileError
from parlour.evaluation.arena import play_match
from parlour.games import load_game
from parlour.locks import LOCK_FILE
from parlour.training.backends.ppo.backend import BATCHED_CNN_BATCH, BATCHED_MINIBATCHES, BATCHED_N_STEPS, round_to_rollouts
from parlour.training.config import (
    TrainConfig,
    load_config,
    make_config,
    merge,
    parse_override,
    saved_config,
)
from parlour.training.run_files import RunFiles, read_evaluations
from parlour.training.trainer import Trainer

SMALL = {"n_steps": 64, "batch_size": 64, "n_epochs": 2, "net_arch": [32]}


def small_config(**changes):
    settings = dict(
        game="sticks",
        opponents=["random", "self"],
        timesteps=768,
        n_envs=2,
        eval_every=256,
        eval_games=10,
        snapshot_every=256,
        eval_opponents=["random"],
        ppo=dict(SMALL),
    )
    settings.update(changes)
    return TrainConfig(**settings)


def params(path):
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, device="cpu").policy.state_dict()


def same_params(a, b):
    pa, pb = params(a), params(b)
    return pa.keys() == pb.keys() and all(torch.equal(pa[k], pb[k]) for k in pa)


def test_short_run_saves_reloads_and_plays(tmp_path):
    run = tmp_path / "run"
    result = Trainer(small_config(), run, progress=False, log=lambda _: None).run()
    assert result.steps == 768
    files = RunFiles(run)
    for path in (files.config, files.best, files.last, files.pointer, files.evaluations, files.curve):
        assert path.exists(), path
    assert [row["step"] for row in read_evaluations(files)] == [0, 256, 512, 768]
    assert len(list(files.snapshots.iterdir())) == 4  # step 0 and every 256 steps
    assert sorted(p.name for p in files.checkpoints.iterdir()) == ["step_000000512", "step_000000768"]
    leftovers = [p for p in run.glob(".*") if p.name != LOCK_FILE] + list(files.checkpoints.glob(".*"))
    assert not leftovers  # no temporary files left (the run's lock file is not one)
    game = load_game("sticks")
    agent = make_from_spec(f"ppo:{files.best}", game, seed=1)
    match = play_match(game, [agent, "random"], games=4, progress=False)
    assert len(match.records) == 4
    state = game.new_initial_state()
    assert agent.act(state.info_state(0)) in state.legal_actions(0)


@pytest.mark.parametrize(("vec_env", "opponents"), [("batched", ["random", "self"]), ("dummy", ["random", "self"]),
                                                   ("batched", ["random", "minimax", "self"])])
def test_resume_is_exact(tmp_path, vec_env, opponents):
    """Kill-free resume gives the model of an uninterrupted run: on single games and on
    the batched engine, with snapshots and a search played through the rules module."""
    changes = {"vec_env": vec_env, "opponents": opponents}
    whole = Trainer(small_config(**changes), tmp_path / "whole", progress=False, log=lambda _: None).run()
    Trainer(small_config(timesteps=512, **changes), tmp_path / "cut", progress=False, log=lambda _: None).run()
    resumed = Trainer(None, tmp_path / "cut", resume=True, timesteps=768, progress=False, log=lambda _: None).run()
    assert resumed.steps == whole.steps == 768
    assert same_params(tmp_path / "whole" / "last.zip", tmp_path / "cut" / "last.zip")
    assert resumed.evaluations == whole.evaluations


TRAIN = ["train", "--game", "sticks", "--opponents", "random,self", "--timesteps", "1536", "--n-envs", "2",
         "--eval-every", "256", "--eval-games", "10", "--snapshot-every", "256", "--eval-opponents", "random",
         "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64", "--set", "ppo.n_epochs=2", "--set", "ppo.net_arch=[32]",
         "--final-games", "0", "--quiet"]
"""A CI-sized run through the command line: six segments of 256 steps."""


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The run of ``TRAIN``, never interrupted."""
    run = tmp_path_factory.mktemp("whole") / "run"
    assert main([*TRAIN, "--out", str(run)]) == 0
    return run


def start_training(run, stderr=subprocess.DEVNULL):
    """``parlour TRAIN --out run`` in another process (with Python's own Ctrl-C handling,
    even if this process was started with SIGINT ignored), once its first checkpoint is written."""
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            f"from parlour.cli import main; sys.exit(main({[*TRAIN, '--out', str(run)]!r}))")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=stderr, text=True)
    deadline = time.time() + 120
    while not (run / "checkpoint.json").exists() and time.time() < deadline and process.poll() is None:
        time.sleep(0.05)
    if process.poll() is not None:
        process.communicate()
        pytest.fail("the run finished (or failed) before it could be stopped")
    return process


def test_kill_and_resume_continues_where_it_stopped(tmp_path, whole):
    """A real kill: a training process is SIGKILLed after its first checkpoint; the
    resumed run ends with the same step count, model and evaluation log as one that
    was never interrupted, and TensorBoard keeps one run directory."""
    run = tmp_path / "killed"
    process = start_training(run)
    try:
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    stopped = read_evaluations(RunFiles(run))
    assert 0 < len(stopped) < 7
    assert main(["train", "--out", str(run), "--resume", "--final-games", "0", "--quiet"]) == 0
    assert read_evaluations(RunFiles(run)) == read_evaluations(RunFiles(whole))
    assert [r["step"] for r in read_evaluations(RunFiles(run))] == [256 * k for k in range(7)]
    assert same_params(run / "last.zip", whole / "last.zip")
    assert [p.name for p in (run / "tb").iterdir()] == ["ppo_0"]


def test_ctrl_c_says_how_to_resume(tmp_path, whole):
    """A real Ctrl-C (SIGINT): no traceback, one line with the last checkpoint and the
    command that continues the run, exit status 130; that command ends the run exactly
    as an uninterrupted one."""
    run = tmp_path / "interrupted"
    process = start_training(run, stderr=subprocess.PIPE)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    step = json.loads((run / "checkpoint.json").read_text())["step"]
    resume = f"parlour train --out {shlex.quote(str(run))} --resume"
    assert err.splitlines() == [
        f"parlour train: interrupted; the run in {str(run)!r} is saved at its checkpoint of step {step:,} of 1,536; "
        f"continue it with: {resume}"
    ]
    assert main([*shlex.split(resume)[1:], "--final-games", "0", "--quiet"]) == 0
    assert read_evaluations(RunFiles(run)) == read_evaluations(RunFiles(whole))
    assert same_params(run / "last.zip", whole / "last.zip")


def test_ctrl_c_in_the_final_arena(tmp_path, monkeypatch, capsys):
    import parlour.evaluation.arena

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(parlour.evaluation.arena, "play_match", interrupt)
    run = tmp_path / "run"
    args = ["train", "--game", "sticks", "--option", "num_sticks=9", "--opponents", "random", "--timesteps", "128", "--n-envs", "2",
            "--eval-every", "128", "--eval-games", "2", "--eval-opponents", "random", "--set", "ppo.n_steps=64",
            "--set", "ppo.batch_size=64", "--set", "ppo.net_arch=[8]", "--final-games", "4", "--quiet", "--out", str(run)]
    assert main(args) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "training is complete" in err
    assert f"parlour arena --game sticks --option=num_sticks=9 --agents ppo:{run / 'best.zip'}" in err


def test_resume_from_the_first_checkpoint(tmp_path):
    """A run killed during its first segment resumes from the step-0 checkpoint."""
    whole = Trainer(small_config(timesteps=512), tmp_path / "whole", progress=False, log=lambda _: None).run()
    cut = Trainer(small_config(timesteps=512), tmp_path / "cut", progress=False, log=lambda _: None)
    cut.total = 0  # stop right after the step-0 evaluation and checkpoint
    assert cut.run().steps == 0
    resumed = Trainer(None, tmp_path / "cut", resume=True, progress=False, log=lambda _: None).run()
    assert resumed.steps == 512 and resumed.evaluations == whole.evaluations
    assert same_params(tmp_path / "whole" / "last.zip", tmp_path / "cut" / "last.zip")


SMALL_RUN = ["train", "--game", "sticks", "--opponents", "random", "--timesteps", "512", "--n-envs", "2", "--eval-every", "256",
             "--eval-games", "6", "--eval-opponents", "random", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64",
             "--set", "ppo.net_arch=[16]", "--final-games", "0", "--quiet"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A finished run with checkpoints at steps 256 and 512 (copy it before changing it)."""
    run = tmp_path_factory.mktemp("small") / "run"
    assert main([*SMALL_RUN, "--out", str(run)]) == 0
    return run


def contents(folder):
    """Every file of a run but its lock file (which names the last job that held it)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and p.name != LOCK_FILE}


def truncate(path):
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


@pytest.mark.parametrize(
    ("damage", "damaged", "resumed_at"),
    [
        (lambda run: truncate(run / "checkpoints" / "step_000000512" / "model.zip"),
         "checkpoints/step_000000512/model.zip is corrupt or truncated (SHA-256 mismatch)", 256),
        (lambda run: (run / "checkpoints" / "step_000000512" / "state.pkl").unlink(),
         "checkpoints/step_000000512/state.pkl is missing", 256),
        (lambda run: (run / "checkpoint.json").write_text("{not json"), "checkpoint.json is damaged", 512),
        (lambda run: truncate(run / "checkpoint.json"), "checkpoint.json is damaged", 512),
        (lambda run: (run / "checkpoint.json").unlink(), None, 512),
    ],
    ids=["truncated-model", "missing-state", "corrupt-pointer", "truncated-pointer", "missing-pointer"],
)
def test_resume_passes_over_a_damaged_checkpoint(damage, damaged, resumed_at, small_run, tmp_path, capsys):
    """A damaged latest checkpoint (or checkpoint.json): the resume says which file and
    continues from the newest intact checkpoint, ending where the undamaged run ended."""
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    damage(run)
    assert main(["train", "--out", str(run), "--resume", "--final-games", "0", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert f"resuming {run} at step {resumed_at}" in captured.out
    if damaged is not None:
        assert captured.err.count("\n") == 1 and f"{run}/{damaged}" in captured.err
        assert f"resuming from {run}/checkpoints/step_{resumed_at:09d}, the newest intact checkpoint" in captured.err
    assert read_evaluations(RunFiles(run)) == read_evaluations(RunFiles(small_run))
    assert same_params(run / "last.zip", small_run / "last.zip")
    assert main(["train", "--out", str(run), "--resume", "--final-games", "0", "--quiet"]) == 0
    assert capsys.readouterr().err == ""  # repaired: checkpoint.json names an intact checkpoint


def test_resume_refuses_when_no_checkpoint_is_intact(small_run, tmp_path, capsys):
    """Nothing intact: one line naming the damaged files and the command that starts
    over; nothing in the run directory is changed."""
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    truncate(run / "checkpoints" / "step_000000512" / "model.zip")
    (run / "checkpoints" / "step_000000256" / "state.pkl").write_bytes(b"junk")
    before = contents(run)
    assert main(["train", "--out", str(run), "--resume", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert err.startswith(f"parlour train: error: run {str(run)!r} cannot be resumed, no checkpoint is intact: ")
    assert f"{run}/checkpoints/step_000000512/model.zip is corrupt or truncated" in err
    assert f"{run}/checkpoints/step_000000256/state.pkl is corrupt or truncated" in err
    assert f"parlour train --config {run}/config.toml --out {run}-new" in err and "--force" in err
    assert contents(run) == before
    (run / "config.toml").write_text("timesteps = ")  # the settings themselves damaged
    assert main(["train", "--out", str(run), "--resume", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "config.toml' is not valid TOML" in err and "Traceback" not in err


def test_resume_of_a_run_stopped_before_its_first_checkpoint(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.toml").write_text(small_config().to_toml())
    assert main(["train", "--out", str(run), "--resume", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "no checkpoint to resume from" in err and f"--config {run}/config.toml" in err


def test_resume_accepts_unchanged_settings_and_names_changed_ones(small_run, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    same = ["--eval-every", "256", "--seed", "0", "--opponents", "random", "--n-envs", "2", "--option", "num_sticks=10",
            "--set", "ppo.n_steps=64", "--set", "ppo.learning_rate=0.0003", "--game", "sticks"]
    assert main(["train", "--out", str(run), "--resume", *same, "--final-games", "0", "--quiet"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    before = contents(run)
    changed = ["--eval-every", "5000", "--option", "max_take=2", "--set", "ppo.n_steps=32", "--seed", "0"]
    assert main(["train", "--out", str(run), "--resume", *changed, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert "only --timesteps (and --address, --device) may change" in err
    assert "--eval-every 5000 changes eval_every (saved 256, given 5000)" in err
    assert "--option max_take=2 changes game_options.max_take (saved 3, given 2)" in err
    assert "--set ppo.n_steps=32 changes ppo.n_steps (saved 64, given 32)" in err
    assert "seed" not in err
    assert contents(run) == before


def test_resume_extends_a_run_and_remembers_it(small_run, tmp_path):
    """``--resume --timesteps N`` extends the run and saves N, so that a plain
    ``--resume`` after an interruption continues to N as well; snapshot paths are
    found from any working directory."""
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    assert main(["train", "--out", str(run), "--resume", "--timesteps", "768", "--final-games", "0", "--quiet"]) == 0
    assert load_config(run / "config.toml")["timesteps"] == 768
    assert [r["step"] for r in read_evaluations(RunFiles(run))] == [0, 256, 512, 768]


def test_refuses_to_overwrite_a_run(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="--force"):
        Trainer(small_config(), run, progress=False)
    assert (run / "notes.txt").read_text() == "mine"
    with pytest.raises(ValueError, match="no config.toml"):
        Trainer(None, run, resume=True, progress=False)


def test_model_file_errors(tmp_path):
    run = tmp_path / "run"
    Trainer(small_config(timesteps=256, opponents=["random"]), run, progress=False, log=lambda _: None).run()
    sticks = load_game("sticks")
    with pytest.raises(ValueError, match="does not exist"):
        make_from_spec(f"ppo:{tmp_path / 'missing.zip'}", sticks)
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes((run / "best.zip").read_bytes()[:2000])
    with pytest.raises(DamagedFileError, match="corrupt or truncated"):
        make_from_spec(f"ppo:{truncated}", sticks)
    with pytest.raises(ValueError, match="trained for 'sticks', not 'goofspiel'"):
        make_from_spec(f"ppo:{run / 'best.zip'}", load_game("goofspiel"))
    with pytest.raises(ValueError, match="observations and actions differ"):
        make_from_spec(f"ppo:{run / 'best.zip'}", load_game("sticks", num_sticks=30, max_take=5))
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as archive:
        archive.writestr("data", "{}")
    with pytest.raises(DamagedFileError, match="not written by parlour"):
        make_from_spec(f"ppo:{foreign}", sticks)
    with pytest.raises(ValueError, match="needs a model file"):
        make_from_spec("ppo", sticks)


def test_ppo_player_is_deterministic_and_pickles(tmp_path):
    import pickle

    run = tmp_path / "run"
    Trainer(small_config(timesteps=256, opponents=["random"]), run, progress=False, log=lambda _: None).run()
    game = load_game("sticks")
    agent = make_from_spec(f"ppo:{run / 'best.zip'},deterministic=false", game, seed=3)
    clone = pickle.loads(pickle.dumps(agent))
    state = game.new_initial_state()
    moves = [agent.act(state.info_state(0)) for _ in range(20)]
    clone.reset(3)
    assert [clone.act(state.info_state(0)) for _ in range(20)] == moves
    a = play_match(game, [f"ppo:{run / 'best.zip'}", "random"], games=8, seed=2, progress=False, workers=1)
    b = play_match(game, [f"ppo:{run / 'best.zip'}", "random"], games=8, seed=2, progress=False, workers=2)
    assert a.records == b.records


def test_trained_agent_plays_in_the_terminal_and_the_arena_cli(tmp_path, capsys):
    import io

    from parlour.terminal import play

    run = tmp_path / "run"
    Trainer(small_config(timesteps=256, opponents=["random"]), run, progress=False, log=lambda _: None).run()
    out = io.StringIO()
    game = load_game("sticks")
    assert play(game, f"ppo:{run / 'best.zip'}", seat=0, seed=1, stdin=io.StringIO("1\n" * 10), stdout=out) == 0
    assert f"player_1 (ppo:{run / 'best.zip'}) plays" in out.getvalue() and "result:" in out.getvalue()
    assert main(["arena", "--game", "sticks", "--agents", f"ppo:{run / 'best.zip'}", "random", "--games", "4", "--quiet"]) == 0
    assert "ppo:" in capsys.readouterr().out
    assert main(["arena", "--game", "goofspiel", "--agents", f"ppo:{run / 'best.zip'}", "random", "--games", "4"]) == 2
    assert "trained for 'sticks', not 'goofspiel'" in capsys.readouterr().err


def test_config_file_flags_and_overrides(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('game = "goofspiel"\ntimesteps = 5000\n[game_options]\nnum_cards = 4\n[ppo]\nent_coef = 0.05\n')
    settings = load_config(path)
    merge(settings, *parse_override("ppo.learning_rate=1e-4"))
    merge(settings, *parse_override("n_envs=2"))
    config = make_config(settings)
    assert (config.game, config.game_options, config.timesteps, config.ppo["n_envs"]) == ("goofspiel", {"num_cards": 4}, 5000, 2)
    assert config.ppo["vec_env"] == "batched"  # auto: Goofspiel has a batched engine
    assert config.ppo["ent_coef"] == 0.05 and config.ppo["learning_rate"] == 1e-4 and config.ppo["n_steps"] == BATCHED_N_STEPS
    assert config.ppo["batch_size"] == BATCHED_N_STEPS * 2 // BATCHED_MINIBATCHES
    again = tmp_path / "again.toml"
    again.write_text(config.to_toml())
    assert make_config(load_config(again)) == config
    assert round_to_rollouts(config.ppo, 1) == 2 * BATCHED_N_STEPS


def test_a_run_saved_before_a_setting_existed_keeps_what_it_ran_with(tmp_path, bfloat16_cpu):
    """A batched Tribolo run's config.toml from before ``cnn_precision``: resumed, it says
    float32 (what its model computes in), not today's auto (bfloat16)."""
    config = make_config({"game": "tribolo", "opponents": ["random"]})
    assert config.ppo["cnn_precision"] == "bfloat16"
    old = tmp_path / "config.toml"
    old.write_text("".join(line for line in config.to_toml().splitlines(keepends=True) if not line.startswith("cnn_precision")))
    assert make_config(load_config(old)).ppo["cnn_precision"] == "bfloat16"
    assert saved_config(old).ppo["cnn_precision"] == "float32"
    new = tmp_path / "new.toml"
    new.write_text(config.to_toml())
    assert saved_config(new) == config


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"timesteps": 0}, "timesteps must be a positive integer"),
        ({"vec_env": "ray"}, "ppo.vec_env must be one of"),
        ({"ppo": {"lr": 1}}, "unknown ppo setting"),
        ({"ppo": {"n_steps": "many"}}, "ppo.n_steps must be a int"),
        ({"ppo": {"batch_size": 10**6}}, "larger than a rollout"),
        ({"ppo": {"net_arch": [0]}}, "layer sizes"),
        ({"network": "transformer"}, r"network must be one of \['auto', 'mlp', 'cnn'\], got 'transformer'"),
        ({"cnn_channels": 0}, "ppo.cnn_channels must be at least 1, got 0"),
        ({"cnn_blocks": -1}, "ppo.cnn_blocks must be at least 0, got -1"),
        ({"cnn_shared": "no"}, "ppo.cnn_shared must be true or false, got 'no'"),
        ({"cnn_precision": "float16"}, r"ppo.cnn_precision must be one of \['auto', 'float32', 'bfloat16'\], got 'float16'"),
        ({"cnn_precision": "bfloat16"}, "ppo.cnn_precision 'bfloat16' is for the board policy"),
        ({"game": "tribolo", "network": "mlp", "cnn_precision": "bfloat16"}, "ppo.cnn_precision 'bfloat16' is for the board policy"),
        ({"ppo": {"n_envs": 0}}, "ppo.n_envs must be at least 1, got 0"),
        ({"colour": "blue"}, "bad training settings"),
    ],
)
def test_bad_settings(settings, message):
    with pytest.raises(ValueError, match=message):
        make_config(settings)


def test_bad_config_file(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("game = ")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_config(path)
    path.write_text("gmae = 'sticks'")
    with pytest.raises(ValueError, match="unknown setting"):
        load_config(path)
    with pytest.raises(ValueError, match="unknown setting"):
        merge({}, "ppo_lr", 1)


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["--opponents", "nobody"], "unknown policy 'nobody'"),
        (["--opponents", "random,random", "--weights", "1"], "1 opponent weights [1.0] for 2 opponents"),
        (["--eval-opponents", "ppo"], "needs a model file"),
        (["--eval-opponents", "ppo:{tmp}/missing.zip"], "does not exist"),
        (["--set", "ppo.batch_size=1000000"], "larger than a rollout"),
        (["--network", "cnn"], "network 'cnn' needs board planes"),
    ],
)
def test_cli_train_errors(args, text, tmp_path, capsys):
    """Errors found by the trainer (with the train extra): one line, status 2, nothing written."""
    args = [arg.format(tmp=tmp_path) for arg in args]
    assert main(["train", "--game", "sticks", *args, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("parlour train: error: ") and text in err
    assert not (tmp_path / "x").exists()


def test_cli_model_file_errors(small_run, tmp_path, capsys):
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes((small_run / "best.zip").read_bytes()[:2000])
    for spec, text, code in [(f"ppo:{truncated}", "corrupt or truncated", 1), (f"ppo:{tmp_path}/missing.zip", "does not exist", 2)]:
        assert main(["arena", "--game", "sticks", "--agents", spec, "random", "--quiet"]) == code  # damaged: a failure; missing: usage
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and text in err, err


def test_cli_train_prints_the_arena_table(tmp_path, capsys):
    run = tmp_path / "cli"
    args = ["train", "--game", "sticks", "--opponents", "random", "--timesteps", "256", "--n-envs", "2",
            "--eval-every", "256", "--eval-games", "6", "--set", "ppo.n_steps=128", "--set", "ppo.batch_size=64",
            "--final-games", "4", "--quiet", "--out", str(run)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "trained 256 steps" in out and f"ppo:{run / 'best.zip'}" in out and "optimal" in out
    assert (run / "arena.md").exists()
    assert main(args) == 2  # the run exists now
    assert "already exists" in capsys.readouterr().err


def test_learns_to_beat_random_at_sticks(tmp_path):
    """After 30k steps against random and itself, the agent beats random at sticks
    (10 sticks, take 1-3, misere) clearly more often than the 50% of chance."""
    config = TrainConfig(game="sticks", opponents=["random", "self"], timesteps=30_000, n_envs=4, eval_every=15_000,
                         eval_games=50, eval_opponents=["random"], seed=0)
    Trainer(config, tmp_path / "learn", progress=False, log=lambda _: None).run()
    game = load_game("sticks")
    match = play_match(game, [f"ppo:{tmp_path / 'learn' / 'best.zip'}", "random"], games=400, seed=99, progress=False)
    wins = sum(1 for r in match.records if r.returns[r.agents.index(0)] > 0)
    assert wins / len(match.records) > 0.7, wins
    assert np.isfinite(wins)


def test_batched_envs_train_and_resume_exactly(tmp_path):
    """``vec_env = "batched"``: one numpy engine for all envs; the run is deterministic and
    resumes exactly, like the per-game envs."""
    batched = dict(game="goofspiel", game_options={"num_cards": 5}, opponents=["random"], n_envs=8, vec_env="batched",
                   ppo=dict(SMALL, n_steps=32), timesteps=768)
    whole = Trainer(small_config(**batched), tmp_path / "whole", progress=False, log=lambda _: None).run()
    Trainer(small_config(**{**batched, "timesteps": 512}), tmp_path / "cut", progress=False, log=lambda _: None).run()
    resumed = Trainer(None, tmp_path / "cut", resume=True, timesteps=768, progress=False, log=lambda _: None).run()
    assert resumed.steps == whole.steps == 768
    assert same_params(tmp_path / "whole" / "last.zip", tmp_path / "cut" / "last.zip")
    assert resumed.evaluations == whole.evaluations
    assert not same_params(tmp_path / "whole" / "last.zip", tmp_path / "whole" / "checkpoints" / "step_000000512" / "model.zip")


@pytest.mark.parametrize(("changes", "message"), [
    ({"backend": "rllib", "opponents": ["random", "self"]},
     r"rllib\.vec_env 'batched' holds one learning seat per game: opponent 'self' \(a live learning seat"),
    ({"algo": "alphazero"},
     r"vec_env 'batched' is for a backend that trains on the batched engine \(ppo/local, ppo/rllib\), "
     r"got algo 'alphazero' on backend 'local'"),
    ({"game": "openspiel:tic_tac_toe"}, r"vec_env 'batched' needs a game with a batched engine \(\['double_card', "),
    ({"opponent_workers": -1}, "ppo.opponent_workers must be at least 0, got -1"),
])
def test_batched_envs_refuse_what_they_cannot_run(changes, message):
    with pytest.raises(ValueError, match=message):
        small_config(vec_env="batched", **{"opponents": ["random"], **changes})


@pytest.mark.parametrize(("changes", "vec_env", "n_envs", "n_steps"), [
    ({}, "batched", 256, BATCHED_N_STEPS),
    ({"algo": "alphazero"}, "dummy", 4, 256),
    ({"game": "openspiel:tic_tac_toe"}, "dummy", 4, 256),
    ({"vec_env": "dummy"}, "dummy", 4, 256),
    ({"vec_env": "subproc", "n_envs": 3}, "subproc", 3, 256),
    ({"n_envs": 64, "ppo": {"n_steps": 8}}, "batched", 64, 8),
    ({"game": "tribolo"}, "batched", 256, BATCHED_N_STEPS),
    ({"game": "double_card", "network": "mlp"}, "batched", 256, BATCHED_N_STEPS),
])
def test_auto_chooses_the_batched_engine_where_it_can(changes, vec_env, n_envs, n_steps, bfloat16_cpu):
    """``vec_env = "auto"`` (the default) resolves when the configuration is made: the
    batched engine for PPO on a game that has one (any opponents), else SB3's DummyVecEnv;
    ``n_envs`` and the PPO rollout follow unless given."""
    settings = {"game": "sticks", "opponents": ["random", "minimax", "self"], **changes}
    config = make_config(settings)
    ppo = config.ppo
    assert (ppo["vec_env"], ppo["n_envs"], ppo["n_steps"]) == (vec_env, n_envs, n_steps)
    board = config.game == "tribolo"  # the board network (auto); Double Card's is the MLP here
    if vec_env == "batched":
        assert ppo["batch_size"] == (BATCHED_CNN_BATCH if board else n_envs * n_steps // BATCHED_MINIBATCHES)
        assert ppo["torch_threads"] == 2
    else:
        assert ppo["torch_threads"] == 1
    assert ppo["cnn_precision"] == ("bfloat16" if board and vec_env == "batched" else "float32")
    assert make_config(toml_read.loads(config.to_toml())) == config  # config.toml names what the run ran on


def test_auto_precision_is_float32_where_the_cpu_only_emulates_bfloat16(monkeypatch):
    """Without bfloat16 instructions torch emulates the autocast, several times slower than
    float32: ``auto`` then resolves to float32 even for the batched board network, and an
    explicit bfloat16 is still honoured."""
    monkeypatch.setattr("parlour.training.backends.ppo.backend.native_bfloat16", lambda: False)
    settings = {"game": "tribolo", "opponents": ["random"]}
    assert make_config(settings).ppo["cnn_precision"] == "float32"
    assert make_config({**settings, "ppo": {"cnn_precision": "bfloat16"}}).ppo["cnn_precision"] == "bfloat16"
    monkeypatch.setattr("parlour.training.backends.ppo.backend.native_bfloat16", lambda: True)
    assert make_config(settings).ppo["cnn_precision"] == "bfloat16"


def test_a_run_saved_with_the_old_backend_name_sb3_resumes(small_run, tmp_path):
    """The local backend was called ``sb3``: a run whose config.toml says so loads as
    ``local`` and resumes (and an extended run saves the new name)."""
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    text = (run / "config.toml").read_text()
    (run / "config.toml").write_text(text.replace('backend = "local"', 'backend = "sb3"'))
    assert saved_config(run / "config.toml").backend == "local"
    assert main(["train", "--out", str(run), "--resume", "--timesteps", "768", "--final-games", "0", "--quiet"]) == 0
    assert [r["step"] for r in read_evaluations(RunFiles(run))] == [0, 256, 512, 768]
    assert load_config(run / "config.toml")["backend"] == "local"
