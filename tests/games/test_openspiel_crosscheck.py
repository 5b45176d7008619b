"""Cross-check Goofspiel against OpenSpiel's ``goofspiel`` (the rules file's reference).

Only the variant both implement is compared: two players, descending prizes, tied
prizes discarded.  Action ``a`` bids card ``a + 1`` in both.

OpenSpiel auto-resolves the last round (each player holds one card, so the bids are
forced): its state becomes terminal after ``N - 1`` ``apply_actions`` calls for
``N >= 2`` (and after one call for ``N = 1``; its initial state is never terminal),
while parlour plays all ``N`` rounds explicitly.  The tests below apply each round to
OpenSpiel only while it is not terminal and pair a parlour state with an OpenSpiel state
only when both are non-terminal after the same number of rounds, or both are terminal.
"""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from parlour.games.goofspiel import GoofspielGame  # noqa: E402

SEQUENCES_PER_CASE = 40  # x 13 sizes x 2 return types = 1040 random games
_POINTS = re.compile(r"Points: (-?\d+) (-?\d+)")


def parlour_game(n: int, returns: str = "win_loss", imperfect_info: bool = False) -> GoofspielGame:
    return GoofspielGame(
        num_cards=n,
        prize_order="descending",
        tie_rule="discard",
        returns=returns,
        imperfect_info=imperfect_info,
    )


def openspiel_game(n: int, returns: str = "win_loss", imp_info: bool = False):
    return pyspiel.load_game(
        "goofspiel",
        {"num_cards": n, "points_order": "descending", "returns_type": returns, "imp_info": imp_info},
    )


def openspiel_points(state) -> list[int]:
    """Both players' points, read from OpenSpiel's state string."""
    match = _POINTS.search(str(state))
    assert match, str(state)
    return [int(match[1]), int(match[2])]


