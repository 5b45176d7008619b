"""One conformance suite for every env: each game in ``GAMES`` x a matrix of its
configurations (some from a fixed start, which reaches phases random games miss, such as
Double Card's recycling).

Per case: PettingZoo's own api and seed tests; our stricter checks over whole random
games (determinism of everything the env shows, observations in their spaces and equal
to the rules' tensors, masks all zeros for agents not to act, rewards, the AEC hold-back
of simultaneous choices); rendering in every declared mode; the ``{"position": text}``
round trip at every step; illegal actions in the terminating and the raising envs;
spaces, metadata and the registry.  What is specific to one game is in its own file.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pettingzoo
import pytest
from env_helpers import (
    DOUBLE_CARD_SETUP_24,
    TIDES_DECK,
    TRIBOLO_SKIPS,
    aec_snapshot,
    masked_action,
    observation_data,
    parallel_snapshot,
    pettingzoo_battery,
    play_aec,
    play_parallel,
)

NO_ILLEGAL = {"illegal_action": False, "illegal_move": -1}
"""Every agent's info at every step of a game without an illegal move: the same keys and
value types as after one (replay buffers stack infos)."""
from gymnasium import spaces
from pettingzoo import ParallelEnv

import parlour
from parlour import IllegalActionError
from parlour.games import GAMES
from parlour.render import has_picture, picture

# --------------------------------------------------------------------------- matrix


def _goofspiel():
    """Every value of every option, crossed with players {2, 3} and cards {1, 2, 5, 13};
    and custom hands."""
    variants = [
        dict(tie_rule="carry", prize_order="random", imperfect_info=False, returns="win_loss"),
        dict(tie_rule="discard", prize_order="descending", imperfect_info=True, returns="point_difference"),
        dict(tie_rule="carry", prize_order="ascending", imperfect_info=True, returns="total_points"),
        dict(tie_rule="discard", prize_order="explicit", imperfect_info=False, returns="win_loss"),
        dict(tie_rule="discard", prize_order="random", imperfect_info=True, returns="win_loss"),
        dict(tie_rule="carry", prize_order="descending", imperfect_info=False, returns="point_difference"),
    ]
    for players, cards, variant in itertools.product([2, 3], [1, 2, 5, 13], variants):
        config = dict(num_players=players, num_cards=cards, **variant)
        if config["prize_order"] == "explicit":
            config["prize_order"] = [(3 * i) % cards + 1 for i in range(cards)] if cards % 3 else list(range(cards, 0, -1))
        yield config
    yield dict(hands=[[4, 5, 6], [1, 2, 3]], tie_rule="discard")
    yield dict(hands=[[1, 3, 5, 7], [2, 4, 6, 8], [1, 2, 3, 9]], prize_order="descending", imperfect_info=True, returns="total_points")


MATRICES: dict[str, list[dict[str, Any]]] = {
    "goofspiel": list(_goofspiel()),
    "sticks": [
        dict(num_sticks=n, max_take=k, misere=m)
        for (n, k), m in itertools.product([(1, 1), (1, 3), (5, 2), (10, 3), (21, 4), (60, 5)], [True, False])
    ],
    "tides_of_time": [
        dict(rounds=r, returns=ret, zero_ties_win=z, maze_counts_sets=m)
        for r, ret, z, m in itertools.product([1, 3], ["win_loss", "score_difference"], [True, False], [False, True])
    ],
    "tribolo": [
        dict(),
        dict(returns="cell_share"),
        dict(width=5, height=4, walls=2, start_cells=2),
        dict(width=8, height=8, walls=0, start_cells=4, returns="cell_share"),
        dict(width=3, height=3, walls=0, start_cells=1),
        dict(width=4, height=1, walls=0, start_cells=1, returns="cell_share"),
        dict(width=1, height=12, walls=2, start_cells=2),
        dict(width=26, height=5, walls=20, start_cells=10),
        dict(width=20, height=20, walls=10, start_cells=10),  # the largest board: about 360 moves a game
        dict(width=20, height=20, walls=300, start_cells=20),  # the most cells, walled to ~40 moves
        dict(width=26, height=15, walls=300, start_cells=20),  # the widest board
    ],
    "double_card": [
        dict(max_moves=m, recycle_rule=r, first_player=f)
        for m, r, f in itertools.product([40, 60], ["same_cells", "same_placement", "none"], ["colors", "dots"])
    ]
    + [dict(max_moves=1), dict(max_moves=1000, recycle_rule="none", first_player="dots")],
}
"""Configurations played from ``reset()``."""

STARTS: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {
    "goofspiel": [
        (dict(hands=[[4, 5, 6], [1, 2, 3]], tie_rule="discard"), {"prizes": [3, 2, 1], "hands": [[1, 2, 6], [3, 4, 5]]}),
        (dict(num_cards=5, num_players=3, imperfect_info=True), {"prizes": [5, 4, 3, 2, 1]}),
    ],
    "sticks": [(dict(num_sticks=21, max_take=4), {"sticks": 7}), (dict(misere=False), {"sticks": 1})],
    "tides_of_time": [
        (dict(), {"deck": TIDES_DECK}),
        (dict(rounds=1, returns="score_difference"), {"deck": TIDES_DECK}),
    ],
    "tribolo": [(dict(width=8, height=4, walls=0, start_cells=1), {"position": TRIBOLO_SKIPS})],
    "double_card": [
        (dict(), {"moves": DOUBLE_CARD_SETUP_24}),
        (dict(max_moves=60, recycle_rule="same_placement", first_player="dots"), {"moves": DOUBLE_CARD_SETUP_24}),
        (dict(recycle_rule="none"), {"moves": DOUBLE_CARD_SETUP_24}),
        (dict(max_moves=25), {"moves": DOUBLE_CARD_SETUP_24}),
    ],
}
"""Configurations played from ``reset(options=start)``."""

@dataclass(frozen=True)
class Case:
    """One game configuration, optionally with the reset options every game starts from."""

    name: str
    config: dict[str, Any]
    start: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        shown = ",".join(f"{k}={'list' if isinstance(v, list) else v}" for k, v in self.config.items()) or "default"
        return f"{self.name}-{shown}" + (f"+{','.join(self.start)}" if self.start else "")

    @property
    def module(self) -> Any:
        return importlib.import_module(f"parlour.envs.{self.name}_v0")

    @cached_property
    def game(self) -> Any:
        return GAMES[self.name](**self.config)

    @property
    def kinds(self) -> list[str]:
        """The constructors this game's module must have."""
        return ["env", "raw_env"] + (["parallel_env", "raw_parallel_env"] if self.game.info.simultaneous else [])

    @property
    def public_kinds(self) -> list[str]:
        """``env`` and, for simultaneous games, ``parallel_env`` (illegal actions end the game)."""
        return self.kinds[::2]

    def make(self, kind: str, **kwargs: Any) -> Any:
        return getattr(self.module, kind)(**kwargs, **self.config)

    def reset(self, env: Any, seed: int | None) -> Any:
        return env.reset(seed=seed, options=self.start)


