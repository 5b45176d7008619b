"""Issue 28's bounds under load, against a real ``parlour serve`` process on 127.0.0.1
(the load itself: benchmarks/web_load.py).  Marked ``serial``: the README's test
command runs them alone, after the parallel suite, so that the figures are the
server's and not those of the tests running beside it."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("uvicorn", reason="needs the web extra")
pytest.importorskip("httpx", reason="needs httpx (the dev extra)")

from benchmarks import web_load  # noqa: E402  (after the skips: it imports httpx)

pytestmark = [pytest.mark.serial, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]


def test_fifty_clients_are_not_slowed_by_a_game_whose_opponent_thinks_for_the_whole_limit():
    result = web_load.latency(clients=50, move_seconds=1.0, slow=True)
    print(f"p50 {result['p50_ms']:.1f} ms, p95 {result['p95_ms']:.1f} ms, max {result['max_ms']:.0f} ms over "
          f"{result['requests']} requests; slow game {result['slow']}")
    assert not result["errors"], result["errors"][:3]
    slow = result["slow"]
    assert slow["over"] and slow["stalled"] is None and slow["replayed"] and slow["moves"] >= 5
    assert slow["seconds"] >= slow["moves"] - 1  # its opponent did think about a second a move, all along
    assert result["p95_ms"] < 200, result


def test_six_thousand_abandoned_games_keep_the_servers_memory_bounded():
    """Twelve times the server's cap of 500 games turned over. A leak of 8 kB a game
    would show: 30 MB over the 4,000 games after the sample at 2,000. (The benchmark,
    benchmarks/web_load.py soak, runs 20,000 games.)"""
    samples = web_load.soak(games=6_000)
    print("server RSS (games, MB):", samples)
    settled = dict(samples)[2000]  # the cap of 500 games is reached long before
    assert max(rss for n, rss in samples if n >= 2000) < settled + 30, samples
