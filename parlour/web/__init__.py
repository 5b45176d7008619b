"""``parlour serve``: the games in the browser (the ``web`` extra: Starlette and uvicorn).

HTTP only: ``app`` serves the sessions of :mod:`parlour.table` (a game played by people
and policies, with no web framework in it) as a JSON API and the page in ``static/``
(plain HTML, CSS and JavaScript); ``guard`` checks every request, ``store`` keeps the
games in play on the server, ``errors`` gives each refusal its HTTP status.  See
docs/web.md.
"""
