"""``parlour train``'s env steps per second: single-game envs against the batched engine.

The runs are ``parlour train``'s own (``parlour.training.trainer.Trainer``, in this
process), with the opponent mixes of docs/results.md's PPO runs and the same network
on both sides (the game's default: the MLP for Goofspiel, sticks and Tides of Time, the
board network ``BoardPolicy`` for Tribolo and Double Card):

- old: ``--vec-env dummy --n-envs 4`` (SB3's ``DummyVecEnv`` of four ``SingleAgentEnv``),
  PPO's single-game defaults (``n_steps`` 256 per env, minibatches of 256);
- new: ``--vec-env batched --n-envs 256`` (one numpy engine, the opponents answered per
  batch by ``parlour.training.opponent_mix``), the batched defaults.

Timed: the training segments alone (``backend.train``: collecting, PPO's updates and the
self-play snapshots), not the evaluations between them; each run trains ``--rollouts``
rollouts after one untimed warm-up rollout; the two sides alternate run by run and each
figure is the median of ``--runs``.  Also printed: the share of a segment spent
collecting, and the network's own cost per position, what bounds the batched side: the
update's time per sample (``n_epochs`` passes of forward and backward) and the
collection's forward pass per position, both read off SB3's ``collect_rollouts`` and
``train`` timers.

    python -m benchmarks.selfplay_training                      # the five games
    python -m benchmarks.selfplay_training --games tides_of_time --runs 1 --rollouts 1
    python -m benchmarks.selfplay_training --quick              # a smoke run: sticks, tiny rollouts
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from typing import Any

from benchmarks.driver import header, interleaved, parser, row

MIXES: dict[str, tuple[dict[str, Any], list[str], list[float]]] = {
    "goofspiel": ({"num_cards": 13}, ["random", "rudimentary", "self"], [1, 1, 1]),
    "sticks": ({}, ["random", "self"], [1, 1]),
    "tides_of_time": ({}, ["random", "greedy", "original-alphabeta:objective=difference", "self"], [1, 1, 1, 2]),
    "tribolo": ({}, ["random", "greedy", "original-strategy", "self"], [1, 1, 1, 2]),
    "double_card": ({}, ["random", "alphabeta:depth=1,evaluation=h1", "self"], [1, 1, 1]),
}
"""Each game's options, opponents and weights (docs/results.md's PPO runs; Goofspiel's is
the README's main job at 13 cards, sticks' random and itself)."""

SIDES = {"old": {"vec_env": "dummy", "n_envs": 4}, "new": {"vec_env": "batched", "n_envs": 256}}


class Timers:
    """Seconds spent in the backend's ``train`` and in SB3's collection and update."""

    def __init__(self) -> None:
        self.train = self.collect = self.update = 0.0
        self.steps = self.samples = self.updates = 0

    def reset(self) -> None:
        self.__init__()


@contextlib.contextmanager
def timed(cls: type, name: str, add: Any) -> Any:
    """Time every call of ``cls.name`` (patched on the class: SB3 pickles the instance's
    attributes into its snapshots)."""
    original = cls.__dict__[name]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            add(time.perf_counter() - start)

    setattr(cls, name, wrapper)
    try:
        yield
    finally:
        setattr(cls, name, original)


class Side:
    """One side's trainer, trained rollout by rollout (``segment`` = one rollout)."""

    def __init__(self, game: str, side: str, seed: int, out: str, workers: int, extra: dict[str, Any]) -> None:
        from parlour.training.backends.ppo.backend import rollout_steps
        from parlour.training.config import make_config, merge
        from parlour.training.trainer import Trainer

        options, opponents, weights = MIXES[game]
        settings = {"game": game, "game_options": options, "opponents": opponents, "opponent_weights": weights,
                    "seed": seed, "eval_games": 1, "eval_opponents": ["random"], "timesteps": 10**9,
                    "opponent_workers": workers, **SIDES[side]}
        for key, value in extra.items():
            merge(settings, key, value)
        config = make_config(settings)
        settings["eval_every"] = settings["snapshot_every"] = rollout_steps(config.ppo)
        self.trainer = Trainer(make_config(settings), out, progress=False, log=lambda text: None)
        self.timers = Timers()
        self.step = 0
        self.rollout = rollout_steps(config.ppo)

    def run(self, rollouts: int) -> tuple[float, float, float, float]:
        """Train ``rollouts`` rollouts: (env steps/s, collecting share, update seconds per
        sample and epoch, collection seconds per position)."""
        backend, t = self.trainer.backend, self.timers
        t.reset()
        from sb3_contrib import MaskablePPO

        model = backend.model
        with timed(MaskablePPO, "collect_rollouts", lambda s: setattr(t, "collect", t.collect + s)), \
                timed(MaskablePPO, "train", lambda s: setattr(t, "update", t.update + s)):
            for _ in range(rollouts):
                start = time.perf_counter()
                self.step = backend.train(self.step, self.step + self.rollout, lambda n: None)
                t.train += time.perf_counter() - start
        steps = rollouts * self.rollout
        epochs = model.n_epochs
        return steps / t.train, t.collect / t.train, t.update / (steps * epochs), t.collect / steps


    def close(self) -> None:
        self.trainer.backend.close()
        self.trainer.close()


