"""PUCT for many games at once, as array operations on a batched engine (issue 29).

``parlour.baselines.engines.puct`` walks one tree in Python; self-play with it spends
its time in the rules and the tree code, one simulation at a time (the network, even
batched across games, is a small part: benchmarks/RESULTS.md).  Here the S searches of
a round of self-play (every game's seats to decide) run their simulations together:
each simulation is a handful of numpy operations over all S trees, whose statistics
are arrays (``[S, nodes, slots, actions]``), on working copies of the positions in a
batched engine (the same observations, masks and returns as the single game, bit for
bit), as mctx runs a batch of searches in JAX.

Self-play on an engine takes a ``SearchableEngine`` (``parlour.games.engine``: its state
arrays named, games dealt from their own generators), and a ``DeterminizingEngine``
where the game hides information; a search from positions copied into an engine needs
the state arrays (and the determinization) only.  :func:`search_refusal` says what an
engine lacks.

The search is ``PUCT``'s, rule for rule (what the two share, the settings' checks, the
root noise, the temperature and the final choice, is ``puct``'s and used from there;
the selection is the formula of ``puct``'s docstring, written over arrays here): max^n values (one per seat) backed up along the
path, decoupled selection at a simultaneous step (each seat from its own statistics
and priors; the children are keyed by the joint action), a fresh determinization of the
searching seat's information for every simulation where information is hidden
(``determinize`` of the engine), values normalised by the smallest and largest seen in
the search, first-play urgency from the node's own value, Dirichlet noise on the
searching seat's root priors, and leaves valued by the network, optionally mixed with a
random playout (``rollout_mix``).

A search's random draws come from its own generator (its game's), in an order that does
not depend on the other searches, and the network's rows are computed in batches of at
least 16 (see ``NetworkEvaluator``), so a game is the same in a batch of any size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

from parlour.baselines.engines.gumbel import Gumbel, GumbelRoot
from parlour.baselines.engines.puct import EXPLORATION, check_settings, mix_noise, most_visited, sharpen
from parlour.errors import EndlessGame
from parlour.games.base import Game
from parlour.games.engine import BatchedEngine, DeterminizingEngine, SearchableEngine, legal_at
from parlour.vector import ENGINES


def search_refusal(engine: type[BatchedEngine] | None, game: Game, *, deals: bool = True) -> str | None:
    """Why the vectorised search cannot run on ``engine`` (an engine class of ``game``,
    ``None`` for a game without one), naming the missing interface; ``None`` if it can.
    ``deals``: the games are also dealt on the engine (self-play), which takes a
    ``SearchableEngine``; searches from positions copied in need its state arrays only,
    and a determinization where information is hidden."""
    if engine is None:
        return f"{game.name} has no batched engine"
    if deals and not issubclass(engine, SearchableEngine):
        return (f"{game.name}'s engine {engine.__name__} is not a SearchableEngine (parlour.games.engine: "
                f"STATE naming its state arrays, deal(rows, rngs))")
    if not engine.STATE:
        return f"{game.name}'s engine {engine.__name__} names no state arrays (STATE) to copy a root from"
    if engine.simultaneous and game.num_players != 2:
        return f"the vectorised search keys a simultaneous step's children by two seats' actions, and {game.name} has {game.num_players}"
    if not game.info.perfect_information and not issubclass(engine, DeterminizingEngine):
        return (f"{game.name} hides information and its engine {engine.__name__} is not a DeterminizingEngine "
                f"(parlour.games.engine: determinize(rows, seats, draws), DETERMINIZE_DRAWS)")
    return None


def applies(game: Game) -> bool:
    """Whether ``game``'s self-play can run on its batched engine with this search
    (:func:`search_refusal` says why not)."""
    return search_refusal(ENGINES.get(game.name), game) is None


Leaves = Callable[[BatchedEngine, np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``evaluate(engine, rows, movers, draws) -> (priors [k, slots, A], values [k, P])``: the
leaf evaluation of the positions in ``rows`` of ``engine``; ``movers[k, slots]`` are the
seats whose priors are asked for (every seat at a simultaneous step, the mover
otherwise); ``draws[k, leaf_draws]``: each row's own uniform floats, for evaluations
that play at random (``leaf_draws`` is the evaluator's attribute, 0 if it has none)."""


