"""``parlour serve`` under load (issue 28), against a real server in its own process on
127.0.0.1 (``python -m parlour.cli serve``), driven over HTTP from this one:

- ``latency``: 50 clients create games (sticks, Goofspiel, Tribolo, against ``random``)
  and move, each pausing 0.2-0.6 s between requests as a person would, while one more
  client plays a whole game of sticks (30 sticks) against ``mcts:simulations=100000000``, which
  thinks the server's whole per-move limit (``--move-seconds``) on every move.  The 50
  clients' latency (median, 95th percentile, worst) is measured with and without the
  slow game; the slow game must end as the rules say.
- ``soak``: 20,000 games created and abandoned (four clients at once, each game given
  one move half of the time), the server's resident memory (``VmRSS``) read every 1,000
  games; the server keeps at most ``--max-games`` (default 500).

    python -m benchmarks.web_load latency [--clients 50] [--move-seconds 1]
    python -m benchmarks.web_load soak [--games 20000]
    python -m benchmarks.web_load latency --quick    # a smoke run: 3 clients, 0.1 s a move, one run

The test suite runs both (tests/web/test_load_limits.py), alone after the parallel
tests, and checks the issue's bounds: a 95th percentile under 200 ms, memory flat once
the cap is reached.  Figures: benchmarks/RESULTS.md.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from benchmarks.driver import parser

GAMES = [("sticks", {"num_sticks": 12}, 2), ("goofspiel", {"num_cards": 5}, 2),
         ("tribolo", {"width": 6, "height": 5, "walls": 2, "start_cells": 2}, 3),
         ("double_card", {}, 2), ("tides_of_time", {"rounds": 1}, 2)]


class Server:
    """``parlour serve`` in a process of its own on a free port of 127.0.0.1."""

    def __init__(self, *flags: str, runs: Path | None = None) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "parlour.cli", "serve", "--port", str(self.port), "--runs", str(runs or "/nonexistent"), *flags]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/api/catalog", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise RuntimeError(f"parlour serve did not start: {self.output()}")
            time.sleep(0.1)

    def rss_mb(self) -> float:
        """The server process's resident memory, MB (Linux: /proc)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def output(self) -> str:
        if self.process.poll() is None:
            return ""
        return self.process.stdout.read() if self.process.stdout else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


async def _client(client: httpx.AsyncClient, index: int, stop: asyncio.Event, latencies: list[float], errors: list[str]) -> None:
    """Create games and move in them, pausing like a person, until ``stop``."""
    rng = np.random.default_rng(index)
    await asyncio.sleep(float(rng.uniform(0, 1)))  # people arrive one by one, not all in the same millisecond

    async def timed(method: str, path: str, body: Any = None) -> dict[str, Any]:
        start = time.perf_counter()
        response = await client.request(method, path, json=body)
        latencies.append(time.perf_counter() - start)
        if response.status_code >= 400:
            errors.append(f"{method} {path}: {response.status_code} {response.text[:200]}")
        return response.json()

    game = index
    while not stop.is_set():
        name, options, seats = GAMES[game % 3]
        created = await timed("POST", "/api/sessions", {"game": name, "options": options, "seats": ["person"] + ["random"] * (seats - 1),
                                                        "seed": game})
        key, view = created["id"], created["view"]
        while not view["over"] and not stop.is_set():
            await asyncio.sleep(float(rng.uniform(0.2, 0.6)))
            view = await timed("POST", f"/api/sessions/{key}/move", {"seat": 0, "action": view["moves"][0]["action"]})
        game += 50


async def _slow_game(url: str, result: dict[str, Any]) -> None:
    """Sticks against a search that thinks the whole per-move limit, to the end."""
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        await asyncio.sleep(1.0)  # once the others play
        created = (await client.post("/api/sessions", json={"game": "sticks", "options": {"num_sticks": 30},
                                                            "seats": ["person", "mcts:simulations=100000000"]})).json()
        key, view = created["id"], created["view"]
        start, moves = time.perf_counter(), 0
        while not view["over"]:
            view = (await client.post(f"/api/sessions/{key}/move", json={"seat": 0, "action": view["moves"][0]["action"]})).json()
            moves += 1
            if view.get("stalled"):
                break
        record = (await client.get(f"/api/sessions/{key}/record")).json()
        loaded = (await client.post("/api/sessions/load", json=record)).json()
        result.update(seconds=time.perf_counter() - start, moves=moves, over=view["over"], stalled=view.get("stalled"),
                      log=len(view["log"]), replayed=loaded["view"]["text"] == view["text"] and loaded["view"]["over"])


