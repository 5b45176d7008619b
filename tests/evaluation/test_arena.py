"""The arena: schedule, seeds, worker-independence, ratings, reports and the CLI."""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from parlour.baselines import Policy, make
from parlour.cli import DEFAULT_ARENA, UsageError, main, parse_option_value
from parlour.evaluation.arena import (
    GameFailed,
    build_agents,
    make_schedule,
    play_game,
    play_match,
)
from parlour.evaluation.report import FILES, summarize, to_markdown, write_heatmap
from parlour.games import load_game
from parlour.games.goofspiel import GoofspielInfoState

STICKS = load_game("sticks", num_sticks=9, max_take=3)
WEAK = "minimax:depth=2,evaluation=zero"


class TakeAll(Policy):
    """Test stub (not registered): always takes the most sticks it may."""

    name = "take-all"
    summary = "always the largest legal action"

    def act(self, info_state):
        return info_state.legal_actions()[-1]


class Illegal(Policy):
    name = "illegal"
    summary = "always an action that is never legal"

    def act(self, info_state):
        return 99


class Recorder(Policy):
    """Random, and remembers every information state it was shown."""

    name = "recorder"
    summary = "random, recording what it sees"

    def setup(self):
        self.seen = []

    def act(self, info_state):
        self.seen.append(info_state)
        legal = info_state.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]


# --- schedule and seeds ------------------------------------------------------------------


def seat_counts(schedule):
    counts = Counter()
    for index in range(schedule.num_games):
        spec = schedule.game(index)
        assert len(set(spec.agents)) == len(spec.agents)  # nobody sits twice
        counts.update((agent, seat) for seat, agent in enumerate(spec.agents))
    return counts


@pytest.mark.parametrize(("agents", "seats", "games", "permutations"),
                         [(2, 2, 7, 2), (3, 2, 10, 2), (4, 3, 6, 6), (5, 3, 1, 6), (6, 5, 5, 5)])
def test_every_agent_plays_every_seat_equally_often(agents, seats, games, permutations):
    schedule = make_schedule(agents, seats, games, seed=1)
    assert len(schedule.seatings) == permutations  # all permutations up to 4 seats, rotations beyond
    assert schedule.games_per_group % permutations == 0 and schedule.games_per_group >= games
    counts = seat_counts(schedule)
    assert len(counts) == agents * seats
    assert len(set(counts.values())) == 1
    pairings = Counter(frozenset(schedule.game(i).agents) for i in range(schedule.num_games))
    assert set(pairings.values()) == {schedule.games_per_group}  # every group equally often


def test_seeds_come_from_the_master_seed():
    schedule = make_schedule(3, 2, 4, seed=5)
    specs = [schedule.game(i) for i in range(schedule.num_games)]
    # one deal per cycle, shared by every group and seating of that cycle ("duplicate" play)
    per_cycle = len(schedule.groups) * len(schedule.seatings)
    assert len({s.game_seed for s in specs[:per_cycle]}) == 1
    assert len({s.game_seed for s in specs[::per_cycle]}) == schedule.cycles
    assert len({seed for s in specs for seed in s.seat_seeds}) == 2 * len(specs)
    assert make_schedule(3, 2, 4, seed=5).game(7) == specs[7]
    assert make_schedule(3, 2, 4, seed=6).game(7) != specs[7]


def test_schedule_rejects_bad_input():
    with pytest.raises(ValueError, match="at least 2 agents"):
        make_schedule(1, 2, 10, 0)
    with pytest.raises(ValueError, match="3 seats but only 2 agents"):
        make_schedule(2, 3, 10, 0)
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        make_schedule(2, 2, 10, -1)
    with pytest.raises(ValueError, match="games must be at least 1, got 0"):
        make_schedule(2, 2, 0, 0)


# --- playing -----------------------------------------------------------------------------


def comparable(result):
    return [(r.index, r.agents, r.returns, r.length, r.game_seed) for r in result.records]


