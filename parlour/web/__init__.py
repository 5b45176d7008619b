"""``parlour serve``: the games in the browser (the ``web`` extra: Starlette and uvicorn).

``session`` is a game played by people and policies, with no web framework in it;
``app`` serves sessions as a JSON API and the page in ``static/`` (plain HTML, CSS and
JavaScript).  See docs/web.md.
"""
