"""Double Card players: Shao and Ding's h1 and h2 (features, incremental h2 = full
recount, whatever positions come in between), the generic searchers on the game, their
tournament player and ours (docs/double_card.md)."""

import numpy as np
import pytest
from helpers import DOUBLE_CARD_SETUP_24

from parlour.baselines import make
from parlour.baselines.engines.alphabeta import LOSES, WINS
from parlour.baselines.engines.heuristics import evaluation_names, get_evaluation
from parlour.baselines.players.double_card import (
    REPORT_WEIGHTS,
    DoubleCardBest,
    LineCounts,
    h1,
    h1_features,
    h2,
    h2_features,
    h2_features_full,
    line_features,
    placement_hints,
    tournament_depth,
    windows,
)
from parlour.games.double_card import LINES, DoubleCardGame


def start(moves, **config):
    return DoubleCardGame(**config).new_initial_state(moves=moves)


def test_evaluations_are_registered():
    game = DoubleCardGame()
    assert {"h1", "h2", "windows", "h1-w1", "h1-w3"} <= set(evaluation_names(game))
    assert get_evaluation(game, "default") is h1


def test_h1_counts_alive_runs_from_the_surface():
    # row 1: R* Wo R* (three placement-4 cards' bottoms are R*, tops Wo): reds A1 B1 C1
    state = start(["0 4 A 1", "0 4 B 1", "0 4 C 1"])
    colour3, colour2, dot3, dot2 = h1_features(state)
    # rows 1 (R* x3) and 2 (Wo x3), alive to the right: a colour three and a dot three each
    assert (colour3, dot3) == (2, 2)
    assert colour2 == 0 and dot2 == 0
    value = h1(state)
    # colors (player_0): 5 * 2 + -10 * 2 = -10; dots: the same by symmetry
    assert value[0] == pytest.approx(-10 / 60) and value[1] == pytest.approx(-10 / 60)


def test_dead_runs_are_not_counted():
    # row 1: W* R* R* Wo -- the red pair B1 C1 is walled in by whites: dead
    state = start(["0 6 A 1", "0 4 B 1", "0 4 C 1", "0 2 D 1"])
    assert not state.is_terminal()
    rows = [line for line in LINES if line[:2] == (0, 1)]

    c3, c2, d3, d2 = line_features(state.seg, rows[0])
    # the red pair is walled in by whites, the filled three A1-C1 by the edge and Wo: both dead
    assert (c3, c2, d3, d2) == (0, 0, 0, 0)
    state.play("0 2 F 1")  # row 1: W* R* R* Wo . Wo: E1 open, the pair Wo . Wo is no run
    assert line_features(state.seg, rows[0]) == (0, 0, 0, 0)


def test_seed_weights_sign_per_objective():
    state = start(["0 4 A 1", "0 8 B 1", "0 4 C 1"])  # R* Ro R*: a colour three (reds)
    c3, c2, d3, d2 = h2_features_full(state)
    assert c3 >= 1
    assert h2(state)[0] > 0 > h2(state)[1]
    flipped = start(["0 4 A 1", "0 8 B 1", "0 4 C 1"], first_player="dots")
    assert h2(flipped)[1] > 0 > h2(flipped)[0]
    assert REPORT_WEIGHTS == (5.0, 0.2, -10.0, -0.2)


@pytest.mark.parametrize("seed", range(6))
def test_h2_incremental_equals_full_recount(seed):
    rng = np.random.default_rng(seed)
    game = DoubleCardGame(max_moves=60)
    state = game.new_initial_state(moves=DOUBLE_CARD_SETUP_24 if seed % 2 else [])
    h2(state)  # the shared cache now holds this board
    while not state.is_terminal():
        child = state.clone()
        for _ in range(int(rng.integers(1, 4))):  # sometimes several plies between evaluations
            if child.is_terminal():
                break
            child.apply(int(rng.choice(child.legal_actions(child.to_move))))
        assert h2_features(child) == h2_features_full(child)
        state = child