@dataclass(frozen=True)
class VectorResult:
    """What S searches found: each root seat's visits per action (``[S, A]``), the action
    with the most visits (ties: the higher prior, then the lower action), its mean value
    for the seat, and the simulations run."""

    visits: np.ndarray
    actions: np.ndarray
    values: np.ndarray
    simulations: int
    improved: np.ndarray | None = None
    """With a Gumbel root: the improved policies (``[S, A]``), the training targets."""

    def policies(self, temperature: float = 1.0) -> np.ndarray:
        """The search policies (``[S, A]``), as ``SearchResult.policy`` makes them: the
        visit distributions, or the improved policies of a Gumbel root."""
        counts = (self.improved if self.improved is not None else self.visits).astype(np.float64)
        if temperature == 0:
            out = np.zeros_like(counts)
            out[np.arange(len(counts)), self.actions] = 1.0
            return out
        return sharpen(counts, temperature)


class VectorPUCT:
    """The searches (module docstring) of one game's engine class, with exploration
    ``c`` and Dirichlet ``noise`` ``(alpha_total, fraction)`` or ``None``, or a ``gumbel``
    root (as ``PUCT``'s: ``engines.gumbel``)."""

    def __init__(self, engine: BatchedEngine, c: float = EXPLORATION, noise: tuple[float, float] | None = None,
                 gumbel: Gumbel | None = None) -> None:
        check_settings(c, noise, gumbel)
        refusal = search_refusal(type(engine), engine.game, deals=False)
        if refusal is not None:
            raise ValueError(refusal)
        self.engine_type = type(engine)
        self.options = engine.game.config
        self.game = engine.game
        self.simultaneous = engine.simultaneous
        self.players = engine.num_players
        self.actions = engine.num_actions
        self.slots = self.players if self.simultaneous else 1
        self.hidden = not self.game.info.perfect_information
        self.determinize_draws = engine.DETERMINIZE_DRAWS if self.hidden and isinstance(engine, DeterminizingEngine) else 0
        """The uniform floats one determinization takes (0 where nothing is hidden)."""
        self.c, self.noise, self.gumbel = c, noise, gumbel
        self._work: dict[int, BatchedEngine] = {}
        self._trees: dict[tuple[int, int], dict[str, np.ndarray]] = {}

    def work(self, size: int) -> BatchedEngine:
        """A working engine of ``size`` rows (kept for the next search of that size)."""
        engine = self._work.get(size)
        if engine is None:
            engine = self._work[size] = self.engine_type(size, seed=0, autoreset=False, **self.options)
        return engine

    def _movers(self, engine: BatchedEngine, rows: np.ndarray) -> np.ndarray:
        """``[k, slots]``: the seats whose statistics each slot holds at these positions."""
        if self.simultaneous:
            return np.tile(np.arange(self.players), (len(rows), 1))
        return engine.movers()[rows][:, None]

    def _copy_root(self, work: BatchedEngine, roots: BatchedEngine, root_rows: np.ndarray, seats: np.ndarray,
                   draws: np.ndarray) -> None:
        everything = np.arange(len(root_rows))
        work.copy_rows(roots, root_rows, everything)
        if self.hidden:
            cast(DeterminizingEngine, work).determinize(everything, seats, draws)  # checked at construction (search_refusal)

    def _arrays(self, S: int, N: int) -> dict[str, np.ndarray]:
        """The trees' arrays for S searches of N nodes, reused from the last search of
        that size (writing into memory already mapped is much cheaper than fresh arrays)."""
        P, A, M = self.players, self.actions, self.slots
        arrays = self._trees.get((S, N))
        if arrays is None:
            arrays = self._trees[(S, N)] = {
                "prior": np.zeros((S, N, M, A)), "edge_n": np.zeros((S, N, M, A), dtype=np.int64),
                "edge_w": np.zeros((S, N, M, A)), "value": np.zeros((S, N, P)), "visits": np.zeros((S, N), dtype=np.int64),
                "mover": np.zeros((S, N, M), dtype=np.int64),
                "children": np.full((S, N, A * A if self.simultaneous else A), -1, dtype=np.int32),
            }
        else:
            for name, array in arrays.items():
                array.fill(-1 if name == "children" else 0)
        return arrays

    def run(self, roots: BatchedEngine, root_rows: np.ndarray, seats: np.ndarray, rngs: list[np.random.Generator],
            simulations: int, evaluate: Leaves) -> VectorResult:
        """Search from each position ``roots[root_rows[s]]`` for seat ``seats[s]`` (who must
        be to move there), drawing from ``rngs[s]``: in one call every uniform float its
        simulations will use (determinizations, playouts), then the root's noise."""
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        S, P, A, M = len(root_rows), self.players, self.actions, self.slots
        N = simulations + 1
        rows = np.arange(S)
        work = self.work(S)
        tree = self._arrays(S, N)
        prior, edge_n, edge_w, value = tree["prior"], tree["edge_n"], tree["edge_w"], tree["value"]
        visits, mover, children = tree["visits"], tree["mover"], tree["children"]
        size = np.ones(S, dtype=np.int64)
        sample = self.determinize_draws
        playout = getattr(evaluate, "leaf_draws", 0)
        per = sample + playout
        lo, hi = np.full(S, np.inf), np.full(S, -np.inf)

        def widen(where: np.ndarray, values: np.ndarray) -> None:
            lo[where] = np.minimum(lo[where], values.min(axis=1))
            hi[where] = np.maximum(hi[where], values.max(axis=1))

        # every row's draws for its search, from its own generator, in one call
        uniform = np.stack([rng.random((N, per)) for rng in rngs]) if per else np.zeros((S, N, 0))
        # the root: its first determinization, evaluated, noise on the searching seat's priors
        self._copy_root(work, roots, root_rows, seats, uniform[:, 0, :sample])
        movers = self._movers(work, rows)
        if not self.simultaneous and (movers[:, 0] != seats).any():
            raise ValueError("a searching seat is not to move at its root")
        priors, values = evaluate(work, rows, movers, uniform[:, 0, sample:])
        prior[:, 0], value[:, 0], mover[:, 0] = priors, values, movers
        widen(rows, values)
        slot = seats if self.simultaneous else np.zeros(S, dtype=np.int64)
        root_legal = work.legal_masks()[rows, seats].astype(bool)
        if self.noise is not None:
            self._add_noise(prior, slot, root_legal, rngs)
        gumbel_roots = [_gumbel_root(self.gumbel, s, prior, edge_n, edge_w, value, slot, seats, root_legal, lo, hi, rngs[s], simulations)
                 for s in range(S)] if self.gumbel is not None else []
        schedules = [iter(root.halving) for _, root in gumbel_roots]
        for done in range(simulations):
            draws = uniform[:, done + 1]
            if done:
                self._copy_root(work, roots, root_rows, seats, draws[:, :sample])
            node = np.zeros(S, dtype=np.int64)
            active = np.ones(S, dtype=bool)
            leaf = np.zeros((S, P))
            path: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
            new_rows, new_parent, new_key = [], [], []
            while active.any():  # down the trees: each step to an existing child or stop, so at most N steps
                idx = np.flatnonzero(active)
                at = node[idx]
                legal = work.legal_masks()[idx].astype(bool)  # [k, P, A]
                seat_of = mover[idx, at]  # [k, M]
                legal = legal[np.arange(len(idx))[:, None], seat_of]  # [k, M, A]
                chosen = self._select(prior[idx, at], edge_n[idx, at], edge_w[idx, at], value[idx, at], seat_of,
                                      visits[idx, at], legal, lo[idx], hi[idx])  # [k, M]
                if schedules and not path:  # at the roots: the searching seats play their Gumbel schedules
                    chosen[rows, slot] = [actions[next(schedule)] for (actions, _), schedule in zip(gumbel_roots, schedules)]
                path.append((idx, at, chosen))
                key: np.ndarray
                joint: np.ndarray
                if self.simultaneous:
                    joint = np.zeros((S, P), dtype=np.int64)
                    joint[idx] = chosen
                    key = chosen[:, 0] * A + chosen[:, 1]
                else:
                    joint = np.zeros(S, dtype=np.int64)
                    joint[idx] = chosen[:, 0]
                    key = chosen[:, 0]
                step = work.step(joint, where=active)
                ended = step.terminated[idx]
                leaf[idx[ended]] = step.rewards[idx[ended]]
                if ended.any():
                    widen(idx[ended], step.rewards[idx[ended]])
                child = children[idx, at, key]
                fresh = (child < 0) & ~ended
                deeper = (child >= 0) & ~ended
                node[idx[deeper]] = child[deeper]
                new_rows.append(idx[fresh])
                new_parent.append(at[fresh])
                new_key.append(key[fresh])
                active[idx[~deeper]] = False
            grown = np.concatenate(new_rows)
            if len(grown):
                parent, key = np.concatenate(new_parent), np.concatenate(new_key)
                order = np.argsort(grown, kind="stable")  # rows in order, so each row's draws come in a fixed order
                grown, parent, key = grown[order], parent[order], key[order]
                movers = self._movers(work, grown)
                priors, values = evaluate(work, grown, movers, draws[grown, sample:])
                n = size[grown]
                size[grown] = n + 1
                prior[grown, n], value[grown, n], mover[grown, n] = priors, values, movers
                visits[grown, n] = 1
                children[grown, parent, key] = n
                leaf[grown] = values
                widen(grown, values)
            for idx, at, chosen in path:  # the backup: each edge takes the value of the seat that chose it
                visits[idx, at] += 1
                seat_of = mover[idx, at]
                for m in range(M):
                    edge_n[idx, at, m, chosen[:, m]] += 1
                    edge_w[idx, at, m, chosen[:, m]] += leaf[idx, seat_of[:, m]]
        result = self._result(prior, edge_n, edge_w, value, slot, seats, root_legal, simulations)
        if gumbel_roots:
            picks = []
            for legal_actions, root in gumbel_roots:
                best, policy = root.choose()
                improved = np.zeros(A)
                improved[legal_actions] = policy
                picks.append((int(legal_actions[best]), improved))
            actions = np.array([action for action, _ in picks], dtype=np.int64)
            values = np.array([edge_w[s, 0, slot[s], a] / edge_n[s, 0, slot[s], a] if edge_n[s, 0, slot[s], a]
                               else value[s, 0, seats[s]] for s, a in enumerate(actions)])
            result = VectorResult(result.visits, actions, values, simulations, np.stack([improved for _, improved in picks]))
        return result

    def _select(self, prior: np.ndarray, n: np.ndarray, w: np.ndarray, node_value: np.ndarray, seat_of: np.ndarray,
                node_visits: np.ndarray, legal: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """``PUCT._select`` for every row and slot at once: ``[k, M]`` actions.  Where few
        of many actions are legal (Double Card: tens of 864), the legal ones are gathered
        first (ascending, so the first best is the lowest action, as in ``PUCT``)."""
        k, M, A = legal.shape
        counts = legal.sum(axis=2)
        width = int(counts.max()) if counts.size else 0
        if 4 * width < A:
            flat = legal.reshape(k * M, A)
            row, action = np.nonzero(flat)  # by row, then action
            column = np.arange(len(row)) - np.repeat(np.cumsum(counts.reshape(-1)) - counts.reshape(-1), counts.reshape(-1))
            actions = np.zeros((k * M, width), dtype=np.int64)
            actions[row, column] = action
            present = np.zeros((k * M, width), dtype=bool)
            present[row, column] = True
            actions, present = actions.reshape(k, M, width), present.reshape(k, M, width)
            pick = self._scores(np.take_along_axis(prior, actions, axis=2), np.take_along_axis(n, actions, axis=2),
                                np.take_along_axis(w, actions, axis=2), node_value, seat_of, node_visits, present, lo, hi)
            return np.take_along_axis(actions, pick[..., None], axis=2)[..., 0]
        return self._scores(prior, n, w, node_value, seat_of, node_visits, legal, lo, hi)

    def _scores(self, prior: np.ndarray, n: np.ndarray, w: np.ndarray, node_value: np.ndarray, seat_of: np.ndarray,
                node_visits: np.ndarray, legal: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """The index of the best PUCT score along the last axis, among ``legal``."""
        spread = hi - lo
        known = spread > 0
        scale = np.where(known, 1.0 / np.where(known, spread, 1.0), 0.0)[:, None]
        total = (prior * legal).sum(axis=2)  # [k, M]
        fpu = np.take_along_axis(node_value, seat_of, axis=1)
        first_play = np.where(known[:, None], (fpu - lo[:, None]) * scale, 0.5)
        explore = self.c * np.sqrt(np.maximum(node_visits, 1))[:, None] / np.where(total > 0, total, 1.0)
        uniform = np.where(total <= 0, 1.0 / np.maximum(legal.sum(axis=2), 1), 0.0)
        mean = w / np.maximum(n, 1)
        q = np.where(n > 0, np.where(known[:, None, None], (mean - lo[:, None, None]) * scale[..., None], 0.5), first_play[..., None])
        score = q + explore[..., None] * (prior + uniform[..., None]) / (1 + n)
        score = np.where(legal, score, -np.inf)
        return score.argmax(axis=2)

    def _add_noise(self, prior: np.ndarray, slot: np.ndarray, legal: np.ndarray, rngs: list[np.random.Generator]) -> None:
        alpha_total, fraction = self.noise  # type: ignore[misc]
        for s, rng in enumerate(rngs):
            actions = np.flatnonzero(legal[s])
            p = prior[s, 0, slot[s]]
            total = p[actions].sum() or 1.0  # (numpy's sum, as this search has always made it)
            p[actions] = mix_noise(p[actions], total, alpha_total, fraction, rng)

    @staticmethod
    def _result(prior: np.ndarray, edge_n: np.ndarray, edge_w: np.ndarray, value: np.ndarray, slot: np.ndarray,
                seats: np.ndarray, legal: np.ndarray, simulations: int) -> VectorResult:
        S = len(slot)
        rows = np.arange(S)
        counts = np.where(legal, edge_n[rows, 0, slot], 0)
        root_prior = prior[rows, 0, slot]
        actions = np.zeros(S, dtype=np.int64)
        values = np.zeros(S)
        for s in range(S):
            candidates = np.flatnonzero(legal[s])
            best = most_visited(candidates.tolist(), counts[s], root_prior[s])
            actions[s] = best
            n = edge_n[s, 0, slot[s], best]
            values[s] = edge_w[s, 0, slot[s], best] / n if n else value[s, 0, seats[s]]
        return VectorResult(counts, actions, values, simulations)


def _gumbel_root(settings: Gumbel, s: int, prior: np.ndarray, edge_n: np.ndarray, edge_w: np.ndarray, value: np.ndarray,
                 slot: np.ndarray, seats: np.ndarray, legal: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 rng: np.random.Generator, simulations: int) -> tuple[np.ndarray, GumbelRoot]:
    """Row ``s``'s legal actions and its Gumbel root (``engines.gumbel.GumbelRoot``, as
    ``PUCT``'s, over those actions' indices), reading the row's root statistics from the
    search's arrays."""
    actions = np.flatnonzero(legal[s])
    at, seat = int(slot[s]), int(seats[s])

    def statistics() -> tuple[np.ndarray, np.ndarray, float]:
        n = edge_n[s, 0, at, actions].astype(np.float64)
        w = edge_w[s, 0, at, actions]
        spread = hi[s] - lo[s]
        scale = 1.0 / spread if spread > 0 else 0.0
        q = np.where(n > 0, (w / np.maximum(n, 1) - lo[s]) * scale if spread > 0 else 0.5, 0.0)
        root = (value[s, 0, seat] - lo[s]) * scale if spread > 0 else 0.5
        return q, n, float(root)

    return actions, GumbelRoot(settings, prior[s, 0, at, actions], rng, simulations, statistics)


def random_playouts(engine: BatchedEngine, rows: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The returns after uniformly random moves from the positions ``rows`` to the end
    (``[k, P]``); ``draws[i, step, seat]``: row ``i``'s own uniform floats, one per mover
    and step, the k-th legal action taken with k = floor(u * count).  A playout still going
    when the draws run out (the game's ``max_game_length`` steps) raises ``EndlessGame``."""
    k, limit = len(rows), draws.shape[1]
    play = _playout_engine(engine, k)
    play.copy_rows(engine, rows, np.arange(k))
    out = np.zeros((k, engine.num_players))
    done = play.terminated.copy()
    out[done] = play.returns()[done]
    step_index = 0
    while not done.all():
        if step_index >= limit:
            raise EndlessGame(engine.game.name, limit, engine.game.info.max_game_length)
        alive = ~done
        masks = play.legal_masks()
        u = draws[:, step_index]
        if play.simultaneous:
            choose = masks
        else:
            choose = masks[np.arange(k), play.movers().clip(0)]
            u = u[:, 0]
        step = play.step(legal_at(choose, u), where=alive)
        out[step.terminated] = step.rewards[step.terminated]
        done |= step.terminated
        step_index += 1
    return out


_PLAYOUTS: dict[tuple[type, int, tuple], BatchedEngine] = {}


def _playout_engine(engine: BatchedEngine, size: int) -> BatchedEngine:
    """An engine of ``size`` rows for playouts (kept for the next playout of that size)."""
    key = (type(engine), size, tuple(sorted(engine.game.config.items(), key=lambda kv: kv[0])))
    play = _PLAYOUTS.get(key)
    if play is None:
        if len(_PLAYOUTS) > 64:
            _PLAYOUTS.clear()
        play = _PLAYOUTS[key] = type(engine)(size, seed=0, autoreset=False, **engine.game.config)
    return play
