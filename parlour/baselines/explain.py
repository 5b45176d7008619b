"""What a policy says about the move it just chose, in words for a person (the ``hint``
of ``parlour play`` and of the web page).

Split in two so that the choosing and the telling may happen in different processes:
:func:`choice_facts` reads what the policy left in ``stats`` and ``root_values`` after
``act`` (plain Python values, picklable), and :func:`describe` turns those facts into a
sentence with the game's notation, which needs only a state of the game to write moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.policy import Policy
from parlour.games.base import State

FACTS = ("forced", "value", "visits", "strategy", "depth", "votes")
"""The entries of ``policy.stats`` that a description uses."""


def choice_facts(policy: Policy) -> dict[str, Any]:
    """What ``policy`` reported about its last ``act``, as plain values."""
    stats: dict[str, Any] = policy.stats or {}
    facts = {key: _plain(stats[key]) for key in FACTS if key in stats}
    others = getattr(policy, "root_values", None) or stats.get("root_values")
    if isinstance(others, dict) and getattr(policy, "exact_root_values", True):
        facts["root_values"] = {int(a): float(v) for a, v in others.items()}
    facts["label"] = repr(policy)
    return facts


def describe(facts: dict[str, Any], state: State, action: int) -> str:
    """The facts of a choice of ``action`` in words; moves written by ``state``."""
    parts = []
    if facts.get("forced"):
        parts.append("the only legal move")
    value = facts.get("value")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        parts.append(f"value {float(value):+.3g} for you")
    visits = facts.get("visits")
    if isinstance(visits, dict) and visits.get(action) is not None and not facts.get("forced"):
        parts.append(f"{visits[action]} of {sum(visits.values())} visits")
    strategy = facts.get("strategy")
    if isinstance(strategy, dict) and action in strategy:
        parts.append(f"played with probability {float(strategy[action]):.2f}")
    if isinstance(facts.get("depth"), int):
        parts.append(f"searched {facts['depth']} steps deep")
    votes = facts.get("votes")
    if isinstance(votes, dict) and action in votes:
        parts.append(f"{votes[action]} of {sum(votes.values())} votes")
    # the values of the other moves, where they are exact (alpha-beta's are only bounds)
    others = facts.get("root_values")
    if isinstance(others, dict) and len(others) > 1:
        ranked = sorted(((a, v) for a, v in others.items() if a != action), key=lambda item: -item[1])[:3]
        parts.append("other moves " + ", ".join(f"{state.action_to_text(a)} {float(v):+.3g}" for a, v in ranked))
    if not parts:
        return f"no evaluation: {facts.get('label', 'the policy')} does not rate its moves"
    return "; ".join(parts)


def evaluation(policy: Policy, state: State, action: int) -> str:
    """What ``policy`` said about its last choice ``action``, in words."""
    return describe(choice_facts(policy), state, action)


def _plain(value: Any) -> Any:
    """``value`` with numpy numbers and keys made plain Python (picklable anywhere, JSON-able)."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value
