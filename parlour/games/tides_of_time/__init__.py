"""Tides of Time (Portal Games, 2015), the two-player drafting game (rules: docs/tides_of_time.md).

Eighteen cards, five suits.  Each round both players draft from five cards: they
pick one card each **simultaneously**, the picks join their kingdoms, and they
exchange their remaining hands, until the hands are empty.  The two kingdoms are
then scored together (:func:`score_round`, the six steps of docs/tides_of_time.md,
"Scoring a round", in the order of the C# article the game comes from).  In the full
game (``rounds=3``) each player then keeps one card drafted this round as a relic
(it stays in the kingdom for later scoring) and discards another; the other three
return to the owner's hand and each player draws two (player_0 first).  ``rounds=1`` is the article's one-round game.

Steps (every one simultaneous, both seats act): the 5 picks of a round (the last
one is forced), then, after rounds 1 and 2, a **relic** step (choose one card
drafted this round) and a **discard** step (another card drafted this round).
The relic choice stays secret until both discards are chosen; the two steps are
revealed together, as the rulebook's simultaneous secret choice.

Actions are card ids: action ``a`` is card ``a + 1`` in ``Discrete(18)``.  Hands
and kingdoms are 18-bit masks (bit ``a`` = card ``a + 1``); round scores are
memoised on the two kingdoms, the only thing they depend on.

The package splits what a reader looks for, as ``parlour.games.double_card`` does:
:mod:`.cards` (cards, suits, scoring tables, phases), :mod:`.scoring`, :mod:`.rules`
(``TidesOfTimeGame``, ``TidesOfTimeState``), :mod:`.information` (``TidesInfoState``,
the observation layout), :mod:`.notation` (the text form) and :mod:`.engine`
(``TidesOfTimeBatch``, B games at once in numpy).  Every public name is re-exported
here, with the game's registration ``ENTRY``.
"""

from parlour.games.entry import GameEntry
from parlour.games.tides_of_time.cards import (
    ALL_CARDS,
    CARDS,
    DISCARD,
    DRAFT,
    EYE,
    HAND_SIZE,
    MAJORITY_SCORING,
    MAZE,
    MOLEHILL,
    NEST,
    NUM_CARDS,
    OVER,
    PHASES,
    PORT,
    RELIC,
    ROOF,
    SCORE_SCALE,
    SET_SCORING,
    SUIT_OF,
    SUITS,
    Card,
    G,
    L,
    P,
    S,
    T,
    card_label,
    cards_text,
    named_cards,
)
from parlour.games.tides_of_time.engine import TidesOfTimeBatch
from parlour.games.tides_of_time.information import TidesInfoState
from parlour.games.tides_of_time.observation import OBS_LAYOUT, OBS_SIZE, PLANES, observation_vector
from parlour.games.tides_of_time.rules import (
    RETURN_TYPES,
    TidesOfTimeGame,
    TidesOfTimeState,
    check_deck,
    info_state_of,
    text_to_action,
)
from parlour.games.tides_of_time.scoring import (
    score_breakdown,
    score_kingdoms,
    score_many,
    score_masks,
    score_round,
)

ENTRY = GameEntry(TidesOfTimeGame, TidesOfTimeBatch)
"""The game's registration (``parlour.games.entry``)."""

__all__ = ['ENTRY', 'TidesOfTimeBatch', 'ALL_CARDS', 'CARDS', 'Card', 'DISCARD', 'DRAFT', 'EYE', 'G', 'HAND_SIZE', 'L',
           'MAJORITY_SCORING', 'MAZE', 'MOLEHILL', 'NEST', 'NUM_CARDS', 'OBS_LAYOUT', 'OBS_SIZE', 'OVER', 'P', 'PHASES', 'PLANES',
           'PORT', 'RELIC', 'RETURN_TYPES', 'ROOF', 'S', 'SCORE_SCALE', 'SET_SCORING', 'SUITS', 'SUIT_OF', 'T', 'TidesInfoState',
           'TidesOfTimeGame', 'TidesOfTimeState', 'card_label', 'cards_text', 'check_deck', 'info_state_of', 'named_cards',
           'observation_vector', 'score_breakdown', 'score_kingdoms', 'score_many', 'score_masks', 'score_round',
           'text_to_action']