def test_h2_cache_is_keyed_by_the_board():
    """Positions of unrelated games, in any order, with a shared or a fresh cache: the
    cache only decides how many lines are recounted, never the counts."""
    rng = np.random.default_rng(11)
    games = [DoubleCardGame(max_moves=60).new_initial_state(moves=DOUBLE_CARD_SETUP_24),
             DoubleCardGame(first_player="dots").new_initial_state()]
    mine = LineCounts()
    for _ in range(60):
        k = int(rng.integers(2))
        if games[k].is_terminal():
            games[k] = DoubleCardGame().new_initial_state()
        state = games[k]
        state.apply(int(rng.choice(state.legal_actions(state.to_move))))
        expected = h2_features_full(state)
        assert h2_features(state) == expected  # the shared cache, after the other game's position
        assert h2_features(state, mine) == expected
        assert h2_features(state, LineCounts()) == expected  # from the empty board
        assert mine.memory[:3] == (state.occ, state.red, state.filled)
    memory = mine.memory
    assert h2_features(state, mine) == expected and mine.memory is memory  # the same board: nothing recounted


@pytest.mark.parametrize("evaluation", [h1, h2, windows])
def test_evaluations_strictly_inside_returns(evaluation):
    rng = np.random.default_rng(1)
    state = DoubleCardGame().new_initial_state()
    while not state.is_terminal():
        value = evaluation(state)
        assert value.shape == (2,) and np.all(np.abs(value) < 1)
        state.apply(int(rng.choice(state.legal_actions(state.to_move))))


def test_tournament_depth_schedule():
    assert [tournament_depth(m) for m in (1, 2, 3, 10, 11, 21, 22, 24, 25, 40)] == [2, 2, 3, 3, 4, 4, 5, 5, 2, 2]


@pytest.mark.parametrize(
    "spec",
    [
        "minimax:depth=1,evaluation=h1",
        "minimax:depth=2,evaluation=h2",
        "alphabeta:depth=2,evaluation=h1",
        "alphabeta:depth=2,evaluation=h2,tt=false,ordering=none,iterative=false",
        "alphabeta:depth=3,evaluation=windows",
        "original-tournament:depth=1,time_limit=2",
        "double-card-best:time_limit=0.3",
        "mcts:simulations=60",
    ],
)
def test_players_take_an_immediate_win(spec):
    from parlour.baselines import make_from_spec

    state = start(["0 4 A 1", "0 2 H 1", "0 4 B 1", "0 2 G 1", "0 4 C 1", "0 2 F 1"])
    # row 1: R* R* R* . . Wo Wo Wo -> D1 completes a red line (0 4 D 1 also makes Wo x4 in row 2: both kinds, mover wins)
    policy = make_from_spec(spec, DoubleCardGame(), seed=0)
    action = policy.act(state.info_state(0))
    child = state.clone()
    child.apply(action)
    assert child.winner == 0, state.action_to_text(action)


def test_players_play_recycling_moves():
    game = DoubleCardGame()
    state = game.new_initial_state(moves=DOUBLE_CARD_SETUP_24)
    for spec in ("alphabeta:depth=2,evaluation=h2", "original-tournament:time_limit=1", "double-card-best:time_limit=0.3",
                 "mcts:simulations=50"):
        from parlour.baselines import make_from_spec

        policy = make_from_spec(spec, game, seed=1)
        child = state.clone()
        child.apply(policy.act(child.info_state(0)))
        assert child.phase == "place"
        child.apply(policy.act(child.info_state(0)))
        assert child.moves == 25


def test_seed_tournament_uses_the_schedule_in_plies():
    game = DoubleCardGame()
    policy = make("original-tournament", game, seed=0, time_limit=20.0)
    state = game.new_initial_state(moves=["0 4 A 1"])
    policy.act(state.info_state(1))
    assert policy.stats["depth"] == 2  # move 2: depth 2
    state = game.new_initial_state(moves=DOUBLE_CARD_SETUP_24)
    policy.act(state.info_state(0))
    assert policy.stats["depth"] == 4  # move 25: depth 2 moves = 4 plies (take, place)
    assert policy.config["depth"] is None  # the schedule is restored after each search


