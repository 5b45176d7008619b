"""Goofspiel's rules: the game and its options, a position, the simultaneous bid, the
returns (docs/goofspiel.md).  The information state is in :mod:`.information`, the
scoring shared with it in :mod:`.scoring`, the observation's encoding in
:mod:`.observation`, the text form's parser in :mod:`.notation`.

The hot path keeps each hand as an int bitmask (bit ``a`` = card ``a + 1``) and
allocates nothing per step beyond the history tuple, because every playout, search
and environment step goes through ``apply``.
"""

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
    check_choice,
    check_int,
    make_rng,
    shown,
)
from parlour.games.bitmask import (  # SET_BITS_MEMO: read directly on the hot path
    SET_BITS_MEMO,
    cards_of,
    mask_of,
    set_bits,
)
from parlour.games.goofspiel import notation
from parlour.games.goofspiel.information import GoofspielInfoState
from parlour.games.goofspiel.observation import bit_vector, build_observation, update_observations
from parlour.games.goofspiel.scoring import points_to_returns

PRIZE_ORDERS = ("random", "descending", "ascending")
TIE_RULES = ("carry", "discard")
RETURN_TYPES = ("win_loss", "point_difference", "total_points")
MAX_PLAYERS = 10
MAX_CARD = 1000
"""The most players, and the highest card (so the most cards per hand; the seed plays
200).  The observation, the picture and a game's time grow with players x cards: at
10 x 1000, 34,012 floats, a 2.4 MB picture and a random game in under a second; at the
former limit of 64 players, 196,066 floats, a 15 MB picture and 6 s (docs/goofspiel.md)."""


