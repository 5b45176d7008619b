"""PUCT: the tree search of AlphaZero (Silver et al. 2018), for any game of the games
protocol, guided by an *evaluator* instead of random playouts.

An evaluator maps a position and the seats to move to, for each of those seats, prior
probabilities over the game's actions, and to a value for every seat
(``Evaluation``).  A trained policy-value network is one (``parlour.baselines.learned``);
anything else with that shape works, which is how the tests check the search on its own.

Every simulation walks down from the root choosing, for each seat to move,

    a* = argmax_a  Q(a) + c * P(a) * sqrt(N) / (1 + n(a))

(``N``: the node's visits, counting the evaluation that added it and at least 1 at the
root, ``n(a)``, ``Q(a)``: the action's visits and mean value for the seat choosing it,
``P(a)``: the prior renormalised over the actions legal here), until it
reaches a position not yet in the tree; that position is evaluated once and its values
are backed up along the path, each edge taking the value of the seat that chose it.
What this adds to textbook AlphaZero, and why:

- **Any number of seats** (Tribolo's three): values are a vector with one entry per seat
  (max^n backup, as ``mcts`` does), so no zero-sum or two-player assumption is made and
  a seat whose turn is skipped needs no special case.
- **Simultaneous moves** (Goofspiel, Tides of Time): at a node with several seats to move
  each seat selects from its own edge statistics and its own priors (decoupled
  selection, as in ``sm-mcts``: Lanctot et al. 2013), and the joint action is applied.
- **Hidden information and chance** (determinization, as ``mcts`` and ``ismcts`` do): the
  search from a seat's information state starts every simulation from a fresh
  ``info_state.sample(rng)``; the tree is keyed by actions (open loop), so what a
  seat cannot see is averaged over.  Because the opponents' legal actions can differ
  between samples, priors are kept over all actions and renormalised over the actions
  legal in the current sample.
- **Values of any scale**: ``Q`` is normalised to [0, 1] by the smallest and largest value
  seen in this search (as MuZero does), so ``c`` means the same for win/loss and point
  returns; an unvisited action takes its node's own evaluation as ``Q`` (first-play
  urgency from the parent, as in Leela Zero and KataGo) rather than a loss or a win.
- **Exploration for self-play**: Dirichlet noise mixed into the searching seat's root
  priors (AlphaZero's ``alpha`` scaled to the number of legal moves, ``fraction`` 0.25);
  at a simultaneous step the other seats keep their priors, the searcher's model of them.

- **A Gumbel root** (``gumbel``, Danihelka et al. 2022, see ``engines.gumbel``): the
  searching seat's root move by Gumbel sampling and sequential halving, and the improved
  policy as the training target, which keep self-play improving at 8-32 simulations.

Deterministic: the same evaluator, root and generator give the same visit counts.

**One search, two forms.**  ``vector_puct.VectorPUCT`` is this search over arrays, many
games at once on a batched engine.  What the two share is here and used by both: the
default exploration (:data:`EXPLORATION`), the settings' checks
(:func:`check_settings`), the root noise (:func:`mix_noise`), the temperature
(:func:`sharpen`) and the final choice (:func:`most_visited`); the selection formula
above is written twice, over Python floats here (the tree's inner loop, where a numpy
call per action would cost more than the arithmetic) and over arrays there.

**Many searches, one evaluator call.**  The search is written as a generator
(:meth:`PUCT.searching`) that *yields* each position it needs evaluated, a
:data:`Request`, and is sent the :data:`Evaluation` back; :meth:`PUCT.search` drives it
with the evaluator, one position at a time.  :func:`drive` runs many such generators in
lockstep (the searches of many self-play games), handing all the positions they wait
for to one batched evaluation, as mctx and pgx's AlphaZero run a batch of games at
once.  Each search's simulations and random draws are the same whichever way it is
driven, so a game played in a batch is the game played alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlour.baselines.engines.gumbel import Gumbel, GumbelRoot
from parlour.games.base import State

Evaluation = tuple[dict[int, np.ndarray], np.ndarray]
"""``(priors, values)``: for each seat to move, probabilities over all ``num_actions``
actions (only the legal ones' relative sizes matter); one value per seat."""

Evaluator = Callable[[State, tuple[int, ...]], Evaluation]

Request = tuple[Evaluator, State, tuple[int, ...]]
"""A position a search waits to have evaluated: ``(its evaluator, the position, the seats
to move)``; the position is left as it is until the evaluation is sent back."""

Searching = Generator[Request, Evaluation, Any]
"""A search in progress (:meth:`PUCT.searching`), or anything built on searches (a
self-play game): it yields requests, is sent their evaluations, and returns its result."""


EXPLORATION = 1.5
"""The default exploration constant ``c`` of both forms of the search."""


def check_settings(c: float, noise: tuple[float, float] | None, gumbel: Gumbel | None) -> None:
    """``ValueError`` for settings the search refuses: a negative ``c``, noise outside
    ``(alpha_total > 0, fraction in [0, 1])``, or noise and a Gumbel root together."""
    if c < 0:
        raise ValueError(f"PUCT exploration constant c must be >= 0, got {c}")
    if noise is not None and not (noise[0] > 0 and 0 <= noise[1] <= 1):
        raise ValueError(f"PUCT noise must be (alpha_total > 0, fraction in [0, 1]), got {noise}")
    if noise is not None and gumbel is not None:
        raise ValueError("PUCT takes Dirichlet noise or a Gumbel root, not both (the Gumbel draws are its exploration)")


def mix_noise(prior: np.ndarray, total: float, alpha_total: float, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """The root's priors of the legal actions (``prior``, summing to ``total``) mixed with
    Dirichlet noise: ``(1 - fraction) * prior / total + fraction * eta``, ``eta`` drawn
    with ``alpha_total / len(prior)`` per action (AlphaZero's alpha scaled to the legal
    moves)."""
    eta = rng.dirichlet([alpha_total / len(prior)] * len(prior))
    return (1 - fraction) * prior / total + fraction * eta


def sharpen(counts: np.ndarray, temperature: float) -> np.ndarray:
    """Visit counts (or improved policies) raised to ``1 / temperature`` and normalised
    along the last axis: the search policy at a temperature above 0 (uniform where the
    raised counts are all 0)."""
    counts = counts ** (1.0 / temperature)
    total = counts.sum(axis=-1, keepdims=True)
    if (total == 0).any():
        counts = np.where(total == 0, 1.0, counts)
        total = counts.sum(axis=-1, keepdims=True)
    return counts / total


def most_visited(legal: Sequence[int], visits: Any, prior: Any) -> int:
    """The root's move: the legal action with the most visits, ties to the higher prior,
    then the lower action (``visits[a]``, ``prior[a]``)."""
    return max(legal, key=lambda a: (visits[a], prior[a], -a))


def drive(tasks: Sequence[Searching], evaluate_many: Callable[[list[Request]], list[Evaluation]]) -> list[Any]:
    """Run ``tasks`` in lockstep to their ends: every round, the requests of all the tasks
    still running go to ``evaluate_many`` together; the tasks' results, in order."""
    results: list[Any] = [None] * len(tasks)
    pending: dict[int, Request] = {}
    for i, task in enumerate(tasks):
        try:
            pending[i] = next(task)
        except StopIteration as stop:
            results[i] = stop.value
    while pending:
        waiting = list(pending)
        evaluations = evaluate_many([pending[i] for i in waiting])
        for i, evaluation in zip(waiting, evaluations):
            try:
                pending[i] = tasks[i].send(evaluation)
            except StopIteration as stop:
                results[i] = stop.value
                del pending[i]
    return results


def evaluate_each(requests: list[Request]) -> list[Evaluation]:
    """``evaluate_many`` for evaluators that take one position at a time."""
    return [evaluator(state, players) for evaluator, state, players in requests]


def random_rollout(state: State, rng: np.random.Generator) -> np.ndarray:
    """The returns after uniformly random moves from ``state`` (changed in place) to the
    end: AlphaGo's fast rollout in its simplest form, for evaluators that mix it in."""
    while True:
        players = state.current_players()
        if not players:
            return state.returns()
        moves = {}
        for p in players:
            legal = state.legal_actions(p)
            moves[p] = legal[int(rng.integers(len(legal)))]
        state.apply(moves if len(moves) > 1 else moves[players[0]])


class Node:
    """A position of the tree: visits, the evaluation made when it was reached first,
    per-(seat, action) edge statistics ``[visits, value sum]``, children by move."""

    __slots__ = ("children", "edges", "priors", "value", "visits")

    def __init__(self, priors: dict[int, list[float]], value: list[float]) -> None:
        self.visits = 0
        self.priors = priors
        self.value = value
        self.edges: dict[int, list] = {}
        self.children: dict[Any, Node] = {}


@dataclass(frozen=True)
class SearchResult:
    """What one search found: the root seat's visits per legal action, the action
    with the most visits (ties: the higher prior, then the lower action), that action's
    mean value for the seat, and the simulations run."""

    visits: dict[int, int]
    action: int
    value: float
    simulations: int
    improved: dict[int, float] | None = None
    """With a Gumbel root: the improved policy over the legal actions (the training target)."""

    def policy(self, num_actions: int, temperature: float = 1.0) -> np.ndarray:
        """The search's policy over all actions: the visit counts (AlphaZero's ``pi``), or
        with a Gumbel root the improved policy; raised to ``1/temperature`` (0: all
        weight on the chosen action)."""
        pi = np.zeros(num_actions, dtype=np.float64)
        if temperature == 0:
            pi[self.action] = 1.0
            return pi
        weights = self.improved if self.improved is not None else self.visits
        actions = list(weights)
        pi[actions] = sharpen(np.array([weights[a] for a in actions], dtype=np.float64), temperature)
        return pi


class PUCT:
    """The search (see the module docstring).  ``c``: exploration constant;
    ``noise``: Dirichlet ``(alpha_total, fraction)`` for the root priors, or ``None``.
    ``alpha_total`` is divided by the number of legal moves (``10`` gives AlphaZero's
    0.3 for chess's ~30 moves).  ``gumbel``: the searching seat's root chooses by Gumbel
    sampling and sequential halving instead (``engines.gumbel``; then no Dirichlet noise:
    the Gumbel draws are its exploration)."""

    def __init__(self, evaluator: Evaluator, num_actions: int, c: float = EXPLORATION, noise: tuple[float, float] | None = None,
                 gumbel: Gumbel | None = None) -> None:
        check_settings(c, noise, gumbel)
        self.evaluator = evaluator
        self.num_actions = num_actions
        self.c = c
        self.noise = noise
        self.gumbel = gumbel
        self.evaluations = 0

    def search(self, first: State, sample: Callable[[], State], player: int, simulations: int, rng: np.random.Generator) -> SearchResult:
        """Run ``simulations`` simulations, the first from ``first``, each later one from
        ``sample()`` (the same position again, or a new determinization); the result
        for ``player``, who must be to move in ``first``."""
        return drive([self.searching(first, sample, player, simulations, rng)], evaluate_each)[0]

    def searching(self, first: State, sample: Callable[[], State], player: int, simulations: int,
                  rng: np.random.Generator) -> Generator[Request, Evaluation, SearchResult]:
        """:meth:`search` as a generator of the positions it needs evaluated (see the
        module docstring); one search at a time per ``PUCT`` object."""
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        players = first.current_players()
        if not players:
            raise ValueError("the position is over: there is nothing to search")
        if player not in players:
            raise ValueError(f"seat {player} is not to move (current players: {list(players)})")
        legal = first.legal_actions(player)
        self._lo, self._hi = math.inf, -math.inf
        root = self.root = self._node((yield from self._evaluate(first, players)), players)  # kept until the next search
        if self.gumbel is not None:
            return (yield from self._gumbel_root(self.gumbel, first, sample, root, player, legal, simulations, rng))
        if self.noise is not None:
            self._add_noise(self.noise, root, first, player, rng)
        state = first.clone()
        for done in range(simulations):
            if done:
                state = sample()
            yield from self._simulate(state, root)
        base = player * self.num_actions
        edges = root.edges
        visits = {a: (edges[base + a][0] if base + a in edges else 0) for a in legal}
        prior = root.priors[player]
        action = most_visited(legal, visits, prior)
        edge = edges.get(base + action)
        value = edge[1] / edge[0] if edge and edge[0] else root.value[player]
        return SearchResult(visits, action, value, simulations)

    # --- the tree ----------------------------------------------------------------------

    def _evaluate(self, state: State, players: tuple[int, ...]) -> Generator[Request, Evaluation, Evaluation]:
        self.evaluations += 1
        return (yield (self.evaluator, state, players))

    def _node(self, evaluation: Evaluation, players: tuple[int, ...]) -> Node:
        priors, values = evaluation
        value = [float(v) for v in values]
        self._widen(value)
        return Node({p: np.asarray(priors[p], dtype=np.float64).tolist() for p in players}, value)

    def _widen(self, values: Sequence[float]) -> None:
        lo, hi = min(values), max(values)
        if lo < self._lo:
            self._lo = lo
        if hi > self._hi:
            self._hi = hi

    def _add_noise(self, noise: tuple[float, float], root: Node, state: State, player: int, rng: np.random.Generator) -> None:
        alpha_total, fraction = noise
        legal = state.legal_actions(player)
        prior = root.priors[player]
        total = sum(prior[a] for a in legal) or 1.0  # (Python's sum, as this search has always made it)
        mixed = mix_noise(np.array([prior[a] for a in legal], dtype=np.float64), total, alpha_total, fraction, rng)
        for a, value in zip(legal, mixed.tolist()):
            prior[a] = value

    def _gumbel_root(self, settings: Gumbel, first: State, sample: Callable[[], State], root: Node, player: int, legal: list[int],
                     simulations: int, rng: np.random.Generator) -> Generator[Request, Evaluation, SearchResult]:
        """The simulations with ``player``'s root move chosen by sequential halving over
        Gumbel-sampled actions (``engines.gumbel``); the chosen action and the improved policy."""
        prior = np.array([root.priors[player][a] for a in legal], dtype=np.float64)
        gumbel = GumbelRoot(settings, prior, rng, simulations, lambda: self._root_values(root, player, legal))
        state = first.clone()
        for done, i in enumerate(gumbel.halving):
            if done:
                state = sample()
            yield from self._simulate(state, root, (player, legal[i]))
        best, improved = gumbel.choose()
        _, visits, _ = self._root_values(root, player, legal)
        edge = root.edges.get(player * self.num_actions + legal[best])
        mean = edge[1] / edge[0] if edge and edge[0] else root.value[player]
        return SearchResult(dict(zip(legal, visits.astype(int).tolist())), legal[best], mean, simulations,
                            dict(zip(legal, improved.tolist())))

    def _root_values(self, root: Node, player: int, legal: list[int]) -> tuple[np.ndarray, np.ndarray, float]:
        """The root seat's normalised mean value and visits per legal action, and the
        root's own normalised value."""
        lo, spread = self._lo, self._hi - self._lo
        scale = 1.0 / spread if spread > 0 else 0.0
        base = player * self.num_actions
        visits, q = np.zeros(len(legal)), np.zeros(len(legal))
        for i, a in enumerate(legal):
            edge = root.edges.get(base + a)
            if edge and edge[0]:
                visits[i] = edge[0]
                q[i] = (edge[1] / edge[0] - lo) * scale if spread > 0 else 0.5
        value = (root.value[player] - lo) * scale if spread > 0 else 0.5
        return q, visits, value

    def _simulate(self, state: State, node: Node, forced: tuple[int, int] | None = None) -> Generator[Request, Evaluation, None]:
        """One simulation from ``state`` (changed in place) down from ``node``; ``forced``:
        ``(seat, action)`` that seat plays at ``node`` (a Gumbel root's choice)."""
        path: list[tuple[Node, list[tuple[int, int]]]] = []
        while True:
            players = state.current_players()
            if not players:
                values = state.returns().tolist()
                self._widen(values)
                break
            missing = tuple(p for p in players if p not in node.priors)
            if missing:  # another sample with other seats to move: add theirs, keep the rest
                node.priors.update(self._node((yield from self._evaluate(state, missing)), missing).priors)
            chosen = [(p, self._select(node, p, state.legal_actions(p))) if forced is None or p != forced[0] or path
                      else (p, self._force(node, p, forced[1])) for p in players]
            path.append((node, chosen))
            key: int | tuple[tuple[int, int], ...]
            move: int | dict[int, int]
            if len(chosen) == 1:
                key = move = chosen[0][1]
            else:
                key = tuple(chosen)  # (seat, action) pairs
                move = dict(chosen)
            state.apply(move)
            child = node.children.get(key)
            if child is None:
                after = state.current_players()
                if after:
                    child = node.children[key] = self._node((yield from self._evaluate(state, after)), after)
                    child.visits = 1
                    values = child.value
                else:
                    values = state.returns().tolist()
                    self._widen(values)
                break
            node = child
        n = self.num_actions
        for visited, chosen in path:
            visited.visits += 1
            for p, a in chosen:
                edge = visited.edges[p * n + a]
                edge[0] += 1
                edge[1] += values[p]

    def _force(self, node: Node, p: int, action: int) -> int:
        node.edges.setdefault(p * self.num_actions + action, [0, 0.0])
        return action

    def _select(self, node: Node, p: int, legal: list[int]) -> int:
        edges, base, prior = node.edges, p * self.num_actions, node.priors[p]
        total = 0.0
        for a in legal:
            total += prior[a]
        lo, spread = self._lo, self._hi - self._lo
        scale = 1.0 / spread if spread > 0 else 0.0
        first_play = (node.value[p] - lo) * scale if spread > 0 else 0.5
        explore = self.c * math.sqrt(max(node.visits, 1)) / (total if total > 0 else 1.0)
        uniform = 1.0 / len(legal) if total <= 0 else 0.0
        best, best_score = legal[0], -math.inf
        for a in legal:
            e = edges.get(base + a)
            if e is None or not e[0]:
                q, n = first_play, 0
            else:
                n = e[0]
                q = (e[1] / n - lo) * scale if spread > 0 else 0.5
            score = q + explore * (prior[a] + uniform) / (1 + n)
            if score > best_score:
                best, best_score = a, score
        if base + best not in edges:
            edges[base + best] = [0, 0.0]
        return best
