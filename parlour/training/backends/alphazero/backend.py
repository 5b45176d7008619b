"""``parlour train --algo alphazero``: expert iteration on parlour's own search.

Each *iteration* plays ``games_per_iteration`` self-play games with the current network
guiding ``PUCT`` at every seat (``self_play``), adds their positions to the replay
buffer, and trains the network on ``train_steps`` minibatches: cross-entropy between
the network's masked policy and the search's visit distribution, plus the squared error
between its values and every seat's final return (AlphaZero's loss; the L2 term is
Adam's ``weight_decay``).  The run's steps are self-play decisions (positions, forced
moves included), so ``timesteps`` and ``eval_every`` count positions, the work a run
pays for.

Why parlour's own search rather than OpenSpiel's AlphaZero, LightZero or mctx: OpenSpiel's
(``open_spiel/python/algorithms/alpha_zero`` in open_spiel 2.0) refuses games that are not
two-player with sequential turns and terminal rewards, so Tribolo (three seats),
Goofspiel and Tides of Time (simultaneous) are out, and its networks are JAX/Flax; mctx
(DeepMind) needs the whole game written in JAX (pgx's way), i.e. every game rewritten;
LightZero brings DI-engine and its own env interface and serves MuZero-family research.
parlour's searchers already handle every game of the protocol (several seats, skipped
turns, simultaneous moves, determinization), so ``PUCT`` adds AlphaZero's selection to
them in ~200 lines and the network is the only new piece.

A run may start from a *teacher* (``alphazero.teacher``, a policy spec such as
``paranoid:depth=2``): until ``teacher_positions`` positions, the games are the teacher's at
every seat and the network learns its moves and the outcomes; then self-play with the
network's search takes over.  This is expert iteration's warm start (Anthony et al. 2017
begin from an imitation of the expert; AlphaGo's policy network first learned expert
moves, Silver et al. 2016): on two cores a search-guided run affords a few hundred
self-play games per hour in Tribolo, too few to learn the game from nothing, while a
fast depth-limited searcher plays thousands.

A backend of the one training loop (``trainer.py``): a run directory with config.toml,
atomic checkpoints at every evaluation (network, optimizer, replay buffer, generator
state, counters) that a resume continues from exactly, evaluations.csv and the learning
curve, TensorBoard scalars, best.zip and last.zip.  best.zip is earned: the step-0
network is best until a later network beats it in a gating match (``gating.gating_match``, recorded in
gating.csv), and a run whose best is still the untrained network says so in its
result's ``warnings``.  Self-play runs in ``workers`` processes; every game's seed depends only on the run's seed,
the iteration and the game's index, and the network is the same everywhere, so the run
is the same for any number of workers.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parlour.baselines.learned.alphazero import INFERENCE, AlphaZeroPolicy
from parlour.baselines.policy import make_from_spec
from parlour.evaluation.win_rates import rates_deterministic
from parlour.training.backend import LOCAL, Backend, BestSoFar, RunContext
from parlour.training.backend_settings import NetworkSettings, setting
from parlour.training.gating import GATING_FIELDS, gating_match, untrained_best_warning
from parlour.training.run_files import Checkpoint, copy_atomic, write_csv
from parlour.training.seeds import game_seed

if TYPE_CHECKING:
    from parlour.training.backends.alphazero.self_play import Examples


EVAL_TEMPERATURE = 0.25
"""How evaluations and the final arena sample an agent's move in games without chance
(where a deterministic agent would replay one game against a deterministic baseline):
from the visit counts raised to 1/0.25, nearly always the most visited move, unlike the
raw counts of a small search, which spread over moves it has barely looked at."""


@dataclass(frozen=True)
class AlphaZeroSettings(NetworkSettings):
    """The ``[alphazero]`` table: PUCT ``simulations`` per
    self-play decision with exploration ``c``; Dirichlet noise ``dirichlet_alpha`` (divided by
    the number of legal moves: AlphaZero's 0.3 for chess's ~30) mixed in at
    ``dirichlet_fraction``; each seat's first ``temperature_moves`` moves drawn from the
    visits; per iteration ``games_per_iteration`` self-play games, then ``train_steps``
    minibatches of ``batch_size`` from the newest ``buffer_size`` positions (Adam,
    ``learning_rate``, ``weight_decay``); ``hidden`` units in the heads; self-play in
    ``workers`` processes (the results do not depend on it); the evaluations and the final
    arena play with ``eval_simulations`` per move; ``rollout_mix`` (lambda in [0, 1]) mixes one
    random playout into every leaf's value, AlphaGo's way (see ``NetworkEvaluator``);
    ``teacher`` (a policy spec, e.g. ``paranoid:depth=2``) plays the self-play games of the
    first ``teacher_positions`` positions instead of the search, and the network learns its
    moves (expert iteration's warm start, see ``self_play.play_teacher_game``); at every
    evaluation after the first, the network becomes best only by scoring at least
    ``gate_threshold`` against the current best in a gating match of ``gate_games`` games at
    ``eval_simulations`` each (``alphazero.gate``); with ``backend = "ray"``, ``address`` of
    the Ray cluster whose actors play the self-play games (empty: ``RAY_ADDRESS`` if set,
    else a local Ray on 127.0.0.1); ``gumbel``: the self-play searches choose at their roots
    by Gumbel sampling and sequential halving over at most ``gumbel_considered`` actions and
    target the improved policy (``engines.gumbel``) instead of Dirichlet noise and visit
    counts; ``fast_simulations`` > 0: playout cap randomization (KataGo), a fraction
    ``full_fraction`` of the decisions searched with ``simulations`` and used as policy
    targets, the others with ``fast_simulations`` and used for the values only;
    ``symmetries``: every training example is replaced by a random symmetric image of it
    where the game's rules have symmetries (``Game.symmetries``: Tribolo's board);
    ``cell_policy``: with the board CNN, where the moves are cells (``Game.action_planes``),
    each move's logit from its own cell's features (``PolicyValueNet``'s ``action_planes``);
    ``inference``: ``"bfloat16"`` runs self-play's network calls on a bfloat16 copy of the
    network (``az_model.InferenceCopy``: about twice the board network's speed on a CPU with
    native bfloat16), ``"float32"`` on the network itself; ``torch_threads``: the threads
    torch may use in the trainer and in each self-play worker.  The network's shape:
    ``NetworkSettings`` (``network``, ``cnn_channels``, ``cnn_blocks``)."""

    simulations: int = setting(64, low=1)
    c: float = setting(1.5, low=0)
    dirichlet_alpha: float = setting(10.0, positive=True)
    dirichlet_fraction: float = setting(0.25, low=0, high=1)
    temperature_moves: int = setting(8, low=0)
    games_per_iteration: int = setting(16, low=1)
    train_steps: int = setting(32, low=1)
    batch_size: int = setting(128, low=1)
    buffer_size: int = setting(20_000, low=1)
    learning_rate: float = setting(1e-3, positive=True)
    weight_decay: float = setting(1e-4, low=0)
    hidden: int = setting(128, low=1)
    workers: int = setting(1, low=1)
    eval_simulations: int = setting(64, low=0)
    rollout_mix: float = setting(0.0, low=0, high=1)
    teacher: str = setting("")
    teacher_positions: int = setting(0, low=0)
    gate_games: int = setting(40, low=1)
    gate_threshold: float = setting(0.55, low=0, high=1)
    address: str = setting("")
    gumbel: bool = setting(False)
    gumbel_considered: int = setting(16, low=1)
    fast_simulations: int = setting(0, low=0)
    full_fraction: float = setting(0.25, low=0, high=1)
    symmetries: bool = setting(True)
    cell_policy: bool = setting(False)
    inference: str = setting("float32", choices=INFERENCE)
    torch_threads: int = setting(1, low=1)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.teacher_positions and not self.teacher:
            raise ValueError(f"teacher_positions={self.teacher_positions} needs alphazero.teacher, "
                             "the policy spec that plays those games (e.g. paranoid:depth=2)")


class AlphaZeroBackend(Backend):
    """Expert iteration with parlour's search (see the module docstring)."""

    algo = "alphazero"
    runs_on = (LOCAL, "ray")
    Settings = AlphaZeroSettings
    summary = "self-play guiding PUCT search; steps are positions"
    address = "address"

    def __init__(self, run: RunContext) -> None:
        super().__init__(run)
        self.az = self.config.alphazero
        self.eval_workers = self.az["workers"]
        self.workers: Any = None  # None: self-play in this process (or not opened yet)
        self.workers_open = False

    def check_settings(self) -> None:
        if self.az["teacher"]:  # a bad spec fails here, before anything is written or replaced
            make_from_spec(self.az["teacher"], self.game)

    @property
    def model_extra(self) -> dict[str, Any]:
        """What a model file of this run records besides the game and the network."""
        return {"rollout_mix": self.az["rollout_mix"]}

    def learner_spec(self, path: str) -> str:
        """How evaluations and the final arena play a model of this run."""
        spec = f"az:{path},simulations={self.az['eval_simulations']}" + (",gumbel=true" if self.az["gumbel"] else "")
        return spec if rates_deterministic(self.game) else f"{spec},deterministic=false,temperature={EVAL_TEMPERATURE}"

    def untrained_best_warning(self) -> str:
        return untrained_best_warning(self.gating, self.az["gate_threshold"], self.az["gate_games"], "network")

    # -- the model ---------------------------------------------------------------------

    def _build(self) -> None:
        """The network (initial weights from the run's seed), optimizer, replay buffer and generator."""
        import torch

        from parlour.baselines.learned.az_model import PolicyValueNet
        from parlour.training.backends.alphazero.self_play import ReplayBuffer

        config, game, az = self.config, self.game, self.az
        torch.set_num_threads(az["torch_threads"])
        with torch.random.fork_rng():  # torch's global generator untouched
            torch.manual_seed(config.seed)
            cells = game.action_planes if az["cell_policy"] and self.run.network == "cnn" else None
            net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, network=self.run.network,
                                 channels=az["cnn_channels"], blocks=az["cnn_blocks"], hidden=az["hidden"], action_planes=cells)
        self.net = net.to(self.run.device)
        self.optimizer = torch.optim.Adam(net.parameters(), lr=az["learning_rate"], weight_decay=az["weight_decay"])
        self.buffer = ReplayBuffer(az["buffer_size"], game.observation_shape, game.num_actions, game.num_players)
        self.rng = np.random.default_rng(np.random.SeedSequence(config.seed, spawn_key=(4,)))
        self.symmetries = game.symmetries()
        self.iteration = 0
        self.gating: list[dict[str, Any]] = []

    def start(self) -> None:
        self._build()

    def restore(self, checkpoint: Checkpoint) -> None:
        from parlour.baselines.learned.az_model import read_az_net

        self._build()
        state = checkpoint.state
        saved, _ = read_az_net(checkpoint.model)
        self.net.load_state_dict(saved.state_dict())
        self.optimizer.load_state_dict(state["optimizer"])
        self.buffer.restore(np.load(io.BytesIO(state["buffer"])))
        self.rng.bit_generator.state = state["rng"]
        self.iteration = state["iteration"]
        self.gating = state.get("gating", [])  # runs before gating: none

    def train(self, step: int, until: int, advance: Callable[[int], None]) -> int:
        """Iterations of self-play and training until ``until`` positions."""
        from parlour.training.backends.alphazero.self_play import Examples
        from parlour.training.backends.alphazero.workers import open_workers
        if self.writer is None:
            self.open_writer("alphazero")
        if not self.workers_open:
            self.workers = open_workers(self.config.backend, self.game, self.net, self.az, self.az["torch_threads"],
                                        self.run.device)
            self.workers_open = True
        writer = self.writer
        while step < until:
            t0 = time.perf_counter()
            games = self._self_play(teacher=step < self.az["teacher_positions"])
            seconds = time.perf_counter() - t0
            examples = Examples.concatenate([examples for examples, _ in games])
            self.buffer.add(examples)
            losses = self._fit()
            self.iteration += 1
            step += len(examples)
            writer.add_scalar("selfplay/games_per_minute", len(games) * 60 / seconds, step)
            writer.add_scalar("selfplay/positions", len(examples), step)
            for name, value in losses.items():
                writer.add_scalar(f"loss/{name}", value, step)
            advance(len(examples))
        return step

    def _self_play(self, teacher: bool) -> list[tuple[Examples, np.ndarray]]:
        """The iteration's games, in seed order: the network's self-play, or the teacher's (``teacher``)."""
        from parlour.training.backends.alphazero.self_play import play_games, play_teacher_game
        from parlour.training.backends.alphazero.workers import packed_weights

        seeds = [game_seed(self.config.seed, self.iteration, i) for i in range(self.az["games_per_iteration"])]
        if self.workers is not None:
            return self.workers.play(None if teacher else packed_weights(self.net), seeds)
        if teacher:
            return [play_teacher_game(self.game, self.az, seed) for seed in seeds]
        return play_games(self.game, self.net.eval(), self.az, seeds)

    def _fit(self) -> dict[str, float]:
        """``train_steps`` minibatches of AlphaZero's loss; the mean losses."""
        from parlour.training.backends.alphazero.self_play import augment

        az, net, device = self.az, self.net, self.run.device
        net.train()
        totals = {"policy": 0.0, "value": 0.0}
        for _ in range(az["train_steps"]):
            batch = self.buffer.sample(min(az["batch_size"], len(self.buffer)), self.rng)
            if az["symmetries"]:
                batch = augment(batch, self.symmetries, self.rng)
            policy_loss, value_loss = alphazero_loss(net, batch, device)
            self.optimizer.zero_grad()
            (policy_loss + value_loss).backward()
            self.optimizer.step()
            totals["policy"] += policy_loss.item()
            totals["value"] += value_loss.item()
        net.eval()
        return {name: total / az["train_steps"] for name, total in totals.items()}

    # -- evaluation and checkpoints ----------------------------------------------------

    def save_candidate(self, path: Path, step: int) -> Path:
        from parlour.baselines.learned.az_model import save_az_model

        candidate = path.with_suffix(".zip")
        save_az_model(self.net, candidate, self.game, self.model_extra)
        return candidate

    def candidate_agent(self, candidate: Path) -> Any:
        """The network searching ``eval_simulations`` per move."""
        return AlphaZeroPolicy(self.game, path=str(candidate), simulations=self.az["eval_simulations"], gumbel=self.az["gumbel"],
                               deterministic=rates_deterministic(self.game), temperature=EVAL_TEMPERATURE)

    def earns_best(self, agent: Any, candidate: Path, step: int, score: float, best: BestSoFar) -> bool:
        """Step 0's network is best (and kept as untrained.zip) until a later one wins a
        gating match against the best (``gating.gating_match``; gating.csv gets its row)."""
        if step == 0:
            copy_atomic(candidate, self.files.untrained)
            write_csv(self.files.gating, GATING_FIELDS, self.gating)
            return True
        az = self.az
        row = gating_match(self.run, agent, self.learner_spec(str(self.files.best)), step, best.step,
                           az["gate_games"], az["gate_threshold"], workers=az["workers"])
        self.gating.append(row)
        write_csv(self.files.gating, GATING_FIELDS, self.gating)
        self.record({"eval/gating_score": row["score"]}, step)
        return bool(row["passed"])

    def state(self) -> dict[str, Any]:
        packed = io.BytesIO()
        np.savez_compressed(packed, **self.buffer.state())
        return {"iteration": self.iteration, "gating": list(self.gating), "rng": self.rng.bit_generator.state,
                "optimizer": self.optimizer.state_dict(), "buffer": packed.getvalue()}

    def close(self) -> None:
        super().close()
        if self.workers is not None:
            self.workers.close()
            self.workers = None
        self.workers_open = False


def alphazero_loss(net: Any, batch: Examples, device: Any = "cpu") -> tuple[Any, Any]:
    """AlphaZero's two losses on ``batch`` (torch scalars): the cross-entropy of the
    masked policy against the search's visits, over the full searches' examples only
    (playout cap randomization), and the squared error of the values."""
    import torch

    observations, masks, policies, targets, full = (torch.from_numpy(array).to(device) for array in
                                                    (batch.observations, batch.masks, batch.policies, batch.values, batch.full))
    logits, values = net(observations)
    logits = logits.masked_fill(~masks, -1e9)
    cross_entropy = -(policies * torch.log_softmax(logits, dim=1)).sum(dim=1)
    policy_loss = (cross_entropy * full).sum() / full.sum().clamp(min=1)
    return policy_loss, ((values - targets) ** 2).mean()
