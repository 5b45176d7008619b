"""``parlour serve`` under requests meant to hurt it (issue 28's table, through an ASGI
client): what a request may name, how long a player may think, how much the server
reads, and that a refusal is always a 4xx with a JSON error that changes nothing."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("starlette", reason="needs the web extra")

from starlette.testclient import TestClient  # noqa: E402

from parlour.web.app import create_app  # noqa: E402
from parlour.web.guard import MAX_BODY, MAX_DEPTH  # noqa: E402

JSON = {"content-type": "application/json"}


@pytest.fixture
def client(thinkers):
    return TestClient(create_app(None, thinker=thinkers, move_seconds=1.0))


def games_in_play(client) -> dict[str, dict]:
    sessions = client.app.state.sessions
    return {key: session.snapshot() for key, (session, _) in sessions.items.items()}


@pytest.mark.parametrize("spec", ["python:platform:system", "python:os:getcwd", "sb3:model.zip", "torchscript:model.pt",
                                  "rllib:runs/x", "agent.py:act", "platform:system", "ppo:/etc/passwd", "az:../x.zip"])
def test_a_request_names_only_parlours_own_players(client, spec):
    before = games_in_play(client)
    response = client.post("/api/sessions", json={"game": "sticks", "seats": ["person", spec]})
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert spec in error and ("cannot play" in error or "runs directory" in error or "loads no models" in error)
    assert games_in_play(client) == before
    hint = client.post("/api/sessions", json={"game": "sticks"}).json()["id"]
    response = client.get(f"/api/sessions/{hint}/hint", params={"seat": 0, "spec": spec})
    assert response.status_code == 400 and "no hint" in response.json()["error"]


def test_the_catalog_offers_only_what_a_request_may_name(client):
    for game in client.get("/api/catalog").json()["games"]:
        assert not {"python", "sb3", "torchscript", "rllib", "ppo", "az"} & set(game["policies"]), game["policies"]
        assert all(option["allowed"] for option in game["options"].values())


def test_a_time_limit_over_the_servers_is_refused_naming_it(client):
    for spec in ("mcts:time_limit=5", "alphabeta:time_limit=1.5", "double-card-best:time_limit=none"):
        game = "double_card" if spec.startswith("double-card") else "sticks"
        response = client.post("/api/sessions", json={"game": game, "seats": ["person", spec]})
        assert response.status_code == 400 and "at most 1 s per move" in response.json()["error"], response.json()


def test_a_huge_search_is_capped_by_the_server_and_says_so(client):
    created = client.post("/api/sessions", json={"game": "sticks", "seats": ["person", "mcts:simulations=3000000"]})
    assert created.status_code == 201
    key, view = created.json()["id"], created.json()["view"]
    assert "at most this server's 1 s per move" in view["limits"]["notes"]["player_1"]
    start = time.perf_counter()
    view = client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": 0}).json()
    assert time.perf_counter() - start < 10 and view["status"] == "your move" and len(view["log"]) == 2
    start = time.perf_counter()
    hint = client.get(f"/api/sessions/{key}/hint", params={"seat": 0, "spec": "mcts:simulations=100000000"})
    assert hint.status_code == 200 and time.perf_counter() - start < 10


def test_a_player_without_a_time_limit_is_stopped_and_the_game_waits(client):
    """Minimax nine plies deep on Tribolo takes far longer than the server's 1 s: its worker
    interrupts it, the game stalls with the reason, nothing is applied, and undo works."""
    created = client.post("/api/sessions", json={"game": "tribolo", "seats": ["person", "minimax:depth=9", "random"], "seed": 1})
    assert created.status_code == 201
    key, view = created.json()["id"], created.json()["view"]
    assert "is stopped if it thinks longer than this server's 1 s" in view["limits"]["notes"]["player_1"]
    steps = len(view["log"])
    start = time.perf_counter()
    view = client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": view["moves"][0]["action"]}).json()
    assert time.perf_counter() - start < 10
    assert "did not choose within this server's 1 s per move" in view["stalled"] and view["status"] == view["stalled"]
    assert len(view["log"]) == steps + 1 and view["to_act"] == [1]  # the person's move, and no more
    back = client.post(f"/api/sessions/{key}/undo", json={"seat": 0}).json()
    assert back["stalled"] is None and len(back["log"]) == steps and back["status"] == "your move"
    hint = client.get(f"/api/sessions/{key}/hint", params={"seat": 0, "spec": "minimax:depth=9"})
    assert hint.status_code == 400 and "within this server's 1 s per move" in hint.json()["error"]


def test_bodies_are_bounded_in_size_depth_and_kind(client):
    key = client.post("/api/sessions", json={"game": "sticks"}).json()["id"]
    before = games_in_play(client)
    routes = ["/api/sessions", "/api/sessions/load", "/api/sessions/replay", f"/api/sessions/{key}/move", f"/api/sessions/{key}/undo"]
    for route in routes:
        big = client.post(route, content=b"{" + b" " * MAX_BODY + b"}", headers=JSON)
        assert big.status_code == 413 and "at most 1,000,000" in big.json()["error"]
        deep = client.post(route, content=("[" * 100_000 + "]" * 100_000).encode(), headers=JSON)
        assert deep.status_code == 400 and "nested too deeply" in deep.json()["error"]
        nested = json.dumps({"a": json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)})
        assert "nested too deeply" in client.post(route, content=nested, headers=JSON).json()["error"]
        plain = client.post(route, content=b'{"game": "sticks"}', headers={"content-type": "text/plain"})
        assert plain.status_code == 415 and "application/json" in plain.json()["error"]
        for junk in (b"", b"{", b"\xff\xfe", b"null", b"[1]", b'"x"', b"1" * 5000, b'{"seat": 1e999}'):
            response = client.post(route, content=junk, headers=JSON)
            assert 400 <= response.status_code < 500 and response.json()["error"], (route, junk, response.text)
    assert games_in_play(client) == before


def test_unknown_ids_and_routes_are_json_404s(client):
    for path in ("/api/sessions/unknown", "/api/sessions/" + "x" * 5000, "/api/nothing", "/api/sessions/abc/move/x"):
        response = client.get(path)
        assert response.status_code == 404 and response.json()["error"], path
    assert client.put("/api/sessions").status_code == 405 and client.put("/api/sessions").json()["error"]


def test_types_are_checked_everywhere(client):
    key = client.post("/api/sessions", json={"game": "goofspiel", "options": {"num_cards": 4}}).json()["id"]
    before = games_in_play(client)
    for route, body in [
        ("/api/sessions", {"game": ["sticks"]}), ("/api/sessions", {"game": "sticks", "seed": 2**64}),
        ("/api/sessions", {"game": "sticks", "seed": "1"}), ("/api/sessions", {"game": "sticks", "seats": "person"}),
        ("/api/sessions", {"game": "sticks", "options": {"num_sticks": "10"}}), ("/api/sessions", {"game": "sticks", "seats": [None, 1]}),
        ("/api/sessions", {"game": "goofspiel", "options": {"hands": [[1, 2], {"a": 1}]}}),
        ("/api/sessions/load", {"format": "parlour-game/1", "game": "sticks", "start": 5, "steps": []}),
        ("/api/sessions/load", {"format": "parlour-game/1", "game": "sticks", "start": "10 sticks | player_0 to move", "steps": [[1]]}),
        ("/api/sessions/load", {"format": "parlour-game/1", "game": "sticks", "options": [], "start": "x", "steps": []}),
        ("/api/sessions/replay", {"arena": [], "index": 0}), ("/api/sessions/replay", {"arena": {"game": "sticks"}, "index": "0"}),
        (f"/api/sessions/{key}/move", {"seat": [0], "action": 0}), (f"/api/sessions/{key}/move", {"seat": 0, "action": 1.5}),
        (f"/api/sessions/{key}/move", {"seat": 0, "action": 10**30}), (f"/api/sessions/{key}/undo", {"seat": {"x": 1}}),
    ]:
        response = client.post(route, json=body)
        assert response.status_code == 400 and response.json()["error"], (route, body, response.text)
    for query in ({"seat": "x"}, {"seat": "1" * 5000}, {"seat": 0, "spec": "x" * 10_000}, {"seat": -1}):
        response = client.get(f"/api/sessions/{key}/hint", params=query)
        assert response.status_code == 400 and response.json()["error"], (query, response.text)
    assert games_in_play(client) == before


def test_a_busy_game_answers_409_at_once(client):
    key = client.post("/api/sessions", json={"game": "sticks"}).json()["id"]
    session = client.app.state.sessions.get(key)
    with session.lock:  # as while a policy thinks
        start = time.perf_counter()
        response = client.get(f"/api/sessions/{key}")
        assert response.status_code == 409 and "busy" in response.json()["error"]
        assert time.perf_counter() - start < 5


def test_text_that_cannot_be_sent_back_is_refused(client, tmp_path, thinkers):
    """A lone surrogate or a NUL would break every later answer that repeats it."""
    before = games_in_play(client)
    bodies = [("/api/sessions", '{"game": "sticks", "seats": ["person", "\\ud800"]}'),
              ("/api/sessions", '{"game": "sticks\\u0000"}'),
              ("/api/sessions/replay", '{"arena": {"game": "sticks", "games_played": [{"game": 0, "game_seed": 1, "moves": "0", '
                                       '"seat_0": "\\ud800", "seat_1": "random"}]}, "index": 0}')]
    for route, body in bodies:
        response = client.post(route, content=body.encode(), headers=JSON)
        assert response.status_code == 400 and "NUL character or a lone surrogate" in response.json()["error"], response.text
    assert client.get("/api/sessions").status_code == 200 and games_in_play(client) == before
    runs = tmp_path / "runs"
    runs.mkdir()
    with_runs = TestClient(create_app(runs, thinker=thinkers))
    for spec in ("ppo:a\u0000b", "az:../\u0000"):
        response = with_runs.post("/api/sessions", json={"game": "sticks", "seats": ["person", spec]})
        assert response.status_code == 400, response.text
    key = client.post("/api/sessions", json={"game": "sticks"}).json()["id"]
    assert client.get(f"/api/sessions/{key}/hint", params={"seat": 0, "spec": "ppo:a\u0000b"}).status_code == 400


def test_a_step_of_one_seat_may_be_written_as_a_dict_and_still_plays(client):
    record = {"format": "parlour-game/1", "game": "sticks", "start": "10 sticks | player_0 to move", "steps": [{"0": 1}, 2]}
    created = client.post("/api/sessions/load", json=record)
    assert created.status_code == 201 and created.json()["view"]["text"] == "5 sticks | player_0 to move"
    assert client.get("/api/sessions").status_code == 200
    arena = {"game": "sticks", "games_played": [{"game": 0, "game_seed": 1, "moves": "0:1 2", "seat_0": "random", "seat_1": "optimal"}]}
    key = client.post("/api/sessions/replay", json={"arena": arena, "index": 0}).json()["id"]
    assert client.post(f"/api/sessions/{key}/step").json()["text"] == "8 sticks | player_1 to move"


def test_numbers_too_large_or_not_finite_are_refused(client):
    before = games_in_play(client)
    for route, body in [
        ("/api/sessions/load",
         '{"format": "parlour-game/1", "game": "sticks", "start": "10 sticks | player_0 to move", "steps": [{"0": 1e400}]}'),
        ("/api/sessions/load", '{"format": "parlour-game/1", "game": "sticks", "start": "10 sticks | player_0 to move", "steps": [1e400]}'),
        ("/api/sessions/replay", '{"arena": {"game": "sticks", "games_played": [{"game": 1e400}]}, "index": 0}'),
        ("/api/sessions", '{"game": "sticks", "seats": ["person", "mcts:time_limit=nan"]}'),
        ("/api/sessions", '{"game": "sticks", "seats": ["person", "mcts:simulations=inf"]}'),
    ]:
        response = client.post(route, content=body.encode(), headers=JSON)
        assert response.status_code == 400 and response.json()["error"], (body, response.text)
    assert games_in_play(client) == before


def test_a_step_naming_many_seats_gets_a_short_answer(client):
    from parlour.games import load_game

    step = {str(i): 0 for i in range(60_000)}
    record = {"format": "parlour-game/1", "game": "goofspiel", "options": {"num_cards": 3},
              "start": load_game("goofspiel", num_cards=3).new_initial_state(0).to_text(), "steps": [step]}
    response = client.post("/api/sessions/load", json=record)
    assert response.status_code == 400 and len(response.text) < 500
    moves = "/".join(f"{i}:0" for i in range(60_000))
    arena = {"game": "goofspiel", "options": {"num_cards": 3}, "games_played": [{"game": 0, "game_seed": 1, "moves": moves,
                                                                                 "seat_0": "random", "seat_1": "random"}]}
    response = client.post("/api/sessions/replay", json={"arena": arena, "index": 0})
    assert response.status_code == 400 and len(response.text) < 500
