"""Speed and reference runs of parlour (figures in benchmarks/RESULTS.md).

Every script is a module run from the repository's root, ``python -m benchmarks.NAME``
(``--help`` for its options, ``--quick`` for a smoke run of a few seconds); what they
share is in :mod:`benchmarks.driver` (command line, clocks, medians, table rows) and
:mod:`benchmarks.random_play` (random games driven the same way everywhere).
``tests/test_benchmarks.py`` runs each in its quick mode.
"""
