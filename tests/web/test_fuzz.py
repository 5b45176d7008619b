"""Thousands of generated requests to every route of ``parlour serve`` (through the ASGI
client): every answer is a 2xx, or a 4xx with a JSON ``error``, never a 500; and a
refused request leaves every game in play as it was."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="needs the web extra")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from parlour.web.app import create_app  # noqa: E402

KEYS = ["game", "options", "seats", "seed", "seat", "action", "arena", "index", "format", "start", "steps", "undo", "spec",
        "num_sticks", "max_take", "num_cards", "width", "height", "hands", "prize_order", "games_played", "moves", "game_seed"]
WORDS = ["sticks", "goofspiel", "tribolo", "double_card", "tides_of_time", "chess", "person", "random", "mcts:simulations=20",
         "python:os:getcwd", "ppo:../x.zip", "optimal", "parlour-game/1", "10 sticks | player_0 to move", "", "seat_0", "0:1/1:2",
         "\ud800", "a\x00b", "ppo:\x00", "0:1", "1e400"]
URL_WORDS = [word for word in WORDS if "\ud800" not in word]  # a URL cannot carry a lone surrogate at all

scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.integers(-3, 40) | st.floats(allow_nan=True, allow_infinity=True)
           | st.sampled_from(WORDS) | st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6),
                                                                                              inner, max_size=5), max_leaves=25)
bodies = st.dictionaries(st.sampled_from(KEYS), values, max_size=6) | values


@pytest.fixture(scope="module")
def client(thinkers):
    client = TestClient(create_app(None, 60, thinker=thinkers, move_seconds=0.5))
    for game, seats in [("sticks", ["person", "random"]), ("goofspiel", ["person", "random"]), ("tribolo", ["random", "person", "random"]),
                        ("double_card", ["person", "person"]), ("tides_of_time", ["random", "random"])]:
        assert client.post("/api/sessions", json={"game": game, "seats": seats}).status_code == 201
    return client


def games_in_play(client) -> dict[str, dict]:
    return {key: session.snapshot() for key, (session, _) in client.app.state.sessions.items.items()}


def check(response, before, client) -> None:
    assert response.status_code < 500, response.text
    assert response.headers["content-type"].startswith("application/json"), response.headers
    data = response.json()
    if response.status_code >= 400:
        assert isinstance(data.get("error"), str) and data["error"], data
        assert games_in_play(client) == before


FAST = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


SPECS = ["person", "person", "random", "mcts:simulations=10", "optimal", "greedy", "rudimentary", "original-strategy:depth=1", "nobody"]
OPTIONS = {"num_sticks": st.integers(0, 1100), "max_take": st.integers(0, 5), "num_cards": st.integers(0, 6),
           "num_players": st.integers(1, 4),
           "width": st.integers(3, 8), "height": st.integers(3, 8), "walls": st.integers(0, 4), "start_cells": st.integers(1, 3),
           "rounds": st.sampled_from([1, 2, 3]), "max_moves": st.integers(0, 50), "imperfect_info": st.booleans()}
created = st.fixed_dictionaries({"game": st.sampled_from(["sticks", "goofspiel", "tribolo", "double_card", "tides_of_time"])},
                                optional={"seats": st.lists(st.sampled_from(SPECS), min_size=1, max_size=4),
                                          "options": st.dictionaries(st.sampled_from(sorted(OPTIONS)), st.integers(0, 9), max_size=2)
                                          .flatmap(lambda d: st.fixed_dictionaries({k: OPTIONS[k] for k in d})),
                                          "seed": st.integers(-1, 2**64)})
moved = st.fixed_dictionaries({}, optional={"seat": st.integers(-1, 3), "action": st.integers(-1, 40)})
"""Bodies a page would send, right or nearly so (so that games are made and played, too)."""


def saved_record(client, data) -> dict:
    """A saved game of the server's, perhaps with a step or a field changed."""
    sessions = list(client.app.state.sessions.items.values())
    record = sessions[data.draw(st.integers(0, 1000)) % len(sessions)][0].record()  # (drawn alike whatever the server holds)
    change_step, step, step_value = data.draw(st.booleans()), data.draw(st.integers(0, 1000)), data.draw(values)
    change_field, field, field_value = data.draw(st.booleans()), data.draw(st.sampled_from(sorted(record))), data.draw(values)
    if change_step and record["steps"]:
        record["steps"][step % len(record["steps"])] = step_value
    if change_field:
        record[field] = field_value
    return record


@FAST
@given(route=st.sampled_from(["/api/sessions", "/api/sessions/load", "/api/sessions/replay", "move", "undo", "step"]),
       which=st.integers(0, 10), raw=st.booleans(), plausible=st.booleans(), data=st.data())
def test_any_post_body(client, route, which, raw, plausible, data):
    keys = list(client.app.state.sessions.items)
    if plausible and route == "/api/sessions":
        body = data.draw(created)
    elif plausible and route in ("move", "undo"):
        body = data.draw(moved)
    elif plausible and route == "/api/sessions/load":
        body = saved_record(client, data)
    else:
        body = data.draw(bodies)
    if route in ("move", "undo", "step"):
        key = keys[which % len(keys)] if which < 8 and keys else "no-such-game-000"
        route = f"/api/sessions/{key}/{route}"
    content = json.dumps(body, allow_nan=True).encode()
    if raw and not plausible:
        content = content[: which * 7]
    before = games_in_play(client)
    check(client.post(route, content=content, headers={"content-type": "application/json"}), before, client)


@FAST
@given(route=st.sampled_from(["", "/hint", "/record"]), which=st.integers(0, 10),
       query=st.dictionaries(st.sampled_from(["seat", "spec", "token"]),
                             st.sampled_from(URL_WORDS) | st.text(max_size=30) | st.integers(-5, 5).map(str),
                             max_size=3))
def test_any_query(client, route, which, query):
    keys = list(client.app.state.sessions.items)
    key = keys[which % len(keys)] if which < 8 and keys else "".join(str(which) * 16)
    before = games_in_play(client)
    check(client.get(f"/api/sessions/{key}{route}", params=query), before, client)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.text(max_size=40), method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]))
def test_any_path_and_method(client, path, method):
    before = games_in_play(client)
    response = client.request(method, "/api/" + quote(path), content=b"{}", headers={"content-type": "application/json"})
    check(response, before, client)
