"""``parlour serve``'s JSON API through an ASGI test client: games created, played,
undone, hinted, saved and loaded; every bad request a 4xx JSON error that names the
problem and changes nothing; models only from the runs directory."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="needs the web extra")

from helpers import sticks_without_end
from starlette.testclient import TestClient  # noqa: E402

from parlour.table.thinking import LocalThinker  # noqa: E402
from parlour.web.app import create_app  # noqa: E402


@pytest.fixture
def client(thinkers):
    return TestClient(create_app(None, thinker=thinkers))


def new(client, game="sticks", seats=None, **extra):
    response = client.post("/api/sessions", json={"game": game, "seats": seats, **extra})
    assert response.status_code == 201, response.json()
    return response.json()["id"], response.json()["view"]


def test_the_catalog_lists_games_players_and_models(client):
    catalog = client.get("/api/catalog").json()
    games = {g["name"]: g for g in catalog["games"]}
    assert set(games) == {"goofspiel", "sticks", "tides_of_time", "tribolo", "double_card"}
    assert games["tribolo"]["players"] == 3 and "paranoid" in games["tribolo"]["policies"]
    assert games["goofspiel"]["options"]["num_cards"]["help"] and catalog["models"] == []
    options = games["goofspiel"]["options"]  # what the page needs to offer each option
    assert options["tie_rule"]["choices"] == ["carry", "discard"] and options["imperfect_info"]["choices"] == [False, True]
    assert (options["num_cards"]["low"], options["num_cards"]["high"], options["num_cards"]["choices"]) == (1, 1000, None)
    assert options["prize_order"]["choices"] is None and options["prize_order"]["low"] is None  # free text
    assert games["tides_of_time"]["options"]["rounds"]["choices"] == [1, 3]


def test_a_game_is_played_to_the_end(client):
    key, view = new(client, "sticks", ["person", "optimal"], options={"num_sticks": 5, "max_take": 2})
    assert view["status"] == "your move" and [m["text"] for m in view["moves"]] == ["1", "2"] and "<svg" in view["picture"]
    while not view["over"]:
        view = client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": view["moves"][0]["action"]}).json()
    assert view["returns"] is not None and view["status"].startswith("game over")
    assert len(view["log"]) >= 3 and set(view["log"][0]["moves"]) == {"player_0"}


def test_illegal_moves_and_bad_requests_are_4xx_and_change_nothing(client):
    key, view = new(client, "tribolo", ["person", "random", "random"], options={"width": 6, "height": 5, "walls": 2, "start_cells": 2})
    before = client.get(f"/api/sessions/{key}?seat=0").json()
    legal = {m["action"] for m in before["moves"]}
    illegal = next(a for a in range(30) if a not in legal)
    for body, message in [({"seat": 0, "action": illegal}, "not a legal move"), ({"seat": 0, "action": "a1"}, "integer"),
                          ({"seat": 1, "action": 0}, "not played by a person"), ({"seat": -1, "action": 0}, "non-negative"),
                          ({"seat": "x", "action": 0}, "seat must be an integer")]:
        response = client.post(f"/api/sessions/{key}/move", json=body)
        assert response.status_code == 400 and message in response.json()["error"]
    assert client.get(f"/api/sessions/{key}?seat=0").json() == before
    assert client.post(f"/api/sessions/{key}/move", content=b"{", headers={"content-type": "application/json"}).status_code == 400
    assert client.post(f"/api/sessions/{key}/move", json=[1]).json()["error"].startswith("the request body must be a JSON object")
    assert client.get("/api/sessions/unknown").status_code == 404
    assert client.get(f"/api/sessions/{key}/move").status_code == 405
    for body, message in [({"game": "chess"}, "unknown game"), ({"game": "sticks", "options": {"num_sticks": 0}}, "num_sticks"),
                          ({"game": "sticks", "seats": ["person"]}, "has 2 seats"),
                          ({"game": "sticks", "seats": ["person", "nobody"]}, "nobody"),
                          ({"game": "sticks", "seed": -1}, "seed"), ({"game": "sticks", "options": [1]}, "options must be an object")]:
        response = client.post("/api/sessions", json=body)
        assert response.status_code == 400 and message in response.json()["error"], (body, response.json())


def test_undo_takes_back_the_persons_move_and_the_replies(client):
    key, start = new(client, "sticks", ["person", "random"])
    after = client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": 2}).json()
    assert after["can_undo"] and after["text"] != start["text"]
    back = client.post(f"/api/sessions/{key}/undo", json={"seat": 0}).json()
    assert back["text"] == start["text"] and back["log"] == [] and not back["can_undo"]
    assert client.post(f"/api/sessions/{key}/undo", json={"seat": 0}).json()["error"] == "nothing to undo yet"


def test_a_hint_names_a_legal_move_with_its_evaluation(client):
    key, view = new(client, "goofspiel", ["person", "random"], options={"num_cards": 4})
    hint = client.get(f"/api/sessions/{key}/hint?seat=0&spec=mcts:simulations=50").json()
    assert hint["action"] in {m["action"] for m in view["moves"]} and "visits" in hint["evaluation"]
    assert client.get(f"/api/sessions/{key}/hint?seat=1").status_code == 400  # not a person's move
    assert "no hint" in client.get(f"/api/sessions/{key}/hint?seat=0&spec=nonsense").json()["error"]


def test_watch_mode_steps_one_move_at_a_time(client):
    key, view = new(client, "tribolo", ["random", "greedy", "random"], options={"width": 6, "height": 5, "walls": 2, "start_cells": 2})
    assert view["you"] is None and view["log"] == []
    steps = 0
    while not view["over"]:
        view = client.post(f"/api/sessions/{key}/step").json()
        steps += 1
        assert len(view["log"]) == steps
    assert view["status"].startswith("game over")
    person, _ = new(client, "sticks", ["person", "random"])
    assert "a person is to move" in client.post(f"/api/sessions/{person}/step").json()["error"]


def test_a_game_that_never_ends_is_cut_off_at_its_step_limit(client, monkeypatch):
    """The opponent of a game whose rules never end it plays until the game's
    max_game_length; then the game says why it stopped, and further moves and steps are
    refused (a 400, not a request that never returns); undo goes back as before."""
    sticks_without_end(monkeypatch)
    key, view = new(client, "sticks", ["person", "random"], options={"num_sticks": 7})
    view = client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": 0}).json()
    assert len(view["log"]) == 7 and not view["over"] and view["to_act"] == [1]
    assert view["stalled"] == view["status"] and "did not end within 7 steps" in view["stalled"]
    for response in (client.post(f"/api/sessions/{key}/step"), client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": 0})):
        assert response.status_code == 400 and "did not end within 7 steps" in response.json()["error"]
    back = client.post(f"/api/sessions/{key}/undo", json={"seat": 0}).json()
    assert back["log"] == [] and back["stalled"] is None and back["status"] == "your move"


def test_a_saved_game_loads_back_move_for_move(client):
    key, view = new(client, "double_card", ["person", "random"], seed=3)
    for _ in range(3):
        view = client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": view["moves"][0]["action"]}).json()
    record = client.get(f"/api/sessions/{key}/record").json()
    loaded = client.post("/api/sessions/load", json=record)
    assert loaded.status_code == 201
    again = loaded.json()["view"]
    assert again["text"] == view["text"] and again["log"] == view["log"]
    bad = dict(record, steps=record["steps"] + [9999])
    assert "does not replay" in client.post("/api/sessions/load", json=bad).json()["error"]
    assert "not a saved parlour game" in client.post("/api/sessions/load", json={"game": "sticks"}).json()["error"]
    assert "malformed" in client.post("/api/sessions/load", json=dict(record, start="garbage")).json()["error"]


def test_hidden_moves_stay_hidden_in_the_log(client):
    key, view = new(client, "goofspiel", ["person", "random"], options={"num_cards": 4, "imperfect_info": True})
    view = client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": view["moves"][0]["action"]}).json()
    assert view["log"][0]["moves"]["player_1"] == "(moved)" and view["log"][0]["moves"]["player_0"] != "(moved)"
    spectator = client.get(f"/api/sessions/{key}").json()
    assert spectator["log"][0]["moves"]["player_1"] != "(moved)"


def test_two_people_at_one_screen_bid_in_turn(client):
    key, view = new(client, "goofspiel", ["person", "person"], options={"num_cards": 3})
    first = client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": 2}).json()
    assert first["chosen"] and first["waiting_for"] == [1] and first["log"] == []
    second = client.post(f"/api/sessions/{key}/move", json={"seat": 1, "action": 0}).json()
    assert second["log"][0]["moves"] == {"player_0": "3", "player_1": "1"}


def test_models_load_only_from_the_runs_directory(tmp_path):
    sb3 = pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from parlour.baselines.learned.ppo import save_model
    from parlour.games import load_game
    from parlour.training.single_agent import SingleAgentEnv

    runs = tmp_path / "runs"
    game = load_game("sticks")
    model = sb3.MaskablePPO("MlpPolicy", SingleAgentEnv("sticks"), n_steps=32, batch_size=32, seed=0, device="cpu")
    save_model(model, runs / "tiny" / "best.zip", game)
    (tmp_path / "outside.zip").write_bytes((runs / "tiny" / "best.zip").read_bytes())
    client = TestClient(create_app(runs, thinker=LocalThinker()))
    assert client.get("/api/catalog").json()["models"] == ["ppo:tiny/best.zip"]
    key, view = new(client, "sticks", ["person", "ppo:tiny/best.zip"])
    assert view["seats"][1] == "ppo:tiny/best.zip"
    for spec in ("ppo:../outside.zip", f"ppo:{tmp_path / 'outside.zip'}", "ppo:tiny/missing.zip", "az:/etc/passwd"):
        response = client.post("/api/sessions", json={"game": "sticks", "seats": ["person", spec]})
        assert response.status_code == 400 and "runs directory" in response.json()["error"], (spec, response.json())


def test_an_arena_game_replays_move_by_move(client, tmp_path):
    import json

    from parlour.evaluation.arena import play_match
    from parlour.evaluation.report import summarize, write_report
    from parlour.games import load_game

    game = load_game("goofspiel", num_cards=4)
    result = play_match(game, ["random", "rudimentary"], 2, seed=5, progress=False)
    write_report(result, summarize(result), tmp_path / "arena", plot=False)
    arena = json.loads((tmp_path / "arena" / "arena.json").read_text())
    record = result.records[1]
    created = client.post("/api/sessions/replay", json={"arena": arena, "index": record.index})
    assert created.status_code == 201
    key, view = created.json()["id"], created.json()["view"]
    assert view["seats"] == [result.labels[a] for a in record.agents] and view["log"] == []
    while not view["over"]:
        view = client.post(f"/api/sessions/{key}/step").json()
    assert len(view["log"]) == record.length and view["returns"] == list(record.returns)
    assert "not an arena game" in client.post("/api/sessions/replay", json={"arena": {"game": "sticks"}}).json()["error"]
    broken = dict(arena, games_played=[dict(row, moves="0:99/1:99") for row in arena["games_played"]])
    key = client.post("/api/sessions/replay", json={"arena": broken, "index": record.index}).json()["id"]
    assert "does not replay" in client.post(f"/api/sessions/{key}/step").json()["error"]
