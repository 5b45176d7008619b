"""Where an alphazero run's self-play games are played: in this process, in local worker
processes (``backend = "sb3"``, ``alphazero.workers > 1``), or in Ray actors on a
cluster (``backend = "ray"``).

All three play the same games: game ``i`` of an iteration goes to worker ``i % workers``,
every game's randomness comes from its own seed, and a game is the game its seed plays
alone whatever else a worker plays beside it (``self_play.play_games``), so the examples
are the same wherever they are played (the tests compare a local and a two-node Ray
run).  Each iteration the learner's weights travel once to every worker: pickled bytes
through the pool's pipe, or one object in Ray's object store that every actor reads.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from parlour.games.base import Game
from parlour.processes import die_with_parent, ignore_ctrl_c, start_pool
from parlour.training.backends.alphazero.self_play import Examples, play_games, play_teacher_game

Played = list[tuple[Examples, np.ndarray]]

_WORKER: dict[str, Any] = {}


def _init_worker(game: Game, shape: dict[str, Any], settings: dict[str, Any], threads: int, device: str = "cpu",
                 guard: bool = True) -> None:
    """A worker's network and settings, once (``guard``: end with the trainer, leave Ctrl-C to it)."""
    import torch

    from parlour.baselines.learned.az_model import PolicyValueNet

    if guard:
        die_with_parent()  # even a SIGKILL of the trainer ends its workers
        ignore_ctrl_c()  # Ctrl-C is the parent's to report
    torch.set_num_threads(threads)
    shape = dict(shape)
    net = PolicyValueNet(tuple(shape.pop("observation_shape")), **shape).to(device)
    _WORKER.update(game=game, settings=settings, net=net, device=device)


def _play(task: tuple[bytes | None, list[int]]) -> Played:
    """A worker's games: the network's self-play with ``weights``, or (``None``) the teacher's."""
    import torch

    weights, seeds = task
    if weights is None:
        return [play_teacher_game(_WORKER["game"], _WORKER["settings"], seed) for seed in seeds]
    net = _WORKER["net"]
    net.load_state_dict(torch.load(io.BytesIO(weights), weights_only=True, map_location=_WORKER["device"]))
    return play_games(_WORKER["game"], net.eval(), _WORKER["settings"], seeds)  # in lockstep, one network call a round


def packed_weights(net: Any) -> bytes:
    """The network's state dict as bytes (what travels to the workers)."""
    import torch

    buffer = io.BytesIO()
    torch.save({key: value.cpu() for key, value in net.state_dict().items()}, buffer)
    return buffer.getvalue()


def in_seed_order(results: list[Played], count: int) -> Played:
    """The games of ``count`` seeds dealt round-robin to ``len(results)`` workers, in seed order."""
    workers = len(results)
    return [results[i % workers][i // workers] for i in range(count)]


class LocalWorkers:
    """Self-play in ``workers`` local processes (spawned: torch and fork do not mix)."""

    def __init__(self, game: Game, net: Any, settings: dict[str, Any], threads: int, device: str) -> None:
        self.workers = settings["workers"]
        self.pool = start_pool(self.workers, _init_worker, (game, net.shape, settings, threads, device))

    def play(self, weights: bytes | None, seeds: list[int]) -> Played:
        chunks = [seeds[i::self.workers] for i in range(self.workers)]
        return in_seed_order(list(self.pool.run(_play, [(weights, chunk) for chunk in chunks])), len(seeds))

    def close(self) -> None:
        self.pool.terminate()


class RayWorkers:
    """Self-play in ``workers`` Ray actors of the cluster at ``address`` (see
    ``ray_cluster``: empty joins ``RAY_ADDRESS`` or starts a local Ray on 127.0.0.1)."""

    def __init__(self, game: Game, net: Any, settings: dict[str, Any], threads: int, device: str) -> None:
        import ray

        from parlour.ray_cluster import connect

        self.started = connect(settings["address"])
        gpus = 1 / settings["workers"] if device == "cuda" else 0  # the actors share the driver's GPU
        actor = ray.remote(num_cpus=1, num_gpus=gpus)(_SelfPlayActor)
        # Ray's actor handles: proxies whose remote methods Ray's annotations do not describe
        self.actors: list[Any] = [actor.remote(game, net.shape, settings, threads, device) for _ in range(settings["workers"])]

    def play(self, weights: bytes | None, seeds: list[int]) -> Played:
        import ray
        from ray.exceptions import RayActorError, RayTaskError

        shared = ray.put(weights)  # once into the object store, read by every actor
        workers = len(self.actors)
        pending = [actor.play.remote(shared, seeds[i::workers]) for i, actor in enumerate(self.actors)]
        try:
            return in_seed_order(ray.get(pending), len(seeds))
        except (RayTaskError, RayActorError) as error:
            raise RuntimeError(f"a self-play actor failed: {error}") from None

    def close(self) -> None:
        import ray

        for actor in self.actors:
            ray.kill(actor)
        if self.started:
            ray.shutdown()


class _SelfPlayActor:
    """One Ray actor: a worker process with its network, playing the games it is given."""

    def __init__(self, game: Game, shape: dict[str, Any], settings: dict[str, Any], threads: int, device: str) -> None:
        _init_worker(game, shape, settings, threads, device, guard=False)  # Ray manages its workers' lifetimes

    def play(self, weights: Any, seeds: list[int]) -> Played:
        return _play((weights, seeds))


def open_workers(backend: str, game: Game, net: Any, settings: dict[str, Any], threads: int,
                 device: str) -> LocalWorkers | RayWorkers | None:
    """The run's self-play workers (``None``: play in this process)."""
    if backend == "ray":
        return RayWorkers(game, net, settings, threads, device)
    if settings["workers"] > 1:
        return LocalWorkers(game, net, settings, threads, device)
    return None