@pytest.mark.parametrize(
    ("game", "agents"),
    [
        (STICKS, ["random", WEAK, "alphabeta"]),
        (load_game("goofspiel", num_cards=4), ["random", "random:"]),
    ],
    ids=["sticks", "goofspiel4"],
)
def test_same_seed_same_table_with_one_or_two_workers(game, agents):
    one = play_match(game, agents, 12, seed=3, workers=1, progress=False)
    two = play_match(game, agents, 12, seed=3, workers=2, progress=False)
    assert comparable(one) == comparable(two)
    assert to_markdown(summarize(one)) == to_markdown(summarize(two))
    other = play_match(game, agents, 12, seed=4, workers=1, progress=False)
    assert comparable(other) != comparable(one)


def test_a_game_depends_only_on_its_index():
    """Fresh policies replaying one scheduled game give the match's record (reset works)."""
    agents = ["random", WEAK, "alphabeta"]
    result = play_match(STICKS, agents, 6, seed=11, progress=False)
    for index in (0, 7, len(result.records) - 1):
        replay = play_game(STICKS, build_agents(STICKS, agents), result.schedule.game(index))
        assert replay == result.records[index]


def test_random_openings_keep_deterministic_searchers_from_replaying_one_game():
    """Two deterministic searchers replay one game per seating; ``opening`` random plies
    (from each game's seed) make the games differ, the same for any number of workers."""
    agents = ["alphabeta:depth=2", "alphabeta:depth=1"]
    plain = play_match(STICKS, agents, 8, seed=2, progress=False)
    assert len({record.moves for record in plain.records}) <= 2
    opened = play_match(STICKS, agents, 8, seed=2, progress=False, opening=2)
    assert len({record.moves for record in opened.records}) > 2
    assert comparable(play_match(STICKS, agents, 8, seed=2, progress=False, opening=2, workers=2)) == comparable(opened)
    for record, spec in zip(opened.records, (opened.schedule.game(i) for i in range(len(opened.records)))):
        replay = play_game(STICKS, build_agents(STICKS, agents), replace(spec, opening=2))
        assert replay == record
    with pytest.raises(ValueError, match="opening must be at least 0, got -1"):
        play_match(STICKS, agents, 2, progress=False, opening=-1)


def test_simultaneous_seats_choose_from_their_own_information_state():
    game = load_game("goofspiel", num_cards=5, imperfect_info=True)
    a, b = Recorder(game), Recorder(game)
    play_match(game, [a, b], 4, seed=0, progress=False)
    assert a.seen and all(isinstance(info, GoofspielInfoState) for info in a.seen + b.seen)
    # within each round both seats see the same number of bids: nobody saw the other's choice
    assert [info.round for info in a.seen] == [info.round for info in b.seen]
    for info in a.seen + b.seen:
        assert all(bid is None for bids in info.bids for seat, bid in enumerate(bids) if seat != info.player)


def test_a_policy_that_always_wins_rates_above_one_that_always_loses():
    """Two sticks, take 1 or 2, misère: seat 0 decides the game (take one and win).
    alphabeta does so; take-all always takes both and loses; random wins half its games
    at seat 0.  So alphabeta beats take-all in every game, from either seat."""
    game = load_game("sticks", num_sticks=2, max_take=2)
    result = play_match(game, ["alphabeta", TakeAll(game), "random"], 40, seed=0, progress=False)
    summary = summarize(result)
    rows = {row["agent"]: row for row in summary["agents"]}
    assert rows["alphabeta"]["elo"] > rows["random"]["elo"] > rows["take-all"]["elo"]
    assert rows["alphabeta"]["elo_low"] > rows["take-all"]["elo_high"]
    assert all(np.isfinite(row["elo"]) for row in summary["agents"])
    pair = next(p for p in summary["pairs"] if {p["agent_a"], p["agent_b"]} == {"alphabeta", "take-all"})
    assert (pair["a_wins"], pair["draws"], pair["b_wins"]) == (40, 0, 0)
    assert pair["a_win_low"] == pytest.approx(0.9124, abs=1e-4)  # Wilson, 40 of 40


