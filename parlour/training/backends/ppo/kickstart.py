"""MaskablePPO with a teacher: kickstarting's distillation term in the PPO loss.

Three pieces carry the teacher's distributions (``parlour.training.teacher``) from the
learner's positions to its loss:

- :class:`TeacherVecEnv` wraps the run's vector env and asks the teacher for the
  learner's position in every game after each reset and step, keeping the answer for
  the positions the learner faced before the step (``previous``), the ones its actions
  were chosen on;
- :class:`TeacherRolloutBuffer` stores those beside each transition of the rollout and
  hands them out with the minibatches;
- :class:`KickstartedPPO` computes PPO's clipped loss as MaskablePPO does, plus
  ``weight(t) * CE(teacher, learner)``: the cross-entropy from the teacher's distribution
  to the learner's masked policy, averaged over the minibatch's rows that have a teacher
  (a row of zeros has none), with ``t`` the run's step count when the update starts.

The teacher and the weight are attached after the model is made or loaded
(:meth:`KickstartedPPO.attach`) and are not saved with it: a saved model is a plain
MaskablePPO that ``MaskablePPO.load`` and the ``ppo:`` player read as any other.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812 (torch's own convention)
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from stable_baselines3.common.utils import explained_variance
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from parlour.training.teacher import BatchedTeacher, SingleTeacher


class TeacherVecEnv(VecEnvWrapper):
    """``venv`` with the teacher's distribution for every game's learner position (see
    the module docstring): a :class:`BatchedTeacher` reads the batched engine under
    ``venv``, a :class:`SingleTeacher` the single games' information states
    (``SingleAgentEnv.learner_info_state`` through ``env_method``, in any worker)."""

    def __init__(self, venv: VecEnv, teacher: BatchedTeacher | SingleTeacher) -> None:
        super().__init__(venv)
        self.teacher = teacher
        self.current: np.ndarray | None = None
        """The teacher's distributions for the positions the learner faces now."""
        self.previous: np.ndarray | None = None
        """... for the positions it faced before the last step (its actions' positions)."""

    def ask(self) -> np.ndarray:
        """``(num_envs, num_actions)`` float32: the teacher's distribution for every game now."""
        if isinstance(self.teacher, BatchedTeacher):
            core = self.venv.unwrapped.core  # BatchedSB3VecEnv's LearnerCore
            return self.teacher.distributions(core.engine, core.seats)
        return self.teacher.distributions(self.venv.env_method("learner_info_state"))

    def reset(self) -> Any:
        obs = self.venv.reset()
        self.current, self.previous = self.ask(), None
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        result = self.venv.step_wait()
        self.previous, self.current = self.current, self.ask()
        return result


class TeacherSamples(NamedTuple):
    """A minibatch: MaskablePPO's fields and the teacher's distributions."""

    observations: torch.Tensor
    actions: torch.Tensor
    old_values: torch.Tensor
    old_log_prob: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    action_masks: torch.Tensor
    teacher_probs: torch.Tensor


class TeacherRolloutBuffer(MaskableRolloutBuffer):
    """MaskablePPO's rollout buffer with the teacher's distribution of every transition,
    read from ``source`` (the run's :class:`TeacherVecEnv`) as each one is added."""

    source: TeacherVecEnv | None = None

    def reset(self) -> None:
        super().reset()
        self.teacher_probs = np.zeros((self.buffer_size, self.n_envs, self.mask_dims), dtype=np.float32)

    def add(self, *args: Any, **kwargs: Any) -> None:
        if self.source is None or self.source.previous is None:
            raise RuntimeError("the teacher's rollout buffer needs its TeacherVecEnv (KickstartedPPO.attach) and a step")
        self.teacher_probs[self.pos] = self.source.previous
        super().add(*args, **kwargs)

    def get(self, batch_size: int | None = None) -> Generator[TeacherSamples, None, None]:
        if not self.generator_ready:  # flattened as the base class flattens its own arrays, the first time
            self.teacher_probs = self.swap_and_flatten(self.teacher_probs)
        yield from super().get(batch_size)

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> TeacherSamples:
        base = super()._get_samples(batch_inds, env)
        return TeacherSamples._make([*base, self.to_torch(self.teacher_probs[batch_inds])])