def random_bids(n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """A uniformly random legal bid sequence: a random permutation of 0..n-1 per seat."""
    return list(zip(rng.permutation(n).tolist(), rng.permutation(n).tolist()))


def play_both(n: int, returns: str, bids: list[tuple[int, int]]):
    """Play ``bids`` in parlour and in OpenSpiel (``returns`` and ``total_points``).

    Checks along the way that, while OpenSpiel is not terminal, both agree on the legal
    actions and the points so far, and that OpenSpiel ends exactly when only the
    forced last round remains.
    """
    ours = parlour_game(n, returns).new_initial_state()
    theirs = openspiel_game(n, returns).new_initial_state()
    totals = openspiel_game(n, "total_points").new_initial_state()
    for r, (a0, a1) in enumerate(bids):
        assert not ours.is_terminal()
        if not theirs.is_terminal():
            assert theirs.is_simultaneous_node()
            for seat in (0, 1):
                assert theirs.legal_actions(seat) == ours.legal_actions(seat)
            assert openspiel_points(theirs) == ours.points
            theirs.apply_actions([a0, a1])
            totals.apply_actions([a0, a1])
        else:
            # Only the forced last round is left in parlour.
            assert r == n - 1 and n >= 2
            assert ours.legal_actions(0) == [a0] and ours.legal_actions(1) == [a1]
        ours.apply({0: a0, 1: a1})
    assert ours.is_terminal() and theirs.is_terminal() and totals.is_terminal()
    return ours, theirs, totals


@pytest.mark.parametrize("n", range(1, 14))
def test_openspiel_terminal_after_forced_last_round(n):
    """Documents the round-count offset the other tests rely on."""
    state = openspiel_game(n).new_initial_state()
    applies = 0
    while not state.is_terminal():
        state.apply_actions([n - 1 - applies] * 2)
        applies += 1
    assert applies == max(n - 1, 1)
    ours = parlour_game(n).new_initial_state()
    for r in range(n):
        ours.apply({0: n - 1 - r, 1: n - 1 - r})
    assert ours.is_terminal() and ours.round == n


def _check_returns(returns: str, factor: float, seed: int) -> int:
    rng = np.random.default_rng(seed)
    played = 0
    for n in range(1, 14):
        for _ in range(SEQUENCES_PER_CASE):
            bids = random_bids(n, rng)
            ours, theirs, totals = play_both(n, returns, bids)
            context = f"N={n} bids={bids}"
            assert ours.returns().tolist() == [factor * x for x in theirs.returns()], context
            assert ours.points == [int(x) for x in totals.returns()], context
            assert ours.points == openspiel_points(theirs), context
            played += 1
    return played


def test_returns_match_openspiel_win_loss():
    assert _check_returns("win_loss", 1.0, seed=20240601) == 13 * SEQUENCES_PER_CASE


def test_returns_match_openspiel_point_difference():
    # OpenSpiel: own points minus the mean of all players' points; parlour: minus the
    # opponent's, which with two players is exactly twice OpenSpiel's value.
    assert _check_returns("point_difference", 2.0, seed=20240602) == 13 * SEQUENCES_PER_CASE


def test_returns_match_openspiel_total_points():
    rng = np.random.default_rng(20240603)
    for n in range(1, 14):
        for _ in range(10):
            bids = random_bids(n, rng)
            ours, theirs, _ = play_both(n, "total_points", bids)
            assert ours.returns().tolist() == list(theirs.returns()), f"N={n} bids={bids}"


def test_returns_match_openspiel_extreme_sequences():
    """All ties (every prize discarded), one seat always higher, and mirror images."""
    for n in range(1, 14):
        up, down = list(range(n)), list(range(n - 1, -1, -1))
        for seq0, seq1 in [(down, down), (down, up), (up, down), (up, up)]:
            bids = list(zip(seq0, seq1))
            for returns, factor in [("win_loss", 1.0), ("point_difference", 2.0)]:
                ours, theirs, totals = play_both(n, returns, bids)
                assert ours.returns().tolist() == [factor * x for x in theirs.returns()]
                assert ours.points == [int(x) for x in totals.returns()]


# --- information states ---------------------------------------------------------


def paired_nodes(n: int, imperfect_info: bool):
    """Every bid history (all prefixes, terminal included) as ``(bids, ours, theirs)``.

    A parlour node is paired with the OpenSpiel node reached by the same bids when both
    are non-terminal (same round count), or when both are terminal: OpenSpiel's
    terminal state after ``N - 1`` rounds (its history omits the auto-resolved last
    round, but its strings include it) is paired with parlour's after the forced
    ``N``-th round, which is a bijection.  Parlour's nodes after ``N - 1`` rounds
    (``N >= 2``, one forced round left) have no OpenSpiel counterpart and are skipped.
    """
    ours_game = parlour_game(n, imperfect_info=imperfect_info)
    theirs_game = openspiel_game(n, imp_info=imperfect_info)
    nodes = []

    def visit(ours, theirs, bids):
        if ours.is_terminal() == theirs.is_terminal():
            if not ours.is_terminal():
                assert len(theirs.history()) == 2 * ours.round
            nodes.append((bids, ours, theirs))
        if ours.is_terminal():
            return
        for a0 in ours.legal_actions(0):
            for a1 in ours.legal_actions(1):
                child = ours.clone()
                child.apply({0: a0, 1: a1})
                other = theirs
                if not theirs.is_terminal():
                    other = theirs.clone()
                    other.apply_actions([a0, a1])
                visit(child, other, bids + ((a0, a1),))

    visit(ours_game.new_initial_state(), theirs_game.new_initial_state(), ())
    return nodes


def partitions(nodes, seat: int, key=None):
    """``ours -> {theirs}`` and ``theirs -> {ours}`` for one seat."""
    key = key or (lambda ours: ours.info_state(seat))
    ours_to_theirs, theirs_to_ours = defaultdict(set), defaultdict(set)
    for _, ours, theirs in nodes:
        mine, other = key(ours), theirs.information_state_string(seat)
        ours_to_theirs[mine].add(other)
        theirs_to_ours[other].add(mine)
    return ours_to_theirs, theirs_to_ours


def _expected_node_count(n: int) -> int:
    """Histories after 0..N-2 rounds plus the terminal ones (N - 1 free rounds)."""
    total, level = 0, 1
    for r in range(max(n - 1, 1) + 1):
        total += level
        level *= (n - r) ** 2
    return total


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("seat", [0, 1])
def test_info_state_partition_matches_openspiel_imperfect_info(n, seat):
    """imperfect_info=True: two bid histories look the same to a seat in parlour exactly
    when they do in OpenSpiel (``imp_info=True``), at every round and at the end."""
    nodes = paired_nodes(n, imperfect_info=True)
    assert len(nodes) == _expected_node_count(n)
    ours_to_theirs, theirs_to_ours = partitions(nodes, seat)
    split = {k: v for k, v in ours_to_theirs.items() if len(v) > 1}
    merged = {k: v for k, v in theirs_to_ours.items() if len(v) > 1}
    assert not split, f"parlour merges what OpenSpiel tells apart: {next(iter(split.items()))}"
    assert not merged, f"parlour tells apart what OpenSpiel merges: {next(iter(merged.items()))}"
    if n >= 3:  # hidden bids really do merge histories
        assert len(ours_to_theirs) < len(nodes)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("seat", [0, 1])
def test_info_state_partition_perfect_info_refines_openspiel(n, seat):
    """imperfect_info=False: parlour's info state is perfect recall (rules item 7: all
    past bids are public), so it is one class per bid history.  OpenSpiel's
    ``imp_info=False`` information-state string is *not* perfect recall: it shows the
    prizes, both remaining hands, the win sequence and the points, but not which card
    was bid in which round, so it merges e.g. the all-tie histories 3,2,1 / 1,2,3 vs the
    same.  Hence the partitions do not coincide; check instead that parlour's refines
    OpenSpiel's, and that OpenSpiel's is exactly the partition by (round, remaining
    hands, round winners, points) computed from parlour's state."""
    nodes = paired_nodes(n, imperfect_info=False)
    assert len(nodes) == _expected_node_count(n)
    ours_to_theirs, _ = partitions(nodes, seat)
    # Perfect recall: distinct histories give distinct parlour info states.
    assert len(ours_to_theirs) == len(nodes)
    assert all(len(v) == 1 for v in ours_to_theirs.values())

    def coarse(ours):
        info = ours.info_state(seat)
        return (info.round, info.prizes_seen, tuple(ours.hands), info.winners, info.points)

    coarse_to_theirs, theirs_to_coarse = partitions(nodes, seat, key=coarse)
    assert all(len(v) == 1 for v in coarse_to_theirs.values())
    assert all(len(v) == 1 for v in theirs_to_coarse.values())
    if n >= 3:
        assert len(theirs_to_coarse) < len(nodes)  # OpenSpiel does forget the bid order


@pytest.mark.parametrize("imperfect_info", [False, True])
def test_info_state_legal_actions_match_openspiel(imperfect_info):
    """An info state's own legal actions agree with OpenSpiel's at every paired node."""
    for _, ours, theirs in paired_nodes(4, imperfect_info):
        for seat in (0, 1):
            expected = [] if theirs.is_terminal() else theirs.legal_actions(seat)
            assert ours.info_state(seat).legal_actions() == expected