class GoofspielGame(Game):
    name = "goofspiel"
    summary = "Goofspiel: players bid a card from their hands for each revealed prize card at once; the highest bid takes it."
    simultaneous = True
    observation_is_information_state = True  # the history block: docs/goofspiel.md
    options = {
        "num_cards": Option(None, f"cards per hand and prizes 1..N, N <= {MAX_CARD} (default 13, or the size of custom hands)",
                            low=1, high=MAX_CARD),
        "num_players": Option(None, f"players, 2..{MAX_PLAYERS} (default 2, or the number of custom hands)", low=2, high=MAX_PLAYERS),
        "prize_order": Option("random", "random | descending | ascending | an explicit order of 1..N",
                              allowed="'random', 'descending', 'ascending', or a permutation of 1..N"),
        "tie_rule": Option("carry", "carry: a tied prize joins the next one's pot | discard: it is lost", choices=TIE_RULES),
        "returns": Option("win_loss", "win_loss | point_difference | total_points", choices=RETURN_TYPES),
        "imperfect_info": Option(False, "True: a player sees only its own bids and who won each round", choices=(False, True)),
        "hands": Option(None, f"custom starting hands: one list of N distinct cards in 1..{MAX_CARD} per player",
                        allowed=f"one list of N distinct cards in 1..{MAX_CARD} per player (2..{MAX_PLAYERS} players)"),
    }
    notation = (
        "a move is the card you bid, written as its value (e.g. '5'), one of the cards in your "
        "hand. Every player bids at once; the single highest bid takes the prize and any pot"
    )
    start_options = {
        "prizes": "the prize order for this game: a permutation of 1..N",
        "hands": "starting hands: one list of N distinct cards in 1..num_actions per player",
    }

    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        hands = values["hands"]
        n, players = values["num_cards"], values["num_players"]
        if hands is not None:
            if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence) or not hands:
                raise ValueError(f"hands must be a list of lists of cards, got {shown(hands)}")
            if n is None:
                n = len(hands[0]) if isinstance(hands[0], Sequence) else None
            if players is None:
                players = len(hands)
        # Counted from custom hands, the sizes are checked against the same bounds.
        n = self.options["num_cards"].check("num_cards", 13 if n is None else n)
        players = self.options["num_players"].check("num_players", 2 if players is None else players)
        if hands is not None:
            hands = _check_hands(hands, players, n, MAX_CARD)
        order = values["prize_order"]
        if isinstance(order, str):
            order = check_choice("prize_order", order, PRIZE_ORDERS)
        else:
            order = _check_prizes(order, n, "prize_order")
        return {
            "num_cards": n,
            "num_players": players,
            "prize_order": order,
            "tie_rule": values["tie_rule"],
            "returns": values["returns"],
            "imperfect_info": values["imperfect_info"],
            "hands": hands,
        }

    def _info(self) -> GameInfo:
        n, hands = self.config["num_cards"], self.config["hands"]
        self.info = self._game_info(
            num_players=self.config["num_players"],
            num_actions=n if hands is None else max(max(hand) for hand in hands),
            perfect_information=self.config["prize_order"] != "random" and not self.config["imperfect_info"],
            zero_sum=self.config["returns"] != "total_points",
            has_chance=self.config["prize_order"] == "random",
            max_game_length=n,
        )
        # Precomputed for the hot path of new_initial_state.
        self._start_masks = tuple(mask_of(h) for h in self.default_hands)
        self._ordered_prizes = tuple(range(1, n + 1))
        self._discard = self.config["tie_rule"] == "discard"
        self._win_loss = self.config["returns"] == "win_loss"
        self._masks: dict[int, np.ndarray] = {}
        """Read-only int8 legal mask of each hand bitmask seen (``legal_mask`` copies one)."""
        order = self.config["prize_order"]
        self._fixed_prizes = None if order == "random" else self.prize_sequence(None)
        return self.info

    @property
    def discard_ties(self) -> bool:
        return self.config["tie_rule"] == "discard"

    @property
    def num_cards(self) -> int:
        return self.config["num_cards"]

    @property
    def default_hands(self) -> tuple[tuple[int, ...], ...]:
        hands = self.config["hands"]
        if hands is None:
            return (tuple(range(1, self.num_cards + 1)),) * self.num_players
        return hands

    @property
    def total_prize(self) -> int:
        n = self.num_cards
        return n * (n + 1) // 2

    @property
    def returns_bounds(self) -> tuple[float, float]:
        """win_loss: +1/w and -1/(P - w); points are at most 1 + ... + N (docs/goofspiel.md)."""
        total = float(self.total_prize)
        return {"win_loss": (-1.0, 1.0), "point_difference": (-total, total), "total_points": (0.0, total)}[self.config["returns"]]

    @property
    def actions_public(self) -> bool:
        """With ``imperfect_info`` the other seats' bids stay hidden (only who won shows)."""
        return not self.config["imperfect_info"]

    def start_deal(self) -> tuple[str, tuple[int, ...]] | None:
        """A random prize order is a uniform shuffle of the prizes 1..N."""
        return ("prizes", tuple(range(1, self.num_cards + 1))) if self.config["prize_order"] == "random" else None

    @property
    def observation_shape(self) -> tuple[int, ...]:
        p, a, n = self.num_players, self.num_actions, self.num_cards
        return (p * a + 2 * n + p + 2 + n * (2 * p + 2),)

    def prize_sequence(self, rng: np.random.Generator | None) -> tuple[int, ...]:
        """The prize order of a new game; ``rng`` is used only for ``random``."""
        order, n = self.config["prize_order"], self.num_cards
        if order == "random":
            # ``Generator.shuffle`` of a list makes the same draws as ``permutation(n)``
            # (Fisher-Yates, one bounded integer per position from the top), so every seed
            # gives the same order as ``permutation(n) + 1`` did, at a fifth of the cost: no
            # array, no ``+ 1``, no ``tolist`` (a test pins the two together).
            prizes = list(self._ordered_prizes)
            make_rng(rng).shuffle(prizes)
            return tuple(prizes)
        if order == "descending":
            return tuple(range(n, 0, -1))
        if order == "ascending":
            return tuple(range(1, n + 1))
        return order

    def new_initial_state(self, seed=None, **start: Any) -> GoofspielState:
        """A new game; ``seed`` draws the prize order when it is ``random``.

        ``prizes=[...]`` and ``hands=[[...], ...]`` fix the start instead.
        """
        if not start:  # the hot path of every playout and env reset
            prizes = self._fixed_prizes or self.prize_sequence(seed)
            return GoofspielState(self, prizes, list(self._start_masks))
        self._check_start(start)
        if start.get("prizes") is not None:
            prizes = _check_prizes(start["prizes"], self.num_cards, "start option prizes")
        elif self._fixed_prizes is not None:
            prizes = self._fixed_prizes
        else:
            prizes = self.prize_sequence(seed)
        if start.get("hands") is not None:
            hands = _check_hands(start["hands"], self.num_players, self.num_cards, self.num_actions)
            return GoofspielState(self, prizes, [mask_of(h) for h in hands])
        return GoofspielState(self, prizes, list(self._start_masks))

    def state_from_deal(self, prizes: tuple[int, ...], hands: list[int]) -> GoofspielState:
        """A fresh state from a prize order and the hands as bitmasks, unchecked: for the
        samplers of information states, which draw thousands (``new_initial_state(prizes=...,
        hands=...)`` checks them)."""
        return GoofspielState(self, prizes, hands)

    def state_from_history(self, prizes: tuple[int, ...], start_hands: tuple[int, ...], bids: tuple[tuple[int, ...], ...],
                           winners: tuple[int, ...], points: tuple[int, ...], pot: int) -> GoofspielState:
        """The state after ``bids`` from a deal, built from the history's known outcome
        (round winners, points, pot) instead of replaying it, unchecked: for the samplers
        of information states whose every bid is public (the replay cost ``original-search``
        a sixth of its time on 13 cards).  A test checks it against the replay."""
        hands = list(start_hands)
        for round_bids in bids:
            for seat, bid in enumerate(round_bids):
                hands[seat] &= ~(1 << bid)
        state = GoofspielState(self, prizes, hands)
        state.start_hands = tuple(start_hands)
        state.round = len(bids)
        state.points = list(points)
        state.pot = pot
        state.bids = list(bids)
        state.winners = list(winners)
        return state

    def state_from_text(self, text: str) -> GoofspielState:
        """Read ``to_text`` (:func:`.notation.parse_position`): rebuild the start, replay
        the bids and check the result against the text."""
        example = self.new_initial_state(seed=0).to_text()
        prizes, hands, bids = notation.parse_position(text, self.num_players, example)
        state = self.new_initial_state(prizes=prizes, hands=hands)
        for joint in notation.rounds_of(text, bids, example):
            state.apply(joint)
        notation.check_replay(text, state.to_text())
        return state


