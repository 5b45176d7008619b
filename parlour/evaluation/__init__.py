"""Playing matches and saying who is stronger: the arena (``arena``, the match; its
schedule, seeds, seat rotation and one game in ``match_games``; played in local worker
processes, ``match_pool``, or as Ray tasks, ``match_ray``), ratings with confidence intervals
(``ratings``), the reports of a match (``report``), and an agent's win rates against a
set of opponents (``win_rates``, what training's evaluations and gating use).

A layer of its own between the players and training: training, the benchmark, the web
and the command line all play their matches here (docs/architecture.md).
"""