async def _latency(url: str, clients: int, slow: bool, seconds: float) -> dict[str, Any]:
    stop, latencies, errors, slow_result = asyncio.Event(), [], [], {}
    # Each client its own connection, made before the clock starts (making an httpx client
    # takes tens of milliseconds of this process's event loop, which the others would count).
    people = [httpx.AsyncClient(base_url=url, timeout=60) for _ in range(clients)]
    tasks = [asyncio.create_task(_client(people[i], i, stop, latencies, errors)) for i in range(clients)]
    if slow:
        await _slow_game(url, slow_result)
    else:
        await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks)
    for person in people:
        await person.aclose()
    ordered = sorted(latencies)
    return {"requests": len(ordered), "p50_ms": 1000 * statistics.median(ordered),
            "p95_ms": 1000 * ordered[int(0.95 * (len(ordered) - 1))], "max_ms": 1000 * ordered[-1], "errors": errors, "slow": slow_result}


def latency(clients: int = 50, move_seconds: float = 1.0, slow: bool = True, seconds: float = 10.0) -> dict[str, Any]:
    """The 50 clients' latency while the slow game plays (``slow``) or for ``seconds``."""
    with Server("--move-seconds", str(move_seconds), "--workers", "2") as server:
        result = asyncio.run(_latency(server.url, clients, slow, seconds))
        result["server_rss_mb"] = server.rss_mb()
    return result


def soak(games: int = 20_000, max_games: int = 500, every: int = 1000, clients: int = 4) -> list[tuple[int, float]]:
    """(games created, the server's resident MB) every ``every`` games."""
    samples: list[tuple[int, float]] = []
    with Server("--max-games", str(max_games), "--workers", "2") as server:
        counter, lock, failures = [0], threading.Lock(), []

        def work(index: int) -> None:
            rng = np.random.default_rng(index)
            with httpx.Client(base_url=server.url, timeout=60) as client:
                while True:
                    with lock:
                        if counter[0] >= games:
                            return
                        counter[0] += 1
                        n = counter[0]
                        if n % every == 0:
                            samples.append((n, server.rss_mb()))
                    name, options, seats = GAMES[n % len(GAMES)]
                    response = client.post("/api/sessions", json={"game": name, "options": options, "seed": n,
                                                                  "seats": ["person"] + ["random"] * (seats - 1)})
                    if response.status_code != 201:
                        failures.append(response.text[:200])
                        return
                    view = response.json()["view"]
                    if rng.random() < 0.5 and view["moves"]:
                        client.post(f"/api/sessions/{response.json()['id']}/move", json={"seat": 0, "action": view["moves"][0]["action"]})

        threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise RuntimeError(f"a game was refused: {failures[0]}")
        kept = len(httpx.get(server.url + "/api/sessions").json()["games"])
        samples.append((games, server.rss_mb()))
        print(f"games listed at the end: {kept} (the list shows at most 100)", file=sys.stderr)
    return sorted(samples)


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__.split("\n\n")[0], runs=3, runs_help="latency: runs, the median reported",
                         quick_help="a smoke run: 3 clients for 2 s, 0.1 s a move, one run; soak: 200 games")
    args_parser.add_argument("what", choices=["latency", "soak"])
    args_parser.add_argument("--clients", type=int, default=50)
    args_parser.add_argument("--move-seconds", type=float, default=1.0)
    args_parser.add_argument("--games", type=int, default=20_000)
    args = args_parser.parse_args(argv)
    seconds, every = 10.0, 1000
    if args.quick:
        args.clients, args.move_seconds, args.runs, args.games, seconds, every = 3, 0.1, 1, 200, 2.0, 100
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    if args.what == "latency":
        for slow in (False, True):
            results = [latency(args.clients, args.move_seconds, slow=slow, seconds=seconds) for _ in range(args.runs)]
            p95 = statistics.median(r["p95_ms"] for r in results)
            p50 = statistics.median(r["p50_ms"] for r in results)
            worst = statistics.median(r["max_ms"] for r in results)
            what = "with the slow game" if slow else f"alone ({seconds:g} s)"
            print(f"{args.clients} clients {what}: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {worst:.0f} ms "
                  f"(median of {args.runs} runs; {statistics.median(r['requests'] for r in results):.0f} requests a run)")
            if slow:
                for r in results:
                    print(f"  slow game: {r['slow']}, errors {len(r['errors'])}")
    else:
        for n, rss in soak(args.games, every=every):
            print(f"{n:>6} games: server RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
