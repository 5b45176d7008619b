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

Same conventions as the PPO runs (``train.py``): a run directory with config.toml,
atomic checkpoints at every evaluation (network, optimizer, replay buffer, generator
state, counters) that a resume continues from exactly, evaluations.csv and the learning
curve, TensorBoard scalars, best.zip and last.zip.  best.zip is earned: the step-0
network is best until a later network beats it in a gating match (``gate``, recorded in
gating.csv), and a run whose best is still the untrained network says so in its
result's ``warnings``.  Self-play runs in ``workers`` processes; every game's seed depends only on the run's seed,
the iteration and the game's index, and the network is the same everywhere, so the run
is the same for any number of workers.
"""

from __future__ import annotations

import io
import time
from typing import Any

import numpy as np

from parlour.baselines.learned.alphazero import AlphaZeroPolicy
from parlour.baselines.policy import make_from_spec
from parlour.training.run_files import (
    copy_atomic,
    read_evaluations,
    write_atomic,
    write_checkpoint,
    write_csv,
    write_evaluations,
)
from parlour.training.self_play import Examples, ReplayBuffer, augment, play_games, play_teacher_game
from parlour.training.self_play_workers import open_workers, packed_weights
from parlour.training.train import Trainer, TrainResult, progress_bar, segment_seed
from parlour.evaluation.win_rates import rates_deterministic, win_rates


EVAL_TEMPERATURE = 0.25
"""How evaluations and the final arena sample an agent's move in games without chance
(where a deterministic agent would replay one game against a deterministic baseline):
from the visit counts raised to 1/0.25, nearly always the most visited move, unlike the
raw counts of a small search, which spread over moves it has barely looked at."""


GATING_FIELDS = ["step", "best_step", "games", "score", "win_rate", "win_low", "win_high", "draw_rate", "threshold", "passed"]
"""The columns of a run's gating.csv, a row per gating match."""


def untrained_best_warning(gating: list[dict[str, Any]], az: dict[str, Any]) -> str:
    """What a run whose best.zip is still the step-0 network says about it."""
    tried = ", ".join(f"{row['score']:.0%} at step {row['step']:,}" for row in gating[-3:])
    return (f"best.zip is the UNTRAINED step-0 network: no trained network reached {az['gate_threshold']:.0%} against it "
            f"in a gating match of {az['gate_games']} games ({len(gating)} tried; the last: {tried or 'none'}); "
            "the learning did not show at this budget (see gating.csv)")


def game_seed(seed: int, iteration: int, index: int) -> int:
    """The seed of self-play game ``index`` of ``iteration``."""
    return int(np.random.SeedSequence(seed, spawn_key=(3, iteration, index)).generate_state(1)[0])


