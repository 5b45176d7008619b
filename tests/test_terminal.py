"""``parlour play``: a person in the terminal, scripted through its input stream."""

import io
import re
import subprocess
import sys

import numpy as np
import pytest
from helpers import sticks_without_end

from parlour.cli import main
from parlour.errors import Failure
from parlour.games import load_game
from parlour.games.base import Game
from parlour.terminal import play, view


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


# --- what the person sees and types in each game (issue 12, item 2) -------------------------


class Responder:
    """A scripted person who reads the screen: the given lines first, then at every
    prompt the first legal move shown (the example of a list that gives one, else the
    first of the list), optionally asking ``hint`` before each move; the end of the
    input after 500 lines (a move that is never accepted ends the game)."""

    def __init__(self, out: io.StringIO, lines=(), hints: bool = False) -> None:
        self.out, self.lines, self.hints, self.asked, self.left = out, list(lines), hints, 0, 500

    def readline(self) -> str:
        self.left -= 1
        if self.left < 0:
            return ""
        if self.lines:
            return self.lines.pop(0) + "\n"
        shown = re.findall(r"legal moves: (.*)", self.out.getvalue())
        if not shown:
            return ""
        if self.hints and self.asked < len(shown):
            self.asked = len(shown)
            return "hint\n"
        example = re.search(r"e\.g\. '([^']+)'", shown[-1])
        if example:
            return example[1] + "\n"
        return (shown[-1].split(", ") if ", " in shown[-1] else shown[-1].split())[0] + "\n"


def auto_session(game, opponent="random", seat=0, seed=0, lines=(), hints=False):
    out = io.StringIO()
    assert play(game, opponent, seat=seat, seed=seed, stdin=Responder(out, lines, hints), stdout=out) == 0
    return out.getvalue()


def normalised(text: str) -> str:
    return " ".join(text.split())


TINY_TRIBOLO = {"width": 4, "height": 3, "walls": 0, "start_cells": 1}


def test_tribolo_board_is_labelled_as_the_notation_names_cells():
    game = load_game("tribolo", **TINY_TRIBOLO)
    state = game.state_from_board(["BR..", "..RG", "G..."], to_move=0)
    assert [state.action_to_text(a) for a in state.legal_actions(0)] == ["c1"]
    assert view(state, 0) == (
        "you are B (player_0); R is player_1, G is player_2; # is a wall\n"
        "player_0 to move | B 1 R 2 G 2\n"
        "  a b c d\n"
        "1 B R . .\n"
        "2 . . R G\n"
        "3 G . . ."
    )
    assert view(state, 2).startswith("you are G (player_2); B is player_0, R is player_1")
    assert state.to_text().splitlines()[1:] == ["BR..", "..RG", "G..."]  # the text form is unchanged
    tall = load_game("tribolo", width=3, height=12, walls=0, start_cells=1).state_from_board(["BR."] + ["..."] * 10 + ["RG."], to_move=0)
    assert view(tall, 0).splitlines()[2:4] == ["   a b c", " 1 B R ."] and view(tall, 0).endswith("\n12 R G .")


def test_tribolo_session_says_which_letter_is_yours_and_each_opponents_last_move():
    out = auto_session(load_game("tribolo", width=6, height=5, walls=2, start_cells=3), seed=0)
    assert "you are B (player_0); R is player_1, G is player_2" in out
    assert "\n  a b c d e f\n1 " in out
    last = re.findall(r"last moves: (.*)", out)
    assert last and all(re.fullmatch(r"player_1 \(random\) (played [a-f][1-5]|had no legal move)"
                                     r"( \| player_2 \(random\) (played [a-f][1-5]|had no legal move))?", line) for line in last)
    # the line repeats the latest announcement of each opponent
    before_first = out[: out.index("last moves:")]
    for seat in (1, 2):
        said = re.findall(rf"player_{seat} \(random\) plays ([a-f][1-5])", before_first)
        if said:
            assert f"player_{seat} (random) played {said[-1]}" in last[0]


def test_tribolo_skipped_turns_are_announced_even_when_you_never_move():
    """On this tiny board the person (B) is blocked from the start: every turn of theirs
    the rules skip is announced, as are the opponents' skipped turns."""
    game = load_game("tribolo", **TINY_TRIBOLO)
    _, out = session(game, [], opponent="greedy", seed=116)  # a deal in which B never has a move
    assert "your move" not in out  # never asked
    assert out.count("you (player_0) have no legal move: your turn is skipped") == 3
    assert "player_1 (greedy) has no legal move: its turn is skipped" in out
    assert "player_2 (greedy) has no legal move: its turn is skipped" in out
    assert out.index("you are B (player_0)") < out.index("player_1 (greedy) plays")  # the board before the first move
    assert out.rstrip().endswith("you lose")