def test_deterministic_players():
    game = DoubleCardGame()
    state = game.new_initial_state(moves=["0 4 A 1", "0 6 C 1"])
    a = make("alphabeta", game, seed=0, depth=3, evaluation="h2").act(state.info_state(0))
    b = make("alphabeta", game, seed=0, depth=3, evaluation="h2").act(state.info_state(0))
    assert a == b


# --- our search: hints, killers, PVS and the board-keyed cache change the cost, not the value ---

WIN_IN_ONE = ["0 4 A 1", "0 2 H 1", "0 4 B 1", "0 2 G 1", "0 4 C 1", "0 2 F 1"]
QUIET_6 = ["0 7 E 1", "0 6 C 1", "0 4 B 1", "0 2 A 1", "0 6 B 3", "0 4 H 1"]  # no one wins at depth 3
QUIET_5 = ["0 6 H 1", "0 5 C 1", "0 7 A 1", "0 4 B 2", "0 4 H 3"]
SEARCH_POSITIONS = [  # (moves, depth in plies, evaluations): regular play, recycling's start, recycling
    (QUIET_5, 2, ("h1", "windows")),
    (WIN_IN_ONE, 2, ("h1", "windows")),
    (QUIET_6, 3, ("h1",)),
    (DOUBLE_CARD_SETUP_24[:22], 3, ("h1", "windows")),
    (DOUBLE_CARD_SETUP_24, 3, ("h1", "windows")),
    (DOUBLE_CARD_SETUP_24, 4, ("windows",)),
]


def brute_value(state, me, depth, evaluate):
    """Plain depth-limited minimax for ``me`` (the opponent minimises): no pruning, no table."""
    if state.is_terminal():
        return float(state.returns()[me])
    if depth == 0:
        return float(evaluate(state)[me])
    values = []
    for action in state.legal_actions(state.to_move):
        child = state.clone()
        child.apply(action)
        values.append(brute_value(child, me, depth - 1, evaluate))
    return max(values) if state.to_move == me else min(values)


@pytest.fixture(scope="module")
def brute_values():
    game = DoubleCardGame()
    return {
        (index, name): brute_value(start(moves), start(moves).to_move, depth, get_evaluation(game, name))
        for index, (moves, depth, names) in enumerate(SEARCH_POSITIONS)
        for name in names
    }


@pytest.mark.parametrize(
    "spec",
    [
        "double-card-best:time_limit=none",
        "double-card-best:time_limit=none,iterative=false",
        "double-card-best:time_limit=none,pvs=false,hint_depth=2",
        "double-card-best:time_limit=none,eval_cache=false,killers=false",
        "alphabeta:pvs=true",
        "alphabeta:ordering=evaluation,pvs=true",
        "alphabeta:ordering=none,tt=false,eval_cache=false,iterative=false",
    ],
)
@pytest.mark.parametrize("evaluation", ["h1", "windows"])
def test_search_value_equals_minimax(spec, evaluation, brute_values):
    from parlour.baselines import make_from_spec

    for index, (moves, depth, names) in enumerate(SEARCH_POSITIONS):
        if evaluation not in names:
            continue
        state = start(moves)
        policy = make_from_spec(f"{spec},depth={depth},evaluation={evaluation}", DoubleCardGame(), seed=0)
        policy.search(state.clone(), state.to_move)
        assert policy.stats["value"] == pytest.approx(brute_values[(index, evaluation)], abs=1e-12), (moves, depth)


def test_board_key_shares_transposed_leaves():
    # the same two placements in either order: one board, two last-moved cards
    a = start(["0 4 A 1", "0 2 H 1", "0 4 C 1"])
    b = start(["0 4 C 1", "0 2 H 1", "0 4 A 1"])
    policy = make("double-card-best", DoubleCardGame(), time_limit=None)
    assert a.key() != b.key() and policy.leaf_key(a) == policy.leaf_key(b)
    state = start(QUIET_6)
    policy = make("double-card-best", DoubleCardGame(), depth=3, time_limit=None, evaluation="h1", iterative=False)
    policy.search(state.clone(), state.to_move)
    assert policy.stats["leaf_cache_hits"] > 0