def open_side(game: str, side: str, seed: int, root: str, workers: int, extra: dict[str, Any]) -> Side:
    s = Side(game, side, seed, f"{root}/{game}-{side}", workers, extra)
    trainer = s.trainer
    trainer.files.root.mkdir(parents=True, exist_ok=True)
    trainer.backend.start()
    s.step = trainer.backend.train(0, s.rollout, lambda n: None)  # warm-up
    return s


QUICK_SET = ["ppo.n_steps=8", "ppo.batch_size=32", "ppo.n_epochs=1", "torch_threads=1"]
"""``--quick``: rollouts of 8 steps per game and one small pass of PPO on one torch thread, on both sides."""


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__, runs=3)
    args_parser.add_argument("--games", nargs="+", default=list(MIXES), choices=sorted(MIXES))
    args_parser.add_argument("--rollouts", type=int, default=1, help="timed rollouts per run (each side)")
    args_parser.add_argument("--old-rollouts", type=int, default=2, help="timed rollouts per run of the old side (4096 steps each)")
    args_parser.add_argument("--workers", type=int, default=0, help="opponent_workers of the new side")
    args_parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                             help="a setting of the new side, as parlour train's --set (e.g. torch_threads=1)")
    args_parser.add_argument("--old-set", action="append", default=[], metavar="KEY=VALUE", help="a setting of the old side")
    args = args_parser.parse_args(argv)
    if args.quick:
        args.games, args.runs, args.rollouts, args.old_rollouts = ["sticks"], 1, 1, 1
        args.set, args.old_set = [*QUICK_SET, *args.set], [*QUICK_SET, *args.old_set]
    from parlour.training.config import parse_override

    extra = {"new": dict(parse_override(item) for item in args.set), "old": dict(parse_override(item) for item in args.old_set)}
    if args.set or args.old_set:
        print(f"settings: new {extra['new']}, old {extra['old']}")
    print(f"parlour train, env steps/s of the training segments; medians of {args.runs} interleaved runs\n")
    header(["game", "old: dummy x 4", "new: batched x 256", "new / old", "collecting share (old, new)",
            "update per sample (new)", "collection per position (new)"])
    with tempfile.TemporaryDirectory() as root:
        for game in args.games:
            sides = {name: open_side(game, name, 0, root, args.workers if name == "new" else 0, extra[name]) for name in SIDES}
            results = interleaved({name: lambda _run, name=name, side=side: side.run(args.rollouts if name == "new" else args.old_rollouts)
                                   for name, side in sides.items()}, args.runs)
            med = {name: [statistics.median(r[i] for r in rows) for i in range(4)] for name, rows in results.items()}
            old, new = med["old"], med["new"]
            row(game, f"{old[0]:,.0f}", f"{new[0]:,.0f}", f"{new[0] / old[0]:.1f}x", f"{old[1]:.0%}, {new[1]:.0%}",
                f"{new[2] * 1e6:.1f} us", f"{new[3] * 1e6:.1f} us")
            for side in sides.values():
                side.close()


if __name__ == "__main__":
    main()
