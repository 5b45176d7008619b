"""Tides of Time's rules: the game and its options, the deal, a position and its
simultaneous steps, the returns and the observation (docs/tides_of_time.md).  The cards
and phases are in :mod:`.cards`, the scoring in :mod:`.scoring`, the information state
in :mod:`.information`, the text form in :mod:`.notation`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.base import (
    Game,
    GameInfo,
    JointAction,
    Option,
    State,
    as_action,
    check_int,
    make_rng,
    shown,
)
from parlour.games.bitmask import cards_of, mask_of
from parlour.games.bitmask import set_bits as bits
from parlour.games.tides_of_time import notation
from parlour.games.tides_of_time.cards import (
    ALL_CARDS,
    CARDS,
    DISCARD,
    DRAFT,
    HAND_SIZE,
    NUM_CARDS,
    OVER,
    RELIC,
)
from parlour.games.tides_of_time.information import TidesInfoState
from parlour.games.tides_of_time.observation import OBS_SIZE
from parlour.games.tides_of_time.scoring import score_breakdown, score_masks

RETURN_TYPES = ("win_loss", "score_difference")


class TidesOfTimeGame(Game):
    name = "tides_of_time"
    summary = ("Tides of Time: two players draft cards by simultaneous picks, passing hands, "
               "and score their kingdoms over one or three rounds.")
    simultaneous = True
    options = {
        "rounds": Option(3, "3: the full game with relics; 1: the one-round game of the C# article", choices=(1, 3)),
        "returns": Option("win_loss", "win_loss (+1/-1/0 on the total) | score_difference (own total minus opponent's)",
                          choices=RETURN_TYPES),
        "zero_ties_win": Option(True, "a tie at 0 vs 0 is a tie the King's Nest wins (False: it is not)", choices=(False, True)),
        "maze_counts_sets": Option(False, "the Maze scores 13 per set of five suits (as the C# article's code does) instead of 13 once",
                                   choices=(False, True)),
    }
    notation = (
        "a move is a card, written as its number 1..18 or its full name in any case, e.g. '16' or "
        "'the molehill'. In a pick it is a card of your hand{relics}. Both players choose at once"
    )

    def notation_help(self) -> str:
        relics = (
            "; after rounds 1 and 2 you first choose the relic you keep, then the card you "
            "discard, both among the cards you drafted that round"
        )
        return self.notation.format(relics=relics if self.config["rounds"] == 3 else "")
    start_options = {
        "deck": "the 18 card numbers in dealing order: 5 to player_0, 5 to player_1, then the pile top first",
    }

    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)  # each option stands alone: Game checked them against their bounds

    def _info(self) -> GameInfo:
        rounds = self.config["rounds"]
        self.rounds = rounds
        self.flags = (self.config["zero_ties_win"], self.config["maze_counts_sets"])
        return self._game_info(
            num_players=2,
            num_actions=NUM_CARDS,
            perfect_information=False,
            zero_sum=True,
            has_chance=True,
            max_game_length=HAND_SIZE * rounds + 2 * (rounds - 1),
        )

    @property
    def returns_bounds(self) -> tuple[float, float]:
        """win_loss: +1/-1/0; score_difference: a round score is below 128 (docs/tides_of_time.md)."""
        return (-1.0, 1.0) if self.config["returns"] == "win_loss" else (-128.0 * self.rounds, 128.0 * self.rounds)

    def start_deal(self) -> tuple[str, tuple[int, ...]]:
        """The deal is a uniform shuffle of the 18 cards (start option ``deck``)."""
        return ("deck", tuple(range(1, NUM_CARDS + 1)))

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (OBS_SIZE,)

    def score(self, ma: int, mb: int) -> tuple[int, int]:
        """Round scores of two kingdom masks under this game's flags."""
        return score_masks(ma, mb, *self.flags)

    def new_initial_state(self, seed=None, **start: Any) -> TidesOfTimeState:
        """A shuffled deal from ``seed``, or ``deck=[...]`` (card numbers, dealing order)."""
        if start:
            self._check_start(start)
        deck = start.get("deck")
        if deck is None:
            order = make_rng(seed).permutation(NUM_CARDS) + 1
            deck = tuple(int(c) for c in order)
        else:
            deck = check_deck(deck)
        return TidesOfTimeState(self, mask_of(deck[:5]), mask_of(deck[5:10]), deck[10:])

    def state_from_deal(self, hand0: int, hand1: int, pile: tuple[int, ...]) -> TidesOfTimeState:
        """A fresh state from the two hands (bitmasks) and the draw pile (card numbers),
        unchecked: for the samplers of information states, which draw many
        (``new_initial_state(deck=...)`` checks a deal)."""
        return TidesOfTimeState(self, hand0, hand1, pile)

    def state_from_text(self, text: str) -> TidesOfTimeState:
        """Read ``to_text`` (:func:`.notation.parse_position`): rebuild the deal, replay
        the picks and keeps, and check that every other line (hands, kingdoms, scores and
        their per-card breakdown, totals) is what the replay gives."""
        deck, moves = notation.parse_position(text, self.new_initial_state(seed=0).to_text())
        state = self.new_initial_state(deck=deck)
        for line, joints in moves:
            try:
                for joint in joints:
                    state.apply(joint)
            except IllegalActionError as error:
                raise ValueError(f"inconsistent tides_of_time position: {line!r}: {error}") from None
        notation.check_replay(text, state.to_text())
        return state


