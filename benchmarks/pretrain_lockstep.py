"""What lockstep buys a pretraining teacher: Tides of Time's zoo AlphaZero search labelling
its own games one at a time (the player's tree search, ``ppo.pretrain_lockstep = 0``)
against many at once on the vectorised search (``ppo.pretrain_lockstep = N``).

Both play ``parlour.training.pretrain.teacher_games`` in one process (``workers=1``, one
torch thread) with the spec a pretraining run gives (``inference=numpy`` for the tree
search, whose one row a call it speeds up; lockstep calls the network in float32 on
batches).  Figures are positions a second (every recorded decision, forced moves
included), medians of ``--runs`` runs with the two ways taken in turn, each run on games
of its own seed.

    python -m benchmarks.pretrain_lockstep --runs 3      # 64 simulations: 16 games one at a time, then 256 games 256 at once
    python -m benchmarks.pretrain_lockstep --quick       # a smoke run
"""

from __future__ import annotations

from pathlib import Path

import parlour
from benchmarks.driver import header, interleaved, medians, parser, quick_or, ratio, row, timed

MODEL = Path(parlour.__file__).parent / "zoo" / "models" / "tides_of_time.zip"
"""The zoo's Tides of Time network (the default agent's)."""


def positions_per_second(spec: str, games: int, lockstep: int, seed: int) -> tuple[float, int]:
    """Positions a second of ``games`` teacher games of ``spec``, and how many positions."""
    import torch

    from parlour.games import load_game
    from parlour.training.pretrain import teacher_games

    torch.set_num_threads(1)
    game = load_game("tides_of_time")
    seconds, data = timed(lambda: teacher_games(game, spec, games, seed=seed, lockstep=lockstep))
    return len(data) / seconds, len(data)


def main(argv: list[str] | None = None) -> None:
    parser_ = parser(__doc__, runs=3)
    parser_.add_argument("--lockstep", type=int, default=256, help="games at once on the vectorised search")
    args = parser_.parse_args(argv)
    runs = quick_or(args.quick, 1, args.runs)
    simulations, alone, together, lockstep = quick_or(args.quick, (4, 2, 4, 2), (64, 16, 256, args.lockstep))
    spec = f"az:{MODEL},simulations={simulations},c=1.0"
    ways = {"one at a time (tree search)": (f"{spec},inference=numpy", alone, 0),
            f"lockstep, {lockstep} at once (vectorised search)": (spec, together, lockstep)}
    results = interleaved({label: (lambda run, way=way: positions_per_second(way[0], way[1], way[2], seed=run))
                           for label, way in ways.items()}, runs)
    rates = medians({label: [rate for rate, _ in values] for label, values in results.items()})
    reference = rates["one at a time (tree search)"]
    header(["teacher", "way", "games", "positions", "positions a second", "vs one at a time"], 2)
    for label, values in results.items():
        row(f"tides_of_time az, {simulations} simulations", label, f"{ways[label][1]:,}", f"{values[0][1]:,}",
            f"{rates[label]:,.0f}", ratio(rates[label], reference))


if __name__ == "__main__":
    main()
