"""Players backed by trained models: ``ppo:PATH`` (an sb3-contrib MaskablePPO model file
written by ``parlour train``) and that file format.  torch and Stable-Baselines3 are
imported only when a model is loaded (the ``train`` extra)."""

from parlour.baselines.learned import ppo  # noqa: F401  (registration)
