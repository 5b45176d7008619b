"""The training backends parlour ships, a module or a package each: ``ppo`` (SB3's
MaskablePPO on this machine: its backend and its SB3 callback), ``alphazero``
(search-guided self-play, locally or on Ray actors: its backend, self-play and workers),
``ntuple`` (an n-tuple evaluation by TD(lambda) inside alpha-beta) and ``rllib`` (PPO on
Ray RLlib).  Each declares what it trains, where it runs and its settings;
``parlour.training.registry`` names them and derives the rest."""
