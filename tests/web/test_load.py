"""A bounded load test on loopback: 50 games played to the end at once through the HTTP
API of a real server (uvicorn, 127.0.0.1), none of them losing a game or a move; and the
``parlour serve`` command itself binds 127.0.0.1 by default."""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from helpers import free_port

httpx = pytest.importorskip("httpx", reason="needs httpx (the dev extra)")

GAMES = [("sticks", {"num_sticks": 12}), ("goofspiel", {"num_cards": 5}),
         ("tribolo", {"width": 6, "height": 5, "walls": 2, "start_cells": 2})]


def play_one(url: str, index: int) -> tuple[str, int]:
    """Create a game and play it to the end, the person choosing the first legal move;
    returns the game's id and the number of moves the person made."""
    name, options = GAMES[index % len(GAMES)]
    seats = ["person"] + ["random"] * (3 if name == "tribolo" else 1)
    with httpx.Client(base_url=url, timeout=60) as client:
        created = client.post("/api/sessions", json={"game": name, "options": options, "seats": seats[: 3 if name == "tribolo" else 2],
                                                     "seed": index})
        created.raise_for_status()
        key, view = created.json()["id"], created.json()["view"]
        moves = 0
        while not view["over"]:
            response = client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": view["moves"][0]["action"]})
            response.raise_for_status()
            view = response.json()
            moves += 1
    return key, moves


def test_fifty_concurrent_games_lose_no_game_and_no_move(live_server):
    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(lambda i: play_one(live_server.url, i), range(50)))
    assert len({key for key, _ in results}) == 50
    for key, moves in results:
        session = live_server.session(key)
        assert session.state.is_terminal()
        mine = [entry for entry in session.log if 0 in entry["moves"]]
        assert len(mine) == moves  # every move the person sent is in the game, once
        replayed = type(session).load(session.record())
        assert replayed.state.to_text() == session.state.to_text()


def test_parlour_serve_listens_on_loopback_only(tmp_path):
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "parlour.cli", "serve", "--port", str(port), "--runs", str(tmp_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 30
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/api/catalog", timeout=2)
                break
            except httpx.TransportError:
                if time.time() > deadline or process.poll() is not None:
                    raise AssertionError("parlour serve did not answer: "
                                         f"{process.stdout.read() if process.poll() is not None else ''}") from None
                time.sleep(0.2)
        assert response.status_code == 200 and len(response.json()["games"]) == 5
        listening = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True).stdout
        if listening.strip():  # ss (iproute2) is there: the socket is bound to 127.0.0.1 and nothing else
            assert all("127.0.0.1:" in line for line in listening.strip().splitlines()), listening
    finally:
        process.terminate()
        process.wait(10)
