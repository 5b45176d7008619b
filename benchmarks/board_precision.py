"""The board policy's cost on this CPU: float32 against bfloat16 autocast, and the
``ppo:`` player's forward pass against MaskablePPO's ``get_distribution``.

``ppo.cnn_precision = "auto"`` asks for bfloat16 only where the CPU computes it in
hardware (``network_choice.native_bfloat16``); elsewhere torch emulates it.  This times
Tribolo's ``BoardPolicy`` both ways: a move (one position's masked distribution through
``get_distribution``, one thread) and a training step (a minibatch's forward and backward
pass and Adam's step, two threads, per position), for the network sizes a run may
choose; and, in float32, a move through ``ppo.masked_policy``, the players' own path.
The float32 ``get_distribution`` figure is the reference; a ratio below 1 saves.
``--game double_card --lines 3`` adds each size with line convolutions
(``ppo.cnn_lines``) beside it, on Double Card's board.

    python -m benchmarks.board_precision --runs 3    # 32x2, 48x2, 48x3
    python -m benchmarks.board_precision --game double_card --lines 3 --runs 3
    python -m benchmarks.board_precision --quick    # a smoke run
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.driver import header, interleaved, medians, parser, quick_or, ratio, row, timed

SIZES = ((32, 2), (48, 2), (48, 3))
"""(channels, blocks): the default board network, the zoo's Double Card PPO network's size
(with lines) and the larger one of Tribolo's."""


def policy(channels: int, blocks: int, precision: str, game_name: str = "tribolo", lines: int = 0) -> Any:
    import gymnasium
    from stable_baselines3.common.utils import ConstantSchedule

    from parlour.baselines.learned.board_policy import BoardPolicy
    from parlour.games import load_game

    game = load_game(game_name)
    space = gymnasium.spaces.Box(0.0, 1.0, tuple(game.observation_shape), np.float32)
    kwargs = {"channels": channels, "blocks": blocks, "precision": precision, "lines": lines}
    return BoardPolicy(space, gymnasium.spaces.Discrete(game.num_actions), ConstantSchedule(1e-3), net_arch=[64],
                       features_extractor_kwargs=kwargs), game


def move_seconds(net: Any, game: Any, moves: int, lean: bool = False) -> float:
    """Seconds per masked distribution of one position (``lean``: ``masked_policy``'s)."""
    import torch

    from parlour.baselines.learned.ppo import masked_policy

    torch.set_num_threads(1)
    state = game.new_initial_state(seed=0)
    (seat,) = state.current_players()
    obs = torch.as_tensor(np.asarray(state.observation_tensor(seat), dtype=np.float32))[None]
    mask = np.asarray(state.legal_mask(seat), dtype=bool)[None]
    with torch.no_grad():
        def move() -> Any:
            return masked_policy(net, obs.numpy(), mask) if lean else net.get_distribution(obs, action_masks=mask)

        move()
        return timed(lambda: [move() for _ in range(moves)])[0] / moves


def update_seconds(net: Any, game: Any, batch: int, steps: int) -> float:
    """Seconds per position of a training step on a ``batch``-row minibatch."""
    import torch

    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.random((batch, *game.observation_shape), dtype=np.float32))
    masks = np.ones((batch, game.num_actions), dtype=bool)
    actions = torch.as_tensor(rng.integers(game.num_actions, size=batch))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)

    def step() -> None:
        values, log_probs, _ = net.evaluate_actions(obs, actions, action_masks=masks)
        loss = -log_probs.mean() + values.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    step()
    return timed(lambda: [step() for _ in range(steps)])[0] / (steps * batch)


def main(argv: list[str] | None = None) -> None:
    cli = parser(__doc__, runs=5)
    cli.add_argument("--game", default="tribolo", choices=("tribolo", "double_card"), help="whose board (default tribolo)")
    cli.add_argument("--lines", type=int, default=0, help="also each size with line convolutions of this reach")
    args = cli.parse_args(argv)
    runs = quick_or(args.quick, 1, args.runs)
    moves, batch, steps = quick_or(args.quick, (5, 16, 1), (200, 256, 8))
    from parlour.baselines.learned.network_choice import native_bfloat16

    print(f"bfloat16 in hardware on this CPU: {native_bfloat16()}\n")
    header(["network", "precision, path", "ms a move (1 thread)", "vs float32", "ms per position trained (2 threads)",
            "vs float32"], 2)
    for channels, blocks, lines in [(c, b, r) for c, b in SIZES for r in sorted({0, args.lines})]:
        nets = {precision: policy(channels, blocks, precision, args.game, lines) for precision in ("float32", "bfloat16")}
        move = medians(interleaved({
            "float32": lambda run: move_seconds(*nets["float32"], moves),
            "float32, masked_policy": lambda run: move_seconds(*nets["float32"], moves, lean=True),
            "bfloat16": lambda run: move_seconds(*nets["bfloat16"], moves)}, runs))
        train = medians(interleaved({p: (lambda run, p=p: update_seconds(*nets[p], batch, steps)) for p in nets}, runs))
        for label, seconds in move.items():
            trained = train.get(label)
            name = f"{channels}x{blocks}" + (f" lines {lines}" if lines else "")
            row(name, label, f"{seconds * 1e3:.2f}", ratio(seconds, move["float32"]),
                "" if trained is None else f"{trained * 1e3:.3f}", "" if trained is None else ratio(trained, train["float32"]))

if __name__ == "__main__":
    main()
