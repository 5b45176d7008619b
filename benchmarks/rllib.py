"""Training throughput on Ray RLlib against the SB3 path, same game, same run.

Both sides train PPO for the learner's seat against ``random`` (the SB3 path: MaskablePPO
on ``SingleAgentEnv``, ``DummyVecEnv`` of ``--n-envs`` envs; the RLlib path:
``ppo_config(game, opponents="random")``, one learning seat per episode, the rest played
inside ``ParlourMultiAgentEnv``), so an env step is the same game work on both sides: the
learner's move and the opponents' replies.  Same PPO shape: ``--batch`` env steps per
update, minibatches of 256, 4 epochs, the same network family (an MLP of 128-128 for flat
observations, the board network for planes).  The RLlib side runs with ``--runners`` env
runners, 0 (sampling in the driver), 1 and 2 by default; on this 2-core machine two
runners and the learner share the two cores.  Measure on a quiet machine: under load a
runner's start-up (importing torch) can take minutes (docs/rllib.md, "Known limits").

Timed: whole training iterations (sampling plus learning), after one warm-up iteration
on each side (start-up, Ray's workers and torch's first calls are not counted): env
steps per second of wall time.  The sides alternate run by run (SB3, RLlib 0, 1, 2,
then again) so that load from other jobs hits them alike; medians over ``--runs``.

    python -m benchmarks.rllib                       # sticks and tribolo, 3 runs
    python -m benchmarks.rllib --games sticks --runs 1 --iterations 1
    python -m benchmarks.rllib --quick               # a smoke run: sticks, small batches, no env runner

``--batched``: the batched engines on both sides (issue 50), Tides of Time against the
mix of docs/results.md's Tides of Time PPO run (``random,greedy,original-alphabeta:
objective=difference,self``, weights 1,1,1,2; scripts/make_results.py).  SB3: MaskablePPO
on ``BatchedSB3VecEnv`` of ``--batched-envs`` games with that ``OpponentMix`` (``self``:
one snapshot, the initial model), ``parlour train``'s batched defaults (rollouts of
``--batched-steps`` steps, minibatches of a quarter rollout, 4 epochs, MLP 128-128, torch
on ``--torch-threads``).  RLlib: ``batched_ppo_config``, ``--batched-envs`` games per env
runner against the same mix with ``league`` for ``self`` (RLlib's ``self`` is a live
learning seat, which one learner seat per game cannot hold; ``league`` is its frozen
snapshots, as SB3's ``self`` is: one snapshot, the initial module), the same PPO shape
(``train_batch_size`` = a rollout of every runner's games, the same minibatch and epochs).

    python -m benchmarks.rllib --batched                                    # the quiet machine's run
    python -m benchmarks.rllib --batched --batched-envs 64 --batched-steps 16 --runs 1 --runners 0
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from benchmarks.driver import parser

GAMES = {"sticks": {}, "tribolo": {}}


def sb3_rate(game: str, batch: int, n_envs: int, iterations: int, seed: int) -> float:
    """Env steps/s of MaskablePPO on the single-agent view (after one warm-up rollout)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from parlour.baselines.learned.network_choice import choose_network
    from parlour.baselines.learned.networks import ppo_policy
    from parlour.training.single_agent import SingleAgentEnv

    torch.set_num_threads(1)
    envs = DummyVecEnv([lambda: SingleAgentEnv(game, opponent="random", **GAMES[game]) for _ in range(n_envs)])
    network = choose_network("auto", envs.observation_space.shape, game)
    policy, kwargs = ppo_policy(network, [128, 128], {"channels": 32, "blocks": 2})  # the board network under SB3's heads
    model = MaskablePPO(policy, envs, n_steps=batch // n_envs, batch_size=256, n_epochs=4, seed=seed, device="cpu",
                        policy_kwargs=kwargs)
    model.learn(batch)  # warm-up
    start = time.perf_counter()
    model.learn(batch * iterations, reset_num_timesteps=False)
    return batch * iterations / (time.perf_counter() - start)


def rllib_rate(game: str, batch: int, runners: int, envs: int, iterations: int, seed: int) -> tuple[float, float, float]:
    """Env steps/s of RLlib PPO with ``runners`` env runners of ``envs`` envs each (after one
    warm-up iteration), and RLlib's own timers of the last iteration: seconds sampling and
    seconds in the learner update."""
    from parlour.training.backends.rllib import ppo_config

    config = ppo_config(game, GAMES[game], opponents="random", num_env_runners=runners, seed=seed,
                        train_batch_size=batch, minibatch_size=256, num_epochs=4, model={"hidden": [128, 128]})
    config.env_runners(num_envs_per_env_runner=envs)
    algo = config.build_algo()
    try:
        algo.train()  # warm-up
        steps, start = 0, time.perf_counter()
        for _ in range(iterations):
            result = algo.train()
            steps += int(result["env_runners"]["num_env_steps_sampled"])
        timers = result["timers"]
        return steps / (time.perf_counter() - start), timers["env_runner_sampling_timer"], timers["learner_update_timer"]
    finally:
        algo.stop()