def check_deck(deck: object) -> tuple[int, ...]:
    if isinstance(deck, (str, bytes)) or not isinstance(deck, (Sequence, np.ndarray)) or getattr(deck, "ndim", 1) == 0:
        raise ValueError(f"deck must be a permutation of the card numbers 1..18, got {deck!r}")
    try:
        cards = tuple(check_int("card in deck", c, 1, NUM_CARDS) for c in deck)
    except ValueError as error:
        raise ValueError(f"deck must be a permutation of the card numbers 1..18: {error}") from None
    if sorted(cards) != list(range(1, NUM_CARDS + 1)):
        missing = sorted(set(range(1, NUM_CARDS + 1)) - set(cards))
        raise ValueError(f"deck must be a permutation of the card numbers 1..18, got {list(cards)} (missing {missing})")
    return cards


class TidesOfTimeState(State):
    """A position.

    ``start``: the two dealt hands (masks) and the pile (card numbers, top first);
    ``hands``, ``drafted`` (this round), ``relics``, ``discards``: masks per seat;
    ``pending``: each seat's relic (card index) during the discard step, else -1;
    ``draws``: per relic step, the masks each seat drew; ``scores``: per round
    scored, ``(player_0, player_1)``; ``kingdoms``: the two kingdoms scored each
    round; ``picks``: per round, the joint picks (card indices, seat order);
    ``keeps``: per relic step, ``(relic_0, relic_1, discard_0, discard_1)``.
    """

    game: TidesOfTimeGame
    __slots__ = (
        "game", "start", "hands", "drafted", "relics", "discards", "pending", "pile_pos", "round", "pick",
        "phase", "draws", "scores", "kingdoms", "picks", "keeps",
    )

    def __init__(self, game: TidesOfTimeGame, hand0: int, hand1: int, pile: tuple[int, ...]) -> None:
        self.game = game
        self.start = (hand0, hand1, pile)
        self.hands = [hand0, hand1]
        self.drafted = [0, 0]
        self.relics = [0, 0]
        self.discards = [0, 0]
        self.pending = [-1, -1]
        self.pile_pos = 0
        self.round = 0
        self.pick = 0
        self.phase = DRAFT
        self.draws: list[tuple[int, int]] = []
        self.scores: list[tuple[int, int]] = []
        self.kingdoms: list[tuple[int, int]] = []
        self.picks: list[list[tuple[int, int]]] = [[]]
        self.keeps: list[tuple[int, int, int, int]] = []

    # --- the protocol ---------------------------------------------------------------

    def current_players(self) -> tuple[int, ...]:
        return () if self.phase == OVER else (0, 1)

    def _legal_mask(self, player: int) -> int:
        phase = self.phase
        if phase == DRAFT:
            return self.hands[player]
        if phase == RELIC:
            return self.drafted[player]
        if phase == DISCARD:
            return self.drafted[player] & ~(1 << self.pending[player])
        return 0

    def legal_actions(self, player: int) -> list[int]:
        if player not in (0, 1):
            return []
        return list(bits(self._legal_mask(player)))

    def legal_mask(self, player: int) -> np.ndarray:
        mask = np.zeros(NUM_CARDS, dtype=np.int8)
        if player in (0, 1):
            mask[list(bits(self._legal_mask(player)))] = 1
        return mask

    def apply(self, action: int | JointAction) -> None:
        """One simultaneous step: ``{0: card index, 1: card index}``."""
        if type(action) is not dict or len(action) != 2 or self.phase == OVER:
            return self._reject(action)
        a0 = action.get(0)
        a1 = action.get(1)
        if type(a0) is not int or type(a1) is not int or a0 < 0 or a1 < 0:
            return self._reject(action)
        phase = self.phase
        if not (self._legal_mask(0) >> a0 & 1 and self._legal_mask(1) >> a1 & 1):
            return self._reject(action)
        if phase == DRAFT:
            b0, b1 = 1 << a0, 1 << a1
            hands = self.hands
            self.drafted[0] |= b0
            self.drafted[1] |= b1
            self.hands = [hands[1] ^ b1, hands[0] ^ b0]  # pick, then exchange the rest
            self.picks[self.round].append((a0, a1))
            self.pick += 1
            if self.pick == HAND_SIZE:
                self._score()
        elif phase == RELIC:
            self.pending = [a0, a1]
            self.phase = DISCARD
        else:
            self._keep(a0, a1)

    def _score(self) -> None:
        k0 = self.relics[0] | self.drafted[0]
        k1 = self.relics[1] | self.drafted[1]
        self.kingdoms.append((k0, k1))
        self.scores.append(self.game.score(k0, k1))
        self.phase = RELIC if self.round + 1 < self.game.rounds else OVER

    def _keep(self, d0: int, d1: int) -> None:
        r0, r1 = self.pending
        self.keeps.append((r0, r1, d0, d1))
        self.relics = [self.relics[0] | 1 << r0, self.relics[1] | 1 << r1]
        self.discards = [self.discards[0] | 1 << d0, self.discards[1] | 1 << d1]
        pile, pos = self.start[2], self.pile_pos
        draw0 = mask_of(pile[pos : pos + 2])
        draw1 = mask_of(pile[pos + 2 : pos + 4])
        self.draws.append((draw0, draw1))
        self.pile_pos = pos + 4
        self.hands = [
            self.drafted[0] & ~(1 << r0 | 1 << d0) | draw0,
            self.drafted[1] & ~(1 << r1 | 1 << d1) | draw1,
        ]
        self.drafted = [0, 0]
        self.pending = [-1, -1]
        self.round += 1
        self.pick = 0
        self.phase = DRAFT
        self.picks.append([])

    def _reject(self, action: object) -> None:
        """The slow path of ``apply``: the clearest error, or a retry with plain ints."""
        if self.phase == OVER:
            raise IllegalActionError("tides_of_time: the game is over; no action is allowed", action=action)
        if not isinstance(action, Mapping):
            raise IllegalActionError(
                f"tides_of_time is simultaneous: apply takes {{seat: action}} for seats [0, 1], got {action!r}",
                action=action,
            )
        if set(action) != {0, 1}:
            raise IllegalActionError(
                f"tides_of_time: both seats act at every step; expected actions for seats [0, 1], "
                f"got seats {shown(sorted(action, key=repr))}",
                action=action,
            )
        for seat in (0, 1):
            a = as_action(action[seat], seat, self)
            if not 0 <= a < NUM_CARDS or not self._legal_mask(seat) >> a & 1:
                raise IllegalActionError(self._why(seat, a), action=a, player=seat, legal=self.legal_actions(seat))
        self.apply({seat: int(action[seat]) for seat in (0, 1)})

    def _why(self, seat: int, a: int) -> str:
        card = f"action {a} (card {a + 1})" if 0 <= a < NUM_CARDS else f"action {a} (no such card; actions are 0..17)"
        where = f"tides_of_time: {card}"
        if self.phase == DRAFT:
            return f"{where} is not in the hand of seat {seat}"
        if self.phase == RELIC:
            return f"{where} was not drafted this round by seat {seat}: a relic must be a card it drafted this round"
        if 0 <= a < NUM_CARDS and a == self.pending[seat]:
            return f"{where} is already seat {seat}'s relic: the discard must be a different card drafted this round"
        return f"{where} was not drafted this round by seat {seat}: the discard must be a card it drafted this round"

    def key(self) -> tuple:
        return (
            self.phase, self.round, self.pick, self.hands[0], self.hands[1], self.drafted[0], self.drafted[1],
            self.relics[0], self.relics[1], self.discards[0], self.discards[1], self.pending[0], self.pending[1],
            self.start[2][self.pile_pos :], tuple(self.scores),
        )

    def clone(self) -> TidesOfTimeState:
        other = TidesOfTimeState.__new__(TidesOfTimeState)
        other.game = self.game
        other.start = self.start
        other.hands = self.hands.copy()
        other.drafted = self.drafted.copy()
        other.relics = self.relics.copy()
        other.discards = self.discards.copy()
        other.pending = self.pending.copy()
        other.pile_pos = self.pile_pos
        other.round = self.round
        other.pick = self.pick
        other.phase = self.phase
        other.draws = self.draws.copy()
        other.scores = self.scores.copy()
        other.kingdoms = self.kingdoms.copy()
        other.picks = [p.copy() for p in self.picks]
        other.keeps = self.keeps.copy()
        return other

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def totals(self) -> tuple[int, int]:
        """Each seat's sum of the round scores so far."""
        return sum(s[0] for s in self.scores), sum(s[1] for s in self.scores)

    def returns(self) -> np.ndarray:
        if self.phase != OVER:
            return np.zeros(2)
        t0, t1 = self.totals()
        d = t0 - t1
        if self.game.config["returns"] == "win_loss":
            d = (d > 0) - (d < 0)
        return np.array([float(d), float(-d)])

    def info_state(self, player: int) -> TidesInfoState[TidesOfTimeGame]:
        if player not in (0, 1):
            raise ValueError(f"tides_of_time: no seat {player!r}; seats are 0 and 1")
        return info_state_of(self, player)

    def observation_tensor(self, player: int) -> np.ndarray:
        """Seat-relative encoding of ``info_state(player)``; layout in ``OBS_LAYOUT``."""
        return self.info_state(player).tensor()

    def action_to_text(self, action: int) -> str:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_CARDS:
            raise ValueError(f"tides_of_time action must be 0..17 (card 1..18), got {action!r}")
        return str(int(action) + 1)

    def text_to_action(self, text: str) -> int:
        return text_to_action(text)

    def to_text(self) -> str:
        return notation.position_text(
            rounds=self.game.rounds, start=self.start, phase=self.phase, round=self.round, pick=self.pick,
            picks=self.picks, scores=self.scores, breakdowns=[self.breakdown(r) for r in range(len(self.scores))],
            keeps=self.keeps, pending=self.pending, hands=self.hands, kingdoms=(self.kingdom(0), self.kingdom(1)),
            relics=self.relics, discards=self.discards, totals=self.totals(), pile_pos=self.pile_pos,
        )

    # --- extras ------------------------------------------------------------------------

    def kingdom(self, player: int) -> int:
        """The seat's kingdom now (relics and cards drafted this round) as a mask."""
        return self.relics[player] | self.drafted[player]

    def breakdown(self, round_index: int) -> tuple[dict[int, int], dict[int, int]]:
        """Per-card points (card numbers) of both kingdoms scored in round ``round_index``."""
        k0, k1 = self.kingdoms[round_index]
        return score_breakdown(cards_of(k0), cards_of(k1), zero_ties_win=self.game.flags[0], maze_counts_sets=self.game.flags[1])


