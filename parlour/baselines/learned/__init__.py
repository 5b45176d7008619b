"""Players backed by trained models: ``ppo:PATH`` (an sb3-contrib MaskablePPO model file
written by ``parlour train``), ``az:PATH`` (a policy-value network of ``parlour train
--algo alphazero``, playing with PUCT search), ``rllib:PATH`` (a PPO agent trained on
Ray RLlib), ``ntuple:PATH`` (a learned n-tuple evaluation inside the game's alpha-beta
search, ``parlour train-ntuple``) and their file formats; ``alphazero_batched`` registers
``az:PATH,simulations=0``'s batched form (``parlour.baselines.batched``), ``ppo_batched``
``ppo:PATH``'s, ``rllib_batched`` ``rllib:PATH``'s and ``zoo_batched`` a zoo agent's (its card's player's form).  torch,
Stable-Baselines3 and Ray are imported only when a model is loaded (the ``train`` and
``rllib`` extras)."""

from parlour.baselines.learned import (  # noqa: F401  (registration)
    alphazero,
    alphazero_batched,
    ntuple,
    ppo,
    ppo_batched,
    rllib,
    rllib_batched,
    zoo_batched,
    zoo_player,
)
