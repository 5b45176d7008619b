"""docs/baselines.md holds exactly what scripts/make_baselines_doc.py generates from the
registry: every registered player, its source and each of its parameters."""

from parlour.baselines import REGISTRY
from parlour.baselines.policy import variants
from scripts import make_baselines_doc as generator


def test_the_doc_is_what_the_generator_writes():
    assert generator.DOC.read_text() == generator.document(), "regenerate with: python -m scripts.make_baselines_doc"


def test_every_policy_and_parameter_is_in_the_reference():
    text = generator.reference()
    for cls in {cls for name in REGISTRY for cls in variants(name)}:
        section = text.split(f"### {cls.name}", 1)
        assert len(section) == 2, cls.name
        body = section[1].split("\n### ", 1)[0] if cls.games is None else text
        assert all(f"`{key}`" in body for key in cls.params), cls.name
