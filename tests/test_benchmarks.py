"""Every benchmark script (``benchmarks/``) and every maintainer's script (``scripts/``)
runs to its end in its smoke mode and prints its result lines: the code that makes the
figures of benchmarks/RESULTS.md and the generated pages does not rot unseen.

Each runs in this process (``main(argv)``, the imports shared), in ``--quick`` mode for
a benchmark (tiny sizes, one run) and in its ``--check`` or smallest real mode for a
script; one that needs an optional package (open_spiel, ray, torch, a browser) is
skipped without it.  Benchmarks are not tests: no figure is checked, only that the
lines that carry the figures are printed.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ("torch", "sb3_contrib")

BENCHMARKS: dict[str, tuple[list[str], tuple[str, ...], str]] = {
    # name: (arguments, optional packages it needs, a line it must print)
    "az_heldout": (["--quick"], ("torch",), r"^\| 8 \| .* \|$"),
    "az_inference": (["--quick"], ("torch",), r"a move at 4 simulations: torch .* ms, numpy .* ms"),
    "batched": (["--quick"], (), r"^\| double_card DoubleCardBatch B=1024 \| [\d,]+ \|"),
    "board_precision": (["--quick"], TRAIN, r"^\| 32x2 \| bfloat16 \| [\d.]+ \| [\d.]+x \|"),
    "double_card": (["speed", "--quick"], (), r"^\| clone \+ apply/s \| [\d,]+ \|$"),
    "equilibrium": (["--quick"], (), r"^\| 3 \| random \| [\d.]+ ms \|"),
    "openspiel_search": (["--quick"], ("pyspiel",), r"^\| leduc_poker \| parlour ismcts \|"),
    "pretrain_lockstep": (["--quick"], ("torch",), r"^\| tides_of_time az, 4 simulations \| lockstep, 2 at once .* \| [\d.]+x \|$"),
    "rllib": (["--quick"], ("ray", *TRAIN), r"^\| sticks \| [\d,]+ \("),
    "rules_speed": (["--quick"], (), r"^\| sticks-10 AEC env\(\) \| [\d,]+ \|"),
    "search": (["--quick"], (), r"^\| goofspiel-13 \| 100 \|"),
    "self_play": (["--quick"], ("torch",), r"^\| tides_of_time \| mlp \| 4 \|"),
    "selfplay_training": (["--quick"], TRAIN, r"^\| sticks \| [\d,]+ \| [\d,]+ \|"),
    "single_agent_step": (["--quick"], (), r"^tribolo [\d,]+ steps/s$"),
    "teacher_labels": (["--quick"], (), r"^\| n-tuple depth 1 \| soft, temperature=0.25 \(full root window\) \| [\d,]+ \| [\d.]+ \|"),
    "tides_of_time": (["--quick"], (), r"^\| tides-equilibrium, 16 sampled hands \| [\d.]+ \|"),
    "torchrl_collect": (["--quick"], ("torch", "torchrl"), r"^\| tides_of_time \| native torchrl_env B=8 \| 5 \| [\d,]+ \|"),
    "training": (["--quick"], TRAIN, r"^\| sticks \| [\d,]+ \| [\d,]+ \|$"),
    "tribolo": (["--quick"], (), r"^\| paranoid depth 2 \| opening \|"),
    "tribolo_ab": (["--quick"], (), r"^- AEC env\(\): [\d.]+x median wall"),
    "vector_training": (["--quick"], TRAIN, r"^\| goofspiel \| [\d,]+ \| [\d,]+ \|"),
    "web_load": (["soak", "--quick"], ("httpx", "uvicorn"), r"^ +200 games: server RSS \d+ MB$"),
}
"""What ``python -m benchmarks.NAME`` runs here; the driver and the random-game loops are
the scripts' shared modules, not scripts."""
SHARED = {"__init__", "driver", "random_play"}

SCRIPTS: dict[str, tuple[list[str], tuple[str, ...], str]] = {
    "make_baselines_doc": (["--check"], (), r"baselines\.md is up to date"),
    "make_leaderboard": (["--check"], (), r"benchmark\.md is up to date"),
    "make_results": (["--check"], (), r"results\.md is up to date"),
    "make_tides_openings": (["--check", "2"], (), r"^2 hands re-solved: the book agrees$"),
    "make_web_screenshots": (["--games", "sticks", "--out", "{tmp}"], ("playwright", "uvicorn"), r"sticks\.png$"),
    "zoo_add": (["{tmp}/run", "--command", "parlour train --game sticks --algo alphazero", "--play", "simulations=8",
                 "--models", "{tmp}/zoo"], ("torch",), r"^wrote .*sticks\.json$"),
}


def test_every_script_is_run_here():
    assert {path.stem for path in (ROOT / "benchmarks").glob("*.py")} - SHARED == set(BENCHMARKS)
    assert {path.stem for path in (ROOT / "scripts").glob("*.py")} - {"__init__"} == set(SCRIPTS)


def run(module: str, argv: list[str], needs: tuple[str, ...], line: str, capsys: pytest.CaptureFixture[str]) -> None:
    for package in needs:
        pytest.importorskip(package, reason=f"{module} needs {package}")
    code = importlib.import_module(module).main(argv)
    out = capsys.readouterr().out
    assert code in (None, 0), out
    assert re.search(line, out, re.M), f"{module} {' '.join(argv)} did not print a line like {line!r}:\n{out}"


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_benchmark_runs_in_quick_mode(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv, needs, line = BENCHMARKS[name]
    if name == "tribolo_ab" and subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("tribolo_ab compares with a git revision: not a git checkout")
    run(f"benchmarks.{name}", argv, needs, line, capsys)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_script_runs_in_check_mode(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, needs, line = SCRIPTS[name]
    if name == "make_web_screenshots" and shutil.which("chromium") is None:
        pytest.skip("the screenshots need Debian's chromium")
    if name == "zoo_add":
        pytest.importorskip("torch")
        from parlour.baselines.learned.az_model import PolicyValueNet, save_az_model
        from parlour.games import load_game

        game = load_game("sticks")
        (tmp_path / "run").mkdir()
        net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, hidden=8)
        save_az_model(net, tmp_path / "run" / "best.zip", game)
        (tmp_path / "run" / "config.toml").write_text('game = "sticks"\nalgo = "alphazero"\n')
    argv = [part.format(tmp=tmp_path) for part in argv]
    if name == "make_web_screenshots":
        # Its own process: the browser driver and the server's threads write to the
        # standard streams, which pytest's capture replaces within this one.
        for package in needs:
            pytest.importorskip(package, reason=f"{name} needs {package}")
        done = subprocess.run([sys.executable, "-m", f"scripts.{name}", *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert re.search(line, done.stdout, re.M), done.stdout
        return
    run(f"scripts.{name}", argv, needs, line, capsys)
    if name == "zoo_add":
        assert json.loads((tmp_path / "zoo" / "sticks.json").read_text())["play"] == {"simulations": 8}
