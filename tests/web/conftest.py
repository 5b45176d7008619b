"""Fixtures of the web tests: a real ``parlour serve`` app under uvicorn on 127.0.0.1 (a
free port, in a thread of the test process, so a test can also look at the sessions
the page plays), and Debian's Chromium driven by Playwright (never a downloaded
browser; ``.ci/run`` installs the ``chromium`` package where it is missing)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="needs the web extra")

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


class LiveServer:
    def __init__(self, url: str, app) -> None:
        self.url, self.app = url, app

    def session(self, key: str):
        return self.app.state.sessions.get(key)


@pytest.fixture(scope="module")
def thinkers():
    """Two thinking processes shared by a module's apps (each app would start its own)."""
    from parlour.table.thinking import Thinkers

    pool = Thinkers(2)
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def live_server(thinkers) -> Iterator[LiveServer]:
    from parlour.web.app import BackgroundServer, create_app

    app = create_app(None, thinker=thinkers)
    server = BackgroundServer(app)
    assert server.url.startswith("http://127.0.0.1:")
    try:
        yield LiveServer(server.url, app)
    finally:
        server.stop()


def chromium_path() -> str | None:
    return shutil.which("chromium") or next((p for p in ("/usr/bin/chromium",) if Path(p).exists()), None)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (the dev extra)")
    path = chromium_path()
    if path is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + "/")
    page.wait_for_selector("#game option", state="attached")
    yield page
    context.close()
    assert not errors, errors  # no JavaScript error on the page
