"""Train one agent per game and write docs/results.md (learning curves and arena tables).

Usage: ``python -m scripts.make_results [--games sticks goofspiel ...] [--runs runs/results]``;
``--zoo`` plays only the shipped zoo agents' matches (``ZOO_MATCHES``); ``--assemble`` only
rebuilds docs/results.md from the sections in docs/results/, ``--check`` only checks that
it is what they assemble to (exit 1 if not).
Each game's run is exactly the ``parlour train`` command printed in docs/results.md (a
budget under 30 minutes on 2 cores); its learning curve and final arena table are copied
to docs/results/.  Games not given keep their previous section (read from
docs/results/<game>.md), so one game can be redone alone.
"""

from __future__ import annotations

import argparse
import itertools
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

from parlour.cli import main as parlour

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "results"

COMMON = ["--seed", "0", "--workers", "2", "--quiet"]
SINGLE = ["--n-envs", "4", "--vec-env", "dummy"]
"""The single-game envs of the runs made before the batched engines were the default."""
TIDES_NET = "az:parlour/zoo/models/tides_of_time.zip,simulations=0"
"""Tides of Time's zoo network alone: one of the opponents of the taught run."""
TIDES_SEARCH = "az:parlour/zoo/models/tides_of_time.zip,simulations=512,inference=numpy,c=1.0"
"""Tides of Time's zoo network in its search (512 simulations): the pretraining teacher of the taught run, its games played 256 at once."""
RUNS: dict[str, list[str]] = {
    "sticks": ["--game", "sticks", "--opponents", "random,original-minimax,self", "--timesteps", "30000", "--eval-every", "5000",
               "--eval-games", "200", "--snapshot-every", "5000", *SINGLE],
    "goofspiel": ["--game", "goofspiel", "--option", "num_cards=6", "--opponents", "random,rudimentary,self",
                  "--timesteps", "150000", "--eval-every", "15000", "--eval-games", "200", *SINGLE],
    "tides_of_time": ["--game", "tides_of_time", "--opponents", "random,greedy,original-alphabeta:objective=difference,self",
                      "--weights", "1,1,1,2", "--timesteps", "5000000", "--eval-every", "500000", "--eval-games", "100"],
    "tribolo": ["--game", "tribolo", "--opponents", "random,greedy,original-strategy,self", "--weights", "1,1,1,2",
                "--timesteps", "262144", "--eval-every", "65536", "--eval-games", "60", "--n-envs", "64", "--set", "ppo.n_steps=16"],
    "double_card": ["--game", "double_card", "--opponents", "random,alphabeta:depth=1,evaluation=h1,self",
                    "--timesteps", "983040", "--eval-every", "196608", "--eval-games", "60"],
}
"""Tides of Time, Tribolo and Double Card train on the batched engine (``--vec-env auto``,
torch on both cores), for about the wall-clock of their earlier single-game runs (16.9,
11.6 and 15.2 minutes, evaluations and final arena included; Tribolo in 9.3); the board
games train their default network, ``BoardPolicy``, with its bfloat16 trunk. Tribolo plays
64 games with rollouts of 16 steps: bound by PPO's iterations, not its steps, it rated
+211 so against +151 with the defaults' 256 x 64 (benchmarks/RESULTS.md)."""

BOARD_GAMES = ("tribolo", "double_card")
OLD_BOARD_RUNS = {
    "tribolo": ["--game", "tribolo", "--opponents", "random,greedy,original-strategy,self", "--weights", "1,1,1,2",
                "--timesteps", "200000", "--eval-every", "25000", "--eval-games", "60", *SINGLE],
    "double_card": ["--game", "double_card", "--opponents", "random,alphabeta:depth=1,evaluation=h1,self",
                    "--timesteps", "300000", "--eval-every", "30000", "--eval-games", "60", *SINGLE],
}
COMPARISONS: dict[str, list[str]] = {f"{game}_mlp": [*OLD_BOARD_RUNS[game], "--network", "mlp"] for game in BOARD_GAMES}
"""The single-game runs with the flat MLP of earlier versions, for the board networks'
effect at the same budget (steps, opponents, seed); torch on one core, the MLP's fastest."""