def test_tribolo_skipped_seats_follow_the_turn_order():
    state = load_game("tribolo", **TINY_TRIBOLO).state_from_board(["BR..", "..RG", "G..."], to_move=0)
    # state.to_move == 0: after a move of seat 2 nobody was skipped, after seat 1's seat 2
    # was, and seat 0 moving again means both others were
    assert [state.skipped_seats(mover) for mover in (2, 1, 0)] == [(), (2,), (1, 2)]
    over = load_game("tribolo", **TINY_TRIBOLO).state_from_board(["BBB.", "....", "...."], to_move=None)
    assert over.skipped_seats(0) == ()
    assert load_game("sticks").new_initial_state().skipped_seats(1) == ()  # the default: nobody


def listed_actions(state) -> set[int]:
    """Every move that Double Card's grouped list of legal moves names, read back."""
    lines = state.legal_moves_text(state.to_move).splitlines()
    actions = set()
    for line in lines[1:]:
        line = line.strip()
        if line.startswith("cards you may take: "):
            actions |= {state.text_to_action(pair) for pair in line.removeprefix("cards you may take: ").split(", ")}
            continue
        match = re.fullmatch(r"placements? ([1-8](?: [1-8])*)(?: \((?:horizontal|vertical)\))? at (.+)", line)
        assert match, line
        prefix = "0 " if state.phase == "regular" else ""
        actions |= {state.text_to_action(f"{prefix}{p} {cell}") for p in match[1].split() for cell in match[2].split()}
    return actions


def double_card_positions():
    """Positions of every phase: the start, random games, 24 cards down (take), a card
    taken (place), under each recycle rule."""
    from helpers import DOUBLE_CARD_SETUP_24, quiet_action

    positions = []
    for rule in ("same_cells", "same_placement", "none"):
        game = load_game("double_card", recycle_rule=rule, max_moves=60)
        positions.append(game.new_initial_state())
        rng = np.random.default_rng(len(rule))
        state = game.new_initial_state(moves=DOUBLE_CARD_SETUP_24)
        for _ in range(12):
            positions.append(state.clone())
            if state.is_terminal():
                break
            state.apply(quiet_action(state, rng))
        state = game.new_initial_state()
        for _ in range(10):
            state.apply(quiet_action(state, rng))
            positions.append(state.clone())
    phases = {p.phase for p in positions}
    assert {"regular", "pick", "place"} <= phases
    return [p for p in positions if not p.is_terminal()]


def test_double_card_legal_moves_are_grouped_and_name_every_legal_move():
    for state in double_card_positions():
        text = state.legal_moves_text(state.to_move)
        assert len(text.splitlines()) <= 4, text  # a few lines, never the 60-odd moves one by one
        assert listed_actions(state) == set(state.legal_actions(state.to_move)), text


def test_double_card_examples_in_lists_and_errors_are_legal_now():
    """Every 'e.g.' of the list of legal moves and of every error is a move that can be
    played in that very position (once the suggestion was '0 5 A 2' even as the first
    move, where it hangs over an empty cell)."""
    for state in double_card_positions():
        messages = [state.legal_moves_text(state.to_move)]
        for bad in ["xx", "0 5 A 2", "0 5 A 12", "F 2 F 3 3 A 2", "3 A 2", "F 2 F 3", "A 1 A 1 1 A 1"]:
            try:
                state.text_to_action(bad)
            except ValueError as error:
                messages.append(str(error))
        examples = [e for message in messages for e in re.findall(r"e\.g\. '([^']+)'", message)]
        assert examples
        for example in examples:
            state.clone().play(example)  # raises if it is not a legal move here


def test_double_card_session_lists_moves_readably():
    _, out = session(load_game("double_card"), ["0 5 A 2", "xx", "quit"], opponent="random")
    assert "legal moves: '0 P C R' puts a card with placement P on cell C R (its bottom-left cell), e.g. '0 1 A 1'\n" in out
    assert ("\n  placements 1 3 5 7 (horizontal) at A1 B1 C1 D1 E1 F1 G1\n"
            "  placements 2 4 6 8 (vertical) at A1 B1 C1 D1 E1 F1 G1 H1\n") in out
    assert "0 1 A 1 0 1 B 1" not in out
    assert "'0 5 A 2' is not a legal move now.\nlegal moves: '0 P C R'" in out
    assert "e.g. '0 5 A 2'" not in out and "not a move: malformed move 'xx'; expected '0 P C R'" in out
    assert "you are player_0 and play colors (four R or four W in a line); player_1 plays dots" in out


