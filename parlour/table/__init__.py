"""A person playing policies: the session of one game at a table (``session``), the
worker processes where its policies think with a deadline per move (``thinking``),
which players a request may name and how long they may think (``specs``), and what a
table refuses (``errors``).

No front end here: ``parlour serve`` (:mod:`parlour.web`) serves sessions over HTTP and
``parlour play`` (:mod:`parlour.terminal`) plays one in a terminal, so the same seed
deals the same game and draws the same policy moves in both.
"""
