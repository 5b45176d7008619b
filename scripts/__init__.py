"""The maintainers' generators of the repository's pages and data: each a module run
from the repository's root, ``python -m scripts.NAME`` (``--help`` for its options).
Those that write a committed page have ``--check`` (regenerate in memory, compare, exit
1 when the page is out of date), which ``tests/test_benchmarks.py`` runs.
"""
