"""What every benchmark script shares: its command line, its clocks, its medians and the
markdown rows it prints.

A benchmark measures contenders in one process and reports medians, so that a figure
and the reference it is compared with met the same load.  The conventions:

- ``parser(__doc__)`` gives ``--quick`` (tiny sizes, one run: a few seconds, for the
  smoke test ``tests/test_benchmarks.py``) and, when the script repeats, ``--runs``;
  ``main(argv)`` takes the arguments, so that the test runs the script in its process;
- ``interleaved`` takes every contender once per run, in turn (load from other jobs then
  falls on all of them alike), and each figure is the median of the runs;
- ``median_seconds`` times a call several times (wall or process CPU clock);
- ``header``/``row`` print the markdown tables of benchmarks/RESULTS.md, ``ratio`` the
  ratio of a figure to the reference's (``x``: how many times).

Run a script as a module from the repository's root: ``python -m benchmarks.NAME``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

Clock = Callable[[], float]
WALL: Clock = time.perf_counter
CPU: Clock = time.process_time
"""The process's CPU seconds, which other jobs on the machine inflate less than the wall's."""


def parser(doc: str | None, *, runs: int | None = None, runs_help: str = "timed runs per figure (median reported)",
           quick_help: str = "a smoke run: tiny sizes, one run, a few seconds") -> argparse.ArgumentParser:
    """The script's argument parser: its docstring as the description, ``--quick`` and,
    if ``runs`` is given, ``--runs`` with that default."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    if runs is not None:
        parser.add_argument("--runs", type=int, default=runs, help=runs_help)
    parser.add_argument("--quick", action="store_true", help=quick_help)
    return parser


def timed(fn: Callable[[], T], clock: Clock = WALL) -> tuple[float, T]:
    """Seconds of one call of ``fn`` on ``clock``, and what it returned."""
    start = clock()
    result = fn()
    return clock() - start, result


def median_seconds(fn: Callable[[], Any], runs: int, *, clock: Clock = WALL, warm_up: bool = False) -> float:
    """Median seconds of ``runs`` calls of ``fn`` (after one untimed call if ``warm_up``)."""
    if warm_up:
        fn()
    return statistics.median(timed(fn, clock)[0] for _ in range(runs))


def interleaved(measures: dict[str, Callable[[int], T]], runs: int) -> dict[str, list[T]]:
    """Every label's ``measure(run)`` for each run ``0..runs-1``, the labels taking turns
    within every run; the samples per label, in the order of the runs."""
    samples: dict[str, list[T]] = {label: [] for label in measures}
    for run in range(runs):
        for label, measure in measures.items():
            samples[label].append(measure(run))
    return samples


def medians(samples: dict[str, list[float]]) -> dict[str, float]:
    """The median of every label's samples."""
    return {label: statistics.median(values) for label, values in samples.items()}


def spread(values: Iterable[float]) -> float:
    """Largest over smallest sample: how steady the runs were (1.00 is perfectly)."""
    values = list(values)
    return max(values) / min(values)


def ratio(numerator: float, denominator: float | None, digits: int = 2) -> str:
    """``numerator / denominator`` as ``"1.23x"``; empty when there is no reference."""
    return "" if denominator is None else f"{numerator / denominator:.{digits}f}x"


def header(columns: Sequence[str], numeric_from: int = 1) -> None:
    """A markdown table's header and rule; columns from ``numeric_from`` on are right-aligned."""
    print("| " + " | ".join(columns) + " |")
    print("|" + "".join("---|" if i < numeric_from else "---:|" for i in range(len(columns))))


def row(*cells: object) -> None:
    """One markdown table row, printed at once (a long run shows its progress)."""
    print("| " + " | ".join(str(cell) for cell in cells) + " |", flush=True)


def quick_or(quick: bool, small: T, full: T) -> T:
    """``small`` in a ``--quick`` run, else ``full``."""
    return small if quick else full
