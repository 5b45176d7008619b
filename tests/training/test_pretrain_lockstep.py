"""An ``az`` search's pretraining games played in lockstep (``teacher_games(..., lockstep=N)``,
``ppo.pretrain_lockstep``): where the search draws nothing (perfect information, no
playouts) they are the player's own games row for row; with hidden information (Tides of
Time) they are seeded, do not depend on how many games run at once or on the workers,
label each decision with the search's visit counts at the player's temperature and replay
in the rules module; specs the vectorised search cannot play are refused by name."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from parlour.baselines.learned.az_model import PolicyValueNet, save_az_model
from parlour.games import load_game
from parlour.training.pretrain import teacher_games
from parlour.zoo import MODELS
from tests.training.test_pretrain import same_games
from tests.training.test_teacher import small_config, train

TIDES = load_game("tides_of_time")
TIDES_SEARCH = f"az:{MODELS / 'tides_of_time.zip'},simulations=8,c=1.0"


def fresh_model(tmp_path, game) -> str:
    torch.manual_seed(0)
    net = PolicyValueNet(game.observation_shape, game.num_actions, game.num_players, network="mlp", hidden=16)
    return str(save_az_model(net, tmp_path / f"{game.name}.zip", game))


def test_without_random_draws_the_lockstep_games_are_the_players_own(tmp_path):
    """Double Card: no hidden cards and no playouts, so the vectorised search and the tree
    search find the same visits (tests/training/test_vector_search.py) and the two paths
    play the same games and record the same rows."""
    game = load_game("double_card")
    spec = f"az:{fresh_model(tmp_path, game)},simulations=12,c=1.2"
    one_by_one = teacher_games(game, spec, 2, seed=5, explore=0.2)
    lockstep = teacher_games(game, spec, 2, seed=5, explore=0.2, lockstep=2)
    assert np.array_equal(one_by_one.observations, lockstep.observations)
    assert np.array_equal(one_by_one.masks, lockstep.masks)
    assert np.allclose(one_by_one.labels, lockstep.labels) and np.array_equal(one_by_one.values, lockstep.values)
    choices = lockstep.masks.sum(axis=1) > 1
    assert ((lockstep.labels[choices] > 0).sum(axis=1) > 1).any()  # visit counts, not one-hots


def test_the_games_are_seeded_and_do_not_depend_on_the_batch_or_the_workers():
    base = teacher_games(TIDES, TIDES_SEARCH, 5, seed=2, lockstep=2)
    assert same_games(base, teacher_games(TIDES, TIDES_SEARCH, 5, seed=2, lockstep=5))
    assert same_games(base, teacher_games(TIDES, TIDES_SEARCH, 5, seed=2, lockstep=2, workers=2))
    assert not same_games(base, teacher_games(TIDES, TIDES_SEARCH, 5, seed=3, lockstep=2))
    assert sorted(set(base.games.tolist())) == list(range(5))


def test_each_row_is_the_searchs_visit_counts_and_the_games_replay_in_the_rules_module():
    """Without exploring moves every move is the label's most probable legal one (the lowest
    on a tie); replayed from the same deal in the rules module, the observations, masks and
    discounted returns are the rows'.  A searched row's label is 8 simulations' visits."""
    gamma = 0.9
    data = teacher_games(TIDES, TIDES_SEARCH, 2, seed=4, explore=0.0, gamma=gamma, lockstep=2)
    for index in range(2):
        rows = iter(np.flatnonzero(data.games == index))
        state = TIDES.new_initial_state(np.random.default_rng([4, index]))
        movers: list[tuple[int, int]] = []
        while not state.is_terminal():
            joint = {}
            for player in state.current_players():
                row = next(rows)
                movers.append((row, player))
                mask = state.legal_mask(player).astype(bool)
                assert np.array_equal(data.observations[row], state.observation_tensor(player))
                assert np.array_equal(data.masks[row], mask)
                label = data.labels[row]
                assert np.isclose(label.sum(), 1.0) and not label[~mask].any()
                if mask.sum() > 1:
                    assert np.allclose(label * 8, np.round(label * 8))
                legal = np.flatnonzero(mask)
                joint[player] = int(legal[np.argmax(label[legal])])
            state.apply(joint if len(joint) > 1 else next(iter(joint.values())))
        assert next(rows, None) is None
        returns = state.returns()
        for player in range(2):
            mine = [row for row, seat in movers if seat == player]
            np.testing.assert_allclose(data.values[mine], [returns[player] * gamma ** (len(mine) - 1 - k) for k in range(len(mine))],
                                       rtol=1e-6)


def test_the_players_temperature_shapes_the_labels():
    """The same searches (a temperature changes the labels, not the moves), their counts squared."""
    plain = teacher_games(TIDES, TIDES_SEARCH, 2, seed=6, lockstep=2)
    sharp = teacher_games(TIDES, f"{TIDES_SEARCH},temperature=0.5", 2, seed=6, lockstep=2)
    assert np.array_equal(plain.observations, sharp.observations)
    squared = plain.labels.astype(np.float64) ** 2
    assert np.allclose(sharp.labels, squared / squared.sum(axis=1, keepdims=True), atol=1e-6)


def test_what_the_vectorised_search_cannot_play_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="'greedy' is not an az player that searches"):
        teacher_games(TIDES, "greedy", 2, seed=0, lockstep=4)
    with pytest.raises(ValueError, match="not an az player that searches"):
        teacher_games(TIDES, f"az:{MODELS / 'tides_of_time.zip'},simulations=0", 2, seed=0, lockstep=4)
    with pytest.raises(ValueError, match="not a SearchableEngine"):
        teacher_games(load_game("sticks"), f"az:{MODELS / 'sticks.zip'},simulations=4", 2, seed=0, lockstep=4)
    with pytest.raises(ValueError, match="lockstep must be 0 .* got -1"):
        teacher_games(TIDES, TIDES_SEARCH, 2, seed=0, lockstep=-1)
    with pytest.raises(ValueError, match="ppo.pretrain_lockstep=8: teacher 'greedy' is not an az player"):
        train(small_config(game="tides_of_time", ppo={"pretrain": "greedy", "pretrain_lockstep": 8}), tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_teacher_game_that_does_not_end_is_an_error():
    """As self-play's (tests/training/test_alphazero.py): rules that run longer than they say stop it."""
    import dataclasses

    from parlour.errors import EndlessGame
    from parlour.training.pretrain_lockstep import lockstep_games

    game = load_game("tides_of_time")
    game.info = dataclasses.replace(game.info, max_game_length=5)
    with pytest.raises(EndlessGame, match=r"tides_of_time: the game did not end within 5 steps"):
        lockstep_games(game, TIDES_SEARCH, [0, 1], seed=0, explore=0.1, gamma=0.99, lockstep=2)
