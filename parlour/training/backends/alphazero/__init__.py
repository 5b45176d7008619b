"""AlphaZero's backend (``parlour train --algo alphazero``), in three modules:
``backend`` (``AlphaZeroBackend`` and its settings: the iterations of self-play and
training), ``self_play`` (the search-guided games and their examples, the replay buffer)
and ``workers`` (where the self-play games are played: this process, local worker
processes or Ray actors).  The players of its models (``az:``) live with the other
players, in ``parlour.baselines.learned``."""
