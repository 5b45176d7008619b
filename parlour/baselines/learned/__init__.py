"""Players backed by trained models: ``ppo:PATH`` (an sb3-contrib MaskablePPO model file
written by ``parlour train``), ``az:PATH`` (a policy-value network of ``parlour train
--algo alphazero``, playing with PUCT search) and their file formats.  torch and
Stable-Baselines3 are imported only when a model is loaded (the ``train`` extra)."""

from parlour.baselines.learned import alphazero, ppo  # noqa: F401  (registration)
