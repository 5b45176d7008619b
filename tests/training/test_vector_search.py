"""The vectorised PUCT (``parlour.baselines.engines.vector_puct``) is ``PUCT``: with the same
evaluation of every position and no noise, its searches of a perfect-information game
find exactly the visit counts of the tree search (turn-based: sticks; simultaneous:
Goofspiel with public bids and a fixed prize order); with hidden information (Tides of
Time) every search is a legal one whose statistics add up, and a search's result does
not depend on the others it runs with."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")

from parlour.baselines.engines.gumbel import Gumbel
from parlour.baselines.engines.puct import PUCT  # noqa: E402
from parlour.baselines.engines.vector_puct import VectorPUCT, random_playouts  # noqa: E402
from parlour.baselines.learned.az_model import (
    PolicyValueNet,  # noqa: E402
    network_leaves,  # noqa: E402
)
from parlour.errors import EndlessGame
from parlour.games import load_game  # noqa: E402
from parlour.vector import make_engine  # noqa: E402


def toy_values(observation: np.ndarray, actions: int, players: int) -> tuple[np.ndarray, np.ndarray]:
    """Priors and values from an observation by elementwise arithmetic and row sums only
    (the same to the last bit for one row or many)."""
    flat = observation.reshape(-1).astype(np.float64)
    raw = 1.0 + 0.5 * np.cos(np.arange(actions) * 1.7 + flat[:actions].sum() if len(flat) >= actions else 0.0)
    prior = raw / raw.sum()
    base = np.tanh(flat.sum() / 7.0)
    values = np.array([base * (1 if p % 2 == 0 else -1) * (1 + 0.1 * p) for p in range(players)])
    return prior, values


class ToyEvaluator:
    """The sequential search's evaluator: each mover's own observation gives its priors,
    their values are averaged (as NetworkEvaluator does with relative values)."""

    def __call__(self, state, players):
        priors, values = {}, []
        for p in players:
            prior, value = toy_values(state.observation_tensor(p), state.game.num_actions, state.game.num_players)
            priors[p] = prior
            values.append(np.roll(value, p))
        return priors, values[0] if len(values) == 1 else sum(values) / len(values)


def toy_leaves(engine, rows, movers, rngs):
    observations = engine.observations_of(rows)
    k, M = movers.shape
    priors = np.zeros((k, M, engine.num_actions))
    values = np.zeros((k, engine.num_players))
    for i in range(k):
        rolled = []
        for m in range(M):
            prior, value = toy_values(observations[i, movers[i, m]], engine.num_actions, engine.num_players)
            priors[i, m] = prior
            rolled.append(np.roll(value, movers[i, m]))
        values[i] = rolled[0] if M == 1 else sum(rolled) / M
    return priors, values


@pytest.mark.parametrize("name, options, steps", [("sticks", {"num_sticks": 13, "max_take": 3}, [0, 2, 5]),
                                                  ("goofspiel", {"num_cards": 5, "prize_order": "descending"}, [0, 1, 3])])
@pytest.mark.parametrize("gumbel", [None, Gumbel(considered=4, sample=False)])
def test_the_same_visits_as_the_tree_search(name, options, steps, gumbel):
    """Visit for visit the tree search's, with PUCT at the root or a Gumbel root (without
    its random draws: the two searches draw in different orders); with the Gumbel root
    also the same chosen actions and improved policies."""
    game = load_game(name, **options)
    assert game.info.perfect_information
    engine = make_engine(name, len(steps), seed=0, autoreset=False, **options)
    rng = np.random.default_rng(0)
    states = [game.new_initial_state(0) for _ in steps]
    for row, n in enumerate(steps):  # walk the engine and the rules side by side
        for _ in range(n):
            players = states[row].current_players()
            moves = {p: int(rng.choice(states[row].legal_actions(p))) for p in players}
            states[row].apply(moves if len(players) > 1 else moves[players[0]])
            actions = np.zeros((len(steps), 2) if engine.simultaneous else len(steps), dtype=np.int64)
            actions[row] = [moves[0], moves[1]] if engine.simultaneous else moves[players[0]]
            where = np.zeros(len(steps), dtype=bool)
            where[row] = True
            engine.step(actions, where=where)
    seats = np.array([state.current_players()[0] for state in states])
    vector = VectorPUCT(engine, c=1.3, gumbel=gumbel).run(engine, np.arange(len(steps)), seats,
                                                          [np.random.default_rng(i) for i in steps], 60, toy_leaves)
    for row, state in enumerate(states):
        result = PUCT(ToyEvaluator(), game.num_actions, c=1.3, gumbel=gumbel).search(state, state.clone, int(seats[row]), 60,
                                                                                   np.random.default_rng(0))
        if gumbel is not None:
            assert np.allclose(vector.policies()[row], result.policy(game.num_actions))
        expected = np.zeros(game.num_actions, dtype=np.int64)
        for action, count in result.visits.items():
            expected[action] = count
        assert np.array_equal(vector.visits[row], expected), (row, vector.visits[row], expected)
        assert vector.actions[row] == result.action and np.isclose(vector.values[row], result.value)


def test_hidden_information_searches_are_consistent_and_independent():
    game = load_game("tides_of_time")
    engine = make_engine("tides_of_time", 6, seed=3, autoreset=False)
    for _ in range(3):
        engine.step(engine.random_actions(np.random.default_rng(1)))
    torch.manual_seed(0)
    net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, hidden=16)
    search = VectorPUCT(engine, c=1.5, noise=(10.0, 0.25))
    roots, seats = np.array([0, 0, 1, 4, 5, 5]), np.array([0, 1, 0, 1, 0, 1])
    together = search.run(engine, roots, seats, [np.random.default_rng(i) for i in range(6)], 24,
                          network_leaves(net, 0.5, game.info.max_game_length))
    legal = engine.legal_masks()[roots, seats].astype(bool)
    assert (together.visits.sum(axis=1) == 24).all() and not together.visits[~legal].any()
    assert legal[np.arange(6), together.actions].all()
    alone = search.run(engine, roots[[3]], seats[[3]], [np.random.default_rng(3)], 24, network_leaves(net, 0.5, game.info.max_game_length))
    assert np.array_equal(alone.visits[0], together.visits[3]) and alone.actions[0] == together.actions[3]


def test_gathering_the_few_legal_actions_picks_as_the_dense_scores_do():
    """Where few of many actions are legal (Double Card), ``_select`` scores only those:
    the same choice as scoring every action."""
    engine = make_engine("double_card", 2, seed=0, autoreset=False)
    search = VectorPUCT(engine, c=1.5)
    rng = np.random.default_rng(0)
    k, M, A = 40, 1, engine.num_actions
    legal = rng.random((k, M, A)) < 0.03
    legal[np.arange(k), 0, rng.integers(A, size=k)] = True
    prior = rng.random((k, M, A))
    n = rng.integers(0, 4, size=(k, M, A))
    n[rng.random((k, M, A)) < 0.5] = 0
    w = rng.normal(size=(k, M, A)) * n
    args = (np.zeros((k, 2)) + rng.normal(size=(k, 2)), np.zeros((k, M), dtype=np.int64), rng.integers(1, 9, size=k), legal,
            np.full(k, -1.0), np.full(k, 1.0))
    gathered = search._select(prior, n, w, *args)
    dense = search._scores(prior, n, w, *args)
    assert legal[np.arange(k), 0, gathered[:, 0]].all()
    assert np.array_equal(gathered[:, 0], dense[:, 0])


def test_a_random_playout_longer_than_its_draws_is_an_error():
    """The playouts of a leaf draw for at most the game's max_game_length steps; a game
    still going then is the error of a game that does not end, not an IndexError."""
    engine = make_engine("sticks", 2, seed=0, autoreset=False, num_sticks=13, max_take=3)
    draws = np.zeros((2, 2, 2))  # two steps of draws; a draw of 0 takes one stick of 13
    with pytest.raises(EndlessGame, match=r"sticks: the game did not end within 2 steps \(max_game_length 13\)"):
        random_playouts(engine, np.arange(2), draws)
    assert random_playouts(engine, np.arange(2), np.zeros((2, 13, 2))).shape == (2, 2)

