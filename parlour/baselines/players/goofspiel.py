"""Goofspiel players from "Making the Tree Search", a write-up of a rule-based bot and a
Monte Carlo tree search for Goofspiel with carried-over ties.

``rudimentary``: the write-up's rule-based bot: bid the prize's value, or one above it,
or two above it, whichever card is still in hand first; otherwise the highest card.

``original-search``: the write-up's expected-value tree search.  Each of our candidate bids
is scored by the mean, over Monte Carlo samples, of the position after it: the
opponents' bids are drawn uniformly from their hands (the write-up's "equally likely"
assumption) and the unknown prizes from the information state, then the search
recurses to ``depth`` rounds and scores the leaf with the write-up's evaluation

    f = k / i * (w1 * (alpha - beta) + w2 * (x - y))

where ``i`` is the number of points still in play, ``x`` and ``y`` our points and
the opponents' (their mean with more players), ``alpha`` and ``beta`` the sums of our
remaining cards and the opponents'.  Every expansion draws a fresh determinization
from *our* information state at that node, so hidden prizes and (with
``imperfect_info``) hidden bids are sampled, never read.  The write-up called its own
version "quite poor" in speed because it copied lists everywhere; this one keeps
the rules' bitmask states and is fast enough for depth 2 on 13 cards.
"""

from __future__ import annotations

from parlour.baselines.policy import Param, Policy, register
from parlour.baselines.references import References, register_references
from parlour.games.base import Game
from parlour.games.goofspiel import GoofspielInfoState, GoofspielState

SOURCE = '"Making the Tree Search" (a write-up of a rule-based bot and a Monte Carlo tree search for Goofspiel)'


@register
class RudimentaryGoofspiel(Policy):
    name = "rudimentary"
    summary = "bid the prize's value, else +1, else +2, else the highest card (the rule-based bot of \"Making the Tree Search\")"
    source = SOURCE
    games = ("goofspiel",)
    params = {
        "target": Param("prize", "value to match: the revealed prize card, or the whole pot including it", str, ("prize", "pot")),
    }

    def act(self, info_state: GoofspielInfoState) -> int:
        legal = info_state.legal_actions()
        value = info_state.current_prize
        assert value is not None, "a seat bids only once the prize is turned up"
        if self.config["target"] == "pot":
            value += info_state.pot
        for card in (value, value + 1, value + 2):
            if card - 1 in legal:
                return card - 1
        return legal[-1]


@register
class OriginalSearchGoofspiel(Policy):
    name = "original-search"
    summary = "the expected-value tree search of \"Making the Tree Search\", with Monte Carlo sampling of opponent bids and prizes"
    source = SOURCE
    games = ("goofspiel",)
    params = {
        "depth": Param(2, "rounds to look ahead (>= 1)", int),
        "samples": Param(4, "samples of opponent bids and prizes per candidate bid and node (>= 1)", int),
        "w1": Param(1.0, "weight of the card advantage alpha - beta", float),
        "w2": Param(1.0, "weight of the point advantage x - y", float),
        "k": Param(1.0, "normalising factor of the evaluation", float),
    }

    def setup(self) -> None:
        for key in ("depth", "samples"):
            if self.config[key] < 1:
                raise ValueError(f"parameter {key}={self.config[key]}: must be at least 1")

    def act(self, info_state: GoofspielInfoState) -> int:
        legal = info_state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self.nodes = 0
        scores = {a: self._expected(info_state, a, self.config["depth"]) for a in legal}
        self.stats = {"nodes": self.nodes, "scores": scores}
        best = max(scores.values())
        return min(a for a, v in scores.items() if v == best)

    def _expected(self, info_state: GoofspielInfoState, action: int, depth: int) -> float:
        """Mean value of bidding ``action`` over sampled opponent bids and prizes."""
        me, rng = info_state.player, self.rng
        total = 0.0
        for _ in range(self.config["samples"]):
            state = info_state.sample(rng)
            joint = {}
            for seat in state.current_players():
                if seat == me:
                    joint[seat] = action
                else:
                    legal = state.legal_actions(seat)
                    joint[seat] = legal[int(rng.integers(len(legal)))]
            state.apply(joint)
            total += self._value(state, me, depth - 1)
        return total / self.config["samples"]

    def _value(self, state: GoofspielState, me: int, depth: int) -> float:
        self.nodes += 1
        if depth == 0 or state.is_terminal():
            return self.evaluate(state, me)
        info = state.info_state(me)
        return max(self._expected(info, action, depth) for action in info.legal_actions())

    def evaluate(self, state: GoofspielState, me: int) -> float:
        """The write-up's f = k / i * (w1 (alpha - beta) + w2 (x - y)), with i >= 1."""
        players = len(state.points)
        others = [s for s in range(players) if s != me]
        left = state.pot + sum(state.prizes[state.round :])
        x = state.points[me]
        y = sum(state.points[s] for s in others) / len(others)
        alpha = _card_sum(state.hands[me])
        beta = sum(_card_sum(state.hands[s]) for s in others) / len(others)
        c = self.config
        return c["k"] / max(left, 1) * (c["w1"] * (alpha - beta) + c["w2"] * (x - y))


def _card_sum(mask: int) -> int:
    total, card = 0, 1
    while mask:
        if mask & 1:
            total += card
        mask >>= 1
        card += 1
    return total


@register_references("goofspiel")
def goofspiel_references(game: Game) -> References:
    """The exact equilibrium player where it solves quickly (two players, up to 8 cards,
    public bids), MCTS otherwise."""
    small = game.config["num_cards"] <= 8 and game.num_players == 2 and not game.config["imperfect_info"]
    strongest = "equilibrium" if small else "mcts:simulations=1000"
    return References(original="rudimentary", quick=strongest if small else "mcts:simulations=200", strongest=strongest)