def test_summary_counts_add_up():
    result = play_match(STICKS, ["random", WEAK, "alphabeta"], 10, seed=2, progress=False)
    summary = summarize(result)
    for row in summary["pairs"]:
        assert row["a_wins"] + row["draws"] + row["b_wins"] == row["games"] == 10
        assert row["a_win_low"] <= row["a_win_rate"] <= row["a_win_high"]
    for row in summary["agents"]:
        assert row["games"] == 20 and row["games_by_seat"] == [10, 10]
        assert row["return_low"] <= row["mean_return"] <= row["return_high"]
    assert [row["rank"] for row in summary["agents"]] == [1, 2, 3]
    table = to_markdown(summary)
    assert "| rank | agent | Elo |" in table and "| A | B | games |" in table
    assert sum(row["elo"] for row in summary["agents"]) == pytest.approx(0.0, abs=1e-6)


def test_the_learner_s_head_to_head_results_come_before_the_pooled_ratings():
    """A pooled rating can rank an agent above one it loses to (wins against a weak third
    agent count too); with ``focus`` its own results against each opponent come first."""
    result = play_match(STICKS, ["random", WEAK, "alphabeta"], 10, seed=2, progress=False)
    summary = summarize(result)
    assert "Head to head" not in to_markdown(summary)
    table = to_markdown(summary, focus=WEAK)
    head, rest = table.split("| rank | agent | Elo |")
    assert "Head to head: " + WEAK in head and "pooling all its games" in head
    rows = [line for line in head.splitlines() if line.startswith("| ") and not line.startswith("| opponent")]
    assert [row.split(" | ")[0].lstrip("| ") for row in rows] == ["random", "alphabeta"]
    for row, opponent in zip(rows, ["random", "alphabeta"]):
        pair = next(p for p in summary["pairs"] if {p["agent_a"], p["agent_b"]} == {WEAK, opponent})
        mine = pair["agent_a"] == WEAK
        wins, losses = (pair["a_wins"], pair["b_wins"]) if mine else (pair["b_wins"], pair["a_wins"])
        assert f"| {pair['games']} | {wins} | {pair['draws']} | {losses} |" in row
    assert "wins against weak ones can rank it above an agent it loses to" in rest
    with pytest.raises(ValueError, match="played in no pairing"):
        to_markdown(summary, focus="optimal")


def test_more_seats_than_two_compare_every_pair_in_a_game():
    game = load_game("goofspiel", num_cards=3, num_players=3)
    result = play_match(game, ["random", "random:", "random: ", "random:  "], 6, seed=0, progress=False)
    summary = summarize(result)
    assert result.schedule.num_games == 4 * 6
    assert all(row["games"] == 12 for row in summary["pairs"])  # 2 groups per pair, 6 games each
    assert all(row["games_by_seat"] == [6, 6, 6] for row in summary["agents"])


def test_a_failing_policy_is_named():
    with pytest.raises(GameFailed, match=r"game 0 \(seat 0: illegal, seat 1: random\).*IllegalActionError"):
        play_match(STICKS, [Illegal(STICKS), "random"], 2, seed=0, progress=False)


def test_a_failing_policy_is_named_from_a_worker_too():
    # Seats alternate between games and either worker may fail first, so either seating.
    with pytest.raises(GameFailed, match=r"\(seat 0: (illegal, seat 1: random|random, seat 1: illegal)\).*IllegalActionError"):
        play_match(STICKS, [Illegal(STICKS), "random"], 40, seed=0, workers=2, progress=False)


LONG_ARENA = ["arena", "--game", "double_card", "--agents", "original-tournament", "original-tournament:time_limit=0.5",
              "--games", "200", "--workers", "2", "--quiet"]
