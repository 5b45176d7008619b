"""Markdown for docs/benchmark.md: every ladder's calibrated ratings, and a leaderboard of
published cards.  ``python -m scripts.make_leaderboard`` rewrites the marked sections of
the page from the package's calibration files and the cards in docs/benchmark/; a test
checks that the page is up to date with them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from parlour.games import load_game
from parlour.ladder.ladders import LADDERS, load_ladder

SECTIONS = ("ladders", "leaderboard")


def _options(game: str, options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items()) or "default options"


def ladders_markdown() -> str:
    parts = []
    for game in sorted(LADDERS):
        ladder = load_ladder(game)
        spec, record = ladder.spec, ladder.record
        seats = load_game(game, **spec.options).num_players
        per_pair = f"{record['games_per_pair']} games per pair" + (" and direction" if seats > 2 else "")
        opening = f"; every game opens with {spec.opening} random move{'s' if spec.opening > 1 else ''}" if spec.opening else ""
        parts.append(f"### {spec.version} ({_options(game, spec.options)})\n")
        parts.append(
            f"Calibrated {record['made']} with parlour {record['parlour_version']} (rules `{record['rules']}`): "
            f"{per_pair}, seed {record['seed']}{opening}; "
            f"a candidate plays {spec.games_per_rung} games against each rung; move budget {spec.move_budget_ms:.0f} ms."
            + (f" {spec.notes[0].upper()}{spec.notes[1:]}." if spec.notes else "")
            + "\n"
        )
        parts.append("| rung | rating | 95% interval | ms per move at calibration |")
        parts.append("|---|---:|---|---:|")
        for rung in record["rungs"]:
            parts.append(f"| `{rung['rung']}` | {rung['elo']:+.0f} | [{rung['low']:+.0f}, {rung['high']:+.0f}] | "
                         f"{rung['ms_per_move']:.2f} |")
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def read_cards(folder: str | Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(Path(folder).glob("*.json"))]


def leaderboard_markdown(cards: Iterable[dict[str, Any]]) -> str:
    rows = sorted(cards, key=lambda c: (c["game"], -c["rating"]))
    lines = [
        "| game | agent | rating | 95% interval | against the strongest rung | games | ms per move | card |",
        "|---|---|---:|---|---|---:|---:|---|",
    ]
    for card in rows:
        low, high = card["interval"]
        off = f" ({card['off_scale']} the ladder)" if card["off_scale"] else ""
        name = card.get("card_file", "")
        link = f"[{name}](benchmark/{name})" if name else ""
        top = card["rungs"][-1]
        adaptive = card.get("adaptive") or {}
        games = f"{card['games']} (adaptive, +-{adaptive['target']:.0f})" if adaptive.get("stopped_early") else str(card["games"])
        lines.append(
            f"| {card['ladder']} | `{card['agent']}` | {card['rating']:+.0f}{off} | [{low:+.0f}, {high:+.0f}] | "
            f"{100 * top['score']:.1f}% against `{top['rung']}` | {games} | "
            f"{card['timing']['ms_per_move']:.2f} | {link} |"
        )
    return "\n".join(lines) + "\n"


def replace_section(text: str, name: str, body: str) -> str:
    """``text`` with the part between ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->`` replaced."""
    pattern = re.compile(rf"(<!-- {name}:begin -->\n).*?(<!-- {name}:end -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"the page has no <!-- {name}:begin --> ... <!-- {name}:end --> section")
    return pattern.sub(lambda m: m.group(1) + body + m.group(2), text)


def render_page(text: str, cards_folder: str | Path) -> str:
    cards = []
    for path in sorted(Path(cards_folder).glob("*.json")):
        card = json.loads(path.read_text())
        card["card_file"] = path.name
        cards.append(card)
    text = replace_section(text, "ladders", ladders_markdown())
    return replace_section(text, "leaderboard", leaderboard_markdown(cards))