def _check_prizes(order: object, n: int, what: str) -> tuple[int, ...]:
    if isinstance(order, (str, bytes)) or not isinstance(order, (Sequence, np.ndarray)) or getattr(order, "ndim", 1) == 0:
        raise ValueError(f"{what} must be a permutation of 1..{n}, got {shown(order)}")
    try:
        values = tuple(check_int(what, v, 1) for v in order)
    except ValueError:
        raise ValueError(f"{what} must be a permutation of 1..{n}, got {shown(list(order))}") from None
    if sorted(values) != list(range(1, n + 1)):
        raise ValueError(f"{what} must be a permutation of 1..{n}, got {shown(list(values))}")
    return values


def _check_hands(hands: object, players: int, n: int, max_card: int | None) -> tuple[tuple[int, ...], ...]:
    what = "hands"
    if (isinstance(hands, (str, bytes)) or not isinstance(hands, (Sequence, np.ndarray))
            or getattr(hands, "ndim", 1) == 0 or len(hands) != players):
        raise ValueError(f"{what} must hold one list of cards per player ({players}), got {shown(hands)}")
    result = []
    for seat, hand in enumerate(hands):
        if isinstance(hand, (str, bytes)) or not isinstance(hand, (Sequence, np.ndarray)) or getattr(hand, "ndim", 1) == 0:
            raise ValueError(f"hand of player_{seat} must be a list of cards, got {shown(hand)}")
        cards = tuple(sorted(check_int(f"card in hand of player_{seat}", c, 1, max_card) for c in hand))
        if len(cards) != n or len(set(cards)) != n:
            raise ValueError(
                f"hand of player_{seat} must hold {n} distinct cards, got {shown(list(hand))}"
            )
        result.append(cards)
    return tuple(result)