CASES = (
    [Case(name, config) for name, configs in MATRICES.items() for config in configs]
    + [Case(name, config, start) for name, starts in STARTS.items() for config, start in starts]
)


def _params(cases):
    return [pytest.param(c, id=c.id) for c in cases]


ALL = _params(CASES)
FROM_RESET = _params([c for c in CASES if c.start is None])  # what does not depend on the start
SIMULTANEOUS = _params([c for c in CASES if c.game.info.simultaneous])
WITH_ILLEGAL = _params([c for c in CASES if c.game.info.num_actions > 1])  # an action can be masked
WITH_ILLEGAL_SIMULTANEOUS = _params([c for c in CASES if c.game.info.num_actions > 1 and c.game.info.simultaneous])
NEEDS_PILLOW = pytest.mark.skipif(importlib.util.find_spec("PIL") is None, reason="rgb_array needs Pillow (the render extra)")
RENDERS = [
    pytest.param(c, mode, id=f"{c.id}-{mode}",
                 marks=[NEEDS_PILLOW] if mode == "rgb_array" else [])
    for c in CASES
    for mode in c.make("raw_env").metadata["render_modes"]
]


def test_matrix_covers_every_game_option_and_start():
    assert set(MATRICES) == set(STARTS) == set(GAMES)
    ids = [case.id for case in CASES]
    assert len(set(ids)) == len(ids)
    for name, cls in GAMES.items():
        configs = [case.config for case in CASES if case.name == name]
        for option, spec in cls.options.items():
            assert len({repr(c.get(option, spec.default)) for c in configs}) >= 2, f"{name}: {option} never varies"
        started = {key for case in CASES if case.name == name and case.start for key in case.start}
        assert set(cls.start_options) <= started, f"{name}: a start option is never used"


