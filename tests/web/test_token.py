"""Exposure beyond this machine is a decision: ``parlour serve`` on anything but loopback
needs a token on every API request (given, or made and printed), and on loopback it
answers only to loopback names (no DNS rebinding)."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="needs the web extra")
httpx = pytest.importorskip("httpx", reason="needs httpx (the dev extra)")

from starlette.testclient import TestClient  # noqa: E402

import parlour.cli  # noqa: E402
from parlour.web.app import create_app  # noqa: E402
from parlour.web.guard import LOOPBACK_HOSTS, is_loopback  # noqa: E402

TOKEN = "s3cret-token-of-the-test-0123"


def test_every_api_request_needs_the_token(thinkers):
    client = TestClient(create_app(None, thinker=thinkers, token=TOKEN))
    for path in ("/api/catalog", "/api/sessions", "/api/sessions/x", "/api/nothing"):
        response = client.get(path)
        assert response.status_code == 401 and "token" in response.json()["error"], path
    assert client.post("/api/sessions", json={"game": "sticks"}).status_code == 401
    assert client.get("/api/catalog", headers={"Authorization": "Bearer wrong-token-of-the-test-0123"}).status_code == 401
    assert client.get("/api/catalog", params={"token": TOKEN[:-1]}).status_code == 401
    assert client.get("/api/catalog", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    assert client.get("/api/catalog", params={"token": TOKEN}).status_code == 200
    assert client.get("/").status_code == 200 and client.get("/static/app.js").status_code == 200  # the page, which asks with the token
    assert len(client.app.state.sessions) == 0


def test_on_loopback_only_loopback_names_are_answered(thinkers):
    client = TestClient(create_app(None, thinker=thinkers, hosts=LOOPBACK_HOSTS), base_url="http://127.0.0.1:8000")
    assert client.get("/api/catalog").status_code == 200
    for host in ("localhost:8000", "[::1]:8000", "127.0.0.1"):
        assert client.get("/api/catalog", headers={"host": host}).status_code == 200, host
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example", ""):
        response = client.get("/api/catalog", headers={"host": host})
        assert response.status_code == 400 and "answers only to" in response.json()["error"], host


def test_loopback_addresses():
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.0.0.2", "::1", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.4", "example.org"))


def serve(monkeypatch, capsys, *flags):
    """``parlour serve FLAGS`` up to the point where uvicorn would listen: (status, what it
    printed, the app and where it would bind)."""
    import uvicorn

    bound = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: bound.update(app=app, **kw))
    status = parlour.cli.main(["serve", "--runs", "nowhere", *flags])
    return status, capsys.readouterr(), bound


def test_binding_beyond_loopback_makes_and_prints_a_token(monkeypatch, capsys):
    status, out, bound = serve(monkeypatch, capsys, "--host", "0.0.0.0", "--port", "8123", "--workers", "1")
    assert status == 0 and bound["host"] == "0.0.0.0"
    line = next(line for line in out.out.splitlines() if "serving on" in line)
    assert "ANY machine" in line and "?token=" in line
    token = line.split("?token=")[1].split()[0]
    assert len(token) >= 24
    with TestClient(bound["app"]) as client:
        assert client.get("/api/catalog").status_code == 401
        assert client.get("/api/catalog", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    status, out, bound = serve(monkeypatch, capsys, "--host", "0.0.0.0", "--workers", "1")
    assert token not in out.out  # a new token for every start


def test_loopback_needs_no_token_unless_given_and_a_short_one_is_refused(monkeypatch, capsys):
    status, out, bound = serve(monkeypatch, capsys, "--workers", "1")
    assert status == 0 and bound["host"] == "127.0.0.1" and "?token=" not in out.out and "this machine only" in out.out
    with TestClient(bound["app"], base_url="http://127.0.0.1:8000") as client:
        assert client.get("/api/catalog").status_code == 200
    status, out, bound = serve(monkeypatch, capsys, "--token", TOKEN, "--workers", "1")
    assert f"?token={TOKEN}" in out.out
    with TestClient(bound["app"], base_url="http://127.0.0.1:8000") as client:
        assert client.get("/api/catalog").status_code == 401
    status, out, bound = serve(monkeypatch, capsys, "--token", "short")
    assert status == 2 and "at least 16 characters" in out.err and not bound


def test_the_page_plays_with_the_token_from_its_address(browser, thinkers):
    """The page takes the token from ``?token=`` (as parlour serve prints it), drops it
    from the address bar and sends it with every request."""
    from parlour.web.app import BackgroundServer

    server = BackgroundServer(create_app(None, thinker=thinkers, token=TOKEN))
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{server.url}/?token={TOKEN}")
        page.wait_for_selector("#game option", state="attached")
        assert "token" not in page.url
        page.select_option("#game", "sticks")
        page.click("#play")
        page.wait_for_selector("#moves button")
        page.click("#moves button >> nth=0")
        page.wait_for_function("document.querySelectorAll('#log li').length >= 2")
        context.close()
        anonymous = httpx.get(server.url + "/api/sessions")
        assert anonymous.status_code == 401
    finally:
        server.stop()