class GoofspielState(State):
    """A Goofspiel position.

    ``prizes``: the whole prize order (future prizes are hidden from the seats by
    ``info_state``); ``round``: index of the prize being bid for (``N`` at the end);
    ``hands``: bitmask per seat; ``pot``: value carried into the current round;
    ``points``: per seat; ``bids``: one tuple of actions per round played;
    ``winners``: the seat that took each round's pot, or -1 for a tie.
    """

    game: GoofspielGame
    __slots__ = ("game", "prizes", "round", "hands", "start_hands", "pot", "points", "bids", "winners", "_obs")

    def __init__(self, game: GoofspielGame, prizes: tuple[int, ...], hands: list[int]) -> None:
        self.game = game
        self.prizes = prizes
        self.round = 0
        self.hands = hands
        self.start_hands = tuple(hands)
        self.pot = 0
        self.points = [0] * len(hands)
        self.bids: list[tuple[int, ...]] = []
        self.winners: list[int] = []
        self._obs: dict[int, tuple[np.ndarray, memoryview[float]]] | None = None
        """Each observed seat's observation (and a memoryview of it to write through),
        kept up to date by ``apply`` once built (an env observes every step; a search
        never does, and pays nothing for it)."""

    # --- the protocol -------------------------------------------------------------

    def current_players(self) -> tuple[int, ...]:
        if self.round < len(self.prizes):
            return _SEATS[len(self.hands)]
        return ()

    def legal_actions(self, player: int) -> list[int]:
        hands = self.hands
        if self.round < len(self.prizes) and 0 <= player < len(hands):
            mask = hands[player]
            bits = SET_BITS_MEMO.get(mask)
            return list(bits if bits is not None else set_bits(mask))
        return []

    def legal_mask(self, player: int) -> np.ndarray:
        if self.round < len(self.prizes) and 0 <= player < len(self.hands):
            mask = self.hands[player]
            vector = self.game._masks.get(mask)
            if vector is None:
                vector = bit_vector(mask, self.game.info.num_actions, np.int8)
                if len(self.game._masks) < 1 << 16:
                    self.game._masks[mask] = vector
            return vector.copy()
        return np.zeros(self.game.info.num_actions, dtype=np.int8)

    def apply(self, action: int | JointAction) -> None:
        """Play one round: ``{seat: action}`` for every seat."""
        hands = self.hands
        r = self.round
        bids: tuple[Any, ...]  # what the seats bid, checked below before it is played
        if type(action) is not dict or len(action) != len(hands) or r >= len(self.prizes):
            return self._reject(action)
        if len(hands) == 2:  # the common case, unrolled (subscripts: cheaper than .get)
            try:
                b0 = action[0]
                b1 = action[1]
            except KeyError:
                return self._reject(action)
            h0, h1 = hands
            if type(b0) is not int or type(b1) is not int or b0 < 0 or b1 < 0 or not h0 >> b0 & 1 or not h1 >> b1 & 1:
                return self._reject(action)
            hands[0] = h0 ^ 1 << b0
            hands[1] = h1 ^ 1 << b1
            bids = (b0, b1)
            winner = 0 if b0 > b1 else 1 if b1 > b0 else -1
        else:
            bids = tuple(action.get(seat) for seat in range(len(hands)))
            for seat, a in enumerate(bids):
                if type(a) is not int or a < 0 or not hands[seat] >> a & 1:
                    return self._reject(action)
            for seat, a in enumerate(bids):
                hands[seat] ^= 1 << a
            top = max(bids)
            winner = bids.index(top) if bids.count(top) == 1 else -1
        # settle_round, inlined on the hot path (a call costs 2% of a playout); a test
        # checks that the two agree on every round
        pot = self.pot + self.prizes[r]
        if winner >= 0:
            self.points[winner] += pot
            pot = 0
        elif self.game._discard:
            pot = 0
        self.pot = pot
        self.round = r + 1
        self.bids.append(bids)
        self.winners.append(winner)
        views = self._obs
        if views:
            self._update_observations(views, r, bids, winner)

    def _reject(self, action: object) -> None:
        """The slow path of ``apply``: raise the clearest ``IllegalActionError`` for a
        bad argument, or apply a good one given with other integer types (numpy ints)."""
        seats = list(range(len(self.hands)))
        if self.round >= len(self.prizes):
            raise IllegalActionError("goofspiel: the game is over; no action is allowed", action=action)
        if not isinstance(action, Mapping):
            raise IllegalActionError(
                f"goofspiel is simultaneous: apply takes {{seat: action}} for seats {seats}, "
                f"got {action!r}",
                action=action,
            )
        if set(action) != set(seats):
            raise IllegalActionError(
                f"goofspiel: every seat bids each round; expected actions for seats {seats}, "
                f"got seats {shown(sorted(action, key=repr))}",
                action=action,
            )
        for seat in seats:
            a = as_action(action[seat], seat, self)
            if a < 0 or not self.hands[seat] >> a & 1:
                raise IllegalActionError(
                    f"goofspiel: action {a} (card {a + 1}) is not in the hand of seat {seat}",
                    action=a,
                    player=seat,
                    legal=self.legal_actions(seat),
                )
        # Only non-int integer types (e.g. numpy ints) get here: retry with plain ints.
        self.apply({seat: int(action[seat]) for seat in seats})

    def key(self) -> tuple:
        return (self.round, tuple(self.hands), self.pot, tuple(self.points), self.prizes, self.start_hands)

    def clone(self) -> GoofspielState:
        other = GoofspielState.__new__(GoofspielState)
        other.game = self.game
        other.prizes = self.prizes
        other.round = self.round
        other.hands = self.hands.copy()
        other.start_hands = self.start_hands
        other.pot = self.pot
        other.points = self.points.copy()
        other.bids = self.bids.copy()
        other.winners = self.winners.copy()
        other._obs = None
        return other

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        """Pickled without the observations kept for an env (they are rebuilt on demand)."""
        return None, {name: getattr(self, name) for name in self.__slots__ if name != "_obs"}

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        for name, value in state[1].items():
            setattr(self, name, value)
        self._obs = None

    def is_terminal(self) -> bool:
        return self.round >= len(self.prizes)

    def returns(self) -> np.ndarray:
        points = self.points
        if self.round < len(self.prizes):
            return np.zeros(len(points))
        if len(points) == 2 and self.game._win_loss:
            # The end of every two-player playout: a copy of one of three arrays instead
            # of points_to_returns' list and np.array (the same values).
            p0, p1 = points
            return _WIN_LOSS_2[(p0 > p1) - (p0 < p1)].copy()
        return points_to_returns(points, self.game.config["returns"])

    def info_state(self, player: int) -> GoofspielInfoState[GoofspielState]:
        game = self.game
        if not 0 <= player < game.num_players:
            raise ValueError(f"goofspiel: no seat {player!r}; seats are 0..{game.num_players - 1}")
        seen = self.round + 1 if self.round < len(self.prizes) else self.round
        if game.config["imperfect_info"]:
            bids = tuple(
                tuple(b if seat == player else None for seat, b in enumerate(round_bids))
                for round_bids in self.bids
            )
        else:
            bids = tuple(self.bids)
        return GoofspielInfoState(
            game=game,
            player=player,
            prizes_seen=self.prizes[:seen],
            prizes_to_come=None if game.config["prize_order"] == "random" else self.prizes[seen:],
            start_hands=self.start_hands,
            bids=bids,
            winners=tuple(self.winners),
            points=tuple(self.points),
            pot=self.pot,
        )

    def observation_tensor(self, player: int) -> np.ndarray:
        """Seat-relative encoding of what ``player`` knows (layout in docs/goofspiel.md).

        ``[own hand (A) | each other seat's hand in seat order after ``player`` (A
        each; zeros with imperfect_info) | current prize one-hot (N) | prizes still to
        come (N) | pot / S | points / S, own first (P) | rounds played / N | history:
        N blocks of 2P + 2, see _history_features]`` where ``A = num_actions``,
        ``N = num_cards``, ``S = 1 + ... + N``.  The history makes the vector hold all
        of the information state, so a memoryless agent loses nothing.
        """
        observations = self._obs
        if observations is None:
            observations = self._obs = {}
        entry = observations.get(player)
        if entry is None:
            if not 0 <= player < len(self.hands):
                raise ValueError(f"goofspiel: no seat {player!r}; seats are 0..{len(self.hands) - 1}")
            vector = self._build_observation(player)
            entry = observations[player] = (vector, cast("memoryview[float]", vector.data))  # float32 items
        return entry[0].copy()

    def _build_observation(self, player: int) -> np.ndarray:
        """The observation of ``player`` built from scratch (``observation_tensor``'s layout)."""
        game = self.game
        return build_observation(player, self.hands, self.prizes, self.round, self.pot, self.points, self.bids, self.winners,
                                 game.num_actions, game.total_prize, game.config["imperfect_info"])

    def _update_observations(self, views: dict[int, tuple[np.ndarray, memoryview[float]]], r: int, bids: tuple[int, ...],
                             winner: int) -> None:
        """Bring the built observations ``views`` up to date after round ``r`` (``bids``, ``winner``)."""
        game = self.game
        update_observations(views, r, bids, winner, self.hands, self.prizes, self.round, self.pot, self.points,
                            game.info.num_actions, game.total_prize, game.config["imperfect_info"])

    def action_to_text(self, action: int) -> str:
        if not 0 <= action < self.game.num_actions:
            raise ValueError(f"goofspiel action must be 0..{self.game.num_actions - 1}, got {action!r}")
        return str(action + 1)

    def text_to_action(self, text: str) -> int:
        text = text.strip()
        if not text.isdigit() or not 1 <= int(text) <= self.game.num_actions:
            raise ValueError(f"a goofspiel move is a card value 1..{self.game.num_actions}; got {shown(text)}")
        return int(text) - 1

    def to_text(self) -> str:
        n = len(self.prizes)
        done = self.round >= n
        prizes = " ".join(
            f"[{p}]" if i == self.round else str(p) for i, p in enumerate(self.prizes)
        )
        lines = [
            "game over" if done else f"round {self.round + 1}/{n}",
            f"prizes: {prizes}",
            f"pot: {self.pot}",
        ]
        for seat, hand in enumerate(self.hands):
            held = " ".join(map(str, cards_of(hand))) or "-"
            bids = " ".join(str(b[seat] + 1) for b in self.bids) or "-"
            lines.append(f"player_{seat}: hand {held} | bids {bids} | points {self.points[seat]}")
        return "\n".join(lines)

    # --- extras -------------------------------------------------------------------

    @property
    def current_prize(self) -> int | None:
        """The prize being bid for, ``None`` once the game is over."""
        return self.prizes[self.round] if self.round < len(self.prizes) else None


_SEATS = {p: tuple(range(p)) for p in range(2, MAX_PLAYERS + 1)}
_WIN_LOSS_2 = {1: np.array([1.0, -1.0]), 0: np.zeros(2), -1: np.array([-1.0, 1.0])}
"""Two-player win/loss returns by the sign of p0 - p1 (``returns`` hands out copies)."""
