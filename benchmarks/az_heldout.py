"""Held-out losses of AlphaZero networks by size, weight decay and training length, to
choose them by measurement (issue 40, Tides of Time).

Self-play games of a trained model (the search and settings of its zoo card's training
run) give a fixed set of positions; each network is fitted from scratch on 80% of the
games with AlphaZero's loss (Adam, the run's learning rate, symmetry augmentation) and
scored on the other 20% (whole games held out: the positions of one game share its
outcome), after each count of minibatches.  The model's own losses on the test games
and those of predicting 0 are printed first; the numpy inference time of one position
(the play-time call) beside each network, since a smaller one buys simulations.

    python -m benchmarks.az_heldout --model parlour/zoo/models/tides_of_time.zip \\
        --card parlour/zoo/models/tides_of_time.json --games 2000
    python -m benchmarks.az_heldout --quick    # a smoke run: 3 games at 2 simulations, one small network
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.driver import parser, quick_or

ZOO = Path(__file__).resolve().parents[1] / "parlour" / "zoo" / "models"
"""The zoo's models: the default model and card are Tides of Time's."""
FIELDS = ("observations", "masks", "policies", "values", "seats", "full")


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__.splitlines()[0])
    args_parser.add_argument("--model", default=str(ZOO / "tides_of_time.zip"), help="the model whose self-play makes the data")
    args_parser.add_argument("--card", default=str(ZOO / "tides_of_time.json"), help="the zoo card whose training settings self-play uses")
    args_parser.add_argument("--games", type=int, default=2000, help="self-play games (whole games go to the test set)")
    args_parser.add_argument("--data", default="", help="an .npz to keep the games' positions in (read if it exists)")
    args_parser.add_argument("--hidden", type=int, nargs="+", default=[64, 128, 256], help="network widths to fit")
    args_parser.add_argument("--weight-decay", type=float, nargs="+", default=None, help="Adam weight decays (default: the card's)")
    args_parser.add_argument("--steps", type=int, nargs="+", default=[2000, 5000, 10000, 20000], help="minibatch counts to score at")
    args_parser.add_argument("--seed", type=int, default=0)
    args = args_parser.parse_args(argv)
    if args.quick:
        args.games, args.hidden, args.steps = 3, [8], [2]

    import os

    import torch

    from parlour.baselines.learned.az_model import PolicyValueNet, load_az_net
    from parlour.baselines.learned.numpy_mlp import NumpyMLP
    from parlour.games import load_game
    from parlour.training.backends.alphazero.backend import alphazero_loss
    from parlour.training.backends.alphazero.self_play import Examples, augment, play_games

    torch.set_num_threads(1)
    with open(args.card) as file:
        card = json.load(file)
    game = load_game(card["game"], **card["config"].get("game_options", {}))
    settings = dict(card["config"]["alphazero"])
    if args.quick:
        settings.update(simulations=2, fast_simulations=2)  # a smoke run: its games, not their quality
    teacher = load_az_net(args.model, game).eval()
    if args.data and os.path.exists(args.data):
        saved = np.load(args.data)
        train = Examples(*(saved[f"train_{name}"] for name in FIELDS))
        test = Examples(*(saved[f"test_{name}"] for name in FIELDS))
    else:
        t0 = time.perf_counter()
        games = play_games(game, teacher, settings, [args.seed * 10**6 + i for i in range(args.games)], lockstep=256)
        cut = int(0.8 * len(games))
        train = Examples.concatenate([examples for examples, _ in games[:cut]])
        test = Examples.concatenate([examples for examples, _ in games[cut:]])
        print(f"{args.games} self-play games in {time.perf_counter() - t0:.0f} s")
        if args.data:
            np.savez_compressed(args.data, **{f"{part}_{name}": getattr(examples, name)
                                              for part, examples in (("train", train), ("test", test)) for name in FIELDS})
    print(f"{len(train)} training and {len(test)} test positions", flush=True)

    def scored(net: Any, batch: Examples) -> tuple[float, float]:
        with torch.no_grad():
            policy, value = alphazero_loss(net.eval(), batch)
        return float(policy), float(value)

    policy, value = scored(teacher, test)
    print(f"the model itself on the test games: policy loss {policy:.4f}, value loss {value:.4f}; "
          f"predicting 0: value loss {float((test.values ** 2).mean()):.4f}")
    print("| hidden | weight decay | minibatches | test policy loss | test value loss | train value loss | numpy us/call | fit s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    symmetries = game.symmetries()
    seen = Examples(*(getattr(train, name)[:len(test)] for name in FIELDS))
    for hidden in args.hidden:
        for decay in args.weight_decay or [settings["weight_decay"]]:
            torch.manual_seed(args.seed)
            net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, hidden=hidden)
            optimizer = torch.optim.Adam(net.parameters(), lr=settings["learning_rate"], weight_decay=decay)
            rng = np.random.default_rng(args.seed)
            fitted, t0 = 0, time.perf_counter()
            for target in sorted(args.steps):
                net.train()
                for _ in range(target - fitted):
                    index = rng.integers(len(train), size=settings["batch_size"])
                    batch = augment(Examples(*(getattr(train, name)[index] for name in FIELDS)), symmetries, rng)
                    policy_loss, value_loss = alphazero_loss(net, batch)
                    optimizer.zero_grad()
                    (policy_loss + value_loss).backward()
                    optimizer.step()
                fitted, seconds = target, time.perf_counter() - t0
                policy, value = scored(net, test)
                _, train_value = scored(net, seen)
                fast, observation, calls = NumpyMLP(net), test.observations[:1], quick_or(args.quick, 20, 2000)
                t1 = time.perf_counter()
                for _ in range(calls):
                    fast.forward(observation)
                micro = (time.perf_counter() - t1) / calls * 1e6
                print(f"| {hidden} | {decay:g} | {target} | {policy:.4f} | {value:.4f} | {train_value:.4f} "
                      f"| {micro:.1f} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
