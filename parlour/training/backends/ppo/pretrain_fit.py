"""The supervised start of a PPO learner: its policy fitted to a teacher's games.

``parlour.training.pretrain`` records the teacher's decisions; here MaskablePPO's own
policy (whatever network the run chose) is fitted to them before the first rollout:
the cross-entropy from the teacher's distribution to the masked policy, plus
``vf_coef`` times the value head's squared error against the mover's discounted return,
so that PPO's first advantages come from a critic that already knows the game.  The
game's symmetries (``Game.symmetries``, e.g. Tribolo's mirror images) multiply the data:
each minibatch is seen through one of them, drawn with the identity.  The fit has its
own Adam optimiser (PPO's starts fresh), a cosine learning rate, and draws its order
and symmetries from ``rng``: the same seed fits the same network.  ``held_out`` games
measure what the fit generalises (their rows are not trained on).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from parlour.games.base import Game
from parlour.training.pretrain import TeacherGames

BATCH = 256
"""Rows per minibatch of the fit."""


def policy_losses(policy: Any, observations: torch.Tensor, masks: np.ndarray, labels: torch.Tensor,
                  values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Cross-entropy to ``labels``, value squared error, and whether the policy's most
    probable move is the label's (per row, for the accuracy)."""
    predicted, _, _ = policy.evaluate_actions(observations, labels.argmax(dim=1), action_masks=masks)
    log_probs = policy.action_dist.distribution.logits  # masked, normalised (as KickstartedPPO reads it)
    cross_entropy = -(labels * log_probs).sum(dim=1)
    value_error = (predicted.flatten() - values) ** 2
    agrees = (log_probs.argmax(dim=1) == labels.argmax(dim=1)).float()
    return cross_entropy, value_error, agrees


def fit_policy(policy: Any, data: TeacherGames, game: Game, epochs: int, learning_rate: float, vf_coef: float,
               rng: np.random.Generator, held_out: float = 0.05,
               log: Callable[[str], None] = lambda line: None) -> list[dict[str, float]]:
    """Fit ``policy`` (an SB3 actor-critic policy) to ``data`` for ``epochs`` passes;
    returns each epoch's figures (``cross_entropy``, ``value_error``, ``agreement`` on the
    held-out games, and the training loss)."""
    games = np.unique(data.games)
    held = rng.choice(games, size=max(1, int(len(games) * held_out)), replace=False) if len(games) > 1 else games[:0]
    test = np.isin(data.games, held)
    train_rows, test_rows = np.flatnonzero(~test), np.flatnonzero(test)
    if not len(train_rows):
        raise ValueError("pretraining has no rows to fit: play more teacher games")
    symmetries = [None, *game.symmetries()]
    steps = epochs * max(1, len(train_rows) // BATCH)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps)
    observations = torch.as_tensor(data.observations)
    labels = torch.as_tensor(data.labels)
    values = torch.as_tensor(data.values)
    history = []
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = rng.permutation(train_rows)
        losses = []
        for start in range(0, max(1, len(order) - BATCH + 1), BATCH):
            rows = order[start:start + BATCH]
            symmetry = symmetries[int(rng.integers(len(symmetries)))]
            obs, masks, target = observations[rows], data.masks[rows], labels[rows]
            if symmetry is not None:
                obs = torch.as_tensor(symmetry.observations(obs.numpy()))
                masks = symmetry.over_actions(masks)
                target = torch.as_tensor(symmetry.over_actions(target.numpy()))
            cross_entropy, value_error, _ = policy_losses(policy, obs, masks, target, values[rows])
            loss = cross_entropy.mean() + vf_coef * value_error.mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            losses.append(loss.item())
        figures = {"epoch": epoch + 1, "loss": float(np.mean(losses)), **evaluate(policy, data, test_rows)}
        history.append(figures)
        log(f"pretraining epoch {epoch + 1}/{epochs}: loss {figures['loss']:.3f}, held-out cross-entropy "
            f"{figures['cross_entropy']:.3f}, agreement {figures['agreement']:.1%}, value error {figures['value_error']:.3f}")
    policy.set_training_mode(False)
    return history


def evaluate(policy: Any, data: TeacherGames, rows: np.ndarray) -> dict[str, float]:
    """Mean cross-entropy, value error and agreement with the teacher on ``rows`` (NaN without rows)."""
    if not len(rows):
        return {"cross_entropy": float("nan"), "value_error": float("nan"), "agreement": float("nan")}
    sums = np.zeros(3)
    with torch.no_grad():
        for start in range(0, len(rows), 4 * BATCH):
            chunk = rows[start:start + 4 * BATCH]
            parts = policy_losses(policy, torch.as_tensor(data.observations[chunk]), data.masks[chunk],
                                  torch.as_tensor(data.labels[chunk]), torch.as_tensor(data.values[chunk]))
            sums += [part.sum().item() for part in parts]
    cross_entropy, value_error, agreement = sums / len(rows)
    return {"cross_entropy": cross_entropy, "value_error": value_error, "agreement": agreement}
