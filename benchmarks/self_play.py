"""Self-play throughput of the search-guided learner (issue 29, item 1): positions per
second, one process, one torch thread, the same network and simulations, old and new
interleaved in this process.

- **old**: one game at a time, every simulation's leaf evaluated by its own network call
  of one row (what ``parlour train --algo alphazero`` did before issue 29: the searches
  are the same code, driven one position at a time);
- **new**: ``self_play.play_games``: the games in lockstep: on the game's batched engine
  with the vectorised search (``vector_puct``, where the game has such an engine:
  Tides of Time and Double Card; a finished game's place taken by the next, so
  that the batch stays full), else the tree searches of all the games with every round
  of their simulations evaluated by one call of the network (padded to 16 rows).

- **new, bfloat16**: the same with ``alphazero.inference = "bfloat16"`` (the searches call a
  bfloat16 channels-last copy of the network, ``az_model.InferenceCopy``).

The network is the one a run of that game trains (``network`` and ``hidden`` as
``parlour train --algo alphazero`` chooses them: the MLP for Tides of Time, the 32-channel
board CNN for Tribolo and Double Card), freshly initialised from seed 0; the simulations
are docs/results.md's (64 for Tides of Time and Tribolo, 100 for Double Card).  Each
figure is the median of ``--runs`` timed runs; the ratio is of the medians.

    python -m benchmarks.self_play                       # all three games
    python -m benchmarks.self_play --games-only tides_of_time --runs 3
    python -m benchmarks.self_play --quick               # a smoke run: Tides of Time, a few small games
"""

from __future__ import annotations

import statistics
import sys
import time

import torch

from benchmarks.driver import header, parser, quick_or, row
from parlour.baselines.engines.vector_puct import applies
from parlour.baselines.learned.az_model import PolicyValueNet
from parlour.baselines.learned.network_choice import choose_network
from parlour.games import load_game
from parlour.training.backends.alphazero import self_play
from parlour.training.backends.alphazero.backend import AlphaZeroSettings
from parlour.vector import ENGINES

CASES = {
    # game: (simulations, games played one at a time in a run, games played by the new way in a run,
    #        of which at most this many at once)
    "tides_of_time": (64, 8, 256, 128),
    "tribolo": (64, 2, 32, 32),
    "double_card": (100, 1, 256, 128),
}


def network(name: str) -> PolicyValueNet:
    game = load_game(name)
    torch.manual_seed(0)
    kind = choose_network("auto", game.observation_shape, name)
    return PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, network=kind,
                          hidden=AlphaZeroSettings.defaults()["hidden"])


def rate(name: str, net: PolicyValueNet, simulations: int, seeds: list[int], together: bool, lockstep: int | None = None,
         inference: str = "float32") -> float:
    """Positions per second of self-play of the games of ``seeds``."""
    game = load_game(name)
    settings = {**AlphaZeroSettings.defaults(), "simulations": simulations, "inference": inference}
    start = time.perf_counter()
    if together:
        results = self_play.play_games(game, net, settings, seeds, lockstep=lockstep)
    else:
        padded, self_play.SEARCH_BATCH = self_play.SEARCH_BATCH, 1  # one row a call, as before
        try:
            results = [self_play.play_games(game, net, settings, [seed], search="tree")[0] for seed in seeds]
        finally:
            self_play.SEARCH_BATCH = padded
    seconds = time.perf_counter() - start
    return sum(len(examples) for examples, _ in results) / seconds


QUICK = {"tides_of_time": (4, 1, 4, 4)}
"""``--quick``: 4 simulations, one game the old way, four in lockstep."""


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__.split("\n\n")[0], runs=3)
    args_parser.add_argument("--games-only", nargs="*", default=list(CASES), choices=list(CASES))
    args = args_parser.parse_args(argv)
    cases = quick_or(args.quick, QUICK, CASES)
    runs = quick_or(args.quick, 1, args.runs)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, one thread; Python {sys.version.split()[0]}")
    header(["game", "network", "simulations", "old: positions/s (games)", "new: positions/s (games)", "new / old",
            "new, bfloat16: positions/s", "new bfloat16 / old"], numeric_from=8)
    for name in [name for name in args.games_only if name in cases]:
        simulations, alone, together, lockstep = cases[name]
        net = network(name)
        way = "vectorised search" if applies(load_game(name)) and ENGINES[name].SEARCH_ON_ENGINE else "tree searches"
        old, new, half = [], [], []
        for run in range(runs):  # interleaved, different games each run
            seeds = [1000 * run + i for i in range(together)]
            old.append(rate(name, net, simulations, seeds[:alone], together=False))
            new.append(rate(name, net, simulations, seeds, together=True, lockstep=lockstep))
            half.append(rate(name, net, simulations, seeds, together=True, lockstep=lockstep, inference="bfloat16"))
        o, n, h = statistics.median(old), statistics.median(new), statistics.median(half)
        row(name, net.shape["network"], simulations, f"{o:.1f} ({alone})", f"{n:.1f} ({together}, {lockstep} at once, {way})",
            f"{n / o:.1f}x", f"{h:.1f}", f"{h / o:.1f}x")


if __name__ == "__main__":
    main()
