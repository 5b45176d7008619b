"""Regenerate the reference part of docs/baselines.md from the registry:

    python scripts/make_baselines_doc.py
"""
from pathlib import Path
from parlour.baselines import REGISTRY
from parlour.baselines.policy import _PER_GAME

path = Path("docs/baselines.md")
intro = path.read_text().split("<!-- reference -->")[0] if path.exists() else ""
classes = []
for name in sorted(REGISTRY):
    variants = sorted({cls for (n, _), cls in _PER_GAME.items() if n == name}, key=lambda c: c.games) or [REGISTRY[name]]
    classes.extend(variants)
out = [intro.rstrip(), "", "<!-- reference -->", "", "## Reference (generated from `parlour policies`)", ""]
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
path.write_text("\n".join(out))
