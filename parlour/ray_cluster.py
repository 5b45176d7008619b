"""Joining or starting Ray, for the RLlib trainer and the Ray arena (the ``rllib`` extra).

One rule everywhere: an explicit address (``--address``), else ``RAY_ADDRESS``, names a
running cluster to join; with neither, parlour starts a new local Ray bound to 127.0.0.1
(``address="local"``: never a cluster that ``ray start`` or another process left
running on this machine, which plain ``ray.init()`` would join) and stops it when done.
A Ray already initialised in the process is used as it is.

Loopback: on Linux, Ray 2.60 turns a node address of 127.0.0.1 into the machine's
routable address (``services.resolve_ip_for_localhost``) and its gRPC servers then
listen on every interface.  Ray keeps a node on the loopback only where it does not
expect clusters (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, its setting for laptops);
``loopback_only`` sets that, for a local Ray and for the tests' two-node cluster (Ray's
``cluster_utils.Cluster``, whose nodes then all listen on 127.0.0.1 only).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


def require_ray() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        raise ImportError("the Ray backend needs the rllib extra (ray is missing): pip install 'parlour[rllib]'") from None


LOOPBACK_SETTING = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def loopback_only() -> None:
    """Make Ray nodes started from now on by this process advertise and bind 127.0.0.1
    (see the module docstring): in Ray's constants for this process, in the environment
    for the processes it starts."""
    require_ray()
    from ray._private import ray_constants

    os.environ[LOOPBACK_SETTING] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False


def connect(address: str = "") -> bool:
    """Join or start Ray (see the module docstring); True if this call started it."""
    require_ray()
    import ray

    if ray.is_initialized():
        return False
    address = address or os.environ.get("RAY_ADDRESS", "")
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        loopback_only()
        ray.init(address="local", include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    return True


@contextmanager
def ray_session(address: str = "") -> Iterator[None]:
    """Ray for the block; shut down after it if the block's ``connect`` started it."""
    started = connect(address)
    try:
        yield
    finally:
        if started:
            import ray

            ray.shutdown()
