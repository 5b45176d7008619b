"""MaskablePPO on 64 batched games against 64 single-game envs: env steps per second.

Both sides train sb3-contrib's MaskablePPO with the same settings (64 envs, ``--n-steps``
per env per update, minibatches of 512, ``--epochs`` epochs, an MLP of 64-64, one torch
thread; the board games' planes flattened into it too, so both sides run the same
network), the learner's seat against ``random`` opponents:

- batched: ``parlour.vector.sb3_env.BatchedSB3VecEnv(game, 64)``, one numpy engine
  stepping all 64 games per call;
- reference: SB3's ``DummyVecEnv`` of 64 ``parlour.training.single_agent.SingleAgentEnv``,
  the path ``parlour train`` takes today.

Timed: whole ``learn`` calls (collecting and updating) after one warm-up update each;
the two sides alternate run by run so that load from other jobs hits both alike, and
each figure is the median of ``--runs``.  The collection share is reported too (SB3's
rollout time: what a faster env can change; the update is the same network either way).

    python -m benchmarks.vector_training                       # goofspiel and sticks
    python -m benchmarks.vector_training --games goofspiel sticks tides_of_time tribolo double_card
    python -m benchmarks.vector_training --quick               # a smoke run: goofspiel, tiny updates
"""

from __future__ import annotations

import statistics
import time

from benchmarks.driver import header, interleaved, parser, row

GAMES = {"goofspiel": {"num_cards": 13}, "sticks": {}, "tides_of_time": {}, "tribolo": {}, "double_card": {}}
NUM_ENVS = 64


def make_model(vec_env, n_steps: int, epochs: int, seed: int):
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    return MaskablePPO("MlpPolicy", vec_env, n_steps=n_steps, batch_size=512, n_epochs=epochs, seed=seed, device="cpu",
                       policy_kwargs={"net_arch": [64, 64]})


def batched_env(game: str, seed: int):
    from parlour.vector.sb3_env import BatchedSB3VecEnv

    return BatchedSB3VecEnv(game, NUM_ENVS, seed=seed, **GAMES[game])


def single_envs(game: str, seed: int):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from parlour.training.single_agent import SingleAgentEnv

    envs = DummyVecEnv([lambda: SingleAgentEnv(game, opponent="random", **GAMES[game]) for _ in range(NUM_ENVS)])
    envs.seed(seed)
    return envs


def rate(model, updates: int) -> tuple[float, float]:
    """Env steps/s of ``updates`` PPO updates, and the share of time spent collecting."""
    steps = model.n_steps * model.n_envs * updates
    collect = []
    original = model.collect_rollouts

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            collect.append(time.perf_counter() - start)

    model.collect_rollouts = timed
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    model.collect_rollouts = original
    return steps / elapsed, sum(collect) / elapsed


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__, runs=3)
    args_parser.add_argument("--games", nargs="+", default=["goofspiel", "sticks"], choices=sorted(GAMES))
    args_parser.add_argument("--updates", type=int, default=2, help="PPO updates per timed run")
    args_parser.add_argument("--n-steps", type=int, default=64, help="steps per env per update")
    args_parser.add_argument("--epochs", type=int, default=4)
    args = args_parser.parse_args(argv)
    if args.quick:
        args.games, args.runs, args.updates, args.n_steps, args.epochs = ["goofspiel"], 1, 1, 8, 1
    print(f"MaskablePPO, {NUM_ENVS} envs x {args.n_steps} steps per update, {args.epochs} epochs, "
          f"medians of {args.runs} runs of {args.updates} updates\n")
    header(["game", "DummyVecEnv of 64 SingleAgentEnv", "BatchedSB3VecEnv(64)", "batched / single", "collecting share (single, batched)"])
    for game in args.games:
        models = {"single": make_model(single_envs(game, 0), args.n_steps, args.epochs, 0),
                  "batched": make_model(batched_env(game, 0), args.n_steps, args.epochs, 0)}
        for model in models.values():
            model.learn(model.n_steps * model.n_envs)  # warm-up
        results = interleaved({name: lambda _run, model=model: rate(model, args.updates) for name, model in models.items()}, args.runs)
        single = statistics.median(r[0] for r in results["single"])
        batched = statistics.median(r[0] for r in results["batched"])
        shares = [statistics.median(r[1] for r in results[name]) for name in ("single", "batched")]
        row(game, f"{single:,.0f}", f"{batched:,.0f}", f"{batched / single:.1f}x", f"{shares[0]:.0%}, {shares[1]:.0%}")


if __name__ == "__main__":
    main()
