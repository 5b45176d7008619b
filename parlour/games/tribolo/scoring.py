"""Tribolo's scoring: the returns of a finished game from the cells each seat owns
(docs/tribolo.md, Rules, items 6-7), apart from the rules so that it can be read, and
tested, on its own (the batched engine computes the same on arrays).

``win_loss``: the ``w`` leaders get ``+1/w``, the others ``-1/(3-w)``; all tied: 0.
``cell_share``: own cells / all owned cells, minus 1/3.  Both are zero-sum.
"""

from __future__ import annotations

import numpy as np

RETURN_TYPES = ("win_loss", "cell_share")


def counts_to_returns(counts: list[int], kind: str) -> np.ndarray:
    """Returns of a finished game from the cell counts (docs/tribolo.md, Rules, items 6-7)."""
    if kind == "cell_share":
        total = sum(counts)
        if not total:
            return np.zeros(3)
        return np.array([c / total - 1.0 / 3.0 for c in counts])
    top = max(counts)
    w = counts.count(top)
    if w == 3:
        return np.zeros(3)
    win, loss = 1.0 / w, -1.0 / (3 - w)
    return np.array([win if c == top else loss for c in counts])