def test_double_card_recycling_move_is_typed_once():
    """Typed whole at the take, the recycling move is played whole: no second prompt."""
    game = load_game("double_card")
    out = auto_session(game, seed=319)  # the first seed whose game against random reaches recycling
    assert "cards you may take" in out
    typed = re.search(r"cards you may take: .*\nyour move \(or hint, undo, quit, help\): (.*)\n(.*)", out)
    assert len(typed[1].split()) == 7  # C1 R1 C2 R2 P C R
    assert typed[2].startswith(("player_1 (random) plays", "\nyou are", "")) and "puts the card taken from" not in out
    moves = re.findall(r"move (\d+)/40", out[typed.start():])
    assert int(moves[0]) >= 25  # the board after it counts the whole move


def test_help_explains_the_notation_of_the_game_being_played():
    games = [load_game("sticks"), load_game("goofspiel", num_cards=4), load_game("tides_of_time", rounds=1),
             load_game("tribolo", width=6, height=5, walls=2, start_cells=3), load_game("double_card")]
    helps = set()
    for game in games:
        _, out = session(game, ["help", "quit"], opponent="random")
        notation = game.notation_help()
        assert notation != Game.notation and notation not in helps
        helps.add(notation)
        assert f"how to write a move in {game.name}:" in out and normalised(notation) in normalised(out)
        assert "hint SPEC" in out and "undo" in out
    assert "a number from 1 to 3" in load_game("sticks").notation_help()
    assert "a number from 1 to 5" in load_game("sticks", max_take=5).notation_help()
    assert "but not back onto the same two cells" in load_game("double_card").notation_help()
    assert "wherever it fits" in load_game("double_card", recycle_rule="none").notation_help()


def test_hint_shows_a_reference_move_and_its_evaluation():
    _, out = session(load_game("sticks"), ["hint", "hint alphabeta", "hint nonsense", "hint random", "quit"])
    assert "hint from optimal: 1 (no evaluation: optimal does not rate its moves)" in out
    assert "hint from alphabeta: 1 (value +1 for you; searched" in out
    assert "no hint: unknown policy 'nonsense'" in out
    tribolo = load_game("tribolo", width=6, height=5, walls=2, start_cells=3)
    out = auto_session(tribolo, lines=["hint", "quit"])
    move = re.search(r"hint from paranoid:depth=2: ([a-f][1-5]) \(value [+-][\d.]+ for you; searched \d+ steps deep\)", out)
    assert move and move[1] in re.search(r"legal moves: (.*)", out)[1].split()
    out = auto_session(load_game("goofspiel", num_cards=4), lines=["hint", "hint mcts:simulations=50", "quit"])
    assert re.search(r"hint from equilibrium: [1-4] \(value [+-][\d.]+ for you; other moves", out)
    assert re.search(r"hint from mcts:simulations=50: [1-4] \(value [+-][\d.]+ for you; \d+ of 50 visits", out)


def drop_hints(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("hint from") and not line.endswith("help): hint"))


@pytest.mark.parametrize(
    "game",
    [load_game("tribolo", width=6, height=5, walls=2, start_cells=3), load_game("goofspiel", num_cards=5, imperfect_info=True),
     load_game("double_card", max_moves=8)],
    ids=["tribolo", "goofspiel", "double_card"],
)
def test_hints_change_neither_the_game_nor_the_opponents_randomness(game):
    plain = auto_session(game, opponent="random", seed=4)
    hinted = auto_session(game, opponent="random", seed=4, hints=True)
    assert hinted.count("hint from") >= 2
    assert drop_hints(hinted) == drop_hints(plain)


def test_hint_sees_only_the_persons_information_state(monkeypatch):
    import parlour.baselines

    seen = []
    build = parlour.baselines.make_from_spec

    def spying(spec, game):
        policy = build(spec, game)
        act = policy.act
        policy.act = lambda info: seen.append((spec, info)) or act(info)
        return policy

    monkeypatch.setattr(parlour.baselines, "make_from_spec", spying)  # where the session's thinker builds policies
    game = load_game("goofspiel", num_cards=4, imperfect_info=True)
    out = auto_session(game, seed=2, seat=1, lines=["4", "hint mcts:simulations=20"])
    hinted = [info for spec, info in seen if spec == "mcts:simulations=20"]
    assert len(hinted) == 1 and hinted[0].player == 1
    assert str(hinted[0]) in out  # exactly the view the person was shown
    assert "player_0 ?" in str(hinted[0])  # the opponent's bid stays hidden