AZ_COMMON = ["--algo", "alphazero", "--set", "alphazero.workers=2"]
SEARCH_GUIDED: dict[str, list[str]] = {
    "sticks_az": ["--game", "sticks", *AZ_COMMON, "--timesteps", "3000", "--eval-every", "1000", "--eval-games", "100",
                  "--set", "alphazero.simulations=24", "--set", "alphazero.eval_simulations=24", "--set", "alphazero.hidden=32"],
    "goofspiel_az": ["--game", "goofspiel", "--option", "num_cards=6", *AZ_COMMON, "--timesteps", "30000", "--eval-every", "6000",
                     "--eval-games", "100", "--set", "alphazero.rollout_mix=0.5"],
    "tides_of_time_az": ["--game", "tides_of_time", *AZ_COMMON, "--timesteps", "40000", "--eval-every", "8000",
                         "--eval-games", "40", "--set", "alphazero.rollout_mix=0.5"],
    "tribolo_az": ["--game", "tribolo", *AZ_COMMON, "--timesteps", "104000", "--eval-every", "26000", "--eval-games", "12",
                   "--final-games", "24", "--set", "alphazero.teacher=paranoid:depth=4", "--set", "alphazero.teacher_positions=100000",
                   "--set", "alphazero.train_steps=96", "--set", "alphazero.buffer_size=60000", "--set", "alphazero.rollout_mix=0.5"],
    "double_card_az": ["--game", "double_card", *AZ_COMMON, "--timesteps", "45000", "--eval-every", "15000",
                       "--eval-games", "20", "--final-games", "40", "--set", "alphazero.teacher=double-card-best:depth=3,time_limit=none",
                       "--set", "alphazero.teacher_positions=40000", "--set", "alphazero.temperature_moves=2",
                       "--set", "alphazero.games_per_iteration=160",
                       "--set", "alphazero.train_steps=64", "--set", "alphazero.buffer_size=60000",
                       "--set", "alphazero.eval_simulations=100"],
}
"""The search-guided learner (``--algo alphazero``) where it has been run; each section
states its budget per move (``eval_simulations``) and the arena's milliseconds per move."""

TRIBOLO_D3 = "ntuple:parlour/zoo/models/tribolo.zip,depth=3,time_limit=none"
"""Tribolo's zoo agent (its n-tuple evaluation in a 3-ply paranoid search): the pretraining teacher of the taught run."""
DOUBLE_CARD_D1 = "ntuple:parlour/zoo/models/double_card.zip,depth=1,time_limit=none"
"""Double Card's zoo evaluation at one ply, a batched player: an opponent and the evaluation opponent of the PPO runs."""
DOUBLE_CARD_D2 = "ntuple:parlour/zoo/models/double_card.zip,depth=2,time_limit=none"
"""Double Card's zoo evaluation in a 2-ply search: the pretraining teacher of the taught run."""
MATCHED: dict[str, list[list[str]]] = {
    "tides_of_time_taught": [["--agents", "ppo:{run}/best.zip", TIDES_SEARCH, "original-alphabeta", "--games", "400"]],
    "tribolo_taught": [["--agents", "ppo:{run}/best.zip", "original-strategy", "original-strategy", "--games", "300"],
                       ["--agents", TRIBOLO_D3, "original-strategy", "original-strategy", "--games", "300"]],
    "tribolo_untaught": [["--agents", "ppo:{run}/best.zip", "original-strategy", "original-strategy", "--games", "300"]],
    "double_card_taught": [["--agents", "ppo:{run}/best.zip", DOUBLE_CARD_D2, "original-tournament:time_limit=1.0",
                            "--opening", "2", "--games", "100"]],
    "double_card_untaught": [["--agents", "ppo:{run}/best.zip", "original-tournament:time_limit=1.0", "--opening", "2", "--games", "100"]],
    "tides_of_time_az": [["--agents", "az:{run}/best.zip,simulations=64", "az:{run}/best.zip,simulations=300",
                          "sm-mcts:simulations=200", "sm-mcts:simulations=1000", "--games", "40"]],
    "double_card_az": [["--agents", "az:{run}/best.zip,simulations=100,deterministic=false,temperature=0.25",
                        "az:{run}/best.zip,simulations=300,deterministic=false,temperature=0.25",
                        "double-card-best:depth=2,time_limit=none", "double-card-best:depth=3,time_limit=none", "--games", "20"]],
}
"""Arenas after a run (``{run}`` is the run directory).  After a search-guided run, the
agent and the strongest baseline at similar times per move: the baseline's budget cut to
the agent's, and the agent's raised to the baseline's.  After a taught PPO run, the
agent and its teacher alone (at its own time per move) against the original AI: Tides of
Time's three in one arena, 400 games a pair; Tribolo's agent, then its teacher, in the
seat of its learning target against two of the original AI, 300 games each, and the
untaught run's agent in the same match; Double Card's three in one arena from two random
opening plies, 100 games a pair, and the untaught run's agent against the original AI.
Budgets are simulation counts or depths, not time limits, so the tables do not depend on
the machine, except Double Card's original AI, which plays as its learning target names it
(``time_limit=1.0``: iterative deepening for up to a second a move); the arena's last line
gives the times."""

