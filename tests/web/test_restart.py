"""The games kept by ``parlour serve``: at most a number of them, each for an idle time,
and, with ``--state DIR``, across a restart of the server (listed again, and going on
as they would have)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from helpers import free_port

pytest.importorskip("starlette", reason="needs the web extra")
httpx = pytest.importorskip("httpx", reason="needs httpx (the dev extra)")

from starlette.testclient import TestClient  # noqa: E402

from parlour.games import load_game  # noqa: E402
from parlour.table.session import GameSession  # noqa: E402
from parlour.web.app import create_app  # noqa: E402
from parlour.web.store import Sessions  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_games_expire_when_idle_and_the_oldest_make_room():
    clock = Clock()
    sessions = Sessions(limit=3, idle_seconds=60, clock=clock)
    game = load_game("sticks")
    keys = [sessions.add(GameSession(game, ["person", "person"])) for _ in range(3)]
    clock.now += 30
    sessions.get(keys[0])  # used: its idle time starts again
    fourth = sessions.add(GameSession(game, ["person", "person"]))
    assert set(sessions.items) == {keys[0], keys[2], fourth}  # keys[1] was left alone longest
    clock.now += 45
    assert set(sessions.items) & {keys[2]} and sessions.get(fourth)  # keys[2] idle 75 s: dropped on the next look
    assert keys[2] not in sessions.items
    with pytest.raises(Exception, match="dropped .after 60 s without a request, or to make room: at most 3 games"):
        sessions.get(keys[1])
    assert [row["id"] for row in sessions.listing()] == [fourth, keys[0]]


def play(client, key, seat=0, moves=1):
    view = client.get(f"/api/sessions/{key}", params={"seat": seat}).json()
    for _ in range(moves):
        view = client.post(f"/api/sessions/{key}/move", json={"seat": seat, "action": view["moves"][-1]["action"]}).json()
    return view


def test_the_games_survive_a_restart_as_they_were(tmp_path, thinkers):
    state = tmp_path / "state"
    first = TestClient(create_app(None, thinker=thinkers, state_dir=state))
    sticks = first.post("/api/sessions", json={"game": "sticks", "seats": ["person", "mcts:simulations=50"], "seed": 4}).json()["id"]
    play(first, sticks, moves=2)
    first.post(f"/api/sessions/{sticks}/undo", json={"seat": 0})
    bids = first.post("/api/sessions", json={"game": "goofspiel", "options": {"num_cards": 4}, "seats": ["person", "person"]}).json()["id"]
    first.post(f"/api/sessions/{bids}/move", json={"seat": 0, "action": 3})  # a choice waiting for the other person
    tribolo = first.post("/api/sessions", json={"game": "tribolo", "seats": ["random", "greedy", "random"], "seed": 2}).json()["id"]
    first.post(f"/api/sessions/{tribolo}/step")
    before = {key: first.app.state.sessions.get(key).snapshot() for key in (sticks, bids, tribolo)}
    assert sorted(p.name for p in state.iterdir()) == sorted(f"{key}.json" for key in before)  # nothing half-written left

    second = TestClient(create_app(None, thinker=thinkers, state_dir=state))
    assert second.app.state.restored == (3, [])
    assert [row["id"] for row in second.get("/api/sessions").json()["games"]] == [tribolo, bids, sticks]
    for key, snapshot in before.items():
        assert second.app.state.sessions.get(key).snapshot() == snapshot
    # the games go on as they would have: the same moves give the same replies
    assert play(first, sticks, moves=2)["log"] == play(second, sticks, moves=2)["log"]
    done = second.post(f"/api/sessions/{bids}/move", json={"seat": 1, "action": 0}).json()
    assert done["log"][0]["moves"] == {"player_0": "4", "player_1": "1"}
    assert first.post(f"/api/sessions/{tribolo}/step").json()["log"] == second.post(f"/api/sessions/{tribolo}/step").json()["log"]


def test_a_damaged_state_file_is_reported_and_kept(tmp_path, thinkers):
    state = tmp_path / "state"
    client = TestClient(create_app(None, thinker=thinkers, state_dir=state))
    key = client.post("/api/sessions", json={"game": "sticks"}).json()["id"]
    (state / "AAAAAAAAAAAAAAAA.json").write_text("{not json")
    data = json.loads((state / f"{key}.json").read_text())
    data["steps"] = [99]
    (state / "BBBBBBBBBBBBBBBB.json").write_text(json.dumps(dict(data, id="BBBBBBBBBBBBBBBB")))
    restored, problems = create_app(None, thinker=thinkers, state_dir=state).state.restored
    assert restored == 1 and len(problems) == 2
    assert any("does not replay" in line for line in problems)
    assert (state / "AAAAAAAAAAAAAAAA.json").exists() and (state / "BBBBBBBBBBBBBBBB.json").exists()


def test_a_real_server_killed_and_started_again_lists_its_games(tmp_path):
    """``parlour serve --state DIR``, killed with SIGKILL mid-game, started again."""
    state, port = tmp_path / "state", free_port()
    command = [sys.executable, "-m", "parlour.cli", "serve", "--port", str(port), "--runs", str(tmp_path), "--state", str(state)]
    url = f"http://127.0.0.1:{port}"

    def start() -> subprocess.Popen:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(url + "/api/catalog", timeout=2)
                return process
            except httpx.TransportError:
                assert time.monotonic() < deadline and process.poll() is None, process.stdout.read()
                time.sleep(0.2)

    process = start()
    try:
        created = httpx.post(url + "/api/sessions", json={"game": "double_card", "seats": ["person", "random"], "seed": 7}).json()
        view = created["view"]
        for _ in range(3):
            view = httpx.post(f"{url}/api/sessions/{created['id']}/move", json={"seat": 0, "action": view["moves"][0]["action"]}).json()
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    process = start()
    try:
        listed = httpx.get(url + "/api/sessions").json()["games"]
        assert [row["id"] for row in listed] == [created["id"]] and listed[0]["steps"] == len(view["log"])
        again = httpx.get(f"{url}/api/sessions/{created['id']}", params={"seat": 0}).json()
        assert again["text"] == view["text"] and again["log"] == view["log"]
    finally:
        process.terminate()
        out = process.communicate(timeout=15)[0]
    assert "1 game(s) in play restored" in out


def test_a_replay_and_odd_files_survive_a_restart(tmp_path, thinkers):
    state = tmp_path / "state"
    first = TestClient(create_app(None, thinker=thinkers, state_dir=state))
    arena = {"game": "sticks", "games_played": [{"game": 0, "game_seed": 1, "moves": "0 2 1", "seat_0": "ppo:runs/x/best.zip",
                                                 "seat_1": "python:my.module:act"}]}
    key = first.post("/api/sessions/replay", json={"arena": arena, "index": 0}).json()["id"]
    first.post(f"/api/sessions/{key}/step")
    data = json.loads((state / f"{key}.json").read_text())
    (state / "CCCCCCCCCCCCCCCC.json").write_text(json.dumps(dict(data, id="CCCCCCCCCCCCCCCC", undo=[1e400], hints=1e400)))
    (state / "DDDDDDDDDDDDDDDD.json").write_text('{"a":' * 5000 + "1" + "}" * 5000)
    second = TestClient(create_app(None, thinker=thinkers, state_dir=state))
    restored, problems = second.app.state.restored
    assert restored == 1 and len(problems) == 2, problems
    view = second.post(f"/api/sessions/{key}/step").json()
    assert view["seats"] == ["ppo:runs/x/best.zip", "python:my.module:act"] and len(view["log"]) == 2
