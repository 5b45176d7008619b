"""``mcts``: UCT (Kocsis and Szepesvári 2006) for any game of the games protocol.

The tree is keyed by action histories from the root.  Every simulation selects with
UCB1 down the tree, adds one node, and estimates the new leaf with a uniformly random
playout (``rollout="random"``) or an evaluation function (``"evaluation"``).

- **Any number of players** (max^n backup, Sturtevant 2008): each edge keeps the
  statistics of the seat that chooses it, updated with that seat's return, so every
  seat maximises its own value and no zero-sum assumption is made.
- **Simultaneous moves** (decoupled UCT, Lanctot et al. 2013): at a node with several
  current players each seat chooses from its own per-action statistics, the joint
  action is applied, and the child is keyed by the joint action.
- **Chance and hidden information** (determinization): ``act(info_state)`` draws a
  fresh ``info_state.sample(rng)`` for every simulation, so the search never sees the
  real state, and the tree is open-loop over everything the seat cannot see.
  ``search(state, player)`` searches the given complete state (``pimc`` uses it).
- **Transpositions**: when every simulation starts from the same complete state
  (``search``, and ``act`` in perfect-information games) nodes are keyed by
  ``State.key()``, so move orders that reach the same position share statistics (a
  DAG, as in Childs, Brodeur and Kocsis 2008).  Sticks, for one, has only two nodes
  per pile size.  Open-loop searches key nodes by action history instead.

The exploration term is ``c * (hi - lo) * sqrt(ln N / n)`` where ``hi - lo`` is the
spread of the returns seen so far in this search, so ``c`` means the same whatever the
units of ``State.returns()`` (UCB1's ``c = sqrt(2)`` for rewards in [0, 1]).

The move played is the most visited one (ties: higher mean value, then the first in
legal order), so with a simulation budget the policy is a function of its seed.
``TreeSearch`` is the engine ``sm-mcts`` and ``ismcts`` share.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from typing import Any

from parlour.baselines.engines.heuristics import get_evaluation
from parlour.baselines.engines.search import SearchPolicy, positive_or_none
from parlour.baselines.policy import Param, register
from parlour.games.base import State

DEFAULT_SIMULATIONS = 1000
_BUFFER = 2048  # uniforms drawn from the policy's generator at a time


class Node:
    """One tree node: visit count, per-(seat, action) edge statistics, children.

    ``edges[seat * num_actions + action]`` is a list ``[visits, value sum, x, y]``:
    ``x`` is the availability count (``ismcts``) or the cumulative regret (regret
    matching), ``y`` the regret-matching strategy sum.  ``children`` is keyed by the
    action (one mover) or the tuple of actions in seat order (several movers); it stays
    ``None`` when a transposition table keyed by ``State.key()`` finds the children.
    """

    __slots__ = ("visits", "edges", "children")

    def __init__(self) -> None:
        self.visits = 0
        self.edges: dict[int, list] = {}
        self.children: dict[Any, Node] | None = None


TREE_PARAMS = {
    "simulations": Param(None, f"simulations per move (None: {DEFAULT_SIMULATIONS}, or unlimited with time_limit)", int),
    "time_limit": Param(None, "seconds per move (None: no limit; then the result is deterministic)", float),
    "c": Param(1.4, "exploration constant of UCB1, for returns scaled to [0, 1]", float),
    "rollout": Param("random", "leaf estimate: a uniformly random playout, or the evaluation function", str, ("random", "evaluation")),
    "evaluation": Param("default", "evaluation for rollout=evaluation (see docs/baselines.md)", str),
    "transpositions": Param(True, "share one node between move orders that reach the same position (complete states only)", bool),
}


class TreeSearch(SearchPolicy):
    """The shared engine: selection, expansion, leaf estimate, max^n backup.

    Subclasses choose ``availability`` (ISMCTS's availability counts in UCB) and, for
    nodes with several movers, ``self.regret_matching`` (with ``self.gamma``).
    """

    params = TREE_PARAMS
    availability = False

    def setup(self) -> None:
        cfg = self.config
        sims, limit = cfg["simulations"], cfg["time_limit"]
        if sims is not None and sims < 1:
            raise ValueError(f"parameter simulations={sims}: must be at least 1 (or None)")
        positive_or_none("time_limit", limit)
        if cfg["c"] < 0:
            raise ValueError(f"parameter c={cfg['c']}: the exploration constant must be >= 0")
        self.evaluate = get_evaluation(self.game, cfg["evaluation"])
        self.max_simulations = sims if sims is not None else (None if limit else DEFAULT_SIMULATIONS)
        self.regret_matching = False
        self.gamma = 0.0
        self.root_values = {}
        self._num_actions = self.game.num_actions
        self._table: dict[Any, Node] | None = None
        self._buf: list[float] = []
        self._bi = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._buf, self._bi = [], 0

    # --- entry points ------------------------------------------------------------------

    def act(self, info_state: Any) -> int:
        """Search from a fresh determinization of ``info_state`` for every simulation."""
        rng = self.rng
        if self.game.info.perfect_information:  # the sample is the state: draw it once
            state = info_state.sample(rng)
            return self._run(state.clone(), state.clone, info_state.player, complete=True)
        sample = lambda: info_state.sample(rng)  # noqa: E731
        return self._run(sample(), sample, info_state.player, complete=False)

    def search(self, state: State, player: int) -> int:
        """Search the complete ``state`` (every simulation starts from a copy of it)."""
        return self._run(state.clone(), state.clone, player, complete=True)

    # --- the search --------------------------------------------------------------------

    def _run(self, first: State, sample: Callable[[], State], player: int, complete: bool) -> int:
        """Simulate from ``first``, then from ``sample()`` until the budget is spent.

        ``complete``: every simulation starts from the same complete state, so a
        position reached twice is the same position and may share a node.
        """
        players = first.current_players()
        if player not in players:
            raise ValueError(f"{self.name}: seat {player} is not to move (current players: {list(players)})")
        legal = first.legal_actions(player)
        if not legal:
            raise ValueError(f"{self.name}: seat {player} has no legal action")
        start = time.perf_counter()
        if len(legal) == 1:
            self.root_values = {}
            self.stats = {"simulations": 0, "nodes": 0, "max_depth": 0, "time": 0.0, "simulations_per_second": 0.0,
                          "visits": {legal[0]: 0}, "value": None, "forced": True}
            return legal[0]
        limit = self.config["time_limit"]
        deadline = None if limit is None else start + limit
        most = self.max_simulations
        root = Node()
        self._table = {first.key(): root} if complete and self.config.get("transpositions") else None
        self.nodes, self.max_depth = 1, 0
        self._lo, self._hi, self._scale = math.inf, -math.inf, self.config["c"]
        state, done = first, 0
        while True:
            self._simulate(state, root)
            done += 1
            if (most is not None and done >= most) or (deadline is not None and time.perf_counter() >= deadline):
                break
            state = sample()
        action = self._final(root, player, legal, len(players) > 1)
        self._table = None
        elapsed = time.perf_counter() - start
        base = player * self._num_actions
        edges = root.edges
        self.root_values = {a: e[1] / e[0] for a in legal if (e := edges.get(base + a)) is not None and e[0]}
        self.stats = {
            "simulations": done,
            "nodes": self.nodes,
            "max_depth": self.max_depth,
            "time": elapsed,
            "simulations_per_second": done / elapsed if elapsed > 0 else math.inf,
            "visits": {a: (edges[base + a][0] if base + a in edges else 0) for a in legal},
            "value": self.root_values.get(action, 0.0),
            **self._extra_stats(root, player, legal),
        }
        return action

    def _final(self, root: Node, player: int, legal: list[int], simultaneous: bool) -> int:
        """The most visited action; ties by mean value, then legal order."""
        edges, base = root.edges, player * self._num_actions
        best, best_key = legal[0], (-1, -math.inf)
        for a in legal:
            e = edges.get(base + a)
            key = (0, -math.inf) if e is None or not e[0] else (e[0], e[1] / e[0])
            if key > best_key:
                best, best_key = a, key
        return best

    def _extra_stats(self, root: Node, player: int, legal: list[int]) -> dict[str, Any]:
        return {}

    def _uniform(self) -> float:
        i = self._bi
        if i >= len(self._buf):
            self._buf, i = self.rng.random(_BUFFER).tolist(), 0
        self._bi = i + 1
        return self._buf[i]

    def _simulate(self, state: State, node: Node) -> None:
        """One simulation from ``state`` (changed in place) down the tree from ``node``."""
        path: list[tuple[list, int]] = []  # (edge, seat) pairs to update
        rm_path: list[tuple[list[list], int, float, int]] = []
        rm = self.regret_matching
        select = self._select
        table = self._table
        depth = 0
        key: Hashable  # the edge's key in the node: an action, a joint action, or a state's key
        move: int | dict[int, int]
        while True:
            players = state.current_players()
            if not players:
                break
            node.visits += 1
            depth += 1
            if len(players) == 1:
                p = players[0]
                key = move = select(node, p, state.legal_actions(p), path)
            elif rm:
                acts = [self._select_rm(node, p, state.legal_actions(p), rm_path) for p in players]
                key, move = tuple(acts), dict(zip(players, acts))
            else:
                acts = [select(node, p, state.legal_actions(p), path) for p in players]
                key, move = tuple(acts), dict(zip(players, acts))
            state.apply(move)
            if table is not None:
                key = state.key()
                child = table.get(key)
                if child is None:
                    table[key] = Node()
                    self.nodes += 1
                    break
            else:
                children = node.children
                if children is None:
                    children = node.children = {}
                child = children.get(key)
                if child is None:
                    children[key] = Node()
                    self.nodes += 1
                    break
            node = child
        if depth > self.max_depth:
            self.max_depth = depth
        if state.is_terminal():
            values = state.returns().tolist()
        elif self.config["rollout"] == "random":
            values = self._playout(state)
        else:
            values = self.evaluate(state).tolist()
        lo, hi = min(values), max(values)
        if lo < self._lo or hi > self._hi:
            self._lo, self._hi = min(lo, self._lo), max(hi, self._hi)
            spread = self._hi - self._lo
            self._scale = self.config["c"] * (spread if spread > 0 else 1.0)
        for edge, p in path:
            edge[0] += 1
            edge[1] += values[p]
        for edges, i, prob, p in rm_path:
            x = values[p]
            for e in edges:
                e[2] -= x
            chosen = edges[i]
            chosen[2] += x / prob
            chosen[0] += 1
            chosen[1] += x

    def _select(self, node: Node, p: int, legal: list[int], path: list) -> int:
        """UCB1 for seat ``p`` among ``legal`` (an untried action first, at random)."""
        edges, base = node.edges, p * self._num_actions
        untried = None
        best, best_edge, best_score = -1, None, -math.inf
        if self.availability:
            scale = self._scale
            for a in legal:
                e = edges.get(base + a)
                if e is None:
                    e = edges[base + a] = [0, 0.0, 0, 0.0]
                e[2] += 1  # available in this determinization
                n = e[0]
                if not n:
                    if untried is None:
                        untried = []
                    untried.append(a)
                elif untried is None:
                    score = e[1] / n + scale * math.sqrt(math.log(e[2]) / n)
                    if score > best_score:
                        best, best_edge, best_score = a, e, score
        else:
            factor = self._scale * math.sqrt(math.log(node.visits)) if node.visits > 1 else 0.0
            for a in legal:
                e = edges.get(base + a)
                if e is None:
                    if untried is None:
                        untried = []
                    untried.append(a)
                elif untried is None:
                    n = e[0]
                    score = e[1] / n + factor / math.sqrt(n)
                    if score > best_score:
                        best, best_edge, best_score = a, e, score
        if untried is not None:
            best = untried[int(self._uniform() * len(untried))]
            best_edge = edges.get(base + best)
            if best_edge is None:
                best_edge = edges[base + best] = [0, 0.0, 0, 0.0]
        path.append((best_edge, p))
        return best

    def _select_rm(self, node: Node, p: int, legal: list[int], rm_path: list) -> int:
        """Regret matching with ``gamma`` exploration for seat ``p`` (Lanctot et al. 2013)."""
        edges, base = node.edges, p * self._num_actions
        chosen: list[list] = []
        total = 0.0
        for a in legal:
            e = edges.get(base + a)
            if e is None:
                e = edges[base + a] = [0, 0.0, 0.0, 0.0]
            chosen.append(e)
            if e[2] > 0:
                total += e[2]
        k, gamma = len(legal), self.gamma
        if total > 0:
            probs = [(1 - gamma) * (e[2] / total if e[2] > 0 else 0.0) + gamma / k for e in chosen]
        else:
            probs = [1.0 / k] * k
        u = self._uniform()
        index = k - 1
        for i, q in enumerate(probs):
            u -= q
            if u < 0:
                index = i
                break
        for e, q in zip(chosen, probs):
            e[3] += q
        rm_path.append((chosen, index, probs[index], p))
        return legal[index]

    def _playout(self, state: State) -> list[float]:
        """Uniformly random moves to the end of the game; the returns as a list."""
        buf, i = self._buf, self._bi
        size = len(buf)
        while True:
            players = state.current_players()
            if not players:
                break
            if len(players) == 1:
                p = players[0]
                legal = state.legal_actions(p)
                if i >= size:
                    buf, i = self.rng.random(_BUFFER).tolist(), 0
                    size = len(buf)
                state.apply(legal[int(buf[i] * len(legal))])
                i += 1
            else:
                joint = {}
                for p in players:
                    legal = state.legal_actions(p)
                    if i >= size:
                        buf, i = self.rng.random(_BUFFER).tolist(), 0
                        size = len(buf)
                    joint[p] = legal[int(buf[i] * len(legal))]
                    i += 1
                state.apply(joint)
        self._buf, self._bi = buf, i
        return state.returns().tolist()


@register
class MCTSPolicy(TreeSearch):
    name = "mcts"
    summary = "UCT Monte Carlo tree search: max^n backup, decoupled UCT at simultaneous moves, determinization for hidden information"
    source = "Kocsis and Szepesvári 2006 (UCT); Sturtevant 2008 (max^n); Lanctot et al. 2013 (decoupled UCT)"
