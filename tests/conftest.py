"""The suite's order: the tests marked ``slow`` first, the rest in their usual order.

The README's test command runs the suite on two xdist workers, which deal the first
quarter of the tests out in turn and then hand on the rest as each worker runs low.  A
test of minutes dealt out near the end keeps one worker busy while the other has nothing
left; started first, the long tests share the two workers and the short ones fill the
gaps.  (Tests must not depend on their order; this also checks that they do not.)"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # a stable sort: each group keeps its order