def _window_sums(state):
    """(colour, dot) sums of the hint weights over every window, by a plain loop."""
    from parlour.games.double_card import WINDOWS

    weights = (0.0, 0.05, 0.5, 3.0)
    colour = dot = 0.0
    for w in {w for ws in WINDOWS for w in ws}:
        held = state.occ & w
        n = bin(held).count("1")
        if not n or n == 4:
            continue
        red, filled = state.red & w, state.filled & w
        colour += weights[n] if red in (0, held) else 0.0
        dot += weights[n] if filled in (0, held) else 0.0
    return colour, dot


@pytest.mark.parametrize("seed", range(3))
def test_placement_hints_equal_a_full_recount(seed):
    rng = np.random.default_rng(seed)
    state = DoubleCardGame(max_moves=60).new_initial_state()
    checked = wins = losses = 0
    while not state.is_terminal() and state.cards < 24:
        actions = state.legal_actions(state.to_move)
        hints = placement_hints(state, actions)
        colour, dot = _window_sums(state)
        own_colours = state.to_move == state.game.colors_seat
        for action, hint in zip(actions, hints):
            child = state.clone()
            child.apply(action)
            if child.is_terminal():
                assert child.winner in (0, 1)
                expected = 1000.0 if child.winner == state.to_move else -1000.0
                wins += expected > 0
                losses += expected < 0
            else:
                c2, d2 = _window_sums(child)
                expected = (c2 - colour) - (d2 - dot) if own_colours else (d2 - dot) - (c2 - colour)
            assert hint == pytest.approx(expected, abs=1e-9), state.action_to_text(action)
            checked += 1
        state.apply(int(rng.choice(actions)))
    assert checked > 300
    assert placement_hints(start(DOUBLE_CARD_SETUP_24), start(DOUBLE_CARD_SETUP_24).legal_actions(0)) is None  # picks: no hints


def test_winning_move_is_hinted_first():
    state = start(WIN_IN_ONE)
    actions = state.legal_actions(0)
    hints = placement_hints(state, actions)
    best = actions[int(np.argmax(hints))]
    child = state.clone()
    child.apply(best)
    assert max(hints) == 1000.0 and child.winner == 0


def _windows_loop(state):
    """The windows evaluation written as a plain loop (the vectorized one must agree)."""
    from parlour.games.double_card import WINDOWS

    score, threats = [0.0, 0.0], [0, 0]
    for w in {w for ws in WINDOWS for w in ws}:
        held = state.occ & w
        count = bin(held).count("1")
        if not held or count == 4:
            continue
        r, f = state.red & held, state.filled & held
        pure = (r == 0 or r == held, f == 0 or f == held)
        if not any(pure):
            continue
        weight = (0.0, 0.05, 0.5, 3.0)[count]
        if count == 3:
            missing = (w & ~state.occ).bit_length() - 1
            if state.heights[missing % 8] == missing // 8:
                weight += 3.0
                threats[0] += pure[0]
                threats[1] += pure[1]
        for k in (0, 1):
            score[k] += weight if pure[k] else 0.0
    mover = 0 if state.to_move == state.game.colors_seat else 1
    if threats[mover]:
        score[mover] += 10.0
    h = score[0] - score[1]
    values = np.empty(2)
    values[state.game.colors_seat] = h / (abs(h) + 50)
    values[1 - state.game.colors_seat] = -h / (abs(h) + 50)
    return values


@pytest.mark.parametrize("first_player", ["colors", "dots"])
def test_vectorized_windows_equals_the_loop(first_player):
    rng = np.random.default_rng(7)
    for _ in range(8):
        state = DoubleCardGame(max_moves=60, first_player=first_player).new_initial_state()
        while not state.is_terminal():
            assert windows(state) == pytest.approx(_windows_loop(state), abs=1e-12)
            state.apply(int(rng.choice(state.legal_actions(state.to_move))))


