"""``parlour play``: a person in the terminal, scripted through its input stream."""

import io
import subprocess
import sys

import pytest

from parlour.cli import main
from parlour.games import load_game
from parlour.play import play, view


def session(game, lines, opponent="alphabeta", seat=0, seed=0):
    out = io.StringIO()
    code = play(game, opponent, seat=seat, seed=seed, stdin=io.StringIO("".join(f"{line}\n" for line in lines)), stdout=out)
    return code, out.getvalue()


def test_bad_move_undo_and_quit():
    game = load_game("sticks", num_sticks=10, max_take=3)
    code, out = session(game, ["undo", "5", "three", "2", "undo", "1", "quit"])
    assert code == 0
    assert "nothing to undo yet" in out
    assert "not a move: a sticks move is how many to take, 1..3; got '5'" in out
    assert "got 'three'" in out
    # shown at the start, after the refused undo, and after taking back "2" and the reply
    assert out.count("10 sticks | player_0 to move") == 3
    assert "took back your last move" in out
    assert "player_1 (alphabeta) plays" in out
    assert "8 sticks | player_0 to move" in out  # took 1, the opponent replied with 1
    assert out.rstrip().endswith("you left the game")


def test_illegal_but_well_formed_move_is_refused():
    game = load_game("sticks", num_sticks=2, max_take=3)
    _, out = session(game, ["3", "1"])
    assert "'3' is not a legal move now. Legal moves: 1 2" in out
    # taking one leaves the last stick to the opponent (misère): the person wins
    assert "result: you +1 | player_1 (alphabeta) -1 -> you win" in out


def test_game_to_the_end_as_seat_one():
    game = load_game("sticks", num_sticks=5, max_take=3)
    code, out = session(game, ["1", "1", "1", "1", "1"], seat=1)  # more input than needed
    assert code == 0
    assert out.count("your move") >= 1 and "result:" in out and "you lose" in out


def test_end_of_input_leaves_quietly():
    code, out = session(load_game("sticks"), [])
    assert code == 0 and "you left the game" in out


def test_goofspiel_shows_only_what_the_seat_knows():
    game = load_game("goofspiel", num_cards=4, imperfect_info=True)
    code, out = session(game, ["9", "4", "2", "undo", "3", "2", "1"], opponent="random", seed=5)
    assert code == 0
    assert "not a move: a goofspiel move is a card value 1..4; got '9'" in out
    assert "prizes to come (order hidden)" in out
    assert "player_1's hand" not in out  # the opponent's bids are hidden, so is its hand
    assert "bids you 4, player_1 ?" in out
    assert "result:" in out


def test_goofspiel_view_hides_the_future_and_hidden_bids():
    """Two states that differ only in what seat 0 cannot see look the same to seat 0."""
    game = load_game("goofspiel", num_cards=5, imperfect_info=True)
    a = game.new_initial_state(prizes=[3, 5, 1, 2, 4])
    b = game.new_initial_state(prizes=[3, 5, 4, 1, 2])
    a.apply({0: 2, 1: 0})  # seat 0 bids 3 and wins the round in both
    b.apply({0: 2, 1: 1})
    assert a.to_text() != b.to_text()
    assert view(a, 0) == view(b, 0)
    assert "bids you 3, player_1 ? -> you take 3" in view(a, 0)
    assert "prizes to come (order hidden): 1 2 4" in view(a, 0)
    public = load_game("goofspiel", num_cards=5, prize_order="descending")
    state = public.new_initial_state()
    state.apply({0: 4, 1: 0})
    text = view(state, 1)
    assert "round 2 of 5: prize 4\nprizes so far: 5\nprizes to come, in order: 3 2 1" in text and "player_0's hand: 1 2 3 4" in text
    assert "bids player_0 5, you 1 -> player_0 takes 5" in text


def test_cli_rejects_bad_opponent_and_seat(capsys):
    assert main(["play", "goofspiel", "--opponent", "alphabeta"]) == 2
    err = capsys.readouterr().err
    assert "cannot play goofspiel" in err and "random" in err
    assert main(["play", "sticks", "--seat", "2"]) == 2
    assert "--seat must be 0..1 for sticks, got 2" in capsys.readouterr().err


def test_piped_input_through_the_command():
    result = subprocess.run(
        [sys.executable, "-m", "parlour.cli", "play", "sticks", "--opponent", "alphabeta", "--option", "num_sticks=6", "--seed", "1"],
        input="0\n1\nundo\n3\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "sticks: you are player_0; opponents: alphabeta; seed 1" in result.stdout
    assert "got '0'" in result.stdout and "took back your last move" in result.stdout
    assert result.stdout.count("6 sticks | player_0 to move") == 2
    assert "you left the game" in result.stdout


@pytest.mark.parametrize("seat", [0, 1])
def test_same_seed_same_game(seat):
    game = load_game("goofspiel", num_cards=4)
    assert session(game, ["1", "2", "3", "4"], opponent="random", seat=seat, seed=9) == session(
        game, ["1", "2", "3", "4"], opponent="random", seat=seat, seed=9
    )
