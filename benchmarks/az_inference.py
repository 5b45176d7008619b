"""A playing ``az`` agent's network calls: torch against its numpy copy
(``inference=numpy``, ``parlour.baselines.learned.numpy_mlp``), interleaved in one
process on one torch thread.

Two figures, each the median of ``--runs`` runs:
- microseconds per ``run_network`` call at 1 and 2 rows (a player's search asks about
  one leaf at a turn, one row per seat at a simultaneous step), the network alone;
- milliseconds per move of the whole player (``az:...,simulations=N``) on the same
  positions, the search included: what the numpy copy buys at a fixed time per move.

    python -m benchmarks.az_inference [--model PATH] [--simulations 200] [--runs 5]
    python -m benchmarks.az_inference --quick    # a smoke run: one position, 4 simulations

The model defaults to the zoo's Tides of Time network (a dense one).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch

from benchmarks.driver import interleaved, medians, parser, quick_or, ratio, timed
from parlour.baselines.learned.alphazero import inference_network
from parlour.baselines.learned.az_model import load_az_net, run_network
from parlour.baselines.learned.ppo import read_model_meta
from parlour.baselines.playout import play_out
from parlour.baselines.policy import make_from_spec
from parlour.games import load_game
from parlour.zoo import card


def call_us(net: object, rows: np.ndarray, calls: int) -> float:
    """Microseconds per ``run_network`` call of ``rows``, over ``calls`` calls."""
    def run() -> None:
        for _ in range(calls):
            run_network(net, rows)  # type: ignore[arg-type]

    return timed(run)[0] / calls * 1e6


def positions(game_name: str, count: int) -> list:
    """Positions from random games, each a seat's information state to search from."""
    game = load_game(game_name)
    rng = np.random.default_rng(0)
    random = [make_from_spec("random", game, seed=s) for s in range(game.num_players)]
    found = []
    while len(found) < count:
        state = game.new_initial_state(rng)
        steps = iter(range(int(rng.integers(0, 20))))
        play_out(state, random, until=lambda _: next(steps, None) is None)
        if not state.is_terminal():
            found.append(state)
    return found


def move_ms(player: object, states: list) -> float:
    start = time.perf_counter()
    for state in states:
        player.act(state.info_state(state.current_players()[0]))  # type: ignore[attr-defined]
    return (time.perf_counter() - start) / len(states) * 1e3


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__, runs=5)
    args_parser.add_argument("--model", default=None,
                             help="an alphazero model file with a dense network (default: the zoo's Tides of Time)")
    args_parser.add_argument("--simulations", type=int, default=200)
    args_parser.add_argument("--positions", type=int, default=8)
    args = args_parser.parse_args(argv)
    if args.quick:
        args.simulations, args.runs, args.positions = 4, 1, 1
    calls = quick_or(args.quick, 20, 2000)
    torch.set_num_threads(1)
    path = args.model or str(card("tides_of_time").model)
    game = load_game(read_model_meta(path)["game"])
    net = load_az_net(path, game)
    copies = {"torch": net, "numpy": inference_network(net, "numpy")}
    state = game.new_initial_state(np.random.default_rng(0))
    row = np.asarray(state.observation_tensor(state.current_players()[0]), dtype=np.float32)
    print(f"{game.name}, {path}: network {net.shape['network']} of {net.shape['hidden']} units, observation {row.size} values")
    for count in (1, 2):
        rows = np.stack([row] * count)
        times = medians(interleaved({name: lambda _run, copy=copy: call_us(copy, rows, calls) for name, copy in copies.items()}, args.runs))
        torch_us, numpy_us = times["torch"], times["numpy"]
        print(f"  {count} row(s) a call: torch {torch_us:.0f} us, numpy {numpy_us:.0f} us, {ratio(torch_us, numpy_us, 1)}")
    states = positions(game.name, args.positions)
    players = {name: make_from_spec(f"az:{path},simulations={args.simulations},inference={inference}", game, seed=1)
               for name, inference in (("torch", "float32"), ("numpy", "numpy"))}
    def moving(player: object) -> Callable[[int], float]:
        def once(_run: int) -> float:
            player.reset(seed=1)  # type: ignore[attr-defined]
            return move_ms(player, states)

        return once

    moves = medians(interleaved({name: moving(player) for name, player in players.items()}, args.runs))
    torch_ms, numpy_ms = moves["torch"], moves["numpy"]
    print(f"  a move at {args.simulations} simulations: torch {torch_ms:.1f} ms, numpy {numpy_ms:.1f} ms, {ratio(torch_ms, numpy_ms)}")


if __name__ == "__main__":
    main()
