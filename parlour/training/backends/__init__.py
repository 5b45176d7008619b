"""The training backends parlour ships, one module each: ``ppo`` (SB3's MaskablePPO on
this machine), ``alphazero`` (search-guided self-play, locally or on Ray actors),
``ntuple`` (an n-tuple evaluation by TD(lambda) inside alpha-beta) and ``rllib`` (PPO on
Ray RLlib).  Each declares what it trains, where it runs and its settings;
``parlour.training.registry`` names them and derives the rest."""