BATCHED_GAME = "tides_of_time"
BATCHED_MIX = "random,greedy,original-alphabeta:objective=difference,self"
"""docs/results.md's Tides of Time PPO run's opponents (scripts/make_results.py RUNS)."""
BATCHED_WEIGHTS = [1.0, 1.0, 1.0, 2.0]


def sb3_batched_rate(envs: int, steps: int, iterations: int, seed: int) -> float:
    """Env steps/s of MaskablePPO on the batched engine against the results' mix (one warm-up rollout)."""
    import tempfile

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from parlour.baselines.learned.networks import ppo_policy
    from parlour.baselines.learned.ppo import save_model
    from parlour.games import load_game
    from parlour.training.opponent_mix import OpponentMix
    from parlour.training.opponents import parse_opponents
    from parlour.vector.sb3_env import BatchedSB3VecEnv

    game = load_game(BATCHED_GAME)
    mix = OpponentMix(game, parse_opponents(BATCHED_MIX, BATCHED_WEIGHTS))
    vec = VecMonitor(BatchedSB3VecEnv(BATCHED_GAME, envs, opponent=mix, seed=seed))
    policy, kwargs = ppo_policy("mlp", [128, 128], {"channels": 32, "blocks": 2})
    model = MaskablePPO(policy, vec, n_steps=steps, batch_size=envs * steps // 4, n_epochs=4, seed=seed, device="cpu",
                        policy_kwargs=kwargs)
    with tempfile.TemporaryDirectory() as folder:
        save_model(model, f"{folder}/snapshot.zip", game)
        mix.add_snapshot(f"{folder}/snapshot.zip")
        model.learn(envs * steps)  # warm-up
        start = time.perf_counter()
        model.learn(envs * steps * iterations, reset_num_timesteps=False)
        rate = envs * steps * iterations / (time.perf_counter() - start)
    vec.close()
    return rate


