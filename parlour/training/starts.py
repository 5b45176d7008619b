"""Diverse starts: a share of the learner's episodes begins from a position some plies deep.

A learner that always starts from the deal sees the openings thousands of times and the
late game rarely, and against a fixed opponent it sees the same few lines of play.
Starting some episodes from positions reached by other players (``random`` by default,
or named players) spreads its experience over the whole game: the public record's PPO
agents that beat AlphaZero-trained baselines started their games 40-50 plies deep.

:class:`Starts` holds the option (``ppo.start_share``, ``ppo.start_plies_min`` /
``start_plies_max``, ``ppo.start_players``) and draws, for the episodes that begin, which
start deep, how deep (uniform in the range) and who plays their opening; every draw is
from the generator the learner's view already draws from (the engine's on the batched
engine, ``SingleAgentEnv.np_random`` on single games), so the same seed gives the same
starts, and a share of 0 draws nothing at all (a run without the option is unchanged).
The opening is played on both paths:

- single games: :meth:`SingleOpenings.open` plays the plies through the rules module
  (``parlour.baselines.playout.step``), called by ``SingleAgentEnv.reset`` after the deal;
- the batched engine: :class:`OpeningSeats` wraps the view's seat players; when episodes
  begin it copies their fresh games to a scratch engine (``autoreset=False``), plays the
  openings there with the players' batched forms (``parlour.baselines.batched``: one call
  per player and ply for all the games), and copies the positions back (``copy_rows``)
  before the wrapped players start.

A ply is one step of the game (every seat's bid in a simultaneous game).  An opening
whose next ply would end the game stops one ply short (the position before it), so no
episode starts finished; the learner's view then lets its opponents move until the
learner is to act, and redeals a game they end first, as for any start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlour.baselines import Policy, make_from_spec
from parlour.baselines.batched import BatchedPolicy, batched_names, batched_policy
from parlour.baselines.playout import step
from parlour.games.base import Game, State
from parlour.games.engine import BatchedEngine
from parlour.training.opponents import split_specs
from parlour.vector.seat_players import SeatPlayers


@dataclass(frozen=True)
class Starts:
    """Which episodes start deep (``share`` of them, each drawn), how deep (``low`` to
    ``high`` plies, uniform) and who plays the opening (one of ``players``, uniform, at
    every seat)."""

    share: float
    low: int
    high: int
    players: tuple[str, ...] = ("random",)

    def __post_init__(self) -> None:
        if not 0.0 <= self.share <= 1.0:
            raise ValueError(f"start_share must be in [0, 1], got {self.share!r}")
        if not 0 <= self.low <= self.high:
            raise ValueError(f"start plies must be 0 <= start_plies_min <= start_plies_max, got {self.low}..{self.high}")
        if not self.players or any(not spec for spec in self.players):
            raise ValueError(f"start_players must name at least one policy spec, got {self.players!r}")

    @classmethod
    def from_settings(cls, ppo: dict[str, Any], share_key: str = "start_share") -> Starts | None:
        """The option of a ``[ppo]`` table, ``None`` when it is off (its ``share_key`` setting
        0: ``start_share`` for the episodes, ``pretrain_start_share`` for the teacher's games)."""
        share = float(ppo.get(share_key, 0.0))
        if share == 0.0:
            return None
        return cls(share, int(ppo.get("start_plies_min", 0)), int(ppo.get("start_plies_max", 0)),
                   tuple(parse_players(ppo.get("start_players", "random"))))

    def draw(self, rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For ``k`` episodes that begin: ``(deep, plies, player)``, whether each starts deep,
        its opening's plies and the index of its opening's player; always the same draws
        from ``rng`` for a given ``k`` (one float, one integer and one more per episode
        where there are several players), so one episode's draw does not shift another's."""
        deep = rng.random(k) < self.share
        plies = rng.integers(self.low, self.high + 1, size=k)
        player = rng.integers(len(self.players), size=k) if len(self.players) > 1 else np.zeros(k, dtype=np.int64)
        return deep, plies, player

    def describe(self) -> str:
        return f"{self.share:g} of the episodes start {self.low}..{self.high} plies deep, opened by {','.join(self.players)}"


def parse_players(text: str | Sequence[str]) -> list[str]:
    """``start_players``: comma-separated policy specs (as ``--opponents`` splits them) or a list."""
    specs = split_specs(text) if isinstance(text, str) else [str(s).strip() for s in text]
    if not specs or any(not s for s in specs):
        raise ValueError(f"start_players must name at least one policy spec, got {text!r}")
    return specs


class SingleOpenings:
    """The openings of a single-game view (``SingleAgentEnv``): ``starts`` for ``game``, each
    player made once per seat (its own ``Policy`` objects, reseeded for every opening)."""

    def __init__(self, game: Game, starts: Starts) -> None:
        self.starts = starts
        self.game = game
        self.policies: list[list[Policy]] = [[make_from_spec(spec, game) for _ in range(game.num_players)]
                                             for spec in starts.players]

    def open(self, state: State, rng: np.random.Generator) -> State:
        """``state`` (a fresh deal) played on by the opening drawn from ``rng``, in place; an
        episode not drawn to start deep is left as it is (the draws are made all the same)."""
        deep, plies, player = self.starts.draw(rng, 1)
        policies = self.policies[int(player[0])]
        seeds = rng.integers(2**63, size=len(policies))
        if not deep[0]:
            return state
        for policy, seed in zip(policies, seeds):
            policy.reset(int(seed))
        for _ in range(int(plies[0])):
            before = state.clone()
            step(state, policies)
            if state.is_terminal():
                return before  # one ply short: never a finished game
        return state

    def deal(self, rng: np.random.Generator) -> State:
        """A fresh deal drawn from ``rng``, played on by the opening drawn from ``rng`` next:
        an episode's first position, as a single-game view starts it."""
        return self.open(self.game.new_initial_state(rng), rng)


class OpeningSeats(SeatPlayers):
    """The seat players of a batched learner's view (``players``: the opponent mix, or any
    ``SeatPlayers``) with ``starts``: the episodes drawn to start deep are played on to
    their opening before ``players`` start them (see the module docstring).  Every
    opening player needs a batched form on the engine."""

    def __init__(self, players: SeatPlayers, starts: Starts) -> None:
        self.players = players
        self.starts = starts
        self.forms: list[BatchedPolicy] = []
        self._scratch: BatchedEngine | None = None
        self._backup: BatchedEngine | None = None

    def bind(self, engine: BatchedEngine, rng: np.random.Generator) -> None:
        if getattr(self, "engine", None) is not engine:
            forms = []
            for spec in self.starts.players:
                form = batched_policy(make_from_spec(spec, engine.game), engine)
                if form is None:
                    raise ValueError(f"start player {spec!r} has no batched form for {engine.game_name}; batched players are "
                                     f"{batched_names(engine.game_name)} (some only with their default parameters)")
                forms.append(form)
            self.forms = forms
            self._scratch, self._backup = scratch_engine(engine), scratch_engine(engine)
        super().bind(engine, rng)
        self.players.bind(engine, rng)

    def start(self, rows: np.ndarray, learner: np.ndarray) -> None:
        if len(rows):
            deep, plies, player = self.starts.draw(self.rng, len(rows))
            if deep.any():
                self.open(rows[deep], plies[deep], player[deep])
        self.players.start(rows, learner)

    def open(self, rows: np.ndarray, plies: np.ndarray, player: np.ndarray) -> None:
        """Play the games ``rows`` (at their first position) on by ``plies[i]`` plies of
        ``forms[player[i]]`` at every seat, stopping one ply short of an end."""
        engine, scratch, backup = self.engine, self._scratch, self._backup
        assert scratch is not None and backup is not None, "bind comes first"
        scratch.rng = self.rng  # the opening's chance from the view's generator too
        scratch.copy_rows(engine, rows, rows)
        going = plies > 0
        for ply in range(int(plies.max(initial=0))):
            going &= plies > ply
            live = rows[going]
            if not len(live):
                break
            backup.copy_rows(scratch, live, live)
            where = np.zeros(scratch.num_envs, dtype=bool)
            where[live] = True
            result = scratch.step(self._actions(scratch, live, player[going]), where=where)
            ended = result.terminated[live]
            if ended.any():
                scratch.copy_rows(backup, live[ended], live[ended])  # one ply short of the end
                going[np.flatnonzero(going)[ended]] = False
        engine.copy_rows(scratch, rows, rows)

    def _actions(self, scratch: BatchedEngine, rows: np.ndarray, player: np.ndarray) -> np.ndarray:
        """Every acting seat's move in the games ``rows``, by each game's opening player."""
        simultaneous = scratch.simultaneous
        shape = (scratch.num_envs, scratch.num_players) if simultaneous else (scratch.num_envs,)
        out = np.zeros(shape, dtype=np.int64)
        for index in np.unique(player):
            games = rows[player == index]
            if simultaneous:
                acting = np.zeros(scratch.num_envs, dtype=bool)
                acting[games] = True
                r, s = np.nonzero(scratch.to_act() & acting[:, None])
                out[r, s] = self.forms[int(index)].actions(scratch, r, s, self.rng)
            else:
                out[games] = self.forms[int(index)].actions(scratch, games, scratch.movers()[games], self.rng)
        return out

    def actions(self, need: np.ndarray) -> np.ndarray:
        return self.players.actions(need)

    def applied(self, actions: np.ndarray, where: np.ndarray, terminated: np.ndarray) -> None:
        self.players.applied(actions, where, terminated)

    def add_snapshot(self, path: str) -> None:
        """A new frozen learner for the wrapped players (the opponent mix's ``self``)."""
        add = getattr(self.players, "add_snapshot", None)
        if add is None:
            raise AttributeError(f"the seat players {self.players.describe()!r} take no snapshots")
        add(path)

    def describe(self) -> str:
        return f"{self.players.describe()}; {self.starts.describe()}"

    def close(self) -> None:
        self.players.close()


def scratch_engine(engine: BatchedEngine) -> BatchedEngine:
    """An engine of ``engine``'s game, options, size and observations whose finished games
    stay finished (``autoreset=False``): where openings are played and undone."""
    return type(engine)(engine.num_envs, None, autoreset=False, compact=engine.compact, **engine.game.config)