def test_time_limit_none_and_bad_values():
    game = DoubleCardGame()
    for name in ("double-card-best", "original-tournament"):
        assert make(name, game, time_limit=None).config["time_limit"] is None
        from parlour.baselines import make_from_spec

        assert make_from_spec(f"{name}:time_limit=none", game).config["time_limit"] is None
        assert make_from_spec(f"{name}:time_limit=2", game).config["time_limit"] == 2.0
        with pytest.raises(ValueError, match="time_limit"):
            make_from_spec(f"{name}:time_limit=soon", game)
        with pytest.raises(ValueError, match="time_limit"):
            make(name, game, time_limit=0)
    with pytest.raises(ValueError, match="hint_depth"):
        make("double-card-best", game, hint_depth=0)


class _NoDecisiveRules(DoubleCardBest):
    """double-card-best without its exact shortcuts: wins and losses on the spot get
    finite hints (so they are ordered, not cut) and no recent win is tried first."""

    name = "double-card-best-plain-test"  # not registered

    def move_hints(self, state, player, actions, depth):
        hints = super().move_hints(state, player, actions, depth)
        return None if hints is None else [1000.0 if h == WINS else -1000.0 if h == LOSES else h for h in hints]

    def winning_move(self, state, player, depth):
        return None


def _random_positions(count, seed, kind):
    """Positions from random play: ``"decisive"``, the side to move has a win or a loss on
    the spot; ``"forced"``, some of its moves leave the opponent a win on the spot (then
    usually some also complete the opponent's line);
    ``"quiet"``, neither, after 4 to 9 moves."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = DoubleCardGame().new_initial_state()
        quiet_at = int(rng.integers(4, 10))
        while not state.is_terminal() and len(found) < count:
            actions = state.legal_actions(state.to_move)
            hints = placement_hints(state, actions)
            decisive = hints is not None and max(abs(h) for h in hints) == 1000.0
            forced = hints is not None and placement_hints(state, actions, forced=True) != hints
            if {"decisive": decisive and not forced, "forced": forced,
                    "quiet": not decisive and not forced and state.moves >= quiet_at}[kind] and rng.random() < 0.7:
                found.append(state.clone())
                break
            state.apply(int(rng.choice(actions)))
    return found


def test_decisive_rules_keep_the_value():
    """Searching a win on the spot alone, skipping losses on the spot (and, two or more
    plies from the horizon, moves that leave the opponent a win on the spot) and trying
    the last win found at a depth first leave every value as it was (and match minimax
    at depths 1 and 2, where the two-ply rule must not be used at depth 1)."""
    game = DoubleCardGame()
    evaluate = get_evaluation(game, "windows")
    fewer = 0
    positions = (_random_positions(4, 5, "decisive") + _random_positions(4, 7, "forced")
                 + _random_positions(3, 6, "quiet") + [start(WIN_IN_ONE)])
    for state in positions:
        me = state.to_move
        for depth in (1, 2, 3, 4):
            rules = make("double-card-best", game, depth=depth, time_limit=None)
            rules.search(state.clone(), me)
            plain = _NoDecisiveRules(game, depth=depth, time_limit=None)
            plain.search(state.clone(), me)
            assert rules.stats["value"] == plain.stats["value"], (state.to_text(), depth)
            if depth <= 2:
                assert rules.stats["value"] == pytest.approx(brute_value(state, me, depth, evaluate), abs=1e-12)
            fewer += rules.stats["nodes"] < plain.stats["nodes"]
    assert fewer >= 12


def test_forced_hint_marks_moves_that_leave_a_win():
    """Every move the two-ply rule marks lets the opponent win at once; every other
    move that does not end the game does not."""
    checked = 0
    for state in _random_positions(6, 8, "forced"):
        actions = state.legal_actions(state.to_move)
        plain = placement_hints(state, actions)
        for action, hint, forced in zip(actions, plain, placement_hints(state, actions, forced=True)):
            child = state.clone()
            child.apply(action)
            if child.is_terminal():
                continue
            replies = child.legal_actions(child.to_move)
            opponent_wins = any(h == 1000.0 for h in placement_hints(child, replies))
            if forced == -1000.0:
                assert opponent_wins, state.action_to_text(action)
                checked += 1
            else:
                assert forced == hint
    assert checked > 20
