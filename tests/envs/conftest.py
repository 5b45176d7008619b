"""Fixtures of the env tests (the helpers are in ``tests/env_helpers.py``).

- ``_known_warnings_only`` (autouse): PettingZoo's tests report some real conformance
  problems only as warnings, so every UserWarning is an error here except the few that
  PettingZoo's own tests raise on parlour envs that are right (``KNOWN_WARNINGS``).
- ``setup_24``: Double Card's 24-card setup, from which every move recycles.
"""

from __future__ import annotations

import pytest
from env_helpers import DOUBLE_CARD_SETUP_24, known_warnings_only


@pytest.fixture
def setup_24() -> list[str]:
    """``DOUBLE_CARD_SETUP_24`` for a test that takes it as an argument."""
    return list(DOUBLE_CARD_SETUP_24)


@pytest.fixture(autouse=True)
def _known_warnings_only():
    with known_warnings_only():
        yield