ZOO_MATCHES: dict[str, list[str]] = {
    "tides_of_time": ["--agents", "zoo", "sm-mcts:simulations=1000", "--games", "400", "--seed", "2"],
    "tribolo": ["--agents", "zoo", "paranoid:depth=4", "paranoid:depth=4", "--games", "300", "--seed", "9"],
    "double_card": ["--agents", "zoo", "double-card-best:depth=4,time_limit=none", "--opening", "2", "--games", "400", "--seed", "5"],
    "goofspiel": ["--option", "num_cards=6", "--agents", "zoo", "equilibrium", "--games", "200", "--seed", "0"],
    "sticks": ["--agents", "zoo", "optimal", "--games", "200", "--seed", "0"],
}
"""``--zoo``: each zoo agent (``parlour/zoo``, their commands in zoo.md) against the
game's strongest search at a similar time per move (the arena's last line gives both;
``{model}``, where a match names it, is the shipped model file).  Tides of Time's and Double Card's are the
matches of their learning targets: 400 games against ``sm-mcts:simulations=1000``, and
against the hand-made evaluation at the zoo card's depth 4 with two random opening plies."""

TAUGHT_TIDES = ["--game", "tides_of_time", "--opponents", f"original-alphabeta,{TIDES_NET},self", "--weights", "2,1,1",
                "--timesteps", "1000000", "--eval-every", "500000", "--eval-games", "200", "--eval-opponents", "original-alphabeta",
                "--set", "ppo.net_arch=[256,256]", "--set", "ppo.batch_size=512"]
TRIBOLO_D1 = "ntuple:parlour/zoo/models/tribolo.zip,depth=1,time_limit=none"
TAUGHT_TRIBOLO = ["--game", "tribolo", "--opponents", f"original-strategy,{TRIBOLO_D1},self",
                  "--weights", "3,1,1", "--timesteps", "16384", "--eval-every", "16384", "--eval-games", "60",
                  "--eval-opponents", "original-strategy", "--n-envs", "64", "--set", "ppo.n_steps=16", "--set", "ppo.learning_rate=3e-5",
                  "--set", "ppo.cnn_channels=48", "--set", "ppo.cnn_blocks=3"]
TAUGHT_DOUBLE_CARD = ["--game", "double_card", "--opponents", f"{DOUBLE_CARD_D1},alphabeta:depth=1,evaluation=h1,self",
                      "--weights", "1,1,2", "--timesteps", "16384", "--eval-every", "16384", "--eval-games", "40",
                      "--eval-opponents", DOUBLE_CARD_D1, "--set", "ppo.eval_opening=2", "--set", "ppo.learning_rate=3e-5",
                      "--set", "ppo.cnn_channels=48", "--set", "ppo.cnn_lines=3"]
