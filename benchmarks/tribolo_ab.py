"""Tribolo speed, this checkout against an earlier revision, interleaved in one process.

The earlier revision's rules (``parlour/games/tribolo.py``, or the package
``parlour/games/tribolo/`` from the split on, taken with ``git show`` / ``git archive``)
are loaded as a separate module; both run the conventions of ``benchmarks/random_play.py`` (uniform
random choices from pre-drawn floats, made before the timer starts): random playouts on
the rules layer and the AEC ``env()`` loop (PettingZoo's wrappers, the adapter).  The
contenders take turns run by run so that load from other jobs falls on both alike;
the figures are medians (wall clock and process CPU time) with the best run, as on a
shared machine the best run is the least disturbed one.

    python -m benchmarks.tribolo_ab                 # against c74476b, 9 rounds
    python -m benchmarks.tribolo_ab --rev HEAD~1 --runs 15
    python -m benchmarks.tribolo_ab --quick         # a smoke run: HEAD, one round of one game

Both contenders above run under this checkout's adapter (``parlour/envs/adapter.py``),
so the AEC rows measure the rules module alone.  ``--checkout`` instead compares the
whole ``tribolo_v0.env()`` of the revision (its adapter and PettingZoo wrappers too),
exported with ``git archive`` and run in alternating subprocesses with the same loop::

    python -m benchmarks.tribolo_ab --checkout --runs 7
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.driver import header, parser, row
from benchmarks.random_play import Uniform, aec_playouts, rules_playouts
from parlour.envs.adapter import aec_constructors
from parlour.games import tribolo

ROOT = Path(__file__).resolve().parent.parent


def load_revision(rev: str):
    """``rev``'s Tribolo rules as the module ``tribolo_before``: its single file, or its
    package with the package's own imports renamed to ``tribolo_before`` (registered in
    ``sys.modules``, where those imports find it)."""
    tree = Path(tempfile.mkdtemp())
    shown = subprocess.run(["git", "show", f"{rev}:parlour/games/tribolo.py"], cwd=ROOT, capture_output=True, text=True)
    if shown.returncode != 0:
        archive = subprocess.run(["git", "archive", rev, "parlour/games/tribolo"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        package = (tree / "parlour/games/tribolo").rename(tree / "tribolo_before")
        for file in package.glob("*.py"):
            file.write_text(file.read_text().replace("parlour.games.tribolo", "tribolo_before"))
        spec = importlib.util.spec_from_file_location("tribolo_before", package / "__init__.py",
                                                      submodule_search_locations=[str(package)])
    else:
        path = tree / "tribolo_before.py"
        path.write_text(shown.stdout)
        spec = importlib.util.spec_from_file_location("tribolo_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tribolo_before"] = module
    spec.loader.exec_module(module)
    return module


_ENV_RUN = """
import time
import parlour
assert parlour.__file__.startswith({tree!r}), parlour.__file__
from benchmarks.random_play import Uniform, aec_playouts
from parlour.envs import tribolo_v0
env = tribolo_v0.env()
aec_playouts(env, 2, Uniform(0))
pick = Uniform({seed})
wall, cpu = time.perf_counter(), time.process_time()
steps = aec_playouts(env, {games}, pick)
print(steps / (time.perf_counter() - wall), steps / (time.process_time() - cpu))
"""


def compare_checkouts(rev: str, runs: int, games: int) -> None:
    """``tribolo_v0.env()`` of ``rev``'s whole tree against this checkout's, in
    alternating subprocesses (each imports its own ``parlour``, and this checkout's
    ``benchmarks``)."""
    root = ROOT
    tree = Path(tempfile.mkdtemp())
    archive = subprocess.run(["git", "archive", rev, "parlour"], cwd=root, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    samples: dict[str, list[tuple[float, float]]] = {rev: [], "this checkout": []}
    for r in range(runs):
        for label, path in ((rev, tree), ("this checkout", root)):
            code = _ENV_RUN.format(tree=str(path), seed=r + 1, games=games)
            search_path = os.pathsep.join(dict.fromkeys([str(path), str(root)]))  # the tree's parlour first
            out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": search_path}, cwd=path,
                                 check=True, capture_output=True, text=True).stdout.split()
            samples[label].append((float(out[0]), float(out[1])))
    print(f"tribolo_v0.env() steps/s, median of {runs} alternating runs (best in brackets)\n")
    header(["checkout", "steps/s (wall)", "steps/s (CPU)"])
    result = {}
    for label, got in samples.items():
        wall, cpu = [w for w, _ in got], [c for _, c in got]
        result[label] = (statistics.median(wall), max(wall), statistics.median(cpu))
        row(label, f"{result[label][0]:,.0f} ({result[label][1]:,.0f})", f"{result[label][2]:,.0f}")
    old, new = result[rev], result["this checkout"]
    print(f"\n- AEC env(): {new[0] / old[0]:.2f}x median wall, {new[2] / old[2]:.2f}x median CPU, {new[1] / old[1]:.2f}x best wall")


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__, runs=9, runs_help="rounds (each contender runs once per round)",
                         quick_help="a smoke run: against HEAD, one round of one game")
    args_parser.add_argument("--rev", default="c74476b", help="the revision to compare with")
    args_parser.add_argument("--games", type=int, default=10, help="games per run (rules layer: 3x as many)")
    args_parser.add_argument("--checkout", action="store_true",
                             help="compare the revision's whole env (adapter too), not its Tribolo rules")
    args = args_parser.parse_args(argv)
    if args.quick:
        args.rev, args.runs, args.games = "HEAD", 1, 1
    if args.checkout:
        compare_checkouts(args.rev, args.runs, args.games)
        return
    before = load_revision(args.rev)
    rows = []
    for tag, module in ((args.rev, before), ("this checkout", tribolo)):
        game = module.TriboloGame()
        env = aec_constructors(module.TriboloGame)[0]()
        rows.append((f"{tag}: rules layer", lambda n, p, game=game: rules_playouts(game, n, p), 3 * args.games))
        rows.append((f"{tag}: AEC env()", lambda n, p, env=env: aec_playouts(env, n, p), args.games))
    for _label, run, games in rows:
        run(max(1, games // 5), Uniform(0))
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in rows}
    for r in range(args.runs):
        for label, run, games in rows:
            pick = Uniform(r + 1)
            wall, cpu = time.perf_counter(), time.process_time()
            steps = run(games, pick)
            samples[label].append((steps / (time.perf_counter() - wall), steps / (time.process_time() - cpu)))
    print(f"median of {args.runs} interleaved runs (best run in brackets)\n")
    header(["contender", "steps/s (wall)", "steps/s (CPU)"])
    result = {}
    for label, got in samples.items():
        wall = [w for w, _ in got]
        cpu = [c for _, c in got]
        result[label] = (statistics.median(wall), max(wall), statistics.median(cpu), max(cpu))
        row(label, f"{result[label][0]:,.0f} ({result[label][1]:,.0f})", f"{result[label][2]:,.0f} ({result[label][3]:,.0f})")
    print()
    for kind in ("rules layer", "AEC env()"):
        old, new = result[f"{args.rev}: {kind}"], result[f"this checkout: {kind}"]
        print(f"- {kind}: {new[0] / old[0]:.2f}x median wall, {new[2] / old[2]:.2f}x median CPU, "
              f"{new[1] / old[1]:.2f}x best wall")


if __name__ == "__main__":
    main()
