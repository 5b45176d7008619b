"""Write Tides of Time's opening book: ``original-alphabeta``'s first pick of round 1 for
every hand (parlour/baselines/players/data/tides_openings.npz).

Round 1's first pick depends on the bot's hand alone (both kingdoms are empty and every
other card is unseen), so the batched player
(``parlour.baselines.players.tides_of_time_batched``) reads it from this book instead of
solving the 1,287 opponent hands of every game (90 ms a game).  For each of the 8,568
hands and both objectives (``own``, ``difference``), the book holds the card the
single-game player's solver and vote choose, for the game's default scoring flags.
About 15 minutes of one core; ``--workers`` spreads it.

    python -m scripts.make_tides_openings --workers 2
    python -m scripts.make_tides_openings --check 8    # re-solve 8 hands, compare with the book
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "parlour" / "baselines" / "players" / "data" / "tides_openings.npz"


def _picks(hands: list[int]) -> list[tuple[int, int]]:
    from parlour.baselines.players.tides_of_time import first_pick_vote
    from parlour.baselines.players.tides_of_time_batched import OBJECTIVES, opening_values
    from parlour.games import load_game
    from parlour.games.bitmask import set_bits

    game = load_game("tides_of_time")
    out = []
    for hand in hands:
        values = opening_values(game, hand)
        out.append(tuple(set_bits(hand)[first_pick_vote(values[o], o)[0]] for o in OBJECTIVES))
    return out


def check(count: int, book: Path = OUT) -> int:
    """Re-solve ``count`` hands spread over the book and compare: 0 if they agree, else 1."""
    from parlour.baselines.players.tides_of_time_batched import OBJECTIVES, all_hands

    hands = all_hands().tolist()
    index = sorted({round(i * (len(hands) - 1) / max(count - 1, 1)) for i in range(count)})
    saved = np.load(book)
    wrong = [(hands[i], objective, int(saved[objective][i]), pick)
             for i, picks in zip(index, _picks([hands[i] for i in index]))
             for objective, pick in zip(OBJECTIVES, picks) if int(saved[objective][i]) != pick]
    for hand, objective, stored, pick in wrong:
        print(f"hand {hand:#x}, {objective}: the book says {stored}, the solver {pick}", file=sys.stderr)
    print(f"{len(index)} hands re-solved: {'the book agrees' if not wrong else f'{len(wrong)} picks differ'}")
    return 1 if wrong else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", type=int, metavar="HANDS", help="only re-solve this many hands and compare them with the book")
    args = parser.parse_args(argv)
    if args.check:
        return check(args.check, args.out)
    from parlour.baselines.players.tides_of_time_batched import OBJECTIVES, all_hands

    hands = all_hands().tolist()
    chunks = [hands[i : i + 64] for i in range(0, len(hands), 64)]
    start = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        picks = [pick for chunk in pool.imap(_picks, chunks) for pick in chunk]
    table = np.array(picks, dtype=np.uint8)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **{objective: table[:, i] for i, objective in enumerate(OBJECTIVES)})
    print(f"{len(hands)} hands in {time.perf_counter() - start:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
