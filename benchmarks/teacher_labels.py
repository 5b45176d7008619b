"""What a pretraining teacher's soft labels cost: Tribolo's n-tuple search with the root
searched with the narrow window (one move: all weight on it) against the full window
that a ``temperature`` needs (``root_window=full``: every root move's value exact).

The teacher labels the positions of its own games (``parlour.training.pretrain``): this
plays ``--games`` games of the zoo's n-tuple search against itself at each depth, every
move chosen as the pretraining does (the distribution's most probable move), and times
the label of each position, one process.  The two settings play the same games (the
soft label's best move is the search's move; ties aside), so each row's ratio is the
cost of the full window.  Figures are medians of ``--runs`` runs, the two settings
taken in turn in each run.

    python -m benchmarks.teacher_labels --runs 3     # depths 2 and 3, 2 games each
    python -m benchmarks.teacher_labels --quick      # a smoke run
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import parlour
from benchmarks.driver import header, interleaved, medians, parser, quick_or, ratio, row, timed

MODEL = Path(parlour.__file__).parent / "zoo" / "models" / "tribolo.zip"
"""The zoo's Tribolo n-tuple evaluation (the default board's)."""
TEMPERATURE = 0.25
"""The soft labels' temperature (in the evaluation's log-odds); it does not change the search's cost."""


def label_seconds(spec: str, games: int) -> tuple[float, int, float]:
    """Seconds per labelled position over ``games`` self-play games of ``spec``, the
    positions labelled, and the mean weight of the labels' most probable move."""
    from parlour.games import load_game
    from parlour.training.teacher import SingleTeacher

    game = load_game("tribolo")
    teacher = SingleTeacher(spec, game, seed=0)
    seconds, positions, tops = 0.0, 0, []
    for index in range(games):
        teacher.reset(index)
        state = game.new_initial_state(np.random.default_rng([0, index]))
        while not state.is_terminal():
            (player,) = state.current_players()
            took, probs = timed(lambda: teacher.distribution(state.info_state(player)))
            seconds += took
            positions += 1
            tops.append(float(probs.max()))
            state.apply(int(np.argmax(probs)))
    return seconds / positions, positions, float(np.mean(tops))


def main(argv: list[str] | None = None) -> None:
    args = parser(__doc__, runs=3).parse_args(argv)
    runs = quick_or(args.quick, 1, args.runs)
    games, depths = quick_or(args.quick, (1, (1,)), (2, (2, 3)))
    header(["teacher", "label", "positions", "ms a position", "vs one move", "mean weight of its top move"], 2)
    for depth in depths:
        spec = f"ntuple:{MODEL},depth={depth},time_limit=none"
        specs = {"one move (narrow root window)": spec, f"soft, temperature={TEMPERATURE} (full root window)":
                 f"{spec},temperature={TEMPERATURE}"}
        results = interleaved({label: (lambda run, s=s: label_seconds(s, games)) for label, s in specs.items()}, runs)
        seconds = medians({label: [result[0] for result in values] for label, values in results.items()})
        reference = seconds["one move (narrow root window)"]
        for label, values in results.items():
            _, positions, top = values[0]
            row(f"n-tuple depth {depth}", label, f"{positions:,}", f"{seconds[label] * 1e3:.2f}",
                ratio(seconds[label], reference), f"{top:.2f}")


if __name__ == "__main__":
    main()