# --------------------------------------------------------------------------- helpers


def seat_of(agent: str) -> int:
    return int(agent.removeprefix("player_"))


def held_back(players: tuple[int, ...], seat: int) -> bool:
    """In the AEC env a choice in a simultaneous step waits for the last acting seat's."""
    return len(players) > 1 and seat != players[-1]


def check_observations(env: Any, observations: dict, acting: list[str]) -> None:
    """Observations in their spaces and equal to the rules' tensors; the rules' legal
    mask (never empty) for the ``acting`` agents and all zeros for the others."""
    state = env.unwrapped.game_state
    for agent, obs in observations.items():
        seat = seat_of(agent)
        assert env.observation_space(agent).contains(obs), agent
        np.testing.assert_array_equal(obs["observation"], state.observation_tensor(seat))
        mask = obs["action_mask"]
        if agent in acting:
            np.testing.assert_array_equal(mask, state.legal_mask(seat))
            assert mask.any(), f"{agent} is to act but has no legal action"
            assert np.flatnonzero(mask).tolist() == env.unwrapped.info_state(agent).legal_actions()
        else:
            assert not mask.any(), f"{agent} is not to act but its mask is {np.flatnonzero(mask)}"


def check_aec_observations(env: Any) -> None:
    """``check_observations`` for every live agent of an AEC env: the seats to act are the
    selected one and, in a simultaneous step, those after it that have not chosen yet."""
    players = env.unwrapped.game_state.current_players()
    selected = seat_of(env.agent_selection)
    if env.terminations[env.agent_selection]:
        acting = []
    else:
        assert selected in players
        acting = [f"player_{s}" for s in players[players.index(selected):]]
    check_observations(env, {a: env.observe(a) for a in env.agents}, acting)


def check_final_rewards(case: Case, rewards: dict[str, float], state: Any) -> None:
    """The rewards at the end are the rules' returns, summing to 0 in a zero-sum game."""
    assert rewards == {f"player_{i}": float(r) for i, r in enumerate(state.returns())}
    if case.game.info.zero_sum:
        assert sum(rewards.values()) == pytest.approx(0.0, abs=1e-9)


def whole_games(case: Case, env: Any, seed: int, games: int = 3, illegal: float = 0.05) -> list:
    """Snapshots after the reset and every step of ``games`` whole random games of an AEC
    or Parallel env: ``reset(seed)``, then unseeded ``reset()``s."""
    rng = np.random.default_rng(seed)
    trace = []
    for g in range(games):
        result = case.reset(env, seed if g == 0 else None)
        if isinstance(env, ParallelEnv):
            steps = (r for _, r in play_parallel(env, result[0], rng, illegal))
            trace += [parallel_snapshot(env, r) for r in itertools.chain([result], steps)]
        else:
            trace += [aec_snapshot(env) for _ in itertools.chain([None], play_aec(env, rng, illegal))]
    return trace


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("case", FROM_RESET)
def test_pettingzoo_battery(case):
    pettingzoo_battery(case.module, case.config, num_cycles=case.game.info.max_game_length + 2)


@pytest.mark.parametrize("case", ALL)
def test_whole_games_are_deterministic(case):
    """Same seed: the same observations, masks, rewards, infos and hidden state over three
    whole games (the first reset seeded, then unseeded ones continuing the stream), for
    a fresh env and for the same env seeded again.  Some actions are illegal, so the
    illegal-action infos are compared too."""
    for kind in case.public_kinds:
        env = case.make(kind)
        first = whole_games(case, env, 17)
        assert first == whole_games(case, case.make(kind), 17)
        assert first == whole_games(case, env, 17)


@pytest.mark.parametrize("name", [name for name, cls in GAMES.items() if cls().info.has_chance])
def test_seeds_drive_the_chance(name):
    """Default configurations with chance: other seeds give other games; an unseeded reset
    continues the seeded stream (it does not start it again); a first reset without a
    seed uses fresh entropy."""
    case = Case(name, {})

    def starts(env, seed):
        texts = []
        for g in range(3):
            case.reset(env, seed if g == 0 else None)
            texts.append(env.unwrapped.game_state.to_text())
        return texts

    for kind in case.public_kinds:
        one = starts(case.make(kind), 1)
        assert one == starts(case.make(kind), 1)
        assert one[0] != starts(case.make(kind), 2)[0]
        assert len(set(one)) == 3
        assert starts(case.make(kind), None)[0] != starts(case.make(kind), None)[0]


