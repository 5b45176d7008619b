"""Fixtures of the interop tests: UserWarnings are errors (as in tests/envs), but for
the few PettingZoo's own tests raise on envs that are right."""

from __future__ import annotations

import pytest
from env_helpers import known_warnings_only


@pytest.fixture(autouse=True)
def _known_warnings_only():
    with known_warnings_only():
        yield
