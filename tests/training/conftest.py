"""Fixtures shared by the training tests."""

import pytest


@pytest.fixture(scope="module")
def local_ray():
    """A real local Ray bound to 127.0.0.1, started once per test module (the RLlib tests)."""
    import ray

    from parlour.ray_cluster import loopback_only

    if ray.is_initialized():  # another test file's Ray in this process
        ray.shutdown()
    loopback_only()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    yield
    ray.shutdown()


@pytest.fixture
def bfloat16_cpu(monkeypatch):
    """A CPU with bfloat16 instructions, where ``auto`` precision picks bfloat16 (whatever
    this machine has): for the tests of that choice and of configurations captured on one."""
    monkeypatch.setattr("parlour.training.backends.ppo.backend.native_bfloat16", lambda: True)
