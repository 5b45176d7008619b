"""docs/baselines.md holds exactly what scripts/make_baselines_doc.py generates from the
registry: every registered player, its source and each of its parameters."""

import importlib.util
from pathlib import Path

from parlour.baselines import REGISTRY
from parlour.baselines.policy import _PER_GAME

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("make_baselines_doc", ROOT / "scripts" / "make_baselines_doc.py")
generator = importlib.util.module_from_spec(spec)
spec.loader.exec_module(generator)


def test_the_doc_is_what_the_generator_writes():
    assert generator.DOC.read_text() == generator.document(), "regenerate with: python scripts/make_baselines_doc.py"


def test_every_policy_and_parameter_is_in_the_reference():
    text = generator.reference()
    for cls in set(REGISTRY.values()) | set(_PER_GAME.values()):
        section = text.split(f"### {cls.name}", 1)
        assert len(section) == 2, cls.name
        body = section[1].split("\n### ", 1)[0] if cls.games is None else text
        assert all(f"`{key}`" in body for key in cls.params), cls.name