class KickstartedPPO(MaskablePPO):
    """MaskablePPO whose loss adds the teacher's distillation term (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.teacher_weight: Callable[[int], float] = lambda step: 0.0
        super().__init__(*args, **kwargs)

    def _setup_model(self) -> None:
        self.rollout_buffer_class = TeacherRolloutBuffer  # also where a load brought another class
        super()._setup_model()

    def _excluded_save_params(self) -> list[str]:
        # the teacher is the run's, not the model's: a saved model is a plain MaskablePPO
        return [*super()._excluded_save_params(), "rollout_buffer_class", "rollout_buffer_kwargs", "teacher_weight"]

    def attach(self, env: TeacherVecEnv, weight: Callable[[int], float]) -> None:
        """Take the teacher's distributions from ``env`` (the model's env) and weigh the
        term by ``weight(step)``."""
        if self.env is not env:
            raise ValueError("the teacher's env must be the model's own env")
        self.rollout_buffer.source = env
        self.teacher_weight = weight

    def train(self) -> None:
        """One PPO update over the rollout (MaskablePPO's clipped surrogate, value and
        entropy losses, its KL early stop and its logs) with the distillation term."""
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)
        clip_range_vf = None if self.clip_range_vf is None else self.clip_range_vf(self._current_progress_remaining)
        weight = float(self.teacher_weight(self.num_timesteps))
        logs: dict[str, list[float]] = {key: [] for key in ("entropy", "pg", "value", "clip", "distill", "kl")}
        loss = torch.zeros(())
        continue_training = True
        for _epoch in range(self.n_epochs):
            logs["kl"] = []
            for batch in self.rollout_buffer.get(self.batch_size):
                actions = batch.actions.long().flatten() if isinstance(self.action_space, spaces.Discrete) else batch.actions
                values, log_prob, entropy = self.policy.evaluate_actions(batch.observations, actions, action_masks=batch.action_masks)
                learner_log_probs = self.policy.action_dist.distribution.logits  # masked, normalised
                values = values.flatten()
                advantages = batch.advantages
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                ratio = torch.exp(log_prob - batch.old_log_prob)
                policy_loss = -torch.min(advantages * ratio, advantages * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)).mean()
                values_pred = values if clip_range_vf is None else (
                    batch.old_values + torch.clamp(values - batch.old_values, -clip_range_vf, clip_range_vf))
                value_loss = F.mse_loss(batch.returns, values_pred)
                entropy_loss = -torch.mean(-log_prob) if entropy is None else -torch.mean(entropy)
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                if weight > 0.0:
                    distill = distillation_loss(batch.teacher_probs, learner_log_probs)
                    loss = loss + weight * distill
                    logs["distill"].append(distill.item())
                logs["pg"].append(policy_loss.item())
                logs["value"].append(value_loss.item())
                logs["entropy"].append(entropy_loss.item())
                logs["clip"].append(torch.mean((torch.abs(ratio - 1) > clip_range).float()).item())
                with torch.no_grad():
                    log_ratio = log_prob - batch.old_log_prob
                    approx_kl = float(torch.mean((torch.exp(log_ratio) - 1) - log_ratio).cpu().numpy())
                    logs["kl"].append(approx_kl)
                if self.target_kl is not None and approx_kl > 1.5 * self.target_kl:
                    continue_training = False
                    break
                self.policy.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if not continue_training:
                break
        self._record(logs, loss, clip_range, clip_range_vf, weight)

    def _record(self, logs: dict[str, list[float]], loss: torch.Tensor, clip_range: float, clip_range_vf: float | None,
                weight: float) -> None:
        """MaskablePPO's ``train/`` logs, and the teacher's weight and term."""
        buffer = self.rollout_buffer
        record = self.logger.record
        record("train/entropy_loss", np.mean(logs["entropy"]))
        record("train/policy_gradient_loss", np.mean(logs["pg"]))
        record("train/value_loss", np.mean(logs["value"]))
        record("train/approx_kl", np.mean(logs["kl"]))
        record("train/clip_fraction", np.mean(logs["clip"]))
        record("train/loss", loss.item())
        record("train/explained_variance", explained_variance(buffer.values.flatten(), buffer.returns.flatten()))
        record("train/n_updates", self._n_updates, exclude="tensorboard")
        record("train/clip_range", clip_range)
        if clip_range_vf is not None:
            record("train/clip_range_vf", clip_range_vf)
        record("train/teacher_weight", weight)
        if logs["distill"]:
            record("train/distill_loss", np.mean(logs["distill"]))


def distillation_loss(teacher_probs: torch.Tensor, learner_log_probs: torch.Tensor) -> torch.Tensor:
    """The mean over the rows that have a teacher (any weight) of the cross-entropy
    ``-sum(p * log q)`` from the teacher's ``p`` to the learner's masked ``log q`` (the
    masked moves' ``log q`` is finite and very negative, and ``p`` is 0 there)."""
    cross_entropy = -(teacher_probs * learner_log_probs).sum(dim=1)
    has_teacher = teacher_probs.sum(dim=1) > 0
    if not bool(has_teacher.any()):
        return cross_entropy.sum() * 0.0
    return cross_entropy[has_teacher].mean()
