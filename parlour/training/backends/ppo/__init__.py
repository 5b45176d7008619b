"""PPO on this machine (``parlour train``'s default): ``backend`` (``PPOBackend`` and its
settings, SB3's MaskablePPO and its vectorized envs) and ``callback`` (the SB3 callback
of its progress and self-play snapshots, apart because it subclasses SB3's class, which
the registry must not need to read the backend's declaration)."""