def text_to_action(text: str) -> int:
    """A card number 1..18 or a card name (case-insensitive) as an action."""
    t = text.strip()
    if t.isdigit() and 1 <= int(t) <= NUM_CARDS:
        return int(t) - 1
    for card in CARDS:
        if card.name.lower() == t.lower():
            return card.number - 1
    raise ValueError(f"a tides_of_time move is a card number 1..18 or a card name; got {shown(text)}")


# --- information states -------------------------------------------------------------------


def _known_draws(state: TidesOfTimeState, me: int) -> tuple[int, ...]:
    """Per draw (relic step r, seat s) in pile order: the mask drawn, or -1 if ``me``
    cannot know it yet (the opponent's draw before the next first exchange)."""
    out = []
    for r, (d0, d1) in enumerate(state.draws):
        for s, d in ((0, d0), (1, d1)):
            seen = s == me or state.round > r + 1 or state.pick > 0 or state.phase != DRAFT
            out.append(d if seen else -1)
    return tuple(out)


def info_state_of(state: TidesOfTimeState, me: int) -> TidesInfoState[TidesOfTimeGame]:
    opp = 1 - me
    first = state.phase == DRAFT and state.pick == 0
    draws = _known_draws(state, me)
    opp_init = cast(int, state.start[opp]) if not (first and state.round == 0) else -1  # a hand, not the pile
    if state.phase != DRAFT:
        opp_hand, hidden = 0, 0
    elif not first:
        opp_hand, hidden = state.hands[opp], 0
    elif state.round == 0:
        opp_hand, hidden = 0, HAND_SIZE
    else:
        d = state.draws[-1][opp]
        opp_hand = state.hands[opp] & ~d
        hidden = 2
    known = state.hands[me] | opp_hand | state.drafted[0] | state.drafted[1] | state.relics[0] | state.relics[1]
    known |= state.discards[0] | state.discards[1]
    keeps = tuple(state.keeps)
    picks = tuple(tuple(p) for p in state.picks)
    return TidesInfoState(
        game=state.game,
        player=me,
        phase=state.phase,
        round=state.round,
        pick=state.pick,
        hand=state.hands[me],
        opp_hand=opp_hand,
        opp_hidden=hidden,
        drafted=(state.drafted[me], state.drafted[opp]),
        relics=(state.relics[me], state.relics[opp]),
        discards=(state.discards[me], state.discards[opp]),
        own_relic=state.pending[me],
        unseen=ALL_CARDS & ~known,
        scores=tuple(state.scores),
        own_start=cast(int, state.start[me]),  # a hand, not the pile
        opp_start=opp_init,
        draws=draws,
        picks=picks,
        keeps=keeps,
    )
