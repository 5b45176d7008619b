"""parlour's standard benchmark: calibrated ladders of baseline players per game, and
``bench`` to rate any agent on a ladder's fixed scale (``parlour bench``).

See docs/benchmark.md for the protocol, the ladders and the leaderboard.
"""

from parlour.ladder.ladders import LADDERS, PROTOCOL, Ladder, LadderSpec, ladder_spec, load_ladder

__all__ = ["LADDERS", "PROTOCOL", "Ladder", "LadderSpec", "ladder_spec", "load_ladder"]
