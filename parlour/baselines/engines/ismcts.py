"""``ismcts``: single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012).

SO-ISMCTS grows one tree for the searching seat (the observer) over action histories
from its information state, and starts every iteration from a new determinization,
``info_state.sample(rng)``: a complete state consistent with what the observer knows.
An iteration may only follow the actions legal in its own determinization, so an
action is not always available (an opponent's card that this sample did not deal
it).  UCB therefore counts, per action, the visits to its node in which it was
available and uses that instead of the node's visit count:
``X(a) + c * sqrt(ln availability(a) / visits(a))``.

As in the paper's single-observer variant, the tree treats the other seats' moves as
observed; what the observer could not see before the search (hidden past choices,
future chance) is varied only through the determinizations.  At a node with several
movers each seat selects from its own statistics (decoupled UCB), and backup is
max^n, so any number of players and simultaneous games work.  The engine (budgets,
rollouts, statistics, ``act`` drawing a determinization per iteration) is ``mcts``'s,
without its transposition table; the move played is the most visited.
"""

from __future__ import annotations

from parlour.baselines.engines.mcts import TREE_PARAMS, TreeSearch
from parlour.baselines.policy import register


@register
class ISMCTSPolicy(TreeSearch):
    name = "ismcts"
    summary = "single-observer information-set MCTS: one tree, a new determinization per iteration, availability-aware UCB"
    source = "Cowling, Powley and Whitehouse 2012"
    params = {key: spec for key, spec in TREE_PARAMS.items() if key != "transpositions"}
    availability = True