TAUGHT: dict[str, list[str]] = {
    "tides_of_time_taught": [*TAUGHT_TIDES, "--pretrain", TIDES_SEARCH, "--set", "ppo.pretrain_games=9000",
                             "--set", "ppo.pretrain_epochs=15", "--set", "ppo.pretrain_workers=2",
                             "--set", "ppo.pretrain_lockstep=256"],
    "tides_of_time_untaught": TAUGHT_TIDES,
    "tribolo_taught": [*TAUGHT_TRIBOLO, "--pretrain", TRIBOLO_D3, "--set", "ppo.pretrain_games=4096",
                       "--set", "ppo.pretrain_epochs=5", "--set", "ppo.pretrain_workers=2"],
    "tribolo_untaught": TAUGHT_TRIBOLO,
    "double_card_taught": [*TAUGHT_DOUBLE_CARD, "--pretrain", DOUBLE_CARD_D2, "--set", "ppo.pretrain_games=65536",
                           "--set", "ppo.pretrain_explore=0.03", "--set", "ppo.pretrain_start_share=1.0",
                           "--set", "ppo.start_plies_min=0", "--set", "ppo.start_plies_max=6", "--set", "ppo.pretrain_epochs=6",
                           "--set", "ppo.pretrain_student_games=8192", "--set", "ppo.pretrain_workers=2", "--final-games", "0"],
    "double_card_untaught": [*TAUGHT_DOUBLE_CARD, "--final-games", "0"],
}
"""PPO with a teacher, and the same command without it, so that what the teacher gave and
what PPO added on top can be read (training.md).  Tides of Time's, the zoo's AlphaZero
search at 512 simulations (about 90 ms a move), plays 9,000 games before the first rollout,
256 at once on the vectorised search, and the network is fitted to its visit counts
(``--pretrain``); the run's step-0 network, the fitted one, is the zoo's ``tides_of_time-ppo``
(its ``best.zip``, chosen by evaluations against ``original-alphabeta``, rates lower on the bench).
Tribolo's, a 3-ply search at about 5 ms a move, plays 4,096 games before the first
rollout, and a 48-filter, 3-block board network is fitted to its moves (``--pretrain``);
the run fits in 60 minutes on the 2-core machine with bfloat16 instructions, and PPO's few
steps after it are what is left; its best model is the zoo's ``tribolo-ppo``.  Double
Card's, the zoo's n-tuple evaluation in a 2-ply search (5 ms a move in its matched arena), plays 65,536
games before the first rollout, each from where 0 to 6 random plies leave it
(``ppo.pretrain_start_share``: from the first position this deterministic search plays one
game but for its exploring moves), then labels 8,192 games of the fitted network, and a
48-filter board network with line convolutions (``ppo.cnn_channels=48``, ``ppo.cnn_lines=3``) is fitted to both; the run's
step-0 network is the zoo's ``double_card-ppo``; ``--final-games 0``, as the zoo's command
has it: the matched arenas rate it."""

EXTRA_RUNS = {**COMPARISONS, **SEARCH_GUIDED, **TAUGHT}
TITLES = {"_mlp": "{game} with the flat MLP, for comparison", "_az": "{game}: search-guided learning (`--algo alphazero`)",
          "_taught": "{game}: PPO with a teacher (`--teacher` or `--pretrain`)",
          "_untaught": "{game}: the same PPO command without the teacher"}