def rllib_batched_rate(envs: int, steps: int, runners: int, iterations: int, seed: int) -> tuple[float, float, float]:
    """Env steps/s of RLlib PPO on the batched path against the results' mix (``league`` for
    ``self``), after one warm-up iteration; RLlib's sampling and learner timers of the last."""
    from parlour.training.backends.rllib.algo import batched_ppo_config
    from parlour.training.backends.rllib.league import add_league_snapshot

    batch = envs * steps * max(runners, 1)
    config = batched_ppo_config(BATCHED_GAME, opponents=BATCHED_MIX.replace(",self", ",league"), opponent_weights=BATCHED_WEIGHTS,
                                num_envs_per_env_runner=envs, num_env_runners=runners, seed=seed, train_batch_size=batch,
                                minibatch_size=batch // 4, num_epochs=4, model={"hidden": [128, 128]})
    algo = config.build_algo()
    try:
        add_league_snapshot(algo, "league:step_0")
        algo.train()  # warm-up
        done, start = 0, time.perf_counter()
        for _ in range(iterations):
            result = algo.train()
            done += int(result["env_runners"]["num_env_steps_sampled"])
        timers = result["timers"]
        return done / (time.perf_counter() - start), timers["env_runner_sampling_timer"], timers["learner_update_timer"]
    finally:
        algo.stop()


def batched_main(args: Any) -> None:
    """``--batched``: SB3 and RLlib on the batched engines, alternating run by run."""
    import torch

    from parlour.ray_cluster import ray_session

    torch.set_num_threads(args.torch_threads)
    runner_counts = [int(r) for r in args.runners.split(",")]
    rates: dict[str, list[float]] = {}
    with ray_session():
        for run in range(args.runs):
            rates.setdefault("sb3", []).append(sb3_batched_rate(args.batched_envs, args.batched_steps, args.iterations, run))
            for runners in runner_counts:
                rate, sampling, learning = rllib_batched_rate(args.batched_envs, args.batched_steps, runners, args.iterations, run)
                rates.setdefault(f"rllib{runners}", []).append(rate)
                rates.setdefault(f"sample{runners}", []).append(sampling)
                rates.setdefault(f"learn{runners}", []).append(learning)
    med = {key: statistics.median(values) for key, values in rates.items()}
    print(f"PPO env steps/s on the batched engines, {BATCHED_GAME} against {BATCHED_MIX} (weights 1,1,1,2; RLlib: league "
          f"for self); {args.batched_envs} games x {args.batched_steps} steps per rollout (per env runner), minibatch a "
          f"quarter, 4 epochs, MLP 128-128, torch threads {args.torch_threads}; {args.iterations} timed updates, "
          f"median of {args.runs} run(s)\n")
    print("| SB3 MaskablePPO batched | " + " | ".join(f"RLlib batched, {r} env runner(s) | RLlib / SB3" for r in runner_counts)
          + " |")
    print("|---:|" + "---:|---:|" * len(runner_counts))
    print(f"| {med['sb3']:,.0f} | " + " | ".join(f"{med[f'rllib{r}']:,.0f} | {med[f'rllib{r}'] / med['sb3']:.2f}"
                                                 for r in runner_counts) + " |")
    print("\nRLlib's timers per update (seconds sampling / seconds in the learner): "
          + ", ".join(f"{r} runner(s) {med[f'sample{r}']:.2f} / {med[f'learn{r}']:.2f}" for r in runner_counts))


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__.splitlines()[0], runs=3)
    args_parser.add_argument("--games", default="sticks,tribolo")
    args_parser.add_argument("--iterations", type=int, default=2, help="timed updates per measurement")
    args_parser.add_argument("--batch", type=int, default=2048, help="env steps per PPO update")
    args_parser.add_argument("--n-envs", type=int, default=4, help="SB3's DummyVecEnv size")
    args_parser.add_argument("--runners", default="0,1,2", help="RLlib env-runner counts to measure")
    args_parser.add_argument("--envs-per-runner", type=int, default=1, help="RLlib's num_envs_per_env_runner")
    args_parser.add_argument("--batched", action="store_true", help="the batched engines on both sides: Tides of Time "
                             "against the results' mix (see the module docstring)")
    args_parser.add_argument("--batched-envs", type=int, default=256, help="--batched: games per engine")
    args_parser.add_argument("--batched-steps", type=int, default=64, help="--batched: steps of every game per rollout")
    args_parser.add_argument("--torch-threads", type=int, default=2, help="--batched: torch's threads in this process")
    args = args_parser.parse_args(argv)
    if args.batched:
        if args.quick:
            args.batched_envs, args.batched_steps, args.runs, args.iterations, args.runners = 32, 8, 1, 1, "0"
        batched_main(args)
        return
    if args.quick:
        args.games, args.runs, args.iterations, args.batch, args.runners = "sticks", 1, 1, 256, "0"

    from parlour.ray_cluster import ray_session

    runner_counts = [int(r) for r in args.runners.split(",")]
    rates: dict[tuple[str, str], list[float]] = {}
    with ray_session():
        for run in range(args.runs):
            for game in args.games.split(","):
                rates.setdefault((game, "sb3"), []).append(sb3_rate(game, args.batch, args.n_envs, args.iterations, run))
                for runners in runner_counts:
                    rate, sampling, learning = rllib_rate(game, args.batch, runners, args.envs_per_runner, args.iterations, run)
                    rates.setdefault((game, f"rllib{runners}"), []).append(rate)
                    rates.setdefault((game, f"sample{runners}"), []).append(sampling)
                    rates.setdefault((game, f"learn{runners}"), []).append(learning)
    print(f"PPO env steps/s, learner against random; batch {args.batch}, {args.iterations} timed updates, "
          f"{args.envs_per_runner} env(s) per RLlib env runner, median of {args.runs} run(s) (range)\n")
    print("| game | SB3 MaskablePPO | " + " | ".join(f"RLlib, {r} env runner(s)" for r in runner_counts)
          + " | " + " | ".join(f"RLlib {r} / SB3" for r in runner_counts) + " |")
    print("|---|---:|" + "---:|" * (2 * len(runner_counts)))
    for game in args.games.split(","):
        sb3 = statistics.median(rates[(game, "sb3")])
        values = [statistics.median(rates[(game, f"rllib{r}")]) for r in runner_counts]
        spread = lambda key: f"{min(rates[key]):,.0f}-{max(rates[key]):,.0f}"  # noqa: E731
        print(f"| {game} | {sb3:,.0f} ({spread((game, 'sb3'))}) | "
              + " | ".join(f"{v:,.0f} ({spread((game, f'rllib{r}'))})" for v, r in zip(values, runner_counts))
              + " | " + " | ".join(f"{v / sb3:.2f}" for v in values) + " |")
    print("\nRLlib's timers per update (seconds sampling / seconds in the learner), medians:\n")
    print("| game | " + " | ".join(f"{r} env runner(s)" for r in runner_counts) + " |")
    print("|---|" + "---:|" * len(runner_counts))
    for game in args.games.split(","):
        cells = [f"{statistics.median(rates[(game, f'sample{r}')]):.2f} / {statistics.median(rates[(game, f'learn{r}')]):.2f}"
                 for r in runner_counts]
        print(f"| {game} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
