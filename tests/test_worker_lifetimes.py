"""Long jobs under faults: a ``parlour`` parent killed with SIGKILL takes its worker
processes with it (a two-worker arena, self-play and ``SubprocVecEnv`` training, the web
server's thinkers), and a run directory is written by one job at a time (a second
``parlour train --out`` on it is refused, naming the holder; the lock dies with its
holder, so a killed run leaves none behind)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import free_port

from parlour.locks import DirectoryLock, DirectoryLocked

pytestmark = pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                                reason="needs Linux's /proc children lists")

PARLOUR = [sys.executable, "-m", "parlour.cli"]
LONG_ARENA = ["arena", "--game", "double_card", "--agents", "original-tournament", "original-tournament:time_limit=0.5",
              "--games", "200", "--workers", "2", "--quiet"]


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, their children, ...)."""
    found, queue = set(), [pid]
    while queue:
        parent = queue.pop()
        children = set()
        for task in Path(f"/proc/{parent}/task").glob("*"):  # every thread's children: a pool may start from any
            try:
                children |= {int(c) for c in (task / "children").read_text().split()}
            except (FileNotFoundError, ProcessLookupError):
                continue
        found |= children
        queue += children
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except FileNotFoundError:
        return ""


def kill_parent_and_watch(argv: list[str], workers: int, marker: str, cwd: Path | None = None) -> None:
    """Start ``parlour ARGV``, wait for ``workers`` descendants whose command line holds
    ``marker``, SIGKILL the parent alone, and check that every descendant ends soon."""
    process = subprocess.Popen(PARLOUR + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=cwd)
    try:
        deadline = time.monotonic() + 120
        while len([p for p in descendants(process.pid) if marker in command_line(p)]) < workers:
            assert process.poll() is None, process.stderr.read()
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.2)
        time.sleep(2)  # at work
        below = descendants(process.pid)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        deadline = time.monotonic() + 15
        while [p for p in below if alive(p)] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [command_line(p) for p in below if alive(p)]
    finally:
        if process.poll() is None:
            process.kill()
        for pid in descendants(process.pid):
            os.kill(pid, signal.SIGKILL)


def test_a_killed_arena_takes_its_two_workers_with_it():
    kill_parent_and_watch(LONG_ARENA, 2, "multiprocessing")


def test_a_killed_self_play_training_takes_its_workers_with_it(tmp_path):
    pytest.importorskip("torch", reason="needs the train extra")
    argv = ["train", "--algo", "alphazero", "--game", "tides_of_time", "--timesteps", "1000000", "--out", str(tmp_path / "az"),
            "--set", "alphazero.workers=2", "--quiet"]
    kill_parent_and_watch(argv, 2, "multiprocessing")


def test_a_killed_ppo_training_takes_its_subprocess_envs_with_it(tmp_path):
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    argv = ["train", "--game", "sticks", "--opponents", "random", "--timesteps", "10000000", "--vec-env", "subproc", "--n-envs", "2",
            "--out", str(tmp_path / "ppo"), "--quiet"]
    kill_parent_and_watch(argv, 2, "multiprocessing")


def test_a_killed_server_takes_its_thinkers_with_it(tmp_path):
    pytest.importorskip("uvicorn", reason="needs the web extra")
    kill_parent_and_watch(["serve", "--port", str(free_port()), "--runs", str(tmp_path), "--workers", "2"], 2, "multiprocessing")


HOLD = """
import sys, time
from parlour.locks import DirectoryLock
DirectoryLock(sys.argv[1], "parlour train").acquire()
print("held", flush=True)
time.sleep(600)
"""


def test_a_run_directory_is_written_by_one_job_at_a_time(tmp_path, capsys):
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from parlour.cli import main

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.toml").write_text("kept")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(run)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for flags in ([], ["--force"], ["--resume"]):
            assert main(["train", "--game", "sticks", "--timesteps", "256", "--out", str(run), *flags]) == 1
            err = capsys.readouterr().err
            assert f"is being written by parlour train (pid {holder.pid} on " in err, err
        assert (run / "config.toml").read_text() == "kept"  # --force deleted nothing
        with pytest.raises(DirectoryLocked, match=f"pid {holder.pid}"):
            DirectoryLock(run, "a test").acquire()
    finally:
        holder.kill()
        holder.wait()
    with DirectoryLock(run, "a test"):  # the kernel freed the killed holder's lock: nothing to clean up
        pass


def test_a_process_may_take_its_own_lock_again(tmp_path):
    first = DirectoryLock(tmp_path / "run", "one").acquire()
    second = DirectoryLock(tmp_path / "run", "two").acquire()
    second.release()
    probe = subprocess.run([sys.executable, "-c", "import sys; from parlour.locks import DirectoryLock; "
                            "DirectoryLock(sys.argv[1], 'probe').acquire()", str(tmp_path / "run")], capture_output=True, text=True)
    assert probe.returncode != 0 and "is being written by one" in probe.stderr
    first.release()
    probe = subprocess.run([sys.executable, "-c", "import sys; from parlour.locks import DirectoryLock; "
                            "DirectoryLock(sys.argv[1], 'probe').acquire()", str(tmp_path / "run")], capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr


def test_a_failed_start_leaves_no_run_directory_behind(tmp_path, capsys):
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from parlour.cli import main

    assert main(["train", "--game", "sticks", "--opponents", "nobody", "--timesteps", "256", "--out", str(tmp_path / "new")]) == 2
    assert "nobody" in capsys.readouterr().err and not (tmp_path / "new").exists()


def test_a_refused_start_in_an_existing_folder_leaves_no_lock_file(tmp_path, capsys):
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from parlour.cli import main

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "mine.txt").write_text("kept")
    assert main(["train", "--game", "sticks", "--timesteps", "256", "--out", str(folder)]) == 2
    assert "already exists and is not empty" in capsys.readouterr().err
    assert sorted(p.name for p in folder.iterdir()) == ["mine.txt"]