def test_one_stick_is_singular_and_both_forms_are_read():
    game = load_game("sticks", num_sticks=3)
    _, out = session(game, ["1"], seat=1, opponent="alphabeta")  # alphabeta takes 2 of 3, leaving 1
    one = game.new_initial_state(sticks=1)
    assert one.to_text() == "1 stick | player_0 to move"
    assert game.state_from_text("1 stick | player_0 to move") == one
    assert game.state_from_text("1 sticks | player_0 to move") == one  # the older form
    with pytest.raises(ValueError, match="did you mean '2 sticks"):
        game.state_from_text("2 stick | player_0 to move")
    assert "\n1 stick | player_1 to move\n" in out and "1 sticks" not in out


def test_goofspiel_tie_in_the_last_round_is_not_carried_over():
    game = load_game("goofspiel", num_cards=2, prize_order="ascending")
    state = game.new_initial_state()
    state.apply({0: 0, 1: 0})
    state.apply({0: 1, 1: 1})
    text = view(state, 0)
    assert "1. prize 1: bids you 1, player_1 1 -> tie: 1 carried over" in text
    assert "2. prize 2: bids you 2, player_1 2 -> tie: 3 lost (no round left)" in text


@pytest.mark.parametrize("name, options", [("tribolo", {}), ("goofspiel", {"num_cards": 5})])
def test_the_same_seed_deals_the_same_game_as_parlour_serve(name, options):
    """``parlour play`` is a text front end over the web's session: the same seed deals the
    same start, and the opponents answer the same moves with the same moves."""
    from parlour.table.session import GameSession

    game = load_game(name, **options)
    web = GameSession(game, ["person", *["random"] * (game.num_players - 1)], seed=11)  # as parlour serve makes it
    moves = []
    for _ in range(3):
        (seat,) = web.to_act()
        action = web.state.legal_actions(seat)[-1]
        moves.append(web.state.action_to_text(action))
        web.move(seat, action)
    _, out = session(game, moves, opponent="random", seed=11)
    assert view(web.start, 0) in out  # the same deal
    assert view(web.state, 0) in out  # the same position after the same three moves: the same replies
    if not game.info.simultaneous:
        told = [line.split(" plays ")[1] for line in out.splitlines() if " plays " in line]
        assert told[:6] == [entry["moves"][s]["text"] for entry in web.log for s in entry["moves"] if s != 0][:6]


def test_a_game_that_never_ends_stops_at_its_step_limit_instead_of_hanging(monkeypatch, capsys):
    """``parlour play`` thinks without a time limit: an opponent whose game never ends
    would keep it for ever; the session's step limit (the game's max_game_length) stops
    it with the reason, a failure of the command rather than a hang."""
    sticks_without_end(monkeypatch)
    game = load_game("sticks", num_sticks=7)
    with pytest.raises(Failure, match=r"the game was stopped: it did not end within 7 steps \(sticks ends within 7\)"):
        session(game, ["1"], opponent="random", seed=3)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n"))
    assert main(["play", "sticks", "--option", "num_sticks=7", "--seed", "3"]) == 1
    assert "parlour play: error: the game was stopped: it did not end within 7 steps" in capsys.readouterr().err


def test_a_watched_game_goes_as_far_as_the_callers_step_limit():
    """A caller may give the session a step limit of its own; the policies stop there,
    the session says so, and undo (of a person's move) is unaffected."""
    from parlour.table.session import GameSession

    game = load_game("sticks", num_sticks=20)
    watched = GameSession(game, ["random", "random"], seed=2, max_steps=5)
    assert watched.advance(limit=2) == 2 and watched.stalled is None
    assert watched.advance() == 3 and len(watched.steps) == 5 and not watched.state.is_terminal()
    assert watched.stalled == watched.cut_off() and "did not end within 5 steps (sticks ends within 20)" in watched.stalled
    assert watched.advance() == 0 and len(watched.steps) == 5  # it goes no further
    replayed = GameSession(game, ["random", "random"], seed=2)  # the same seed: the same five steps, then on to the end
    replayed.advance()
    assert replayed.steps[:5] == watched.steps and replayed.state.is_terminal() and replayed.stalled is None

