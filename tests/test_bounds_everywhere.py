"""An option out of its bounds is refused by the rules layer, so every front end refuses
it the same way, with the same one line: the command line, the PettingZoo envs, the
web server and the OpenSpiel bridge (the bounds themselves:
``tests/games/test_option_bounds.py``)."""

from __future__ import annotations

import importlib
import time

import pytest

from parlour.cli import main

CASES = [
    ("sticks", {"num_sticks": 100_000_000}, "num_sticks must be between 1 and 1000, got 100000000"),
    ("sticks", {"max_take": 50_000_000}, "max_take must be between 1 and 1000, got 50000000"),
    ("goofspiel", {"num_players": 64}, "num_players must be between 2 and 10, got 64"),
    ("tribolo", {"height": 64}, "height must be between 1 and 26, got 64"),
    ("double_card", {"max_moves": 5000}, "max_moves must be between 1 and 1000, got 5000"),
    ("tides_of_time", {"rounds": 2}, "rounds must be one of [1, 3], got 2"),
]


@pytest.mark.parametrize(("game", "options", "message"), CASES, ids=[c[0] + "-" + next(iter(c[1])) for c in CASES])
def test_the_command_line_refuses_at_once(capsys, game, options, message):
    flags = [f"--option={key}={value}" for key, value in options.items()]
    for agents in ([], ["--agents", "random", "random", "random"]):  # the command as written, and a whole one
        start = time.perf_counter()
        assert main(["arena", "--game", game, *flags, *agents]) == 2
        assert time.perf_counter() - start < 10  # not a benchmark: a game that ate the machine would take minutes
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(("game", "options", "message"), CASES, ids=[c[0] + "-" + next(iter(c[1])) for c in CASES])
def test_the_envs_refuse(game, options, message):
    module = importlib.import_module(f"parlour.envs.{game}_v0")
    makers = [module.env, module.raw_env] + ([module.parallel_env] if hasattr(module, "parallel_env") else [])
    for make in makers:
        with pytest.raises(ValueError) as caught:
            make(**options)
        assert str(caught.value) == message


@pytest.mark.parametrize(("game", "options", "message"), CASES, ids=[c[0] + "-" + next(iter(c[1])) for c in CASES])
def test_the_web_server_refuses(game, options, message):
    testclient = pytest.importorskip("starlette.testclient", reason="needs the web extra")
    from parlour.web.app import create_app

    with testclient.TestClient(create_app()) as client:
        response = client.post("/api/sessions", json={"game": game, "options": options})
    assert response.status_code == 400
    assert message in response.json()["error"]


@pytest.mark.parametrize(("game", "options", "message"), CASES, ids=[c[0] + "-" + next(iter(c[1])) for c in CASES])
def test_the_openspiel_bridge_refuses(game, options, message):
    pyspiel = pytest.importorskip("pyspiel", reason="needs open_spiel")
    from parlour.interop.openspiel import register_parlour_games

    register_parlour_games()
    with pytest.raises(ValueError) as caught:
        pyspiel.load_game(f"parlour_{game}", options)
    assert str(caught.value) == message
