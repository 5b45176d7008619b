"""The ``parlour`` command line."""

import os
import subprocess
import sys

import pytest

import parlour
import parlour.cli
import parlour.cli.games
from parlour.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"parlour {parlour.__version__}"


def test_list_shows_games_and_options(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for text in ["goofspiel: parlour/goofspiel-v0", "sticks: parlour/sticks-v0", "tie_rule='carry'", "max_take=3", "reset option 'prizes'",
                 "openspiel:NAME: parlour/openspiel-v0"]:
        assert text in out


def test_demo_plays_every_game(capsys):
    assert main(["demo", "--games", "5", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "goofspiel" in out and "sticks" in out
    assert main(["demo", "--games", "5", "--seed", "3"]) == 0
    again = capsys.readouterr().out
    strip = lambda text: [line.rsplit(maxsplit=1)[0] for line in text.splitlines()[3:] if line]  # noqa: E731
    assert strip(out) == strip(again)  # same seed, same games (games/s aside)


def outcome(capsys, argv):
    """Exit status, stdout and stderr of ``parlour ARGV`` run in this process."""
    try:
        code = main(argv)
    except SystemExit as exit:  # argparse
        code = exit.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def error_line(err):
    """The one error line of ``err``, after argparse's usage lines if any (argparse
    prints ``usage: ...``, wrapped onto indented lines, before its one error line)."""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    if lines[0].startswith("usage: "):
        assert all(line.startswith(" ") for line in lines[1:-1]), err
    else:
        assert len(lines) == 1, err
    assert lines[-1].startswith("parlour") and ": error: " in lines[-1], err
    return lines[-1]


ERRORS = [  # (arguments, exit status, text of the error line); {file}: a regular file, {dir}: an empty directory
    (["frobnicate"], 2, "invalid choice: 'frobnicate'"),
    (["--colour"], 2, "unrecognized arguments: --colour"),
    (["list", "extra"], 2, "unrecognized arguments: extra"),
    (["demo", "--games", "0"], 2, "--games must be at least 1, got 0"),
    (["demo", "--games", "many"], 2, "invalid int value: 'many'"),
    (["demo", "--seed", "-1"], 2, "--seed must be a non-negative integer, got -1"),
    (["policies", "--game", "chess"], 2, "invalid choice: 'chess'"),
    (["policies", "--option", "num_cards=6"], 2, "--option needs --game"),
    (["policies", "--game", "sticks", "--option", "max_take"], 2, "'max_take' is not key=value"),
    (["policies", "--game", "sticks", "--option", "colour=3"], 2, "unknown option(s) ['colour']"),
    (["policies", "--game", "goofspiel", "--option", "prize_order=1,x"], 2, "a list must hold numbers"),
    (["arena", "--option", "num_cards=6"], 2, "--option needs --game"),
    (["arena", "--game", "sticks"], 2, "give both --game and --agents"),
    (["arena", "--game", "sticks", "--agents", "random"], 2, "--agents needs at least 2 agents, got 1"),
    (["arena", "--game", "goofspiel", "--option", "num_players=3", "--agents", "random", "random:"], 2, "3 seats"),
    (["arena", "--game", "sticks", "--agents", "random", "nosuch:depth=2"], 2,
     "unknown policy 'nosuch'; policies that can play sticks: alphabeta,"),
    (["arena", "--game", "sticks", "--agents", "random", "alphabeta:depht=3"], 2, "unknown parameter(s) ['depht']"),
    (["arena", "--game", "sticks", "--agents", "random", "minimax:depth=x"], 2, "minimax takes these parameters: depth=None"),
    (["arena", "--game", "goofspiel", "--agents", "random", "minimax"], 2, "cannot play goofspiel"),
    (["arena", "--game", "sticks", "--agents", "random", "random:", "--games", "0"], 2, "--games must be at least 1"),
    (["arena", "--game", "sticks", "--agents", "random", "random:", "--workers", "0"], 2, "--workers must be at least 1"),
    (["arena", "--game", "sticks", "--agents", "random", "random:", "--seed", "-1"], 2, "--seed must be a non-negative integer"),
    (["arena", "--game", "sticks", "--agents", "random", "random:", "--out", "{file}"], 2, "is a file, not a"),
    (["arena", "--game", "sticks", "--agents", "random", "random:", "--out", "{file}/results"], 2, "is a file, not a directory"),
    (["play"], 2, "the following arguments are required: GAME"),
    (["play", "chess"], 2, "invalid choice: 'chess'"),
    (["play", "sticks", "--opponent", "nosuch"], 2, "unknown policy 'nosuch'"),
    (["play", "goofspiel", "--opponent", "alphabeta"], 2, "cannot play goofspiel"),
    (["play", "sticks", "--seat", "2"], 2, "--seat must be 0..1 for sticks, got 2"),
    (["play", "sticks", "--seed", "-1"], 2, "--seed must be an integer from 0 to 2**63 - 1, got -1"),
    (["play", "sticks", "--seed", str(2**63)], 2, "--seed must be an integer from 0 to 2**63 - 1"),
    (["play", "sticks", "--option", "num_sticks=0"], 2, "num_sticks must be between 1 and 1000, got 0"),
    (["train", "--resume"], 2, "--resume needs --out"),
    (["train", "--resume", "--out", "{dir}/nothing"], 2, "there is no run directory"),
    (["train", "--resume", "--out", "{dir}"], 2, "is not a training run (no config.toml)"),
    (["train", "--resume", "--force", "--out", "{dir}"], 2, "--force replaces it"),
    (["train", "--workers", "0"], 2, "--workers must be at least 1"),
    (["train", "--final-games", "-1"], 2, "--final-games must be 0 or more"),
    (["train", "--vec-env", "ray"], 2, "invalid choice: 'ray'"),
    (["train", "--timesteps", "lots"], 2, "invalid int value: 'lots'"),
    (["train", "--game", "sticks", "--n-envs", "0"], 2, "ppo.n_envs must be at least 1, got 0"),
    (["train", "--game", "sticks", "--weights", "1,x"], 2, "--weights '1,x': give numbers"),
    (["train", "--game", "sticks", "--set", "nonsense"], 2, "'nonsense' is not key=value"),
    (["train", "--game", "sticks", "--set", "colour=blue"], 2, "unknown setting 'colour'"),
    (["train", "--game", "sticks", "--set", "ppo.gamma=high"], 2, "ppo.gamma must be a float"),
    (["train", "--game", "sticks", "--config", "{dir}/missing.toml"], 2, "does not exist"),
    (["train", "--game", "sticks", "--config", "{file}"], 2, "is not valid TOML"),
    (["train", "--game", "sticks", "--option", "max_take=x"], 2, "max_take must be an integer"),
    (["train", "--game", "sticks", "--out", "{file}/run"], 2, "is a file, not a directory"),
]


@pytest.mark.parametrize(("argv", "code", "text"), ERRORS, ids=[" ".join(argv) for argv, _, _ in ERRORS])
def test_every_error_is_one_line_without_a_traceback(argv, code, text, tmp_path, capsys):
    (tmp_path / "file").write_text("game = \n")  # a regular file (and not valid TOML)
    argv = [arg.format(file=tmp_path / "file", dir=tmp_path) for arg in argv]
    status, _, err = outcome(capsys, argv)
    assert status == code
    assert text in error_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # nothing written


def test_existing_results_are_a_usage_error(tmp_path, capsys):
    args = ["arena", "--game", "sticks", "--agents", "random", "random:", "--games", "2", "--quiet", "--no-plot", "--out", str(tmp_path)]
    assert outcome(capsys, args)[0] == 0
    code, _, err = outcome(capsys, args)
    assert code == 2 and "already exist" in error_line(err) and "--force" in err


def test_failures_are_one_line_with_status_1(monkeypatch, tmp_path, capsys):
    import parlour.evaluation.match_games
    import parlour.evaluation.report

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    arena = ["arena", "--game", "sticks", "--agents", "random", "random:", "--games", "2", "--quiet", "--no-plot"]
    with monkeypatch.context() as patch:
        patch.setattr(parlour.evaluation.match_games, "play_game", boom)  # a game fails in the arena
        code, _, err = outcome(capsys, arena)
    assert code == 1 and "game 0 (seat 0: random, seat 1: random:) failed: RuntimeError: boom" in error_line(err)

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(parlour.evaluation.report, "write_report", full)
        code, _, err = outcome(capsys, [*arena, "--out", str(tmp_path / "out")])
    assert code == 1 and "No space left on device" in error_line(err)

    with monkeypatch.context() as patch:  # the train extra missing
        patch.setitem(sys.modules, "sb3_contrib", None)
        code, _, err = outcome(capsys, ["train", "--game", "sticks", "--out", str(tmp_path / "run")])
        assert code == 1 and "pip install 'parlour[train]'" in error_line(err)
        code, _, err = outcome(capsys, ["arena", "--game", "sticks", "--agents", "random", f"ppo:{tmp_path / 'best.zip'}"])
        assert code == 1 and "pip install 'parlour[train]'" in error_line(err)
    assert not (tmp_path / "run").exists()

    with monkeypatch.context() as patch:  # a bug: named by its type, and how to see more
        patch.setattr(parlour.cli.games, "run_list", boom)
        code, _, err = outcome(capsys, ["list"])
    assert code == 1 and "RuntimeError: boom" in error_line(err) and "PARLOUR_DEBUG=1" in err


def test_ctrl_c_is_one_line_with_status_130(monkeypatch, capsys):
    def interrupt(_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(parlour.cli.games, "run_demo", interrupt)
    code, _, err = outcome(capsys, ["demo"])
    assert code == 130 and err == "parlour demo: interrupted\n"


@pytest.mark.parametrize("how", ["PARLOUR_DEBUG=1", "--debug", "demo --debug"])
def test_debug_shows_the_traceback(how, monkeypatch, capsys):
    argv = ["demo", "--seed", "-1"]
    if how.startswith("PARLOUR_DEBUG"):
        monkeypatch.setenv("PARLOUR_DEBUG", "1")
    elif how == "--debug":
        argv = ["--debug", *argv]
    else:
        argv = [*argv, "--debug"]
    code, _, err = outcome(capsys, argv)
    assert code == 2
    assert err.startswith("Traceback (most recent call last):") and "UsageError" in err
    assert err.splitlines()[-1] == "parlour demo: error: --seed must be a non-negative integer, got -1"
    monkeypatch.setenv("PARLOUR_DEBUG", "0")
    code, _, err = outcome(capsys, ["demo", "--seed", "-1"])
    assert code == 2 and "Traceback" not in err


def test_errors_in_a_real_process():
    command = [sys.executable, "-m", "parlour.cli", "play", "sticks", "--seat", "2"]
    plain = subprocess.run(command, capture_output=True, text=True, check=False, env={**os.environ, "PARLOUR_DEBUG": ""})
    assert plain.returncode == 2
    assert plain.stderr == "parlour play: error: --seat must be 0..1 for sticks, got 2\n"
    debug = subprocess.run(command, capture_output=True, text=True, check=False, env={**os.environ, "PARLOUR_DEBUG": "1"})
    assert debug.returncode == 2
    assert "Traceback (most recent call last):" in debug.stderr and debug.stderr.endswith(plain.stderr)


def test_console_script_entry_point():
    result = subprocess.run([sys.executable, "-m", "parlour.cli", "--version"], capture_output=True, text=True, check=True)
    assert parlour.__version__ in result.stdout


def test_sigterm_reads_as_terminated_with_status_143():
    from parlour.cli import Interrupted, Terminated
    from parlour.cli import error_line as cli_error_line

    assert cli_error_line(Terminated()) == (143, "terminated")
    try:
        try:
            raise Terminated()
        except KeyboardInterrupt as interrupt:
            raise Interrupted("at step 512; to continue: parlour train --resume") from interrupt
    except Interrupted as error:
        assert cli_error_line(error) == (143, "terminated; at step 512; to continue: parlour train --resume")
    assert cli_error_line(KeyboardInterrupt()) == (130, "interrupted")
