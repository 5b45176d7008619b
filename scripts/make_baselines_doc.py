"""Regenerate the reference part of docs/baselines.md from the registry:

    python scripts/make_baselines_doc.py

The part above the ``<!-- reference -->`` marker is written by hand and kept; the part
below it is :func:`reference`, which ``tests/baselines/test_baselines_doc.py`` compares
with the file, so the page cannot go stale.
"""

from pathlib import Path

from parlour.baselines import REGISTRY
from parlour.baselines.policy import _PER_GAME

DOC = Path(__file__).resolve().parents[1] / "docs" / "baselines.md"
MARKER = "<!-- reference -->"


def reference() -> str:
    """The generated reference: every registered player (per game where several share a
    name), its summary, games, source and parameters."""
    classes = []
    for name in sorted(REGISTRY):
        variants = sorted({cls for (n, _), cls in _PER_GAME.items() if n == name}, key=lambda c: c.games) or [REGISTRY[name]]
        classes.extend(variants)
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


if __name__ == "__main__":
    DOC.write_text(document())
