"""The screenshots of docs/web.md: ``parlour serve``'s page for every game, a few moves in,
taken by Playwright in Debian's Chromium (the web and dev extras; ``apt-get install
chromium``).

    python -m scripts.make_web_screenshots            # writes docs/web/<game>.png
    python -m scripts.make_web_screenshots --games sticks --out /tmp/shots   # one, elsewhere
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

from parlour.web.app import BackgroundServer, create_app

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
GAMES = {  # seats 1.. and the moves the person makes before the picture
    "goofspiel": ({1: "rudimentary"}, {"num_cards": "8"}, 3),
    "sticks": ({1: "optimal"}, {}, 2),
    "tides_of_time": ({1: "greedy"}, {}, 3),
    "tribolo": ({1: "greedy", 2: "random"}, {"width": "10", "height": "8", "walls": "4", "start_cells": "4"}, 4),
    "double_card": ({1: "random"}, {}, 4),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "docs" / "web"), help="folder for the PNG files")
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES), help="the games to picture (default: all)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    server = BackgroundServer(create_app(None))
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=FLAGS)
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            for game, (seats, options, moves) in ((game, GAMES[game]) for game in args.games):
                page.goto(server.url + "/")
                page.wait_for_selector("#game option", state="attached")
                page.select_option("#game", game)
                for name, value in options.items():
                    page.fill(f"[data-option={name}]", value)
                for seat, spec in seats.items():
                    page.select_option(f"#seat-{seat}", spec)
                page.click("#play")
                page.wait_for_selector("#table:not([hidden])")
                for _ in range(moves):
                    count = page.locator("#log li").count()
                    page.locator("#moves button").first.click()
                    page.wait_for_function(f"document.querySelectorAll('#log li').length > {count}")
                page.screenshot(path=str(out / f"{game}.png"), full_page=True)
                print(out / f"{game}.png")
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
