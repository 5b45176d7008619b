"""docs/baselines.md documents every registered player and each of its parameters."""

from pathlib import Path

from parlour.baselines import REGISTRY
from parlour.baselines.policy import _PER_GAME

DOC = (Path(__file__).resolve().parents[2] / "docs" / "baselines.md").read_text()


def test_every_policy_and_parameter_is_documented():
    classes = set(REGISTRY.values()) | set(_PER_GAME.values())
    missing = []
    for cls in classes:
        if cls.name.startswith("test-"):
            continue
        section = DOC.split(f"### {cls.name}", 1)
        if len(section) < 2:
            missing.append(cls.name)
            continue
        body = section[1].split("\n### ", 1)[0] if cls.games is None else DOC
        missing += [f"{cls.name}.{key}" for key in cls.params if f"`{key}`" not in body]
    assert not missing, f"regenerate with: python scripts/make_baselines_doc.py ({missing})"