INTRO = """# Results: trained agents against the baselines

One MaskablePPO agent per game, trained by the command shown (`--seed 0`, 2 CPU cores),
then rated by the arena against `random`, the game's original AI (see
[baselines.md](baselines.md)) and the strongest search baseline of the game's docs, every
agent in every seat equally often, with 95% intervals. The board games (Tribolo, Double
Card) train the default network for board planes, `BoardPolicy` (a residual CNN whose
1x1 convolution gives every move its logit from its own cell, see
[training.md](training.md)); the same runs with the flat MLP follow each of them, at the
same budget (those were trained before `BoardPolicy`, whose runs replaced `BoardCNN`'s
under SB3's dense heads: bench ratings in [benchmark.md](benchmark.md)). \
Where a search-guided agent (`--algo alphazero`) has been trained, its run
follows, played with the number of PUCT simulations its spec states; the arena's last line
gives every agent's milliseconds per move. The Tribolo and Double Card runs begin from a
teacher's games (`alphazero.teacher`, see [training.md](training.md)): a depth-limited
search player plays every seat of the first positions and the network learns its moves,
then self-play with the network's search goes on. The learning curves show the win rate against
the evaluation opponents (random and a quick strong baseline) during training; the arena
plays the best evaluated model (`best.zip`): its most probable move, except in the games
without chance (sticks, Double Card), where it samples from its policy (or its visit
counts) so that its games against the deterministic search players are not one game
replayed. The times include the evaluations and the final arena; runs that shared the
machine say so. The Tides of Time, Tribolo and Double Card PPO runs train on the batched
engine, the default since self-play moved there (256 games, every one against the
same opponent mix; see "Self-play on the batched engines" in [training.md](training.md)),
for about the wall-clock of their earlier single-game runs (16.9, 11.6 and 15.2 minutes);
the sticks and Goofspiel PPO runs, and the MLP comparisons, are from before, on four
single-game envs (`--vec-env dummy --n-envs 4`, as their commands now say). \
Tides of Time's PPO run with a teacher begins from a network fitted to the visit counts
of the zoo's AlphaZero search at 512 simulations in 9,000 of its games (`--pretrain`: see
[training.md](training.md)) and follows its search-guided run, with the same command
without the teacher after it and an arena of the taught agent, its teacher (the search, at
its own time per move) and the original AI at 400 games a pair; the taught run's step-0
network, the fitted one, is the zoo's `tides_of_time-ppo` (its `best.zip`, after 0.5M PPO
steps, rates lower on the bench: see [zoo.md](zoo.md)). Tribolo's PPO run with a teacher begins
from a network fitted to a 3-ply search's moves in 4,096 of its games (`--pretrain`: see
[training.md](training.md)) and follows its search-guided run, with the same command
without the teacher after it; the agent, its teacher and the untaught agent each play two
of the original AI, 300 games; the taught agent is the zoo's `tribolo-ppo`. Double
Card's PPO run with a teacher begins from a 48-filter network with line convolutions fitted to the
moves of the zoo's n-tuple evaluation searched to depth 2 in 65,536 of its games, each
started after 0 to 6 random plies, and in 8,192 games of the fitted network that the search
labels (`--pretrain`: see [training.md](training.md)); it follows its search-guided run,
with the same command without the teacher after it; the agent, its teacher (the search,
at its own time per move) and the original AI play 100 games a pair from two random
opening plies, and the untaught agent plays the original AI; the taught run's step-0
network, the fitted one, is the zoo's `double_card-ppo` (PPO's 16,384 steps after it
scored lower in the run's evaluation: see [zoo.md](zoo.md)). \
These are the numbers as measured, losses included. Regenerate with
`python -m scripts.make_results` (one run: `--games sticks`).

The search-guided agents below were trained before self-play played its games in
lockstep (see "Search-guided learning" in [training.md](training.md)). Since then the Tides of Time
and Double Card self-play searches run on the batched engines, the same search with its
random draws made in another order, so the same commands now play other self-play games
from the same seeds and train other networks of the same kind than the ones rated here.
The agents trained since (lockstep self-play, gated best, the Gumbel root, the n-tuple
evaluations), with their training commands and their measurements against the untrained
network and random, are in [zoo.md](zoo.md); the section below plays each of the zoo's
agents against its game's strongest search at a similar time per move, from the shipped
models (`python -m scripts.make_results --zoo`, 13 minutes on the 2-core machine).
"""


def section(game: str, run: Path, seconds: float, command: list[str]) -> str:
    """The game's part of docs/results.md; run paths are shown as ``runs/results/GAME``.
    A comparison run (``GAME_mlp``) or a search-guided one (``GAME_az``) is a subsection of its game's."""
    shutil.copyfile(run / "learning_curve.png", DOCS / f"{game}_curve.png")
    shown = f"runs/results/{game}"
    table = run / "arena.md"  # absent after a run with --final-games 0, whose matched arenas rate it
    arena = table.read_text().strip().replace(str(run), shown) if table.exists() else ""
    command = [shown if part == str(run) else part for part in command]
    suffix = next((end for end in TITLES if game.endswith(end)), None)
    title = f"### {TITLES[suffix].format(game=game.removesuffix(suffix))}" if suffix else f"## {game}"
    return (
        f"{title}\n\n```bash\n{shlex.join(['parlour', 'train', *command])}\n```\n\n"
        f"Trained and rated in {seconds / 60:.1f} minutes.\n\n"
        f"![learning curve](results/{game}_curve.png)\n" + (f"\n{arena}\n" if arena else "")
    )


