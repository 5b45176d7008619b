"""Ctrl-C is the parent's to report: the worker processes parlour starts ignore it from
their first instruction, not only from their initializer on.  A Ctrl-C while a spawned
worker still imports or unpickles (a busy machine stretches that to seconds) would
otherwise raise ``KeyboardInterrupt`` in it and print a traceback under the parent's one
line.  The end-to-end test is ``test_ctrl_c_stops_a_multi_worker_arena_at_once``."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from typing import Any

import pytest

from parlour.processes import hold_ctrl_c, ignore_ctrl_c, start_pool

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="holding a signal needs POSIX signal masks")


@pytest.fixture(autouse=True)
def ctrl_c_raises():
    """Ctrl-C as a terminal's foreground command handles it: ``KeyboardInterrupt``.  A
    test run started in the background (``... &``, as a CI script may be) inherits SIGINT
    ignored, and Python then leaves it ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _interrupted_while_starting(connection: Any) -> None:
    """A worker that gets Ctrl-C before its initializer has run (sent by itself, so that
    it surely comes then), and says what it saw and whether it lived on."""
    held = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    os.kill(os.getpid(), signal.SIGINT)
    pending = signal.SIGINT in signal.sigpending()
    ignore_ctrl_c()
    time.sleep(0.05)  # a Ctrl-C not dropped would be raised by now
    connection.send((held, pending, signal.SIGINT in signal.sigpending()))


def test_a_worker_started_with_ctrl_c_held_drops_one_that_came_before_it_ignored_it():
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=_interrupted_while_starting, args=(child,))
    with hold_ctrl_c():
        process.start()
    child.close()
    assert parent.poll(60), "the worker died of its Ctrl-C"
    assert parent.recv() == (True, True, False)  # held from the start, pending, then dropped
    process.join(10)
    assert process.exitcode == 0


def test_a_ctrl_c_to_the_starter_during_the_hold_is_delivered_after_it_not_lost():
    with pytest.raises(KeyboardInterrupt):
        with hold_ctrl_c():
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # to this thread, which holds it
            time.sleep(0.05)
            assert signal.SIGINT in signal.sigpending()
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the mask is as it was
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # and the handler


def test_a_ctrl_c_that_another_thread_takes_during_the_hold_is_raised_after_it():
    """The kernel gives a process's SIGINT to any thread not blocking it, and Python runs
    the handler in the main thread whatever its mask: the hold notes it instead, so that
    no ``KeyboardInterrupt`` comes halfway through starting a pool."""
    awake = threading.Event()
    other = threading.Thread(target=awake.wait, daemon=True)  # started before the hold: SIGINT not blocked in it
    other.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            with hold_ctrl_c():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.1)  # raised by now, were it not noted
                reached_the_end = True
        assert reached_the_end
    finally:
        awake.set()
        other.join()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_pools_workers_ignore_ctrl_c_and_go_on_working():
    with start_pool(1) as pool:
        worker = pool.apply(os.getpid)
        os.kill(worker, signal.SIGINT)
        time.sleep(0.2)
        assert pool.apply(os.getpid) == worker  # the same process, alive and answering