@pytest.mark.parametrize("case", ALL)
def test_aec_whole_games_keep_the_contract(case):
    """At every step of whole random games of ``env()``: observations and masks as in
    ``check_observations``; a simultaneous choice held back (nothing else changes, the
    next acting seat is selected); rewards 0 and nobody terminated until the end, then
    the returns (in ``rewards`` and ``last()``), and every agent steps ``None`` once; no
    more rules steps than ``max_game_length``."""
    env = case.make("env")
    rng = np.random.default_rng(5)
    for _ in range(2):
        case.reset(env, 5)
        state = env.unwrapped.game_state
        check_aec_observations(env)
        assert not any(env.terminations.values()) and not any(env.truncations.values())
        players, text = state.current_players(), state.to_text()
        observed = {a: observation_data(env.observe(a)) for a in env.agents}
        rules_steps, finished = 0, []
        for agent, action in play_aec(env, rng):
            if action is None:
                finished.append(agent)
                continue
            seat = seat_of(agent)
            assert seat in players
            if held_back(players, seat):
                assert state.to_text() == text
                assert env.agent_selection == f"player_{players[players.index(seat) + 1]}"
                for other in env.agents:
                    if other != agent:
                        assert observation_data(env.observe(other)) == observed[other]
            else:
                rules_steps += 1
            check_aec_observations(env)
            assert not any(env.truncations.values())
            if state.is_terminal():
                assert all(env.terminations.values())
                check_final_rewards(case, env.rewards, state)
                assert env.last()[1] == env.rewards[env.agent_selection]
                assert all(info == NO_ILLEGAL for info in env.infos.values())
            else:
                assert not any(env.terminations.values())
                assert set(env.rewards.values()) == {0.0}
            players, text = state.current_players(), state.to_text()
            observed = {a: observation_data(env.observe(a)) for a in env.agents}
        assert sorted(finished) == env.possible_agents and env.agents == []
        assert rules_steps <= case.game.info.max_game_length


@pytest.mark.parametrize("case", SIMULTANEOUS)
def test_parallel_whole_games_keep_the_contract(case):
    """The same for ``parallel_env()``: every step returns an entry for every agent that
    was live, the masks match the rules, rewards are 0 until the end and then the
    returns, ``agents`` becomes ``[]`` at the end, and nothing is truncated."""
    env = case.make("parallel_env")
    rng = np.random.default_rng(6)
    for _ in range(2):
        observations, infos = case.reset(env, 6)
        state = env.game_state
        assert env.agents == env.possible_agents and infos == {a: NO_ILLEGAL for a in env.agents}
        check_observations(env, observations, [f"player_{s}" for s in state.current_players()])
        steps = 0
        for _, (stepped, rewards, terms, truncs, infos) in play_parallel(env, observations, rng):
            steps += 1
            assert set(stepped) == set(rewards) == set(terms) == set(truncs) == set(infos) == set(env.possible_agents)
            assert not any(truncs.values()) and all(info == NO_ILLEGAL for info in infos.values())
            check_observations(env, stepped, [f"player_{s}" for s in state.current_players()])
            if state.is_terminal():
                check_final_rewards(case, rewards, state)
                assert all(terms.values()) and env.agents == []
            else:
                assert set(rewards.values()) == {0.0} and not any(terms.values())
                assert env.agents == env.possible_agents
        assert steps <= case.game.info.max_game_length


def check_render(env: Any, mode: str, capsys: Any) -> Any:
    """``render()`` in ``mode`` shows the live state and prints only in human mode."""
    state = env.unwrapped.game_state
    shown = env.render()
    printed = capsys.readouterr().out
    if mode == "ansi":
        assert shown == state.to_text() and printed == ""
    elif mode == "human":
        assert shown is None and printed == state.to_text() + "\n"
    else:
        assert isinstance(shown, np.ndarray) and shown.dtype == np.uint8
        assert shown.ndim == 3 and shown.shape[2] == 3 and printed == ""
        np.testing.assert_array_equal(shown, picture(state, last=env.unwrapped._last_move).rgb())
    return shown