def matched(game: str, run: Path) -> str:
    """Play the arenas of ``MATCHED[game]`` for the run in ``run``; the part of its section that shows them."""
    command = EXTRA_RUNS[game]
    options = [part for flag, value in itertools.pairwise(command) if flag == "--option" for part in (flag, value)]
    parts = ["\nAt similar times per move (the arena's last line gives them):\n"]
    for number, arena in enumerate(MATCHED[game]):
        shown = [*options, *[part.format(run=f"runs/results/{game}") for part in arena], "--seed", "0", "--workers", "2"]
        where = run / "matched" / str(number)
        out = ["--quiet", "--no-plot", "--force", "--out", str(where)]
        args = ["arena", "--game", command[command.index("--game") + 1], *shown]
        if parlour([part.replace(f"runs/results/{game}", str(run)) for part in args] + out):
            raise SystemExit(f"{game}: the matched arena failed")
        table = (where / "arena.md").read_text().strip().replace(str(run), f"runs/results/{game}")
        parts.append(f"```bash\n{shlex.join(['parlour', *args])}\n```\n\n{table}\n")
    return "\n".join(parts)


def zoo_section() -> str:
    """Play ``ZOO_MATCHES`` with the shipped zoo; the part of docs/results.md that shows them."""
    from parlour.zoo import card as zoo_card

    parts = ["## The zoo's agents at matched time\n\nEach table is the arena command above it, the zoo's agent "
             "(the card's player; `zoo.md` gives its training) against the game's strongest search.\n"]
    for game, match in ZOO_MATCHES.items():
        card = zoo_card(game)
        with tempfile.TemporaryDirectory() as out:
            shown = f"parlour/zoo/models/{game}.zip"
            args = ["arena", "--game", game, *(part.format(model=shown) for part in match), "--workers", "2"]
            real = [part.replace(shown, str(card.model)) for part in args]
            if parlour([*real, "--quiet", "--no-plot", "--force", "--out", out]):
                raise SystemExit(f"{game}: the zoo's arena failed")
            table = (Path(out) / "arena.md").read_text().strip().replace(str(card.model), shown)
        parts.append(f"### {game}: `{card.spec().replace(str(card.model), shown)}`\n\n"
                     f"```bash\n{shlex.join(['parlour', *args])}\n```\n\n{table}\n")
    return "\n".join(parts)


def assembled() -> str:
    """docs/results.md: the introduction, then every section docs/results/ holds, in order."""
    order = [part for game in RUNS for part in (game, f"{game}_mlp", f"{game}_az", f"{game}_az.matched", f"{game}_taught",
                                                 f"{game}_taught.matched", f"{game}_untaught", f"{game}_untaught.matched")]
    parts = [INTRO] + [(DOCS / f"{g}.md").read_text() for g in ["zoo", *order] if (DOCS / f"{g}.md").exists()]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", choices=[*RUNS, *EXTRA_RUNS], default=[*RUNS, *EXTRA_RUNS])
    parser.add_argument("--runs", default="runs/results", help="where the run directories go")
    parser.add_argument("--assemble", action="store_true", help="only rebuild docs/results.md from docs/results/*.md")
    parser.add_argument("--matched", action="store_true", help="only play the matched-time arenas of the runs already trained")
    parser.add_argument("--zoo", action="store_true", help="only play the zoo's agents against the strongest searches")
    parser.add_argument("--check", action="store_true", help="only check that docs/results.md is what docs/results/*.md assemble to")
    args = parser.parse_args(argv)
    page = ROOT / "docs" / "results.md"
    if args.check:
        if page.read_text() != assembled():
            print(f"{page} is out of date: run python -m scripts.make_results --assemble", file=sys.stderr)
            return 1
        print(f"{page} is up to date")
        return 0
    DOCS.mkdir(parents=True, exist_ok=True)
    if args.zoo:
        (DOCS / "zoo.md").write_text(zoo_section())
    for game in [] if args.assemble or args.zoo else args.games:
        out = Path(args.runs) / game
        if not args.matched:
            command = [*{**RUNS, **EXTRA_RUNS}[game], *COMMON, "--out", str(out)]
            start = time.perf_counter()
            code = parlour(["train", *command, "--force"])
            if code:
                return code
            text = section(game, out, time.perf_counter() - start, [*command])
            (DOCS / f"{game}.md").write_text(text)
            print(f"{game}: done in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        if game in MATCHED:
            (DOCS / f"{game}.matched.md").write_text(matched(game, out))
    page.write_text(assembled())
    return 0


if __name__ == "__main__":
    sys.exit(main())
