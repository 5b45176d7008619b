"""Tides of Time's cards, suits and scoring tables, the phases of a round, and the cards
written for a person: the constants every other module of the game reads."""

from __future__ import annotations

from dataclasses import dataclass

from parlour.games.bitmask import cards_of

# --- the cards -------------------------------------------------------------------------

SUITS = ("Palace", "Library", "Garden", "Temple", "Stronghold")
P, L, G, T, S = range(5)
NUM_CARDS = 18
ALL_CARDS = (1 << NUM_CARDS) - 1
HAND_SIZE = 5


@dataclass(frozen=True)
class Card:
    """One card: its public id (1..18), name, suit (``None``: no suit) and ability."""

    number: int
    name: str
    suit: str | None
    ability: str


CARDS: tuple[Card, ...] = (
    Card(1, "The Jinn Shackles", "Stronghold", "3 VP for each Temple"),
    Card(2, "Eternal Palace", "Palace", "3 VP for each Library"),
    Card(3, "The Citadel of the Prophets", "Library", "3 VP for each Garden"),
    Card(4, "The Vestibule", "Temple", "3 VP for each Palace"),
    Card(5, "Gods' Baths", "Garden", "3 VP for each Stronghold"),
    Card(6, "Golden Ziggurat", "Garden", "7 VP for majority in Palaces"),
    Card(7, "Blood-tear Spring", "Temple", "7 VP for majority in Gardens"),
    Card(8, "Old Man's Pass", "Stronghold", "7 VP for majority in Libraries"),
    Card(9, "The Ancient Divide", "Palace", "7 VP for majority in Strongholds"),
    Card(10, "The Great Library of Ahm", "Library", "7 VP for majority in Temples"),
    Card(11, "The Sky Pillars", "Temple", "5 VP for each set of Library + Garden"),
    Card(12, "The Mana Well", "Library", "9 VP for each set of Palace + Stronghold + Temple"),
    Card(13, "The Maze of the Damned", "Garden", "13 VP for a set of all five suits"),
    Card(14, "The Eye of the North", "Stronghold", "3 VP for each suit you don't have"),
    Card(15, "The King's Nest", "Palace", "win all ties"),
    Card(16, "The Molehill", None, "8 VP for majority in suits with exactly one card"),
    Card(17, "The Roof of the World", None, "double the count of your most numerous suit(s)"),
    Card(18, "The Sapphire Port", None, "8 VP for scoring the highest with a single card"),
)
"""The deck, indexed by ``number - 1`` (the C# article's ``deck[1..18]``)."""

SUIT_OF: tuple[int, ...] = tuple(-1 if c.suit is None else SUITS.index(c.suit) for c in CARDS)
"""Suit index of each card index (0-based), -1 for the three unsuited cards."""

# Scoring programs for step 5, by card index: ("sets", points, suits) covers "for
# each" (one suit) and the set cards; ("majority", suit); ("maze",); ("eye",).
SET_SCORING = {0: (3, (T,)), 1: (3, (L,)), 2: (3, (G,)), 3: (3, (P,)), 4: (3, (S,)), 10: (5, (L, G)), 11: (9, (P, S, T))}
MAJORITY_SCORING = {5: P, 6: G, 7: L, 8: S, 9: T}
"""``SET_SCORING``: card index -> (points, the suits of one set); ``MAJORITY_SCORING``:
card index -> the suit of its majority (read by the batched engine too)."""
NEST, MOLEHILL, ROOF, PORT, MAZE, EYE = 14, 15, 16, 17, 12, 13  # card indices



def card_label(number: int) -> str:
    card = CARDS[number - 1]
    return f"{number} {card.name} [{card.suit or '-'}]"


DRAFT, RELIC, DISCARD, OVER = range(4)
PHASES = ("draft", "relic", "discard", "over")
SCORE_SCALE = 128.0
"""Round scores are divided by this in observations (a kingdom of 7 cards scores < 128)."""


def cards_text(mask: int) -> str:
    return " ".join(str(c) for c in cards_of(mask)) or "-"


def named_cards(mask: int, relics: int = 0) -> str:
    if not mask:
        return "-"
    return "; ".join(card_label(c) + (" (relic)" if relics >> (c - 1) & 1 else "") for c in cards_of(mask))


