"""Rewrite docs/benchmark.md's ladder tables and leaderboard from the package's
calibration files and the published cards in docs/benchmark/*.json.

    python -m scripts.make_leaderboard            # rewrite the page
    python -m scripts.make_leaderboard --check    # exit 1 if the page is out of date

Publishing a card: ``parlour bench --game GAME --agent SPEC --out DIR``, then copy
DIR/GAME.json to docs/benchmark/NAME.json and run this script.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parlour.ladder.leaderboard import render_page

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "benchmark.md"
CARDS = ROOT / "docs" / "benchmark"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the page is up to date")
    args = parser.parse_args(argv)
    text = PAGE.read_text()
    new = render_page(text, CARDS)
    if args.check:
        if new != text:
            print(f"{PAGE} is out of date: run python -m scripts.make_leaderboard", file=sys.stderr)
            return 1
        print(f"{PAGE} is up to date")
        return 0
    PAGE.write_text(new)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