@pytest.mark.parametrize(("case", "mode"), RENDERS)
def test_render_in_every_declared_mode(case, mode, capsys):
    """``render()`` after the reset and after every step of a whole game (a picture after
    every tenth step and the last: rasterising one takes milliseconds); human mode also
    prints the state after every step the rules apply (not after a held-back choice)."""
    rng = np.random.default_rng(3)
    pictures = mode == "rgb_array"
    for kind in case.public_kinds:
        env = case.make(kind, render_mode=mode)
        observations = case.reset(env, 3)
        assert capsys.readouterr().out == ""
        shown = [check_render(env, mode, capsys)]
        state = env.unwrapped.game_state
        if kind == "env":
            players = state.current_players()
            for step, (agent, action) in enumerate(play_aec(env, rng)):
                applied = action is not None and not held_back(players, seat_of(agent))
                assert capsys.readouterr().out == (state.to_text() + "\n" if mode == "human" and applied else "")
                if not pictures or step % 10 == 0:
                    shown.append(check_render(env, mode, capsys))
                players = state.current_players()
        else:
            for step, _ in enumerate(play_parallel(env, observations[0], rng)):
                assert capsys.readouterr().out == (state.to_text() + "\n" if mode == "human" else "")
                if not pictures or step % 10 == 0:
                    shown.append(check_render(env, mode, capsys))
        if pictures:
            shown.append(check_render(env, mode, capsys))
            assert {image.shape for image in shown} == {shown[0].shape}
            assert not np.array_equal(shown[0], shown[-1])


@pytest.mark.parametrize("case", ALL)
def test_position_text_round_trips_at_every_step(case):
    """``reset(options={"position": env.render()})`` in another env gives the same text and
    everything the env shows (agent to act, observations, masks, rewards, terminations),
    at every step of a whole game (except between the choices of a simultaneous step,
    which the text does not hold), including the end."""
    rng = np.random.default_rng(9)
    env, copy = case.make("env", render_mode="ansi"), case.make("env", render_mode="ansi")

    def same():
        text = env.render()
        copy.reset(options={"position": text})
        assert copy.render() == text
        assert aec_snapshot(copy) == aec_snapshot(env)

    case.reset(env, 9)
    same()
    players = env.unwrapped.game_state.current_players()
    for agent, action in play_aec(env, rng):
        if action is None:
            break
        if not held_back(players, seat_of(agent)):
            same()
        players = env.unwrapped.game_state.current_players()
    assert copy.terminations == dict.fromkeys(copy.possible_agents, True)
    if case.game.info.simultaneous:
        par, par_copy = case.make("parallel_env", render_mode="ansi"), case.make("parallel_env", render_mode="ansi")
        start = case.reset(par, 9)
        for result in itertools.chain([start], (r for _, r in play_parallel(par, start[0], rng))):
            text = par.render()
            observations, _ = par_copy.reset(options={"position": text})
            assert par_copy.render() == text and par_copy.agents == par.agents
            live = {a: observation_data(o) for a, o in result[0].items() if a in par.agents}
            assert {a: observation_data(o) for a, o in observations.items()} == live
        assert par_copy.agents == [] and observations == {}


def step_until_illegal(case: Case, env: Any, rng: np.random.Generator) -> tuple[str, int, list[int]]:
    """Play ``env()`` with random actions, sometimes a masked-out one, until one is illegal
    (starting new games if one ends first); the offender, its action and the legal ones."""
    for _ in range(20):
        while not all(env.terminations.values()):
            agent = env.agent_selection
            mask = env.observe(agent)["action_mask"]
            action = masked_action(rng, mask, illegal=0.3)
            env.step(action)
            if not mask[action]:
                return agent, action, np.flatnonzero(mask).tolist()
        case.reset(env, None)
    raise AssertionError("20 games without a masked-out action to play")


def check_outside_the_space_is_an_error(env: Any) -> None:
    """In every AEC mode, an action outside ``Discrete(n)`` raises and changes nothing:
    out of range, or not an integer (a float, even 1.0, a bool, an array with a
    dimension).  A numpy integer and a 0-d integer array are integers."""
    before = aec_snapshot(env)
    for action in (env.action_space(env.agent_selection).n, -1, np.int64(-1)):
        with pytest.raises(IllegalActionError, match="outside the action space"):
            env.step(action)
        assert aec_snapshot(env) == before
    for action in (1.0, np.float32(0.0), True, np.bool_(False), np.array([0]), np.array(0.0), "0", 0.5):
        with pytest.raises(IllegalActionError, match="is not an integer"):
            env.step(action)
        assert aec_snapshot(env) == before