class AlphaZeroTrainer(Trainer):
    """One alphazero run in ``out``; the same constructor and result as ``Trainer``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.total = self.config.timesteps
        self.segment_steps = self.config.eval_every
        self.symmetries = self.game.symmetries()

    def check_settings(self) -> None:
        if self.config.alphazero["teacher"]:  # a bad spec fails here, before anything is written or replaced
            make_from_spec(self.config.alphazero["teacher"], self.game)

    @property
    def model_extra(self) -> dict[str, Any]:
        """What a model file of this run records besides the game and the network."""
        return {"rollout_mix": self.config.alphazero["rollout_mix"]}

    def learner_spec(self, path: str) -> str:
        """How evaluations and the final arena play a model of this run."""
        sims = self.config.alphazero["eval_simulations"]
        spec = f"az:{path},simulations={sims}" + (",gumbel=true" if self.config.alphazero["gumbel"] else "")
        return spec if rates_deterministic(self.game) else f"{spec},deterministic=false,temperature={EVAL_TEMPERATURE}"

    # -- the run ---------------------------------------------------------------------

    def run(self) -> TrainResult:
        import torch

        from parlour.baselines.learned.az_model import PolicyValueNet

        start = time.perf_counter()
        config, files, game = self.config, self.files, self.game
        az = config.alphazero
        torch.set_num_threads(config.torch_threads)
        with torch.random.fork_rng():  # the initial weights from the run's seed, torch's global generator untouched
            torch.manual_seed(config.seed)
            cells = game.action_planes if az["cell_policy"] and self.network == "cnn" else None
            net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, network=self.network,
                                 channels=config.cnn_channels, blocks=config.cnn_blocks, hidden=az["hidden"], action_planes=cells)
        net.to(self.device)
        optimizer = torch.optim.Adam(net.parameters(), lr=az["learning_rate"], weight_decay=az["weight_decay"])
        buffer = ReplayBuffer(az["buffer_size"], game.observation_shape, game.num_actions, game.num_players)
        rng = np.random.default_rng(np.random.SeedSequence(config.seed, spawn_key=(4,)))
        if self.resume:
            checkpoint = self.begin_resume()
            state = checkpoint.state
            from parlour.baselines.learned.az_model import read_az_net

            saved, _ = read_az_net(checkpoint.model)
            net.load_state_dict(saved.state_dict())
            optimizer.load_state_dict(state["optimizer"])
            buffer.restore(np.load(io.BytesIO(state["buffer"])))
            rng.bit_generator.state = state["rng"]
            step, iteration = state["step"], state["iteration"]
            best_step, gating = state.get("best_step", 0), state.get("gating", [])  # runs before gating: step 0
            rows = read_evaluations(files, up_to=step)
            write_evaluations(files, rows)
            self.log(f"resuming {files.root} at step {step:,} of {self.total:,}")
        else:
            files.root.mkdir(parents=True, exist_ok=True)
            write_atomic(files.config, config.to_toml())
            step, iteration, gating = 0, 0, []
            rows, best_step = self._evaluate_net(net, 0, 0, gating)
            self._save(net, optimizer, buffer, rng, rows, step, iteration, best_step, gating)
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(files.tensorboard / "alphazero"))
        bar = progress_bar(self.total, step, self.progress)
        workers = open_workers(config.backend, game, net, az, config.torch_threads, self.device)
        try:
            while step < self.total:
                t0 = time.perf_counter()
                games = self._self_play(net, iteration, workers, teacher=step < az["teacher_positions"])
                seconds = time.perf_counter() - t0
                examples = Examples.concatenate([examples for examples, _ in games])
                buffer.add(examples)
                losses = self._train(net, optimizer, buffer, rng)
                iteration += 1
                before, step = step, step + len(examples)
                writer.add_scalar("selfplay/games_per_minute", len(games) * 60 / seconds, step)
                writer.add_scalar("selfplay/positions", len(examples), step)
                for name, value in losses.items():
                    writer.add_scalar(f"loss/{name}", value, step)
                if bar is not None:
                    bar.update(len(examples))
                if step // self.segment_steps > before // self.segment_steps or step >= self.total:
                    new_rows, best_step = self._evaluate_net(net, step, best_step, gating)
                    for row in new_rows:
                        writer.add_scalar(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"], step)
                    if gating and gating[-1]["step"] == step:
                        writer.add_scalar("eval/gating_score", gating[-1]["score"], step)
                    rows.extend(new_rows)
                    self._save(net, optimizer, buffer, rng, rows, step, iteration, best_step, gating)
        finally:
            writer.close()
            if bar is not None:
                bar.close()
            if workers is not None:
                workers.close()
        self._plot(rows)
        warnings = []
        if best_step == 0 and step > 0:
            warnings.append(untrained_best_warning(gating, az))
        return TrainResult(files.root, step, rows, best_step, time.perf_counter() - start, warnings)

    def _self_play(self, net: Any, iteration: int, workers: Any, teacher: bool) -> list[tuple[Examples, np.ndarray]]:
        """The iteration's games, in seed order: the network's self-play, or the teacher's (``teacher``)."""
        az = self.config.alphazero
        seeds = [game_seed(self.config.seed, iteration, i) for i in range(az["games_per_iteration"])]
        if workers is not None:
            return workers.play(None if teacher else packed_weights(net), seeds)
        if teacher:
            return [play_teacher_game(self.game, az, seed) for seed in seeds]
        return play_games(self.game, net.eval(), az, seeds)

    def _train(self, net: Any, optimizer: Any, buffer: ReplayBuffer, rng: np.random.Generator) -> dict[str, float]:
        """``train_steps`` minibatches of AlphaZero's loss; the mean losses."""
        import torch

        az = self.config.alphazero
        net.train()
        totals = {"policy": 0.0, "value": 0.0}
        for _ in range(az["train_steps"]):
            batch = buffer.sample(min(az["batch_size"], len(buffer)), rng)
            if az["symmetries"]:
                batch = augment(batch, self.symmetries, rng)
            observations, masks, policies, targets, full = (torch.from_numpy(array).to(self.device) for array in
                                                            (batch.observations, batch.masks, batch.policies, batch.values, batch.full))
            logits, values = net(observations)
            logits = logits.masked_fill(~masks, -1e9)
            cross_entropy = -(policies * torch.log_softmax(logits, dim=1)).sum(dim=1)
            policy_loss = (cross_entropy * full).sum() / full.sum().clamp(min=1)  # the full searches' targets only
            value_loss = ((values - targets) ** 2).mean()
            optimizer.zero_grad()
            (policy_loss + value_loss).backward()
            optimizer.step()
            totals["policy"] += policy_loss.item()
            totals["value"] += value_loss.item()
        net.eval()
        return {name: total / az["train_steps"] for name, total in totals.items()}

    def _evaluate_net(self, net: Any, step: int, best_step: int, gating: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
        """Rate the network (with ``eval_simulations`` of search) against the evaluation
        opponents, then, after step 0, gate it against best.zip (``gate``, its row appended
        to ``gating``); the rows and the step of the best network after this evaluation."""
        from parlour.baselines.learned.az_model import save_az_model

        candidate = self.files.root / ".candidate.zip"
        save_az_model(net, candidate, self.game, self.model_extra)
        try:
            az = self.config.alphazero
            agent = AlphaZeroPolicy(self.game, path=str(candidate), simulations=az["eval_simulations"], gumbel=az["gumbel"],
                                    deterministic=rates_deterministic(self.game), temperature=EVAL_TEMPERATURE)
            rows = self.evaluation_rows(agent, step, workers=az["workers"])
            if step == 0:  # the untrained network is best until a trained one beats it
                copy_atomic(candidate, self.files.untrained)
                self.keep_best(candidate)
                return rows, 0
            gating.append(self.gate(agent, step, best_step))
            if gating[-1]["passed"]:
                self.keep_best(candidate)
                best_step = step
            return rows, best_step
        finally:
            candidate.unlink(missing_ok=True)

    def gate(self, agent: Any, step: int, best_step: int) -> dict[str, Any]:
        """The gating match of the network of ``step`` (``agent``) against best.zip (the
        network of ``best_step``), both searching ``eval_simulations`` per move, over
        ``gate_games`` games with every seat equally often: its row, ``passed`` if the
        candidate's score (win 1, draw 1/2, against each other seat) reaches
        ``gate_threshold``.  AlphaGo Zero's evaluator (Silver et al. 2017: 400 games,
        55%), so that a noisy evaluation cannot make a worse network best."""
        az = self.config.alphazero
        (row,) = win_rates(self.game, agent, [self.learner_spec(str(self.files.best))], az["gate_games"],
                           seed=segment_seed(self.config.seed, 2 * 10**6 + step), workers=az["workers"])
        passed = row["score"] >= az["gate_threshold"]
        result = {"step": step, "best_step": best_step, "games": row["games"], "score": row["score"],
                  "win_rate": row["win_rate"], "win_low": row["win_low"], "win_high": row["win_high"],
                  "draw_rate": row["draw_rate"], "threshold": az["gate_threshold"], "passed": passed}
        verdict = "becomes best" if passed else f"the network of step {best_step:,} stays best"
        self.log(f"step {step:,}: gating against the best (step {best_step:,}): score {row['score']:.0%} over "
                 f"{row['games']} games, threshold {az['gate_threshold']:.0%}: {verdict}")
        return result

    def _save(self, net: Any, optimizer: Any, buffer: ReplayBuffer, rng: np.random.Generator, rows: list[dict[str, Any]],
              step: int, iteration: int, best_step: int, gating: list[dict[str, Any]]) -> None:
        from parlour.baselines.learned.az_model import save_az_model

        write_evaluations(self.files, rows)
        write_csv(self.files.gating, GATING_FIELDS, gating)
        packed = io.BytesIO()
        np.savez_compressed(packed, **buffer.state())
        state = {"step": step, "iteration": iteration, "best_step": best_step, "gating": gating, "rng": rng.bit_generator.state,
                 "optimizer": optimizer.state_dict(), "buffer": packed.getvalue()}
        write_checkpoint(self.files, step, lambda path: save_az_model(net, path, self.game, self.model_extra), state)
        copy_atomic(self.files.checkpoint_dir(step) / "model.zip", self.files.last)