"""A two-worker arena that plays for minutes: the signal tests stop it a few seconds in."""


def _children(pid: int) -> set[int]:
    return {int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def _spawned_workers(pid: int) -> list[int]:
    """The children of ``pid`` that are multiprocessing's spawned workers (not its resource tracker)."""
    found = []
    for child in _children(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
        except FileNotFoundError:
            continue
    return found


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="needs Linux's /proc children lists")
@pytest.mark.parametrize("when", ["starting", "playing"])
def test_ctrl_c_stops_a_multi_worker_arena_at_once(when):
    """A real SIGINT to the process group (what Ctrl-C in a terminal sends): the workers
    ignore it and are stopped by the parent, which prints one line and exits 130 without
    waiting for the games still queued.  ``starting``: the Ctrl-C comes as soon as the
    workers exist, while they still import and unpickle, before their initializer runs
    (they are started with it held: ``parlour.processes.hold_ctrl_c``)."""
    # Python's own Ctrl-C handling in the child even when this process ignores SIGINT (as a
    # shell's background job `... &` does, and its children inherit): a terminal's Ctrl-C
    # reaches a foreground command, whose handling is what is tested.
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            f"from parlour.cli import main; sys.exit(main({LONG_ARENA!r}))")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    if when == "starting":
        deadline = time.monotonic() + 60
        while len(_spawned_workers(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(_spawned_workers(process.pid)) == 2
    else:
        time.sleep(6)  # the workers are up and playing
    os.killpg(process.pid, signal.SIGINT)
    start = time.perf_counter()
    _, err = process.communicate(timeout=60)
    assert time.perf_counter() - start < 15
    assert process.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "parlour arena: interrupted"


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="needs Linux's /proc children lists")
def test_sigterm_to_the_parent_alone_stops_its_workers_too():
    """``kill PID`` (a scheduler, ``docker stop``) reaches the parent only: it stops as on
    Ctrl-C, terminating its pool, instead of dying and leaving the workers to play on."""
    process = subprocess.Popen([sys.executable, "-m", "parlour.cli", *LONG_ARENA], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    time.sleep(6)  # the workers are up and playing
    workers = _children(process.pid)
    assert len(workers) >= 2, workers
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "parlour arena: terminated"
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in workers if _alive(pid)]


def test_progress_goes_to_stderr_only_when_asked(capsys):
    play_match(STICKS, ["random", "random:"], 4, seed=0, progress=False)
    assert capsys.readouterr().err == ""
    play_match(STICKS, ["random", "random:"], 4, seed=0, progress=True)
    assert "4" in capsys.readouterr().err


def test_bad_agents_are_rejected_before_any_game():
    with pytest.raises(ValueError, match="unknown policy 'nosuch'.*policies are"):
        play_match(STICKS, ["random", "nosuch"], 2, progress=False)
    with pytest.raises(ValueError, match="cannot play goofspiel"):
        play_match(load_game("goofspiel", num_cards=3), ["random", "alphabeta"], 2, progress=False)
    with pytest.raises(ValueError, match="made for"):
        play_match(STICKS, ["random", make("random", load_game("sticks", num_sticks=3))], 2, progress=False)
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        play_match(STICKS, ["random", "random:"], 2, workers=0, progress=False)


# --- reports and files -------------------------------------------------------------------


def arena(tmp_path, *extra):
    return main(["arena", "--game", "sticks", "--option", "num_sticks=9", "--agents", "random", WEAK, "--games", "6", "--quiet",
                 "--out", str(tmp_path / "res"), *extra])


def test_files_are_written_and_never_overwritten_silently(tmp_path, capsys):
    assert arena(tmp_path) == 0
    out = capsys.readouterr().out
    assert "| rank | agent |" in out and "wrote" in out
    folder = tmp_path / "res"
    plots = importlib.util.find_spec("matplotlib") is not None  # the PNG heatmap needs the plot extra
    assert sorted(p.name for p in folder.iterdir()) == sorted(name for kind, name in FILES.items() if plots or kind != "png")
    data = json.loads((folder / "arena.json").read_text())
    assert data["game"] == "sticks" and data["options"]["num_sticks"] == 9
    assert {row["agent"] for row in data["agents"]} == {"random", WEAK}
    assert data["pairs"][0]["games"] == 6
    assert (folder / "arena_pairs.csv").read_text().startswith("agent_a,agent_b,games,a_wins,draws,b_wins")
    assert len((folder / "arena_games.csv").read_text().splitlines()) == 1 + 6
    assert not plots or (folder / "arena_winrate.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (folder / "arena.md").read_text().startswith("### sticks")

    (folder / "arena.json").write_text("my notes")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert arena(tmp_path) == 2
    err = capsys.readouterr().err
    assert "already exist" in err and "--force" in err and "Traceback" not in err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert arena(tmp_path, "--force") == 0
    assert json.loads((folder / "arena.json").read_text())["game"] == "sticks"


def test_no_plot_and_missing_matplotlib(tmp_path, monkeypatch, capsys):
    assert arena(tmp_path, "--no-plot") == 0
    assert not (tmp_path / "res" / FILES["png"]).exists()
    summary = json.loads((tmp_path / "res" / "arena.json").read_text())
    for module in [name for name in sys.modules if name.split(".")[0] == "matplotlib"] + ["matplotlib"]:
        monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    with pytest.raises(ImportError, match=r"pip install 'parlour\[plot\]'"):
        write_heatmap(summary, tmp_path / "x.png")
    assert arena(tmp_path / "again") == 0  # the CLI notes it and writes the rest
    assert "matplotlib is not installed" in capsys.readouterr().err
    assert not (tmp_path / "again" / "res" / FILES["png"]).exists()
    assert (tmp_path / "again" / "res" / "arena.json").exists()


# --- the command line --------------------------------------------------------------------


def run_cli(capsys, *args):
    code = main(["arena", "--quiet", *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def test_unknown_policy_lists_the_valid_names(capsys):
    code, _, err = run_cli(capsys, "--game", "sticks", "--agents", "random", "nosuch:depth=2")
    assert code == 2
    assert len(err.splitlines()) == 1  # one line: the policies that can play sticks, and where their parameters are
    assert "unknown policy 'nosuch'; policies that can play sticks: " in err
    names = err.partition("policies that can play sticks: ")[2].partition(" (")[0].split(", ")
    assert {"alphabeta", "minimax", "random"} <= set(names) and "rudimentary" not in names
    assert "(`parlour policies --game sticks` describes them)" in err


def test_bad_parameter_lists_the_policy_parameters(capsys):
    code, _, err = run_cli(capsys, "--game", "sticks", "--agents", "random", "alphabeta:depht=3")
    assert code == 2
    assert "unknown parameter(s) ['depht']" in err
    assert "parameters are: depth=None, time_limit=None" in err and len(err.splitlines()) == 1
    code, _, err = run_cli(capsys, "--game", "sticks", "--agents", "random", "minimax:depth=x")
    assert code == 2 and "depth='x'" in err and "minimax takes these parameters: depth=None, evaluation='default', memo=True" in err
    code, _, err = run_cli(capsys, "--game", "sticks", "--agents", "random", "alphabeta:depth")
    assert code == 2 and "'depth' is not key=value" in err and "time_limit=None" in err


def test_policy_that_cannot_play_the_game(capsys):
    code, _, err = run_cli(capsys, "--game", "goofspiel", "--agents", "random", "minimax")
    assert code == 2
    assert "cannot play goofspiel" in err and len(err.splitlines()) == 1
    names = err.partition("policies that can play goofspiel: ")[2].partition(" (")[0].split(", ")
    assert "random" in names and "equilibrium" in names and "minimax" not in names


def test_bad_game_options_and_arguments(capsys):
    code, _, err = run_cli(capsys, "--game", "sticks", "--option", "max_take=x", "--agents", "random", "alphabeta")
    assert code == 2 and "max_take must be an integer, got 'x'" in err
    code, _, err = run_cli(capsys, "--game", "sticks", "--option", "max_take", "--agents", "random", "alphabeta")
    assert code == 2 and "'max_take' is not key=value" in err
    code, _, err = run_cli(capsys, "--game", "sticks", "--option", "colour=3", "--agents", "random", "alphabeta")
    assert code == 2 and "unknown option(s) ['colour']" in err
    code, _, err = run_cli(capsys, "--game", "sticks", "--agents", "random")
    assert code == 2 and "at least 2 agents" in err
    code, _, err = run_cli(capsys, "--game", "goofspiel", "--option", "num_players=3", "--agents", "random", "random:")
    assert code == 2 and "3 seats" in err
    code, _, err = run_cli(capsys, "--agents", "random", "random:")
    assert code == 2 and "both --game and --agents" in err
    code, _, err = run_cli(capsys, "--game", "sticks", "--agents", "random", "random:", "--workers", "0")
    assert code == 2 and "--workers must be at least 1, got 0" in err
    code, _, err = run_cli(capsys, "--game", "sticks", "--agents", "random", "random:", "--opening", "-1")
    assert code == 2 and "--opening must be at least 0, got -1" in err


@pytest.mark.parametrize(
    ("text", "value"),
    [("6", 6), ("0.5", 0.5), ("true", True), ("False", False), ("none", None), ("descending", "descending"),
     ("5,4,3,2,1", [5, 4, 3, 2, 1]), ("[5, 4, 3]", [5, 4, 3]), ("[[4,5,6],[1,2,3]]", [[4, 5, 6], [1, 2, 3]])],
)
def test_option_values(text, value):
    assert parse_option_value(text) == value


def test_option_list_with_a_bad_item():
    with pytest.raises(UsageError, match="'1,x'"):
        parse_option_value("1,x")


def test_goofspiel_options_reach_the_game(capsys):
    code, out, _ = run_cli(capsys, "--game", "goofspiel", "--option", "num_cards=4", "--option", "prize_order=4,3,2,1",
                           "--agents", "random", "random:", "--games", "4")
    assert code == 0
    assert "prize_order=(4, 3, 2, 1)" in out and "num_cards=4" in out


def test_default_arena_runs(capsys):
    game = load_game(DEFAULT_ARENA["game"], **DEFAULT_ARENA["options"])
    assert len(build_agents(game, DEFAULT_ARENA["agents"])) >= 3
    code, out, err = run_cli(capsys, "--games", "2")
    assert code == 0 and "default arena" in err
    assert out.count("| ") > 10 and all(agent in out for agent in DEFAULT_ARENA["agents"])


def test_policies_command(capsys):
    assert main(["policies", "--game", "goofspiel"]) == 0
    out = capsys.readouterr().out
    assert "random:" in out and "\nalphabeta: " not in out
    assert main(["policies"]) == 0
    assert "alphabeta: " in capsys.readouterr().out


class TorchThreads(Policy):
    """Random, and remembers how many threads torch had at each move."""

    name = "torch-threads"
    summary = "random, recording torch's thread count"

    def setup(self):
        self.seen = []

    def act(self, info_state):
        import torch

        self.seen.append(torch.get_num_threads())
        return int(self.rng.choice(info_state.legal_actions()))


def test_games_in_this_process_run_torch_on_one_thread_and_restore_it():
    """A trained player evaluates one position at a time, where many torch threads are
    slower (tens of times on a busy machine): the games run on one, as in the workers."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        player = TorchThreads(STICKS)
        play_match(STICKS, [player, "random"], 2, seed=0, progress=False)
        assert player.seen and set(player.seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