@pytest.mark.parametrize("case", WITH_ILLEGAL)
def test_env_illegal_action_ends_the_game(case):
    """``env()``: the offender gets -1 and the others 0, everyone is terminated with the
    same ``illegal_action`` info, the offender is selected, no mask is left, and the game
    winds down with ``None`` steps.  Actions outside the space are errors."""
    env = case.make("env")
    case.reset(env, 13)
    check_outside_the_space_is_an_error(env)
    offender, action, legal = step_until_illegal(case, env, np.random.default_rng(13))
    reason = f"{offender} played illegal action {action}; legal actions were {legal}"
    assert env.rewards == {a: -1.0 if a == offender else 0.0 for a in env.possible_agents}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos == {a: {"illegal_action": True, "illegal_move": action if a == offender else -1} for a in env.possible_agents}
    assert env.end_reason == reason
    assert env.agent_selection == offender
    _, reward, term, _, last_info = env.last()
    assert reward == -1.0 and term and last_info == {"illegal_action": True, "illegal_move": action}
    assert not any(env.observe(a)["action_mask"].any() for a in env.agents)
    stepped = [agent for agent, _ in play_aec(env, np.random.default_rng(0))]
    assert sorted(stepped) == env.possible_agents and env.agents == []


@pytest.mark.parametrize("case", WITH_ILLEGAL_SIMULTANEOUS)
def test_parallel_env_illegal_actions_end_the_game(case):
    """``parallel_env()``: every offender of a step gets -1, the others 0, all are
    terminated with the list of offences in every info, no mask is left, and a further
    step is an error."""
    par = case.make("parallel_env")
    rng = np.random.default_rng(14)
    observations, _ = case.reset(par, 14)
    for _ in range(200):
        agents = list(par.agents)
        masks = {a: observations[a]["action_mask"] for a in agents}
        actions = {a: masked_action(rng, m, illegal=0.3) for a, m in masks.items() if m.any()}
        offenders = [a for a in actions if not masks[a][actions[a]]]
        observations, rewards, terms, truncs, infos = par.step(actions)
        if offenders:
            break
        if not par.agents:
            observations, _ = case.reset(par, None)
    else:
        raise AssertionError("200 steps without a masked-out action to play")
    reason = "; ".join(
        f"{a} played illegal action {actions[a]}; legal actions were {np.flatnonzero(masks[a]).tolist()}" for a in offenders
    )
    assert rewards == {a: -1.0 if a in offenders else 0.0 for a in agents}
    assert terms == dict.fromkeys(agents, True) and truncs == dict.fromkeys(agents, False)
    assert infos == {a: {"illegal_action": True, "illegal_move": actions[a] if a in offenders else -1} for a in agents}
    assert par.end_reason == reason
    assert set(observations) == set(agents) and not any(o["action_mask"].any() for o in observations.values())
    assert par.agents == []
    with pytest.raises(IllegalActionError, match="the game is over; call reset"):
        par.step(actions)


@pytest.mark.parametrize("case", WITH_ILLEGAL)
def test_raw_env_illegal_action_raises_and_changes_nothing(case):
    """``raw_env()``: before every move that has a masked-out alternative, that
    alternative raises ``IllegalActionError`` naming the action, the seat and the legal
    actions; afterwards the env shows exactly what a twin that never saw it shows,
    including a choice held back in a simultaneous step."""
    env, twin = case.make("raw_env"), case.make("raw_env")
    case.reset(env, 21)
    case.reset(twin, 21)
    check_outside_the_space_is_an_error(env)
    rng = np.random.default_rng(21)
    tried = 0
    while twin.agents:
        obs, _, term, trunc, _ = twin.last()
        action = None if term or trunc else masked_action(rng, obs["action_mask"])
        banned = np.flatnonzero(obs["action_mask"] == 0)
        if action is not None and banned.size:
            bad = int(rng.choice(banned))
            before = aec_snapshot(env)
            with pytest.raises(IllegalActionError) as raised:
                env.step(bad)
            assert raised.value.action == bad and raised.value.player == seat_of(env.agent_selection)
            assert raised.value.legal == np.flatnonzero(obs["action_mask"]).tolist()
            assert aec_snapshot(env) == before
            tried += 1
        env.step(action)
        twin.step(action)
        assert aec_snapshot(env) == aec_snapshot(twin)
    assert tried


