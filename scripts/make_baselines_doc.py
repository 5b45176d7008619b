"""Regenerate the reference part of docs/baselines.md from the registry:

    python -m scripts.make_baselines_doc            # rewrite the page
    python -m scripts.make_baselines_doc --check    # exit 1 if the page is out of date

The part above the ``<!-- reference -->`` marker is written by hand and kept; the part
below it is :func:`reference`, which ``tests/baselines/test_baselines_doc.py`` compares
with the file, so the page cannot go stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parlour.baselines import REGISTRY
from parlour.baselines.policy import variants

DOC = Path(__file__).resolve().parents[1] / "docs" / "baselines.md"
MARKER = "<!-- reference -->"


def reference() -> str:
    """The generated reference: every registered player (per game where several share a
    name), its summary, games, source and parameters."""
    classes = [cls for name in sorted(REGISTRY) for cls in variants(name)]
    out = ["## Reference (generated from `parlour policies`)", ""]
    for cls in classes:
        title = cls.name + (f" ({', '.join(cls.games)})" if cls.games else "")
        out.append(f"### {title}\n")
        out.append(f"{cls.summary.rstrip('.')}.\n")
        out.append(f"- games: {', '.join(cls.games) if cls.games else 'any game it supports (it says why not otherwise)'}")
        out.append(f"- source: {cls.source}")
        if cls.params:
            out.append("- parameters:")
            for key, spec in cls.params.items():
                choices = f" (one of {', '.join(map(str, spec.choices))})" if spec.choices else ""
                out.append(f"  - `{key}` (default `{spec.default!r}`): {spec.help}{choices}")
        else:
            out.append("- parameters: none")
        out.append("")
    return "\n".join(out)


def document() -> str:
    """The whole page: the hand-written part, the marker, the reference."""
    intro = DOC.read_text().split(MARKER)[0] if DOC.exists() else ""
    return f"{intro.rstrip()}\n\n{MARKER}\n\n{reference()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the page is up to date")
    args = parser.parse_args(argv)
    new = document()
    if args.check:
        if DOC.read_text() != new:
            print(f"{DOC} is out of date: run python -m scripts.make_baselines_doc", file=sys.stderr)
            return 1
        print(f"{DOC} is up to date")
        return 0
    DOC.write_text(new)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
