"""An AlphaZero search's teacher games, many at once on the vectorised search.

Pretraining (``parlour.training.pretrain``) asks its teacher once per recorded position,
one game at a time in each worker.  For an ``az`` search that is one tree walked in
Python per move: Tides of Time's zoo search at 64 simulations plays about 80 positions a
second a process, so a teacher that rates +964 on the bench labels 9,000 games in 35
minutes on two cores, and the network it teaches is only as good as that many positions
make it.  Self-play already plays such searches in lockstep (``vector_puct``: every
game's searches as array operations on the batched engine, benchmarks/RESULTS.md "Self-play
in lockstep", about 12x the tree search for Tides of Time); here the teacher's games are
played the same way, 8.4x as many positions a second for that teacher
(``benchmarks/pretrain_lockstep.py``): the same search rule for rule (``PUCT``'s, with the player's
``c``, ``simulations``, ``rollout_mix``, ``gumbel`` root and ``temperature``, no root
noise), the same records as :func:`parlour.training.pretrain.play_teacher_game` makes
(each decision's observation, mask, visit counts, and the mover's discounted return), the
same moves (a share ``explore`` uniformly random, else the distribution's most probable
legal move, the lowest on a tie, or in student games the student network's) and the same
deals and deep starts (each opened through the rules module and loaded into its row).

Game ``g`` draws its deal and exploring moves from ``numpy.random.default_rng([seed, g])``
as the one-at-a-time games do, and its searches from their own generator seeded from the
same pair; the network is called on at least 16 rows (``SEARCH_BATCH``), so a game does
not depend on which row it plays in or beside which others, nor on how many ``workers``
play the tasks.  Its searches draw in another order than the tree search's, so the games
are not the one-at-a-time games (as ``self_play.play_games``'s two searches are not).
The network runs in float32 (or the spec's ``inference=bfloat16``): ``inference=numpy``,
the player's fast path for one row a call, would make a row's numbers depend on its batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines import make_from_spec
from parlour.games.base import Game
from parlour.games.engine import SearchableEngine
from parlour.training.starts import SingleOpenings, Starts

Decision = tuple[np.ndarray, np.ndarray, np.ndarray, int]
"""One recorded decision: the mover's observation, legal mask, the teacher's label there, the mover."""

LOCKSTEP_TASK = 4
"""A worker's task is this many times ``lockstep`` games (fixed, so the tasks, and with
them the games, do not depend on the number of workers)."""


def lockstep_refusal(game: Game, spec: str) -> str | None:
    """Why the teacher ``spec`` cannot play its pretraining games in lockstep on ``game``'s
    vectorised search; ``None`` if it can (an ``az`` player that searches, on an engine
    ``vector_puct.search_refusal`` accepts)."""
    return _refusal(make_from_spec(spec, game), spec, game)


def _refusal(player: Any, spec: str, game: Game) -> str | None:
    """:func:`lockstep_refusal` for the teacher ``spec`` already made (``player``)."""
    from parlour.baselines.engines.vector_puct import search_refusal
    from parlour.vector import ENGINES

    if player.name != "az" or player.config["simulations"] < 1:
        return f"teacher {spec!r} is not an az player that searches (az:PATH,simulations=N with N >= 1)"
    return search_refusal(ENGINES.get(game.name), game)


def lockstep_games(game: Game, spec: str, indices: list[int], seed: int, explore: float, gamma: float,
                   lockstep: int, student: str = "", starts: Starts | None = None) -> list[tuple[list[Decision], np.ndarray]]:
    """Games ``indices`` of the teacher ``spec`` (module docstring), at most ``lockstep`` at
    once, a finished game's row taking the next: for each, its decisions ``(observation,
    mask, label, mover)`` in order and its returns.  ``student``: a PPO model file whose
    most probable legal move is played where the teacher's would be (one forward pass for
    every deciding seat of a step), the teacher still labelling every position
    (``parlour.training.pretrain``'s student games).  ``starts``: each game begins where its
    opening leaves it, drawn as the one-at-a-time game's (``SingleOpenings.deal`` through
    the rules module, then loaded into its row)."""
    from parlour.baselines.engines.gumbel import Gumbel
    from parlour.baselines.engines.vector_puct import VectorPUCT
    from parlour.baselines.learned.alphazero import inference_network
    from parlour.baselines.learned.az_model import load_az_net, network_leaves
    from parlour.baselines.learned.ppo_batched import FrozenPPO
    from parlour.vector.lockstep import lockstep_engine, play_in_lockstep, round_of

    player = make_from_spec(spec, game)
    refusal = _refusal(player, spec, game)
    if refusal is not None:
        raise ValueError(f"pretraining in lockstep: {refusal}")
    settings = player.config
    simulations, temperature = settings["simulations"], settings["temperature"]
    mix = player.evaluator.rollout_mix  # type: ignore[attr-defined]  # the player's, read from the model where not given
    inference = "float32" if settings["inference"] == "numpy" else settings["inference"]
    net = inference_network(load_az_net(settings["path"], game).eval(), inference)
    leaves = network_leaves(net, mix, game.info.max_game_length)

    rngs = [np.random.default_rng([seed, index]) for index in indices]
    searches = [np.random.default_rng(int(np.random.SeedSequence([seed, index]).generate_state(1)[0])) for index in indices]
    games = lockstep_engine(game, len(indices), lockstep)
    search = VectorPUCT(games, c=settings["c"], gumbel=Gumbel(sample=False) if settings["gumbel"] else None)
    records: list[list[Decision]] = [[] for _ in indices]
    mover = FrozenPPO(student, game, deterministic=True) if student else None

    def decide(games: SearchableEngine, alive: np.ndarray, playing: np.ndarray) -> np.ndarray:
        now = round_of(games, alive)
        labels: dict[tuple[int, int], np.ndarray] = {}
        if now.searched:
            rows, seats = np.array([b for b, _ in now.searched]), np.array([p for _, p in now.searched])
            result = search.run(games, rows, seats, [searches[playing[b]] for b in rows], simulations, leaves)
            labels.update(zip(now.searched, result.policies(temperature).astype(np.float32)))
        picks = None
        if mover is not None and now.deciding:
            picks = mover.most_probable(np.stack([now.observations[i, p] for i, _, p in now.deciding]).astype(np.float32),
                                        np.stack([now.legal[b, p] for _, b, p in now.deciding]))
        for k, (i, b, p) in enumerate(now.deciding):
            g, mask = playing[b], now.legal[b, p]
            label = labels.get((b, p))
            if label is None:  # one legal move: all weight on it, no search
                label = mask.astype(np.float32)
            moves = np.flatnonzero(mask)
            explored = rngs[g].random() < explore
            own = int(moves[np.argmax(label[moves])]) if picks is None else int(picks[k])
            now.play(b, p, int(rngs[g].choice(moves)) if explored else own)
            records[g].append((np.asarray(now.observations[i, p], dtype=np.float32), mask.copy(), label, p))
        return now.joint

    returns = play_in_lockstep(game, games, rngs, decide, None if starts is None else SingleOpenings(game, starts).deal)
    return list(zip(records, returns))