@pytest.mark.parametrize("case", WITH_ILLEGAL_SIMULTANEOUS)
def test_raw_parallel_env_illegal_action_raises_and_changes_nothing(case):
    """``raw_parallel_env()``: the same, one offending agent per try."""
    par, twin = case.make("raw_parallel_env"), case.make("raw_parallel_env")
    observations, _ = case.reset(par, 22)
    case.reset(twin, 22)
    rng = np.random.default_rng(22)
    tried = 0
    while twin.agents:
        masks = {a: observations[a]["action_mask"] for a in twin.agents}
        actions = {a: masked_action(rng, m) for a, m in masks.items() if m.any()}
        can_offend = [a for a in actions if not masks[a].all()]
        if can_offend:
            offender = can_offend[int(rng.integers(len(can_offend)))]
            bad = dict(actions, **{offender: int(rng.choice(np.flatnonzero(masks[offender] == 0)))})
            before = par.game_state.to_text(), list(par.agents)
            with pytest.raises(IllegalActionError) as raised:
                par.step(bad)
            assert raised.value.action == bad[offender] and raised.value.player == seat_of(offender)
            assert raised.value.legal == np.flatnonzero(masks[offender]).tolist()
            assert (par.game_state.to_text(), list(par.agents)) == before
            tried += 1
        result = par.step(actions)
        assert parallel_snapshot(par, result) == parallel_snapshot(twin, twin.step(actions))
        observations = result[0]
    assert tried


@pytest.mark.parametrize("case", FROM_RESET)
def test_constructors_spaces_metadata_and_registry(case):
    """Every constructor the game needs (Parallel ones exactly for simultaneous games):
    agents, the game's configuration, metadata, cached spaces of the documented shapes
    and dtypes, ``game_state`` only after ``reset``, ``info_state`` per seat and an error
    for an unknown agent, ``render()`` without a mode warns, undeclared modes are errors;
    ``pettingzoo.make`` builds the same env, and ``"parallel"`` only for simultaneous games."""
    info = case.game.info
    module = case.module
    assert [hasattr(module, k) for k in ("parallel_env", "raw_parallel_env")] == [info.simultaneous] * 2
    agents = [f"player_{i}" for i in range(info.num_players)]
    declared = ["ansi", "human"] + (["rgb_array"] if has_picture(case.name) else [])
    for kind in case.kinds:
        env = case.make(kind)
        assert env.possible_agents == agents and env.unwrapped.game == case.game
        assert env.metadata == {"name": f"{case.name}_v0", "render_modes": declared, "is_parallelizable": info.simultaneous}
        for agent in agents:
            space = env.observation_space(agent)
            assert space is env.observation_space(agent) and env.action_space(agent) is env.action_space(agent)
            assert isinstance(space, spaces.Dict) and list(space.spaces) == ["action_mask", "observation"]
            assert space["observation"].dtype == np.float32 and space["observation"].shape == case.game.observation_shape
            mask_space = space["action_mask"]
            assert (mask_space.dtype, mask_space.shape) == (np.int8, (info.num_actions,))
            assert (mask_space.low.min(), mask_space.high.max()) == (0, 1)
            assert env.action_space(agent) == spaces.Discrete(info.num_actions)
        with pytest.raises(RuntimeError, match="reset"):
            env.unwrapped.game_state  # noqa: B018
        case.reset(env, 0)
        for agent in agents:
            assert env.unwrapped.info_state(agent) == env.unwrapped.game_state.info_state(seat_of(agent))
        with pytest.raises(ValueError, match="unknown agent 'player_9'"):
            env.unwrapped.info_state("player_9")
        with pytest.warns(UserWarning, match="without specifying any render mode"):
            assert env.render() is None
        for mode in {"ansi", "human", "rgb_array", "svg"} - set(declared):
            with pytest.raises(ValueError, match="render_mode must be one of"):
                case.make(kind, render_mode=mode)
    env_id = f"parlour/{case.name}-v0"
    made = pettingzoo.make("aec", env_id, **case.config)
    assert type(made) is type(module.env()) and made.unwrapped.game == case.game
    if info.simultaneous:
        assert pettingzoo.make("parallel", env_id, **case.config).unwrapped.game == case.game
    else:
        with pytest.raises(pettingzoo.env_registry.exceptions.NameNotFound):
            pettingzoo.make("parallel", env_id)


def test_registration_is_idempotent(recwarn):
    """Registering again (``import parlour`` did it once) warns about nothing."""
    parlour.registration.register_all()
    parlour.registration.register_all()
    assert not recwarn.list
