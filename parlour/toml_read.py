"""Reading TOML on every Python parlour supports: the standard library's ``tomllib``
from Python 3.11, its backport ``tomli`` (a core dependency below 3.11) before it.

The one place that chooses: the training configuration, the scripts and the tests read
TOML through ``loads`` and catch ``TOMLDecodeError`` from here, so Python 3.10 runs the
same code.  The choice is by version, the same test as the dependency's marker
(``tomli; python_version < '3.11'``), not by trying the import: a 3.11 interpreter never
reads the backport even where some other package installed it.
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 (the compat job of .ci/run)
    import tomli as tomllib

loads = tomllib.loads
"""``loads(text)``: the TOML document ``text`` as a dict (raises ``TOMLDecodeError``)."""
TOMLDecodeError = tomllib.TOMLDecodeError
"""The error of a text that is not valid TOML."""

__all__ = ["TOMLDecodeError", "loads"]
